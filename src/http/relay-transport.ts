/**
 * The sandbox's Nostr relay on the Fastify server: WebSocket upgrades of `/nostr` (Host-checked
 * like every request, as a DNS-rebinding page must not reach the relay either; but open to any
 * `Origin`, since browser wallets are NWC clients too), its NIP-11 document on `GET /nostr` with
 * `Accept: application/nostr+json` (CORS `*`, as NIP-11 asks), and its public URL once listening.
 * A plain `GET /nostr` gets 400 `invalid_request` in the engine's shape, saying what is there.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../core/errors/errors.js';
import { errorResponse, type ApiResponse } from '../core/pipeline/handler.js';
import type { SandboxRelay } from '../nostr/relay/sandbox-relay.node.js';

/** Where the relay is served. */
export const RELAY_PATH = '/nostr';

/** Whether `url` (path and query) is the relay's. */
export function isRelayPath(url: string): boolean {
  const query = url.indexOf('?');
  return (query === -1 ? url : url.slice(0, query)) === RELAY_PATH;
}

/** What the wiring takes from the server. */
export interface RelayTransportOptions {
  /** The server's Host check (an upgrade a fellow replica forwarded passes it). */
  accepts: (request: IncomingMessage) => boolean;
  /** Who an upgrade comes from, for the relay's per-address limits. */
  clientAddress?: (request: IncomingMessage) => string;
  /** Whether an upgrade is the sandbox's own (a fellow replica's wallets). */
  isOwn?: (request: IncomingMessage) => boolean;
  /** Sends a response and logs it, as the server does for its own. */
  answer: (request: FastifyRequest, reply: FastifyReply, response: ApiResponse) => void;
  /** The URL clients reach the sandbox at, when not the listening address. */
  publicUrl?: string;
}

/** Serves `relay` on `app` at RELAY_PATH, sets its `url` once listening, closes it before the server. */
export function registerRelay(app: FastifyInstance, relay: SandboxRelay, { accepts, clientAddress, isOwn, answer, publicUrl }: RelayTransportOptions): void {
  relay.attach(app.server, { path: RELAY_PATH, accept: accepts, ...(clientAddress ? { clientAddress } : {}), ...(isOwn ? { isOwn } : {}) });
  app.get(RELAY_PATH, (request, reply) => {
    if (!String(request.headers.accept ?? '').includes('application/nostr+json')) return answer(request, reply, NOT_A_PAGE);
    answer(request, reply, {
      status: 200,
      headers: { 'content-type': 'application/nostr+json', 'access-control-allow-origin': '*' },
      body: JSON.stringify(relay.info()),
    });
  });
  app.addHook('onListen', (done) => {
    relay.url = relayUrl(publicUrl ?? app.listeningOrigin);
    done();
  });
  // Before the server closes: it waits for every connection, WebSockets included.
  app.addHook('preClose', () => relay.close());
}

const NOT_A_PAGE = errorResponse(
  new ApiError(
    'invalid_request',
    `This is a Nostr relay: connect a WebSocket to ${RELAY_PATH}, or ask for its NIP-11 document with "Accept: application/nostr+json".`,
  ),
);

/** The relay's URL from the server's (ws for http, wss for https); a wildcard address becomes loopback. */
export function relayUrl(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
    else if (url.hostname === '[::]') url.hostname = '[::1]';
    url.pathname = RELAY_PATH;
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}
