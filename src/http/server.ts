/**
 * The Fastify server: a transport over the engine's request handler and nothing more. Every
 * request, including ones Fastify itself turns away (too large, bad URL, unknown method), is
 * answered with the engine's JSON error shape.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { ApiError, type ErrorCode } from '../core/pipeline/errors.js';
import { errorResponse, type ApiResponse, type RequestHandler } from '../core/pipeline/handler.js';
import { applyCors } from './cors.js';
import { registerWebPages, type WebPagesOptions } from './web-pages.js';
import { RequestLog, stampArrival, type RequestLogSink } from './request-log.js';

/** Options of `buildServer`. */
export interface ServerOptions {
  handle: RequestHandler;
  /** Largest accepted body in bytes; 1 MiB by default. Larger bodies get 413. */
  bodyLimit?: number;
  /** CORS for browser clients: on by default, any origin. */
  cors?: boolean;
  /**
   * The server's logger (pino) options, with `stream` or `file` for where records go, as Fastify
   * takes them; or false. Each answered request is one record at `info` (method, URL, status,
   * time, payment request id; no headers); `authorization` headers are redacted from any other
   * record. It is the app's `log` too.
   */
  logger?: boolean | (LoggerOptions & { stream?: DestinationStream; file?: string });
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
  const log = serverLogger(logger);
  const requests = new RequestLog(log, requestLog);
  const app = Fastify({
    bodyLimit,
    // The catch-all route declares HEAD itself; the engine answers it as a GET without a body.
    exposeHeadRoutes: false,
    // While closing, requests already on open connections are served, not refused with Fastify's
    // own 503 body: the store stays open until the server has closed, so they complete normally.
    return503OnClosing: false,
    // No logger for Fastify: with one, every request gets an id, a child logger and two listeners
    // on its response to time it (~2 µs of a GET's ~28 in the bench's profiles). The server's
    // logger is ours (`log`, also `app.log`); requests are logged as they are answered.
    logger: false,
    logController: requests,
    // A URL Fastify cannot decode still goes to the engine, whose router answers 404 for it.
    frameworkErrors: (error, request, reply) =>
      error.code === 'FST_ERR_BAD_URL' ? forward(request, reply) : answer(request, reply, transportError(error)),
    // Node itself answers requests without a Host header (bare 400); let the engine answer them.
    http: { requireHostHeader: false },
    clientErrorHandler: (error, socket) => {
      // The request never became one (malformed HTTP): answer in the same JSON shape, then close.
      const isHead = (error as unknown as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
      writeRawError(socket, new ApiError('invalid_request', `Malformed HTTP request: ${error.message}`), isHead);
    },
  });
  if (log !== undefined) app.log = log;
  if (requests.enabled) app.server.prependListener('request', stampArrival);
  // Requests Node would answer or drop by itself, before Fastify sees them.
  app.server.on('checkExpectation', (_request, response) => {
    const { status, headers, body } = errorResponse(new ApiError('expectation_failed'));
    response.writeHead(status, { ...headers, connection: 'close' }).end(body);
  });
  app.server.on('connect', (_request, socket: Duplex) => {
    writeRawError(socket, new ApiError('invalid_request', 'CONNECT is not supported: the sandbox is not a proxy.'), false);
  });

  // The engine parses bodies itself (so both transports treat odd JSON alike): hand it the text.
  // JSON by name as well: Fastify remembers the parser of a content type it found by name, while
  // the catch-all costs a parse of the Content-Type header on every request (~1–3 µs).
  app.removeAllContentTypeParsers();
  for (const type of ['application/json', '*']) app.addContentTypeParser(type, { parseAs: 'string' }, (_request, body, done) => done(null, body));

  // Once closing, answers tell clients to drop the connection, so a graceful stop does not wait
  // for their keep-alive timers.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  /** Sends the engine's answer, then logs it. */
  const answer = (request: FastifyRequest, reply: FastifyReply, response: ApiResponse): void => {
    reply.code(response.status).headers(response.headers).send(response.body === '' ? undefined : response.body);
    if (requests.enabled) requests.answered(request.raw, request.method, request.url, response.status, response.body);
  };

  // Not async, and it returns nothing: Fastify then waits for the reply instead of wrapping a
  // promise of it (the engine's handler never rejects; should it, Fastify's error handler answers).
  const forward = (request: FastifyRequest, reply: FastifyReply): void => {
    if (closing) reply.header('connection', 'close');
    if (corsEnabled && applyCors(request, reply)) return answer(request, reply, PREFLIGHT_ANSWER);
    handle({
      method: request.method,
      url: request.url,
      headers: request.headers as Record<string, string | undefined>,
      body: typeof request.body === 'string' ? request.body : undefined,
    }).then(
      (response) => {
        if (response.status >= 500) log?.error({ url: request.url }, 'internal error');
        answer(request, reply, response);
      },
      (error: unknown) => reply.send(error),
    );
  };

  app.route({ method: HTTP_METHODS, url: '*', handler: forward });
  app.setNotFoundHandler(forward);
  app.setErrorHandler((error, request, reply) => {
    const response = transportError(error);
    if (response.status >= 500) log?.error({ err: error, url: request.url }, 'request failed');
    answer(request, reply, response);
  });
  if (web !== undefined) {
    // The pages and their streams are logged by the log controller, when their response ends:
    // Fastify calls it for routes with an `onResponse` hook, and here only for these. (After the
    // error handler: a plugin takes its parent's.)
    await app.register(async (pages) => {
      pages.addHook('onResponse', async () => {});
      registerWebPages(pages, handle, web);
    });
  }
  return app;
}

/** A CORS preflight's answer: 204 with the CORS headers only. */
const PREFLIGHT_ANSWER: ApiResponse = { status: 204, headers: {}, body: '' };

/** The server's logger from its options, as Fastify would make it. */
function serverLogger(options: ServerOptions['logger']): Logger | undefined {
  if (options === false || options === undefined) return undefined;
  const { stream, file, ...rest } = options === true ? {} : options;
  const settings: LoggerOptions = { redact: ['req.headers.authorization'], ...rest };
  const destination = stream ?? (file === undefined ? undefined : pino.destination(file));
  return destination === undefined ? pino(settings) : pino(settings, destination);
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
