/**
 * The request log: one record per answered request, at `info`: what someone reading the log scans
 * for (method, URL, status, time, and the payment request the answer is about) and never a
 * header, so never an API key. Records go to the logger (pino), or to a sink that writes them
 * itself: pino's generic serializer was most of what a logged request cost.
 *
 * Fastify runs without a logger (see `server.ts`), so its per-request logging machinery (a
 * request id, a child logger, two listeners on each response to time it) costs nothing; the
 * transport hands each API answer to `answered` as it sends it, timed from the request's arrival
 * (`stampArrival`). The few other routes (pages, live streams) are logged by Fastify's log
 * controller when their response ends, which Fastify calls only for routes with an `onResponse`
 * hook.
 */
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/** The message of request records; the pretty format recognises them by it. */
export const REQUEST_MESSAGE = 'request completed';

/** The fields of a request record, beside pino's own (level, time, pid, hostname, msg). */
export interface RequestRecord {
  method: string;
  url: string;
  statusCode: number;
  /** Milliseconds from the request's arrival to the response's end, two decimals. */
  responseTime: number;
  /** The payment request the answer is about, when it names one. */
  paymentRequestId?: string;
}

/** Takes each answered request's record instead of the logger; it decides whether to log at all. */
export type RequestLogSink = (record: RequestRecord) => void;

// When the request arrived (performance.now()), on Node's request object: a plain property,
// the same on every request, costs less than any lookup beside it.
const arrivedAt = Symbol('lnpr arrival');
// Set on a page's or stream's request answered before its route ran (refused, or a preflight):
// `answered` logged it, so the log controller does not log it again.
const loggedEarly = Symbol('lnpr logged early');
type StampedRequest = IncomingMessage & { [arrivedAt]?: number; [loggedEarly]?: true };

/** Notes when `request` arrived; listens to the server's `request` event, ahead of Fastify. */
export function stampArrival(request: IncomingMessage): void {
  (request as StampedRequest)[arrivedAt] = performance.now();
}

/** Notes that `request`'s answer, sent before its route ran, is logged already. */
export function markLogged(request: IncomingMessage): void {
  (request as StampedRequest)[loggedEarly] = true;
}

/** Request records to `sink`, or to `logger` at `info`; the log controller of the routes that are not the API's. */
export class RequestLog extends LogController {
  /** Whether any record is wanted: with neither a sink nor a logger at `info` or below, nothing is built. */
  readonly enabled: boolean;

  constructor(
    private readonly logger: Logger | undefined,
    private readonly sink?: RequestLogSink,
  ) {
    super();
    this.enabled = sink !== undefined || logger?.isLevelEnabled('info') === true;
  }

  /**
   * Logs an answer the transport has just handed to the socket: `body` is the engine's JSON ('' for
   * none). A request that came through no socket (`app.inject`) has no arrival: its time reads 0.
   */
  answered(raw: IncomingMessage, method: string, url: string, statusCode: number, body: string): void {
    const arrival = (raw as StampedRequest)[arrivedAt];
    const responseTime = arrival === undefined ? 0 : Math.round((performance.now() - arrival) * 100) / 100;
    this.#write({ method, url, statusCode, responseTime, paymentRequestId: paymentRequestIdOf(body, url, statusCode) });
  }

  override incomingRequest(): void {
    // One record per request, written on completion, when its status and time are known.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if ((request.raw as StampedRequest)[loggedEarly]) return;
    const record: RequestRecord = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 100) / 100,
      paymentRequestId: paymentRequestIdOf('', request.url, reply.statusCode),
    };
    // An answer that broke off (rare) is an error for the logger, with its stack.
    if (error) this.logger?.error({ ...withoutAbsentId(record), err: error }, 'request errored');
    else if (this.enabled) this.#write(record);
  }

  #write(record: RequestRecord): void {
    if (this.sink !== undefined) this.sink(record);
    else this.logger!.info(withoutAbsentId(record), REQUEST_MESSAGE);
  }
}

/** The record without `paymentRequestId: undefined`, which pino would write as a key. */
function withoutAbsentId(record: RequestRecord): RequestRecord {
  if (record.paymentRequestId !== undefined) return record;
  const { paymentRequestId: _absent, ...rest } = record;
  return rest;
}

// A payment request's JSON starts with its id (the view's fixed key order), `/sandbox/v1/pay`'s
// answer with `paymentRequestId`; a URL names one after `/payment-requests/`. Ids are `pr_` and
// base62 characters. Read with indexOf and a character scan: a regular expression's match costs
// more than the rest of a log line.
const BODY_PREFIXES = ['{"id":"pr_', '{"paymentRequestId":"pr_'];
const URL_MARK = '/payment-requests/pr_';

/**
 * The payment request an answer is about: named by its body, or (a successful GET of its
 * status) by the URL. An error answer is about no payment request, whatever its URL names.
 */
export function paymentRequestIdOf(body: string, url: string, statusCode: number): string | undefined {
  for (const prefix of BODY_PREFIXES) {
    if (body.startsWith(prefix)) return idAt(body, prefix.length - 3, '"');
  }
  if (statusCode >= 300) return undefined;
  for (let mark = url.indexOf(URL_MARK); mark !== -1; mark = url.indexOf(URL_MARK, mark + 1)) {
    const id = idAt(url, mark + URL_MARK.length - 3, undefined);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** The `pr_` id at `start` of `text`: `pr_` and one base62 character or more, ended by `end` (any non-base62 character when undefined). */
function idAt(text: string, start: number, end: string | undefined): string | undefined {
  let stop = start + 3;
  while (stop < text.length && isBase62(text.charCodeAt(stop))) stop++;
  if (stop === start + 3) return undefined;
  if (end !== undefined && text[stop] !== end) return undefined;
  return text.slice(start, stop);
}

function isBase62(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}
