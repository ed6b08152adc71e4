/**
 * The whole of the MSW transport's work: a Fetch API `Request` into the engine's plain request,
 * and the engine's plain response into a Fetch API `Response`. Nothing is decided here (routing,
 * auth, parsing, validation, errors are the engine's), so MSW answers as the Fastify server does.
 */
import { HttpResponse } from 'msw';
import type { ApiRequest, ApiResponse } from '../core/pipeline/handler.js';

/** The engine's request for `request`, whose path and query the caller has already worked out as `url`. */
export async function toApiRequest(request: Request, url: string): Promise<ApiRequest> {
  // Fetch headers iterate with lower-case names, repeated ones joined by ", " (as Node does for most).
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return {
    method: request.method,
    url,
    headers,
    // GET and HEAD requests cannot carry a body; a POST without one has a null body, as in Fastify.
    body: request.body === null ? undefined : await request.text(),
  };
}

/** The Fetch response for the engine's answer: its status, headers and bytes, as they are. */
export function toFetchResponse({ status, headers, body }: ApiResponse): Response {
  // A null body, not '': 204 and HEAD responses must not have one.
  return new HttpResponse(body === '' ? null : body, { status, headers });
}
