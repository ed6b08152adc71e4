/**
 * A small router over path segments. The engine routes, not the transports, so an unknown path
 * (404) and a wrong method (405, with `Allow`) are answered identically by Fastify and MSW.
 */
import { ApiError } from '../errors/errors.js';

/** Path parameters by name, decoded. */
export type PathParams = Record<string, string>;

/** A route: a method and a pattern such as `/api/v1/payment-requests/:id/status`. */
export interface Route<Handler> {
  method: string;
  pattern: string;
  handler: Handler;
}

/** The route that matched and its parameters. */
export interface RouteMatch<Handler> {
  handler: Handler;
  params: PathParams;
}

/** A route with its pattern cut into segments once. */
type PreparedRoute<Handler> = Route<Handler> & { segments: readonly string[] };

/** Matches requests against a fixed table of routes. */
export class Router<Handler> {
  /** Routes by their number of segments: a request is compared only with routes of its length. */
  readonly #routesByLength = new Map<number, Array<PreparedRoute<Handler>>>();

  constructor(routes: Array<Route<Handler>>) {
    for (const route of routes) {
      const segments = route.pattern.split('/').slice(1);
      const sameLength = this.#routesByLength.get(segments.length) ?? [];
      sameLength.push({ ...route, segments });
      this.#routesByLength.set(segments.length, sameLength);
    }
  }

  /** The route for `method` and `path` (no query); throws `route_not_found` or `method_not_allowed`. */
  match(method: string, path: string): RouteMatch<Handler> {
    // The path is read in place (no split, no array of its segments): routing runs on every request.
    let allowed: string[] | undefined;
    for (const route of this.#routesByLength.get(segmentCount(path)) ?? []) {
      const params = matchPath(route.segments, path);
      if (params === undefined) continue;
      // HEAD is a GET without a body, as HTTP defines it.
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { handler: route.handler, params };
      (allowed ??= []).push(route.method);
    }
    if (allowed === undefined) throw new ApiError('route_not_found', `No endpoint at ${JSON.stringify(path.slice(0, 200))}.`);
    throw new MethodNotAllowed(allowed);
  }
}

/** 405 carries the methods the path does accept, for the `Allow` header. */
export class MethodNotAllowed extends ApiError {
  readonly allow: string[];

  constructor(allow: string[]) {
    super('method_not_allowed', `This endpoint accepts ${allow.join(', ')}.`);
    this.allow = allow;
  }
}

/** The segments `path.split('/').slice(1)` would give: its slashes. */
function segmentCount(path: string): number {
  let count = 0;
  for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) count++;
  return count;
}

/**
 * The parameters if `path` fits the pattern's segments (as many as the path has, `segmentCount`);
 * else undefined. Segment by segment, as `split('/')` would cut them. The literal segments are
 * checked first, without allocating: most routes of a length are not the one, and cost nothing.
 */
function matchPath(pattern: readonly string[], path: string): PathParams | undefined {
  let hasParams = false;
  // Each segment starts after a slash; the first slash is the path's first character, as split sees it.
  for (let i = 0, start = path.indexOf('/') + 1; i < pattern.length; i++) {
    const next = path.indexOf('/', start);
    const end = next === -1 ? path.length : next;
    const expected = pattern[i]!;
    if (expected.charCodeAt(0) === COLON) hasParams = true;
    else if (end - start !== expected.length || !path.startsWith(expected, start)) return undefined;
    start = end + 1;
  }
  const params: PathParams = {};
  if (!hasParams) return params;
  for (let i = 0, start = path.indexOf('/') + 1; i < pattern.length; i++) {
    const next = path.indexOf('/', start);
    const end = next === -1 ? path.length : next;
    const expected = pattern[i]!;
    if (expected.charCodeAt(0) === COLON) {
      const value = decodeSegment(path.slice(start, end));
      if (value === undefined || value === '') return undefined;
      params[expected.slice(1)] = value;
    }
    start = end + 1;
  }
  return params;
}

const COLON = 58;

function decodeSegment(segment: string): string | undefined {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
