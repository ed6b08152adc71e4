/**
 * The server's log as `lnpr serve` writes it: records as JSON lines (pino's shape) or as human
 * lines, batched, then written to stdout asynchronously by pino's destination (sonic-boom), which
 * copes with full pipes and partial writes. Pino stays the logger of everything but request
 * records (levels, redaction, the error serializer); request records, one per request, are
 * formatted here: a fixed shape written by hand costs a fraction of pino's generic serializer.
 */
import { hostname } from 'node:os';
import pino, { type LoggerOptions } from 'pino';
import { BatchedOutput, type BatchTarget } from './batched-output.js';
import { prettyLine, prettyRequestLine } from './pretty-log.js';
import { REQUEST_MESSAGE, type RequestLogSink, type RequestRecord } from './request-log.js';

export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Levels at which each request is logged (request records are `info`). */
const REQUEST_LEVELS: readonly LogLevel[] = ['info', 'debug', 'trace'];

/**
 * A stalled reader (a paused terminal, a pipe nobody drains) must cost neither the server's time
 * nor unbounded memory: past this many bytes waiting to be written, new lines are dropped.
 */
const MAX_WAITING_BYTES = 16 * 1024 * 1024;

/** The log of a server: options for `buildServer`, and how to flush it. */
export interface LogOutput {
  /** The server's logger options (`buildServer`'s `logger`). */
  logger: LoggerOptions & { stream: BatchedOutput<RequestRecord> };
  /** Request records, written in `format`; undefined when the level leaves requests out. */
  requestLog: RequestLogSink | undefined;
  /**
   * Hands every waiting line to the destination, which writes it before the process exits
   * normally (its pending writes keep the event loop alive). Call it last on shutdown.
   */
  flush(): void;
}

/** A log at `level` in `format`, on stdout (or on `destination`, for tests). */
export function createLogOutput({
  level,
  format,
  destination,
}: {
  level: LogLevel;
  format: LogFormat;
  destination?: BatchTarget;
}): LogOutput {
  // Request records wait unformatted in the batch; each becomes a line when its batch leaves.
  const output = new BatchedOutput<RequestRecord>(destination ?? stdout(), format === 'pretty' ? prettyRequestLine : jsonRequestLine());
  return {
    // pino calls `write` with each record; the hook turns it into a human line first.
    logger: { level, stream: output, ...(format === 'pretty' ? { hooks: { streamWrite: prettyLine } } : {}) },
    requestLog: REQUEST_LEVELS.includes(level) ? (record) => output.add(record) : undefined,
    flush: output.flush,
  };

  function stdout(): BatchTarget {
    // pino's destination drops lines past `maxLength` and stops writing once the reader is gone (EPIPE).
    const sonic = pino.destination({ fd: 1, sync: false, maxLength: MAX_WAITING_BYTES });
    // On exit without a shutdown, a crash included, whatever waits is written synchronously.
    process.once('exit', () => {
      output.flush();
      try {
        sonic.flushSync();
      } catch {
        // Nothing more can be done on the way out.
      }
    });
    return sonic;
  }
}

/** Request records as pino would write them at `info` (its default fields), without its cost. */
function jsonRequestLine(): (record: RequestRecord, timeMs: number) => string {
  const processFields = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;
  const message = `,"msg":${JSON.stringify(REQUEST_MESSAGE)}}\n`;
  // A busy server logs many requests a millisecond: their lines share the start up to the time.
  let lastTimeMs = Number.NaN;
  let start = '';
  return ({ method, url, statusCode, responseTime, paymentRequestId }, timeMs) => {
    if (timeMs !== lastTimeMs) {
      lastTimeMs = timeMs;
      start = `{"level":30,"time":${timeMs}${processFields},"method":`;
    }
    return (
      start + jsonString(method) + ',"url":' + jsonString(url) + ',"statusCode":' + statusCode + ',"responseTime":' + responseTime +
      (paymentRequestId === undefined ? message : ',"paymentRequestId":"' + paymentRequestId + '"' + message)
    );
  };
}

/** What JSON.stringify escapes in a string from Node's HTTP parser (whose characters are all below U+0100). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

/** `text` as a JSON string; quoted as it is when nothing in it needs escaping, which is cheaper than JSON.stringify. */
function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : '"' + text + '"';
}
