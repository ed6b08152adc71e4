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

/** Matches requests against a fixed table of routes. */
export class Router<Handler> {
  /** Routes by their number of segments: a request is compared only with routes of its length. */
  readonly #routesByLength = new Map<number, Array<Route<Handler> & { segments: string[] }>>();

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
    const segments = path.split('/').slice(1);
    const allowed: string[] = [];
    for (const route of this.#routesByLength.get(segments.length) ?? []) {
      const params = matchSegments(route.segments, segments);
      if (params === undefined) continue;
      // HEAD is a GET without a body, as HTTP defines it.
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { handler: route.handler, params };
      allowed.push(route.method);
    }
    if (allowed.length === 0) throw new ApiError('route_not_found', `No endpoint at ${JSON.stringify(path.slice(0, 200))}.`);
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

function matchSegments(pattern: string[], actual: string[]): PathParams | undefined {
  const params: PathParams = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const segment = actual[i]!;
    if (expected.startsWith(':')) {
      const value = decodeSegment(segment);
      if (value === undefined || value === '') return undefined;
      params[expected.slice(1)] = value;
    } else if (expected !== segment) {
      return undefined;
    }
  }
  return params;
}

function decodeSegment(segment: string): string | undefined {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
