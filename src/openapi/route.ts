/**
 * `GET /openapi.json`: the document, built on the first request (start-up pays nothing) and kept
 * serialized, with an `ETag` so clients and tools can revalidate cheaply. Wired where the sandbox
 * is assembled (`sandbox.ts`), beside the engine's own routes, so the Fastify server and the MSW
 * handlers answer it alike. No key needed.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { JsonText } from '../core/pipeline/json-text.js';
import { declareRoute, type AnyRoute } from '../core/pipeline/route.js';
import { routeTable } from '../core/routes/route-table.js';
import { DEFAULT_SETTINGS, type SandboxSettings } from '../core/settings.js';
import { openApiDocumentSchema } from '../schemas/answers.js';
import { buildOpenApiDocument, type OpenApiOptions } from './document.js';
import type { JsonObject } from './schema-tools.js';

/** The path of the document. */
export const OPENAPI_PATH = '/openapi.json';

/** The route serving the document of a server with `settings`. */
export function openApiRoute(settings: SandboxSettings): AnyRoute<unknown> {
  let served: { json: JsonText; etag: string } | undefined;
  return declareRoute<unknown, undefined, undefined, 'public'>({
    name: 'getOpenApiDocument',
    method: 'GET',
    path: OPENAPI_PATH,
    access: 'public',
    answer: { status: 200, schema: openApiDocumentSchema },
    handle: ({ request }) => {
      if (served === undefined) {
        const text = JSON.stringify(openApiDocumentOf(settings));
        served = { json: new JsonText(text), etag: `"${bytesToHex(sha256(utf8ToBytes(text))).slice(0, 32)}"` };
      }
      const headers = { 'cache-control': 'no-cache', etag: served.etag };
      if (matchesEtag(request.headers['if-none-match'], served.etag)) return { status: 304, headers };
      return { status: 200, body: served.json, headers };
    },
  });
}

/** The document of a sandbox with `settings`: its route table and this route. */
export function openApiDocumentOf(settings: SandboxSettings = DEFAULT_SETTINGS, options: OpenApiOptions = {}): JsonObject {
  return buildOpenApiDocument([...routeTable(settings), openApiRoute(settings)], settings, options);
}

/** Whether an `If-None-Match` header names `etag` (weak comparison, as RFC 9110 has it for GET). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}
