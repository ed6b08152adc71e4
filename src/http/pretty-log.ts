/**
 * The log for a person at a terminal: a request as `POST /api/v1/payment-requests 201 4.2 ms pr_…`,
 * any other record (a pino JSON line, parsed back: they are few) as `warn: message key=value …`
 * with an error's stack below it.
 */
import { REQUEST_MESSAGE, type RequestRecord } from './request-log.js';

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
/** pino's own fields, which the line shows in its own way or not at all. */
const SHOWN_APART = new Set(['level', 'time', 'pid', 'hostname', 'reqId', 'msg', 'err']);
// A URL or a message could carry terminal escape sequences; a log line must not act on the terminal.
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** A request record as a human line, newline included. */
export function prettyRequestLine(record: RequestRecord): string {
  const { method, url, statusCode, responseTime, paymentRequestId: id } = record;
  // A GET of the request's URL already shows its id.
  const named = id !== undefined && !url.includes(id) ? ` ${id}` : '';
  return `${method} ${url.replace(CONTROL_CHARACTERS, escapeCharacter)} ${statusCode} ${milliseconds(responseTime)} ms${named}\n`;
}

/** A pino record (a JSON line) as a human line, newline included. */
export function prettyLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  if (record.msg === REQUEST_MESSAGE && typeof record.method === 'string' && typeof record.url === 'string') {
    return prettyRequestLine(record as unknown as RequestRecord);
  }
  const level = LEVEL_NAMES[record.level as number] ?? String(record.level);
  const fields = Object.entries(record)
    .filter(([key]) => !SHOWN_APART.has(key))
    .map(([key, value]) => ` ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('');
  let line = `${level}: ${typeof record.msg === 'string' ? record.msg : ''}${fields}`;
  const err = record.err as { stack?: unknown; message?: unknown } | undefined;
  const stack = err?.stack ?? err?.message;
  if (typeof stack === 'string') line += `\n  ${stack.replace(/\n/g, '\n  ')}`;
  return `${line.replace(CONTROL_CHARACTERS, escapeCharacter)}\n`;
}

/** Below 10 ms a tenth matters (most answers take under one); above, whole milliseconds read better. */
function milliseconds(ms: number): string {
  return ms < 10 ? ms.toFixed(1) : ms.toFixed(0);
}

function escapeCharacter(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
