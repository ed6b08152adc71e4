/**
 * Which web pages may drive the sandbox, by the `Origin` their browser sends. A few lines of our
 * own instead of @fastify/cors, whose catch-all OPTIONS route would take OPTIONS requests away
 * from the engine (and answer them in plain text).
 *
 * - The v1 API (`/api/v1/*`), `/healthz` and `/openapi.json` answer any origin: front ends call
 *   them, and every v1 call needs a key a page can only send after a preflight.
 * - Everything else (the control API `/sandbox/v1/*`, the dashboard's and the pay page's calls,
 *   the live streams, the pages) answers only the sandbox's own origin, loopback origins
 *   (`http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*`) and the exact origins it was
 *   given (`--public-url`, `--cors-origin`). Withholding CORS headers only stops a page from
 *   reading an answer; a form or a `text/plain` POST reaches the server without a preflight. So a
 *   request there whose `Origin` is not allowed is refused (403 `origin_not_allowed`) before it
 *   does anything, whatever its method: a read would be unreadable anyway, and a stream would
 *   take the developer's own slots. A request without `Origin` (curl, a server, a same-origin
 *   GET) is not a cross-origin page's, and is allowed.
 *
 * Plain functions, not hooks of their own: the server's one request hook calls them, and a
 * request without `Origin` pays one property read.
 */
import type { FastifyReply } from 'fastify';

const PREFLIGHT_MAX_AGE_SECONDS = '600';
const LOOPBACK_ORIGIN = /^http:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/;

/** Whether `url` (path and query) is open to every origin: the v1 API, `/healthz`, `/openapi.json`. */
export function isOpenToAnyOrigin(url: string): boolean {
  if (url.startsWith('/api/v1/')) return true;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return path === '/api/v1' || path === '/healthz' || path === '/openapi.json';
}

/** The origins allowed on the control surface besides loopback ones and the sandbox's own. */
export class OriginPolicy {
  readonly #extra: ReadonlySet<string>;

  /** @param origins exact origins (`https://app.example:8443`), as `originOf` spells them */
  constructor(origins: readonly string[]) {
    this.#extra = new Set(origins);
  }

  /** Whether a page of `origin` may drive the control surface of a sandbox reached as `host`. */
  allows(origin: string, host: string | undefined): boolean {
    return (
      LOOPBACK_ORIGIN.test(origin) ||
      this.#extra.has(origin) ||
      // The sandbox's own origin: its pages, as the browser reached them (Host was checked already).
      (host !== undefined && origin.length === host.length + 7 && origin.startsWith('http://') && origin.slice(7).toLowerCase() === host.toLowerCase())
    );
  }
}

/**
 * The origin of a URL as browsers send it (`scheme://host[:port]`, default port left out); throws
 * a TypeError for anything but an http(s) URL without path, query or fragment.
 */
export function originOf(text: string): string {
  const url = new URL(text);
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') {
    throw new TypeError(`not an http(s) origin: ${text}`);
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]/.test(text)) throw new TypeError(`an origin has no path, query or fragment: ${text}`);
  return url.origin;
}

/** Adds the CORS headers for an allowed `origin`; true when the request was a preflight, to be answered 204. */
export function applyCors(method: string, headers: Record<string, string | string[] | undefined>, origin: string, reply: FastifyReply): boolean {
  reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', 'Location');
  const requestedMethod = headers['access-control-request-method'];
  if (method !== 'OPTIONS' || requestedMethod === undefined) return false;
  const requestedHeaders = headers['access-control-request-headers'];
  reply.header('access-control-allow-methods', requestedMethod).header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
  if (requestedHeaders !== undefined) reply.header('access-control-allow-headers', requestedHeaders);
  return true;
}
