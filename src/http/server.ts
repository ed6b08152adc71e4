/**
 * The Fastify server: a transport over the engine's request handler and nothing more. Every
 * request, including ones Fastify itself turns away (too large, bad URL, unknown method), is
 * answered with the engine's JSON error shape.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, type ErrorCode } from '../core/pipeline/errors.js';
import { errorResponse, type ApiResponse, type RequestHandler } from '../core/pipeline/handler.js';
import { applyCors } from './cors.js';
import { registerWebPages, type WebPagesOptions } from './web-pages.js';
import { addAnswerSlot, noteAnswer, RequestLog, type RequestLogSink } from './request-log.js';

/** Options of `buildServer`. */
export interface ServerOptions {
  handle: RequestHandler;
  /** Largest accepted body in bytes; 1 MiB by default. Larger bodies get 413. */
  bodyLimit?: number;
  /** CORS for browser clients: on by default, any origin. */
  cors?: boolean;
  /**
   * Fastify's logger (pino) options, or false. Each answered request is one record at `info`
   * (method, URL, status, time, payment request id; no headers); `authorization` headers are
   * redacted from any other record.
   */
  logger?: FastifyServerOptions['logger'];
  /** Takes the request records instead of the logger (`lnpr serve` formats and writes them itself). */
  requestLog?: RequestLogSink;
  /** The dashboard, the hosted pay page and their live streams (`webPagesOf(sandbox)`); none when absent. */
  web?: WebPagesOptions;
}

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** A Fastify instance serving the engine; call `listen` on it. */
export async function buildServer({
  handle,
  bodyLimit = 1024 * 1024,
  cors: corsEnabled = true,
  logger = false,
  requestLog,
  web,
}: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    bodyLimit,
    // The catch-all route declares HEAD itself; the engine answers it as a GET without a body.
    exposeHeadRoutes: false,
    // While closing, requests already on open connections are served, not refused with Fastify's
    // own 503 body: the store stays open until the server has closed, so they complete normally.
    return503OnClosing: false,
    logger: logger === false ? false : { redact: ['req.headers.authorization'], ...(logger === true ? {} : logger) },
    logController: new RequestLog(requestLog),
    // Every request would get its own child logger, only to stamp a request id on its records:
    // ~2 µs a request, and each request has one record anyway, whose URL says which it was.
    childLoggerFactory: (parent) => parent,
    // A URL Fastify cannot decode still goes to the engine, whose router answers 404 for it.
    frameworkErrors: (error, request, reply) =>
      error.code === 'FST_ERR_BAD_URL' ? forward(request, reply) : send(reply, transportError(error)),
    // Node itself answers requests without a Host header (bare 400); let the engine answer them.
    http: { requireHostHeader: false },
    clientErrorHandler: (error, socket) => {
      // The request never became one (malformed HTTP): answer in the same JSON shape, then close.
      const isHead = (error as unknown as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
      writeRawError(socket, new ApiError('invalid_request', `Malformed HTTP request: ${error.message}`), isHead);
    },
  });
  // Requests Node would answer or drop by itself, before Fastify sees them.
  app.server.on('checkExpectation', (_request, response) => {
    const { status, headers, body } = errorResponse(new ApiError('expectation_failed'));
    response.writeHead(status, { ...headers, connection: 'close' }).end(body);
  });
  app.server.on('connect', (_request, socket: Duplex) => {
    writeRawError(socket, new ApiError('invalid_request', 'CONNECT is not supported: the sandbox is not a proxy.'), false);
  });

  // The engine parses bodies itself (so both transports treat odd JSON alike): hand it the text.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  addAnswerSlot(app);

  // Once closing, answers tell clients to drop the connection, so a graceful stop does not wait
  // for their keep-alive timers.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  const forward = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    if (closing) reply.header('connection', 'close');
    if (corsEnabled && applyCors(request, reply)) return reply.code(204).send();
    const response = await handle({
      method: request.method,
      url: request.url,
      headers: request.headers as Record<string, string | undefined>,
      body: typeof request.body === 'string' ? request.body : undefined,
    });
    if (response.status >= 500) request.log.error({ url: request.url }, 'internal error');
    noteAnswer(reply, response.body);
    return send(reply, response);
  };

  registerWebPages(app, handle, web);
  app.route({ method: HTTP_METHODS, url: '*', handler: forward });
  app.setNotFoundHandler(forward);
  app.setErrorHandler((error, request, reply) => {
    const response = transportError(error);
    if (response.status >= 500) request.log.error({ err: error, url: request.url }, 'request failed');
    return send(reply, response);
  });
  return app;
}

/** Writes an error response straight to a socket (no request object exists) and closes it. */
function writeRawError(socket: Duplex, error: ApiError, isHead: boolean): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const { status, headers, body } = errorResponse(error);
  const head = Object.entries({ ...headers, connection: 'close', 'content-length': String(Buffer.byteLength(body)) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  // A HEAD response has no body, even an error's: clients would read it as garbage.
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head}\r\n${isHead ? '' : body}`);
}

function send(reply: FastifyReply, response: ApiResponse): FastifyReply {
  return reply.code(response.status).headers(response.headers).send(response.body === '' ? undefined : response.body);
}

const FASTIFY_ERROR_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
};

/** Errors raised by Fastify before the engine saw the request, in the engine's error shape. */
function transportError(thrown: unknown): ApiResponse {
  const error = thrown as { code?: string; statusCode?: number; message?: string };
  const code = error.code !== undefined ? FASTIFY_ERROR_CODES[error.code] : undefined;
  if (code !== undefined) return errorResponse(new ApiError(code));
  const status = error.statusCode ?? 500;
  return errorResponse(status >= 400 && status < 500 ? new ApiError('invalid_request', error.message ?? 'Invalid request.') : new ApiError('internal_error'));
}
