/**
 * Which requests the handlers take: the API's own paths (`/api/v1/...`, `/sandbox/v1/...`,
 * `/healthz`, `/openapi.json`) under a base URL, or under any origin when none is given.
 * Everything else (the page, its assets, other APIs) is left to MSW's `onUnhandledRequest`, so the
 * handlers can sit on the same origin as the app. A base URL's path (`https://example.com/pay`) is
 * a prefix the engine never sees, as behind a reverse proxy. Browser-safe.
 */

/** Where the API is served: one origin or any, and a path prefix ('' for none). */
export interface ApiLocation {
  /** e.g. `https://api.example.com`; undefined matches every origin. */
  origin: string | undefined;
  /** e.g. `/pay`, without a trailing slash; '' for none. */
  prefix: string;
}

/** The path roots the engine answers; a request outside them is not the sandbox's. */
const API_ROOTS = ['/api/v1', '/sandbox/v1', '/healthz', '/openapi.json'];

/**
 * Reads a base URL: absent or '' (any origin), a path such as `/pay` (any origin, that prefix),
 * or an absolute URL (its origin and path). Throws a TypeError naming a base URL it cannot read.
 */
export function parseBaseUrl(baseUrl: string | undefined): ApiLocation {
  if (baseUrl === undefined || baseUrl === '') return { origin: undefined, prefix: '' };
  if (baseUrl.startsWith('/')) return { origin: undefined, prefix: withoutTrailingSlashes(baseUrl) };
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl ${JSON.stringify(baseUrl)} is neither an absolute URL (https://host/path) nor a path (/path)`);
  }
  return { origin: url.origin, prefix: withoutTrailingSlashes(url.pathname) };
}

/** The engine's URL (path and query, prefix removed) for a request URL, or undefined when it is not the sandbox's. */
export function engineUrlOf(url: URL, location: ApiLocation): string | undefined {
  if (location.origin !== undefined && url.origin !== location.origin) return undefined;
  const { pathname } = url;
  if (!pathname.startsWith(location.prefix)) return undefined;
  const path = pathname.slice(location.prefix.length);
  if (!API_ROOTS.some((root) => path === root || path.startsWith(`${root}/`))) return undefined;
  return path + url.search;
}

function withoutTrailingSlashes(path: string): string {
  return path.replace(/\/+$/, '');
}
