/**
 * CORS for browser apps calling the sandbox directly: any origin, any method and header the
 * preflight asks for. A few lines of our own instead of @fastify/cors, whose catch-all OPTIONS
 * route would take OPTIONS requests away from the engine (and answer them in plain text).
 */
import type { FastifyInstance } from 'fastify';

const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** Adds CORS headers to every response and answers preflights with 204. */
export function enableCors(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined) return;
    reply.header('access-control-allow-origin', origin).header('vary', 'Origin').header('access-control-expose-headers', 'Location');
    const requestedMethod = request.headers['access-control-request-method'];
    if (request.method === 'OPTIONS' && requestedMethod !== undefined) {
      const requestedHeaders = request.headers['access-control-request-headers'];
      reply
        .header('access-control-allow-methods', requestedMethod)
        .header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
      if (requestedHeaders !== undefined) reply.header('access-control-allow-headers', requestedHeaders);
      return reply.code(204).send();
    }
  });
}
