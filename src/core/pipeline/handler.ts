/**
 * The transport-neutral request handler: plain request in, plain response out. Routing, auth,
 * body parsing, validation and the error shape all live here, once, so the Fastify server and the
 * MSW handlers only translate and answer byte for byte alike.
 */
import { ApiError } from './errors.js';
import { JsonText } from './json-text.js';
import { MethodNotAllowed, Router, type PathParams, type Route } from './router.js';

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
}

/** What a route answers before serialization. */
export interface RouteReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What a route receives. */
export interface RouteContext {
  request: ApiRequest;
  params: PathParams;
}

/** A route's handler. */
export type RouteHandler = (context: RouteContext) => RouteReply | Promise<RouteReply>;

/** Handles one request. Never throws: every failure becomes a JSON error response. */
export type RequestHandler = (request: ApiRequest) => Promise<ApiResponse>;

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } as const;

/** The handler over a route table; `onUnexpectedError` sees bugs (for logging) before the 500. */
export function createRequestHandler(
  routes: Array<Route<RouteHandler>>,
  onUnexpectedError: (error: unknown, request: ApiRequest) => void = () => {},
): RequestHandler {
  const router = new Router(routes);
  return async (request) => {
    const method = request.method.toUpperCase();
    let reply: RouteReply;
    try {
      const { handler, params } = router.match(method, pathOf(request.url));
      reply = await handler({ request, params });
    } catch (error) {
      reply = errorReply(error, request, onUnexpectedError);
    }
    return serialize(reply, method);
  };
}

/** The response for an error raised outside the engine's handler (e.g. a transport's body limit). */
export function errorResponse(error: ApiError): ApiResponse {
  return serialize(errorReply(error, undefined, () => {}), 'GET');
}

function errorReply(
  error: unknown,
  request: ApiRequest | undefined,
  onUnexpectedError: (error: unknown, request: ApiRequest) => void,
): RouteReply {
  if (!(error instanceof ApiError)) {
    if (request) onUnexpectedError(error, request);
    return errorReply(new ApiError('internal_error'), request, onUnexpectedError);
  }
  const headers: Record<string, string> = error instanceof MethodNotAllowed ? { allow: error.allow.join(', ') } : {};
  if (error.status === 401) headers['www-authenticate'] = 'Bearer realm="lnpr-sandbox"';
  return { status: error.status, body: error.toBody(), headers };
}

function serialize(reply: RouteReply, method: string): ApiResponse {
  const hasBody = reply.body !== undefined && method !== 'HEAD';
  return {
    status: reply.status,
    headers: { ...(reply.body !== undefined ? JSON_HEADERS : {}), ...reply.headers },
    body: !hasBody ? '' : reply.body instanceof JsonText ? reply.body.text : JSON.stringify(reply.body),
  };
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
