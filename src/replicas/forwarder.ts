/**
 * A replica's forwarding face: a request for an account another replica serves, its live stream
 * (SSE, unbuffered, closed when either side closes) and a WebSocket upgrade of `/nostr` when
 * another replica runs the relay, forwarded with `@fastify/http-proxy` (`@fastify/reply-from` on
 * undici, `ws` for upgrades) to the replica `targets` names. The forwarded request keeps the
 * client's Host (this replica screened it, with the same flags as the others) and carries the
 * client's address (`X-Forwarded-For`) and the replicas' token, so the serving replica counts the
 * real client against its per-address limits. While no replica can be named, or it cannot be
 * reached, a request waits (looked up again every ~200 ms) until 10 s after it arrived, then gets
 * 503 `storage_unavailable`: never a hang, never a 502 or 504. A request that may have reached a
 * replica that then died (not a GET, HEAD or OPTIONS, cut after being sent) is not sent again (it
 * may have been applied): it gets 503 at once.
 */
import httpProxy from '@fastify/http-proxy';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { ServerFactory } from './front-door.js';
import { ApiError } from '../core/errors/errors.js';
import { errorResponse, type ApiResponse } from '../core/pipeline/handler.js';
import { REPLICA_TOKEN_HEADER, type ClientAddresses } from '../http/client-address.js';
import { HostCheck } from '../http/host-check.js';

/** Where a request is forwarded: the replica serving its account (the relay's, for `/nostr`). */
export interface ForwardTargets {
  /** The URL of the replica to send `request` to, waiting until `deadline` (epoch ms) for one. */
  find(request: IncomingMessage, deadline: number): Promise<string | undefined>;
  /** `url` did not answer `request`: the next `find` looks again. */
  forget(request: IncomingMessage, url: string): void;
  /** The replicas' shared token, once read. */
  readonly token: string | undefined;
}

/** Options of the forwarder. */
export interface ForwarderOptions {
  serverFactory: ServerFactory;
  targets: ForwardTargets;
  clientAddresses: ClientAddresses;
  /** Names `Host` may carry besides localhost and the listening addresses (as the sandbox's server takes them). */
  hostNames: readonly string[];
  bodyLimit: number;
  /** How long a request may wait for a replica to serve it; 10 s by default. */
  waitMs?: number;
}

/** Methods sent again after a cut connection: they change nothing. */
const REPEATABLE = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Errors of a connection that never carried the request: safe to send again, whatever the method. */
const NOT_SENT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN']);

const kArrived = Symbol('arrived');
const kLeader = Symbol('leader');
type Forwarded = FastifyRequest & { [kArrived]?: number; [kLeader]?: string };

/** The forwarder, ready to be made the front door's active face. */
export async function buildForwarder({ serverFactory, targets, clientAddresses, hostNames, bodyLimit, waitMs = 10_000 }: ForwarderOptions): Promise<FastifyInstance> {
  const app = Fastify({
    serverFactory: serverFactory as never,
    bodyLimit,
    logger: false,
    return503OnClosing: false,
    exposeHeadRoutes: false,
  }) as unknown as FastifyInstance;
  const hosts = new HostCheck(hostNames, () => app.addresses().flatMap((address) => (typeof address === 'string' ? [] : [address.address])));
  const answer = (reply: FastifyReply, response: ApiResponse) => reply.code(response.status).headers(response.headers).send(response.body);

  // Bodies are read whole (at most `bodyLimit`), so a request can be sent again to another replica.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.setErrorHandler((error: { statusCode?: number; message?: string }, _request, reply) =>
    answer(reply, errorResponse(error.statusCode === 413 ? new ApiError('payload_too_large') : error.statusCode !== undefined && error.statusCode < 500 ? new ApiError('invalid_request', error.message ?? 'Invalid request.') : UNAVAILABLE)),
  );
  app.addHook('onRequest', (request, reply, done) => {
    (request as Forwarded)[kArrived] = Date.now();
    // A fellow replica (its token) screened the Host already, or sends to this one's advertise URL.
    if (!hosts.accepts(request.headers.host) && !clientAddresses.fromReplica(request.raw)) return answer(reply, errorResponse(new ApiError('misdirected_request')));
    done();
  });

  /** The headers the serving replica gets: the client's Host, its address, and the replicas' token. */
  const vouch = (raw: IncomingMessage, headers: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = { ...headers, 'x-forwarded-for': clientAddresses.of(raw) };
    if (raw.headers.host !== undefined) out.host = raw.headers.host;
    if (targets.token !== undefined) out[REPLICA_TOKEN_HEADER] = targets.token;
    return out;
  };

  await app.register(httpProxy, {
    upstream: '',
    websocket: true,
    // Set so that the proxy adds no body parsers of its own (ours buffer).
    preValidation: async () => {},
    // Waits for a replica to serve it (upgrades too: they are routed through here before being taken over).
    preHandler: async (request, reply) => {
      const leader = await targets.find(request.raw, (request as Forwarded)[kArrived]! + waitMs);
      if (leader === undefined) return answer(reply, errorResponse(UNAVAILABLE));
      (request as Forwarded)[kLeader] = leader;
    },
    replyOptions: { getUpstream: (request) => (request as Forwarded)[kLeader]! },
    // `rewriteRequestHeaders` of the WebSocket client is in the plugin's code, not its types.
    wsClientOptions: {
      rewriteRequestHeaders: (headers: Record<string, unknown>, request: FastifyRequest) => vouch(request.raw, headers),
    } as never,
    handler: (request, reply, dest) => send(request as Forwarded, reply, dest),
  });

  /** Forwards to the replica found; on a connection error, to the one found next, within the wait. */
  const send = (request: Forwarded, reply: FastifyReply, dest: string): void => {
    const leader = request[kLeader]!;
    const body = request.body instanceof Buffer && request.body.length > 0 ? request.body : undefined;
    reply.from(dest, {
      getUpstream: () => leader,
      ...(body === undefined ? {} : { body, contentType: request.headers['content-type'] ?? 'application/octet-stream' }),
      rewriteRequestHeaders: (_request, headers) => vouch(request.raw, headers) as never,
      onError: (_reply, { error }) => {
        const code = causeCode(error);
        if (!NOT_SENT.has(code) && !REPEATABLE.has(request.method)) {
          return answer(reply, errorResponse(new ApiError('storage_unavailable', 'The replica serving the sandbox went away while answering; the request may or may not have been applied.')));
        }
        targets.forget(request.raw, leader);
        void targets.find(request.raw, request[kArrived]! + waitMs).then((next) => {
          if (reply.sent) return;
          if (next === undefined) return answer(reply, errorResponse(UNAVAILABLE));
          request[kLeader] = next;
          send(request, reply, dest);
        });
      },
    });
  };
  return app;
}

const UNAVAILABLE = new ApiError('storage_unavailable', 'No replica serves this right now (the one that did is away and no other has taken over yet); try again in a moment.');

/** The errno-like code of a proxy error (reply-from wraps undici's). */
function causeCode(error: unknown): string {
  let current = error as { code?: string; cause?: unknown } | undefined;
  let code = '';
  for (let depth = 0; current !== undefined && depth < 5; depth += 1) {
    if (typeof current.code === 'string' && !current.code.startsWith('FST_')) code = current.code;
    current = current.cause as typeof current;
  }
  return code;
}
