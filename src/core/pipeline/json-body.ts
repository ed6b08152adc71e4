/**
 * Reads a request body as JSON. Parsing happens in the engine, not in the transports, so Fastify
 * and MSW treat every odd body (a BOM, duplicate keys, deep nesting) byte for byte alike.
 */
import { ApiError } from './errors.js';

/** Media types accepted as JSON: `application/json` and `application/*+json`, any parameters. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const essence = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return essence === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(essence);
}

/**
 * Parses a JSON body. A leading byte-order mark is skipped (RFC 8259 lets parsers ignore it);
 * with duplicate keys the last one wins, as in `JSON.parse`.
 */
export function parseJsonBody(contentType: string | undefined, body: string | undefined): unknown {
  if (!isJsonMediaType(contentType)) {
    throw new ApiError('unsupported_media_type');
  }
  const text = body?.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  if (text === undefined || text.trim() === '') {
    throw new ApiError('invalid_json', 'The request body is empty; a JSON object is required.');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`);
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
