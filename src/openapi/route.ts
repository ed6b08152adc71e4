/**
 * `GET /openapi.json`: the document, built on the first request (start-up pays nothing) and kept
 * serialized, with an `ETag` so clients and tools can revalidate cheaply. A route of the engine,
 * so the Fastify server and the MSW handlers answer it alike. No key needed.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { RouteHandler } from '../core/pipeline/handler.js';
import { JsonText } from '../core/pipeline/json-text.js';
import type { Route } from '../core/pipeline/router.js';
import type { SandboxSettings } from '../core/settings.js';
import { buildOpenApiDocument } from './document.js';

/** The path of the document. */
export const OPENAPI_PATH = '/openapi.json';

/** The route serving the document of a server with `settings`. */
export function openApiRoute(settings: SandboxSettings): Route<RouteHandler> {
  let served: { json: JsonText; etag: string } | undefined;
  return {
    method: 'GET',
    pattern: OPENAPI_PATH,
    handler: ({ request }) => {
      if (served === undefined) {
        const text = JSON.stringify(buildOpenApiDocument(settings));
        served = { json: new JsonText(text), etag: `"${bytesToHex(sha256(utf8ToBytes(text))).slice(0, 32)}"` };
      }
      const headers = { 'cache-control': 'no-cache', etag: served.etag };
      if (matchesEtag(request.headers['if-none-match'], served.etag)) return { status: 304, headers };
      return { status: 200, body: served.json, headers };
    },
  };
}

/** Whether an `If-None-Match` header names `etag` (weak comparison, as RFC 9110 has it for GET). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}
