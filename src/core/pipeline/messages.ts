/**
 * The plain objects a request and its answer travel as between a transport and the engine, and
 * what a route's handler answers before serialization. A leaf: the pipeline's other files all
 * speak these words.
 */

/** A request as a transport hands it over. Header names are lower case. */
export interface ApiRequest {
  method: string;
  /** Path and query, e.g. `/api/v1/payment-requests/pr_x?y=1`. */
  url: string;
  headers: Readonly<Record<string, string | undefined>>;
  /** The raw body text, if any. */
  body?: string;
}

/** A response for a transport to send as is. */
export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** Serialized JSON, or '' when there is no body (204, HEAD). */
  body: string;
  /**
   * What an API fault asks of the transport (core/resilience): answer `delayMs` late, or, with
   * `drop`, send nothing and close the connection (after `delayMs`, for a hang).
   */
  transport?: TransportFault;
}

/** How a transport misbehaves for an API fault. */
export interface TransportFault {
  delayMs?: number;
  drop?: boolean;
}

/** What a route answers before serialization. */
export interface RouteReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The path of a request's `url` (path and query, as `ApiRequest` carries it): without its query. */
export function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}
