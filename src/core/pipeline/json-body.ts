/**
 * Reads a request body as JSON. Parsing happens in the engine, not in the transports, so Fastify
 * and MSW treat every odd body (a BOM, duplicate keys, deep nesting) byte for byte alike. What a
 * body may cost is bounded before it is parsed (`json-scan.ts`): no request holds the event loop
 * for long, whatever its megabyte says.
 */
import { ApiError } from '../errors/errors.js';
import { MAX_BODY_DEPTH, MAX_BODY_VALUES } from '../settings.js';
import { scanJson, type JsonScan } from './json-scan.js';

/** Media types accepted as JSON: `application/json` and `application/*+json`, any parameters. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const essence = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return essence === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(essence);
}

/**
 * Parses a JSON body. A leading byte-order mark is skipped (RFC 8259 lets parsers ignore it);
 * with duplicate keys the last one wins, as in `JSON.parse`. A body nested deeper than
 * `MAX_BODY_DEPTH` or holding more than `MAX_BODY_VALUES` values is refused unparsed with
 * `invalid_request` (detail `too_deep` on the root member it is in, or `too_large` on `body`):
 * it is JSON, just more of it than any route takes.
 */
export function parseJsonBody(contentType: string | undefined, body: string | undefined): unknown {
  if (!isJsonMediaType(contentType)) {
    throw new ApiError('unsupported_media_type');
  }
  const text = body?.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  if (text === undefined || text.trim() === '') {
    throw new ApiError('invalid_json', 'The request body is empty; a JSON object is required.');
  }
  const scan = scanJson(text);
  if (scan.kind !== 'parse') throw refusal(scan);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** The answer to a body refused unparsed: too deep or too many values is `invalid_request` naming where, not JSON is `invalid_json`. */
function refusal(scan: Exclude<JsonScan, { kind: 'parse' }>): ApiError {
  switch (scan.kind) {
    case 'too_deep': {
      const field = scan.field ?? 'body';
      const message = `${field} nests too deep: a request body may nest at most ${MAX_BODY_DEPTH} levels, the body itself being the first`;
      return new ApiError('invalid_request', `Invalid request body: ${message}.`, [{ field, code: 'too_deep', message }]);
    }
    case 'too_many_values': {
      const message = `body holds more than ${MAX_BODY_VALUES} values (objects, lists, strings, numbers, true, false and null count one each)`;
      return new ApiError('invalid_request', `Invalid request body: ${message}.`, [{ field: 'body', code: 'too_large', message }]);
    }
    case 'not_json':
      return new ApiError('invalid_json', `The request body is not valid JSON: ${scan.reason}.`);
  }
}

/**
 * The nesting depth of a parsed JSON value (a scalar is 0), computed without recursion so that a
 * body nested tens of thousands of levels deep cannot overflow the stack. Stops once past `limit`.
 */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}
