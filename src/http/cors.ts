/**
 * CORS for browser apps calling the sandbox directly: any origin, any method and header the
 * preflight asks for. A few lines of our own instead of @fastify/cors, whose catch-all OPTIONS
 * route would take OPTIONS requests away from the engine (and answer them in plain text). Plain
 * functions, not hooks: the forwarding route calls them, so a request without `Origin` pays nothing.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** Adds the CORS headers a cross-origin request needs; true when it was a preflight, now answered (204). */
export function applyCors(request: FastifyRequest, reply: FastifyReply): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  reply.header('access-control-allow-origin', origin).header('vary', 'Origin').header('access-control-expose-headers', 'Location');
  const requestedMethod = request.headers['access-control-request-method'];
  if (request.method !== 'OPTIONS' || requestedMethod === undefined) return false;
  const requestedHeaders = request.headers['access-control-request-headers'];
  reply.header('access-control-allow-methods', requestedMethod).header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
  if (requestedHeaders !== undefined) reply.header('access-control-allow-headers', requestedHeaders);
  return true;
}
