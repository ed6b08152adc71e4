/**
 * The request log: one record per answered request, at `info`, once the response has gone out.
 * Fastify's own request logging writes two records per request (incoming, completed), the first
 * through its request serializer; with synchronous writes to stdout that took ~30 % of GET
 * throughput. This log controller (Fastify's hook for its internal log lines) logs nothing on
 * arrival and one small record on completion: what someone reading the log scans for (method,
 * URL, status, time, and the payment request the answer is about) and never a header, so never
 * an API key. The record goes to the logger (pino), or to a sink that writes it itself: pino's
 * generic serializer was most of what a logged request still cost.
 */
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

/** The message of request records; the pretty format recognises them by it. */
export const REQUEST_MESSAGE = 'request completed';

/** The fields of a request record, beside pino's own (level, time, pid, hostname, reqId, msg). */
export interface RequestRecord {
  method: string;
  url: string;
  statusCode: number;
  /** Milliseconds from the request's arrival to the response's end, two decimals. */
  responseTime: number;
  /** The payment request the answer is about, when it names one. */
  paymentRequestId?: string;
}

// The engine's answer body, kept on the reply (a reference, not a copy): only a request that is
// logged looks into it. A decorator, not an ad hoc property, so every reply has the same shape.
const answerBody = Symbol('lnpr answer body');
type AnsweredReply = FastifyReply & { [answerBody]: string };

/** Gives every reply of `app` a slot for the engine's answer body (see `noteAnswer`). */
export function addAnswerSlot(app: FastifyInstance): void {
  app.decorateReply(answerBody, '');
}

/** Keeps the engine's answer body of `reply` for its log record. */
export function noteAnswer(reply: FastifyReply, body: string): void {
  (reply as AnsweredReply)[answerBody] = body;
}

/** Takes each answered request's record instead of the logger; it decides whether to log at all. */
export type RequestLogSink = (record: RequestRecord) => void;

/** Fastify's `logController` (with `addAnswerSlot`): records go to `sink`, or to the logger at `info`. */
export class RequestLog extends LogController {
  constructor(private readonly sink?: RequestLogSink) {
    super();
  }

  override incomingRequest(): void {
    // One record per request, written on completion, when its status and time are known.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const log = reply.log as FastifyReply['log'] & { isLevelEnabled?: (level: string) => boolean };
    // Without a sink, and without a logger (pino) or below `info`, skip even building the record.
    if (!error && this.sink === undefined && log.isLevelEnabled?.('info') !== true) return;
    const record: RequestRecord = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 100) / 100,
    };
    const id = paymentRequestIdOf((reply as AnsweredReply)[answerBody] ?? '', record.url, record.statusCode);
    if (id !== undefined) record.paymentRequestId = id;
    // An answer that broke off (rare) is an error for the logger, with its stack.
    if (error) log.error({ ...record, err: error }, 'request errored');
    else if (this.sink !== undefined) this.sink(record);
    else log.info(record, REQUEST_MESSAGE);
  }
}

// A payment request's JSON starts with its id (the view's fixed key order), `/sandbox/v1/pay`'s
// answer with `paymentRequestId`: a start-anchored pattern reads the first bytes only.
const NAMED_BY_BODY = /^\{"(?:id|paymentRequestId)":"(pr_[0-9A-Za-z]+)"/;
const NAMED_BY_URL = /\/payment-requests\/(pr_[0-9A-Za-z]+)/;

/**
 * The payment request an answer is about: named by its body, or (a successful GET of its
 * status) by the URL. An error answer is about no payment request, whatever its URL names.
 */
export function paymentRequestIdOf(body: string, url: string, statusCode: number): string | undefined {
  return NAMED_BY_BODY.exec(body)?.[1] ?? (statusCode < 300 ? NAMED_BY_URL.exec(url)?.[1] : undefined);
}
