/**
 * The Fastify server: a transport over the engine's request handler and nothing more. Every
 * request, including ones Fastify itself turns away (too large, bad URL, unknown method), is
 * answered with the engine's JSON error shape.
 *
 * It also keeps web pages from driving a sandbox that runs beside a browser: before anything
 * else, a request whose `Host` is not this server's is refused (421, `host-check.ts`: DNS
 * rebinding), and one from a page of a foreign origin to the control surface is refused (403,
 * `cors.ts`). And it cuts slow clients: headers within 10 s, a whole request within 30 s, an idle
 * keep-alive connection after 5 s, so connections dribbling bytes cannot hold every descriptor.
 * A body over the limit is read and thrown away before its 413 goes out (a lingering close, up to
 * 16 MiB or 10 s), so a client still sending gets the answer rather than a broken pipe.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { ApiError, type ErrorCode } from '../core/errors/errors.js';
import { errorResponse, type AnsweringHandler, type ApiResponse } from '../core/pipeline/handler.js';
import { applyCors, isOpenToAnyOrigin, OriginPolicy, originOf } from './cors.js';
import { registerDocsSite } from './docs-site.js';
import { HostCheck } from './host-check.js';
import { SOCKET_ADDRESSES, withoutReplicaToken, type ClientAddresses } from './client-address.js';
import { isRelayPath, registerRelay } from './relay-transport.js';
import type { SandboxRelay } from '../nostr/relay/sandbox-relay.node.js';
import { registerWebPages, type WebPagesOptions } from './web-pages.js';
import { markLogged, RequestLog, stampArrival, type RequestLogSink } from './request-log.js';
import { DEFAULT_LINGER, discardRestThen, type LingerLimits } from './oversized-body.js';

/** Options of `buildServer`. */
export interface ServerOptions {
  /** The engine's handler: `sandbox.handle`, or `sandbox.answer`, which costs a read no promise. */
  handle: AnsweringHandler;
  /** Largest accepted body in bytes; 1 MiB by default. Larger bodies get 413. */
  bodyLimit?: number;
  /**
   * A request refused before its body was read (over `bodyLimit`) is answered once the rest has
   * been read and thrown away, then closed: up to 16 MiB more or 10 s by default, past which it is
   * answered and closed anyway (`oversized-body.ts`).
   */
  linger?: LingerLimits;
  /**
   * CORS headers for browser clients: on by default (any origin on the v1 API; on the control
   * surface the allowed origins only). Off, no CORS header is sent; foreign origins are refused
   * on the control surface either way.
   */
  cors?: boolean;
  /**
   * The URL browsers reach the sandbox at when it is not the listening address (a proxy, a
   * container's port map): its host is accepted in `Host`, its origin on the control surface.
   */
  publicUrl?: string;
  /** Exact origins (`https://app.example:8443`) allowed on the control surface besides loopback ones and the sandbox's own. */
  corsOrigins?: readonly string[];
  /** Names `Host` may carry besides `localhost` and the listening addresses (e.g. the name given to `listen`). */
  hostNames?: readonly string[];
  /** Milliseconds a client has to send a request's headers; 10 s by default. */
  headersTimeoutMs?: number;
  /** Milliseconds a client has to send a whole request, body included; 30 s by default. */
  requestTimeoutMs?: number;
  /** Milliseconds an idle keep-alive connection stays open; 5 s by default. */
  keepAliveTimeoutMs?: number;
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
  /**
   * The sandbox's Nostr relay, served at `/nostr` (WebSocket, NIP-11 document; `relay-transport.ts`):
   * Host-checked, open to any origin. Its `url` is set once listening; it is closed with the server.
   */
  relay?: SandboxRelay;
  /**
   * The documentation site at `/docs/` (`docs-site.ts`): served from the built site of this
   * installation by default (with or without controls), from this folder when a path, or not at
   * all when false.
   */
  docs?: boolean | string;
  /**
   * Who a request comes from (`client-address.ts`): the socket's address by default; under
   * `--trust-proxy`, or between replicas, the `X-Forwarded-For` client. A request a fellow replica
   * forwarded skips the Host check: that replica made it, with the same flags.
   */
  clientAddresses?: ClientAddresses;
  /**
   * Makes the HTTP server instead of Fastify (its `serverFactory`): a replica serves its proxy
   * and, once leader, the sandbox on one listening server (`src/replicas/front-door.ts`).
   */
  serverFactory?: FastifyServerOptions['serverFactory'];
}

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** A Fastify instance serving the engine; call `listen` on it. */
export async function buildServer({
  handle,
  bodyLimit = 1024 * 1024,
  linger = DEFAULT_LINGER,
  cors: corsEnabled = true,
  publicUrl,
  corsOrigins = [],
  hostNames = [],
  headersTimeoutMs = 10_000,
  requestTimeoutMs = 30_000,
  keepAliveTimeoutMs = 5_000,
  logger = false,
  requestLog,
  web,
  relay,
  docs = true,
  clientAddresses = SOCKET_ADDRESSES,
  serverFactory,
}: ServerOptions): Promise<FastifyInstance> {
  const log = serverLogger(logger);
  const requests = new RequestLog(log, requestLog);
  const origins = new OriginPolicy([...corsOrigins.map(originOf), ...(publicUrl === undefined ? [] : [originOf(publicUrl)])]);
  const hosts = new HostCheck([...hostNames, ...(publicUrl === undefined ? [] : [new URL(publicUrl).hostname])], () =>
    app.addresses().flatMap((address) => (typeof address === 'string' ? [] : [address.address])),
  );
  const app = Fastify({
    ...(serverFactory === undefined ? {} : { serverFactory }),
    bodyLimit,
    // Slow clients are cut: Node's connection checker (every `checkEvery` ms) hands a request
    // over its headers or whole-request limit to `clientErrorHandler`, which closes it. Neither
    // limit runs once a request is in, so live streams stay open. No socket idle timeout
    // (`connectionTimeout`): the limits cover requests, idle keep-alive has its own.
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
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
    // (Called before the request hook runs, so it screens the request itself.)
    frameworkErrors: (error, request, reply) => {
      const early = screen(request, reply);
      if (early !== undefined) return answer(request, reply, early);
      return error.code === 'FST_ERR_BAD_URL' ? forward(request, reply) : answer(request, reply, transportError(error));
    },
    http: {
      // Node itself answers requests without a Host header (bare 400); let the engine answer them.
      requireHostHeader: false,
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: checkEvery(headersTimeoutMs, requestTimeoutMs),
    },
    clientErrorHandler: (error, socket) => {
      // Too slow: the client gets no answer, only a closed connection (nothing to tell a slowloris).
      if ((error as NodeJS.ErrnoException).code === 'ERR_HTTP_REQUEST_TIMEOUT') {
        socket.destroy();
        return;
      }
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
    for (const act of Array.from(faultTimers.values())) act();
    for (const cutShort of Array.from(lingering)) cutShort();
  });

  /**
   * What a request gets before it reaches anything, if it is refused or a preflight; otherwise
   * undefined, with any CORS headers it needs added to `reply`.
   */
  const screen = (request: FastifyRequest, reply: FastifyReply): ApiResponse | undefined => {
    const { headers } = request;
    if (!hosts.accepts(headers.host) && !clientAddresses.fromReplica(request.raw)) return MISDIRECTED;
    const origin = headers.origin;
    if (origin === undefined) return undefined;
    reply.header('vary', 'Origin');
    const openToAnyOrigin = isOpenToAnyOrigin(request.url) || (relay !== undefined && isRelayPath(request.url));
    if (!openToAnyOrigin && !origins.allows(origin, headers.host)) return ORIGIN_NOT_ALLOWED;
    return corsEnabled && applyCors(request.method, headers, origin, reply) ? PREFLIGHT_ANSWER : undefined;
  };
  // Every request, pages and streams included, before its body is read.
  app.addHook('onRequest', (request, reply, done) => {
    const early = screen(request, reply);
    if (early === undefined) return done();
    if (closing) reply.header('connection', 'close');
    answer(request, reply, early);
    // The pages' log controller would log the answer again when it ends.
    markLogged(request.raw);
  });

  /** Sends the engine's answer, then logs it. */
  const answer = (request: FastifyRequest, reply: FastifyReply, response: ApiResponse): void => {
    reply.code(response.status).headers(response.headers).send(response.body === '' ? undefined : response.body);
    if (requests.enabled) requests.answered(request.raw, request.method, request.url, response.status, response.body);
  };

  /**
   * An API fault's answer: late, or none at all (the socket destroyed, after a hang's wait). The
   * wait is held by a timer that a closing server cuts short, so a hang never delays a shutdown.
   */
  const misbehave = (request: FastifyRequest, reply: FastifyReply, response: ApiResponse): void => {
    const { delayMs = 0, drop = false } = response.transport!;
    const act = () => {
      clearTimeout(timer);
      faultTimers.delete(timer);
      if (!drop) return answer(request, reply, { ...response, transport: undefined });
      if (requests.enabled) requests.answered(request.raw, request.method, request.url, 0, '');
      request.raw.socket?.destroy();
    };
    const timer = setTimeout(act, delayMs);
    faultTimers.set(timer, act);
  };
  /** API faults waiting to answer late or to close, by their timer: a closing server acts on them at once. */
  const faultTimers = new Map<ReturnType<typeof setTimeout>, () => void>();
  /** Requests whose oversized body is being read and thrown away: a closing server answers them at once. */
  const lingering = new Set<() => void>();

  /** Sends the engine's answer: as it is, late, or not at all (an API fault). */
  const respond = (request: FastifyRequest, reply: FastifyReply, response: ApiResponse): void => {
    if (response.transport !== undefined) return misbehave(request, reply, response);
    if (response.status >= 500) log?.error({ url: request.url }, 'internal error');
    answer(request, reply, response);
  };

  // Not async, and it returns nothing: Fastify then waits for the reply instead of wrapping a
  // promise of it (the engine's handler never rejects; should it, Fastify's error handler answers).
  // An answer given at once is sent at once, without a microtask hop.
  const forward = (request: FastifyRequest, reply: FastifyReply): void => {
    if (closing) reply.header('connection', 'close');
    const response = handle({
      method: request.method,
      url: request.url,
      headers: withoutReplicaToken(request.headers as Record<string, string | undefined>),
      body: typeof request.body === 'string' ? request.body : undefined,
    });
    if (!(response instanceof Promise)) return respond(request, reply, response);
    response.then(
      (settled) => respond(request, reply, settled),
      (error: unknown) => reply.send(error),
    );
  };

  app.route({ method: HTTP_METHODS, url: '*', handler: forward });
  app.setNotFoundHandler(forward);
  app.setErrorHandler((error, request, reply) => {
    const response = transportError(error);
    if (response.status >= 500) log?.error({ err: error, url: request.url }, 'request failed');
    if (request.raw.complete || request.raw.destroyed) return answer(request, reply, response);
    // Refused before its body was all read (over the limit): a lingering close, so the client
    // gets its answer instead of a broken pipe.
    reply.header('connection', 'close');
    const cutShort = discardRestThen(request.raw, linger, (cut) => {
      lingering.delete(cutShort);
      answer(request, reply, response);
      // Past the bounds: no more waiting for the client to finish sending.
      if (cut) reply.raw.once('finish', () => request.raw.socket?.destroy());
    });
    lingering.add(cutShort);
  });
  if (relay !== undefined) registerRelay(app, relay, { accepts: (request) => hosts.accepts(request.headers.host) || clientAddresses.fromReplica(request), clientAddress: (request) => clientAddresses.of(request), isOwn: (request) => clientAddresses.fromReplica(request), answer, ...(publicUrl === undefined ? {} : { publicUrl }) });
  if (docs !== false) {
    // Logged when their response ends, as the pages are (below).
    await app.register(async (site) => {
      site.addHook('onResponse', async () => {});
      registerDocsSite(site, docs === true ? undefined : docs);
    });
  }
  if (web !== undefined) {
    // The pages and their streams are logged by the log controller, when their response ends:
    // Fastify calls it for routes with an `onResponse` hook, and here only for these. (After the
    // error handler: a plugin takes its parent's.)
    await app.register(async (pages) => {
      pages.addHook('onResponse', async () => {});
      registerWebPages(pages, async (request) => handle(request), { ...web, clientAddresses });
    });
  }
  return app;
}

/** A CORS preflight's answer: 204 with the CORS headers only. */
const PREFLIGHT_ANSWER: ApiResponse = { status: 204, headers: {}, body: '' };
const MISDIRECTED = errorResponse(new ApiError('misdirected_request'));
const ORIGIN_NOT_ALLOWED = errorResponse(new ApiError('origin_not_allowed'));

/**
 * How often Node looks for requests over their time limits: a tenth of the shorter one, between
 * 0.1 s and 1 s (10 s headers are then cut between 10 and 11 s).
 */
function checkEvery(headersTimeoutMs: number, requestTimeoutMs: number): number {
  return Math.min(1_000, Math.max(100, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 10)));
}

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
