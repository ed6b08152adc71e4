/**
 * The sandbox's own Nostr relay, for Nostr Wallet Connect only: @nostr-relay/core behind our
 * shape check (`message-check.ts`), with an in-memory store (`event-repository.ts`), a kind
 * policy (13194 and 23194–23197; anything else `OK false "blocked: …"`), and the limits of
 * `relay-limits.ts`, which bound what any client can make it hold.
 *
 * It serves WebSocket upgrades of one path on an http.Server (`attach`), and in-process sessions
 * (`session()`) to the sandbox's own wallets and NWC client, which go through the same checks and
 * broadcast as socket clients.
 *
 * Three of the core's defaults are replaced: its broadcast (it ignores `#x` tag filters, so every
 * subscriber of kind 23194 would get every wallet's requests; ours matches whole filters), its
 * result caches (a REQ could read a 1 s old answer, and the 10-minute cache of results by event
 * id would let an event with a forged signature fix the answer for its id), and its console
 * logger (errors go to `onError`).
 */
import { STATUS_CODES, type IncomingMessage as HttpRequest, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  ClientReadyState,
  EventUtils,
  type BeforeHandleEventPlugin,
  type BroadcastPlugin,
  type Client,
  type ClientContext,
  type HandleMessagePlugin,
  type Logger,
} from '@nostr-relay/common';
import { NostrRelay } from '@nostr-relay/core';
import { wasmEventSigner } from '../event-signer.node.js';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { packageVersion } from '../../cli/package-version.js';
import type { RelaySession } from '../relay-session.js';
import { MemoryEventRepository } from './event-repository.js';
import { matchesAnyFilter } from './filter-match.js';
import { InProcessSession, type RelayPort } from './in-process-session.js';
import { parseMessage } from './message-check.js';
import { RELAY_LIMITS, type RelayLimits } from './relay-limits.js';


// The relay core checks every event's signature with @noble/curves in pure JS (~1.4 ms of the
// ~1.9 ms an event costs here); libsecp256k1 in WASM gives the same answer about ten times faster.
// Its `validate` calls `EventUtils.isSigValid`, so replacing that one static method is enough.
EventUtils.isSigValid = (event) => wasmEventSigner.verify(event);

/** The kinds relayed: NWC info (stored), request, response, notifications (NIP-04 and NIP-44). */
export const NWC_KINDS: readonly number[] = [13194, 23194, 23195, 23196, 23197];
const NWC_KIND_SET = new Set(NWC_KINDS);
export const BLOCKED_KIND = 'blocked: only Nostr Wallet Connect kinds (13194, 23194-23197) are relayed here';

/** How often every connection is pinged; one that has not answered the last ping by then is cut. */
const HEARTBEAT_MS = 30_000;
/** How long a connection being closed gets to answer the close frame before it is cut. */
const CLOSE_GRACE_MS = 1_000;

/** Options of `SandboxRelay`. */
export interface SandboxRelayOptions {
  limits?: Partial<RelayLimits>;
  /** Failures of the relay itself (not of its clients' input); none by default. */
  onError?: (error: unknown) => void;
}

/** Options of `SandboxRelay.attach`. */
export interface AttachOptions {
  /** The path served; `/nostr` by default. Upgrades of other paths get 404. */
  path?: string;
  /** False refuses the upgrade with 421 (the server's Host check: DNS rebinding). */
  accept?: (request: HttpRequest) => boolean;
}

/** The sandbox's Nostr relay. */
export class SandboxRelay {
  /** Public URL of the relay (ws://host:port/nostr), set by the transport once listening; undefined before. */
  url: string | undefined = undefined;
  readonly limits: RelayLimits;
  readonly #onError: (error: unknown) => void;
  readonly #repository: MemoryEventRepository;
  readonly #relay: NostrRelay;
  /** Clients that have sent a message, with their core contexts: whom a broadcast reaches. */
  readonly #contexts = new Map<Client, ClientContext>();
  readonly #sockets = new Set<WebSocket>();
  /** Connection slots taken (handshakes included), in all and by remote address. */
  #connections = 0;
  readonly #connectionsOf = new Map<string, number>();
  readonly #sessions = new Set<InProcessSession>();
  readonly #detach: (() => void)[] = [];
  #server: WebSocketServer | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: SandboxRelayOptions = {}) {
    this.limits = { ...RELAY_LIMITS, ...options.limits };
    this.#onError = options.onError ?? (() => {});
    this.#repository = new MemoryEventRepository(this.limits);
    this.#relay = new NostrRelay(this.#repository, {
      logger: this.#logger,
      maxSubscriptionsPerClient: this.limits.maxSubscriptions,
      filterResultCacheTtl: 0,
      eventHandlingResultCacheTtl: 0,
    });
    this.#relay.register(this.#kindPolicy).register(this.#tracker).register(this.#broadcaster);
  }

  /** Serves `path` WebSocket upgrades on `server`; `accept(request)` false → 421 and the socket closed. */
  attach(server: Server, { path = '/nostr', accept }: AttachOptions = {}): void {
    if (this.#closing !== undefined) throw new Error('the relay is closed');
    this.#server ??= new WebSocketServer({ noServer: true, maxPayload: this.limits.maxMessageBytes, clientTracking: false });
    this.#heartbeat ??= setInterval(() => this.#beat(), HEARTBEAT_MS).unref();
    const onUpgrade = (request: HttpRequest, socket: Duplex, head: Buffer): void => this.#upgrade(request, socket, head, path, accept);
    server.on('upgrade', onUpgrade);
    this.#detach.push(() => server.off('upgrade', onUpgrade));
  }

  /** The NIP-11 relay information document. */
  info(): Record<string, unknown> {
    const limits = this.limits;
    return {
      name: 'lnpr-sandbox relay',
      description:
        "The lnpr-sandbox's own Nostr relay, for Nostr Wallet Connect (NIP-47) only: it relays kinds 13194 and 23194-23197 and keeps, in memory, the newest wallet info event (13194) of each wallet.",
      supported_nips: [1, 11, 47],
      software: 'lnpr-sandbox',
      version: VERSION,
      limitation: {
        max_message_length: limits.maxMessageBytes,
        max_subscriptions: limits.maxSubscriptions,
        max_filters: limits.maxFilters,
        max_limit: limits.maxLimit,
        default_limit: limits.maxLimit,
        max_subid_length: limits.maxSubscriptionIdLength,
        max_event_tags: limits.maxEventTags,
        auth_required: false,
        payment_required: false,
        restricted_writes: true,
      },
      retention: [
        { kinds: [13194], count: limits.maxStoredEvents },
        { kinds: [[23194, 23197]], time: 0 },
      ],
    };
  }

  /** An in-process client of the relay (no socket), for the sandbox's own wallets and NWC client. */
  session(): RelaySession {
    if (this.#closing !== undefined) throw new Error('the relay is closed');
    const session = new InProcessSession(this.#port, this.#onError, (closed) => this.#sessions.delete(closed));
    this.#sessions.add(session);
    return session;
  }

  /** What the relay holds now: open connections (handshakes included), stored events and their JSON's length. */
  stats(): { connections: number; sockets: number; storedEvents: number; storedBytes: number } {
    return { connections: this.#connections, sockets: this.#sockets.size, storedEvents: this.#repository.size, storedBytes: this.#repository.bytes };
  }

  /** Stops serving upgrades, closes every socket (1001, then cut after 1 s) and session, and empties the store. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    for (const detach of this.#detach.splice(0)) detach();
    clearInterval(this.#heartbeat);
    for (const session of [...this.#sessions]) session.close();
    const sockets = [...this.#sockets];
    const closed = sockets.map((ws) => new Promise<void>((resolve) => ws.once('close', () => resolve())));
    for (const ws of sockets) ws.close(1001, 'relay shutting down');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(closed), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    for (const ws of this.#sockets) ws.terminate();
    this.#server?.close();
    await this.#relay.destroy();
    await this.#repository.destroy();
    this.#contexts.clear();
  }

  #upgrade(request: HttpRequest, socket: Duplex, head: Buffer, path: string, accept: AttachOptions['accept']): void {
    socket.on('error', () => {});
    const url = request.url ?? '';
    const query = url.indexOf('?');
    if ((query === -1 ? url : url.slice(0, query)) !== path) return refuse(socket, 404, 'No WebSocket is served at this path.');
    if (this.#closing !== undefined || this.#server === undefined) return refuse(socket, 503, 'The relay is shutting down.');
    if (accept !== undefined && !accept(request)) {
      return refuse(socket, 421, 'The Host header names no address this sandbox serves (DNS rebinding?); see --public-url.');
    }
    const address = request.socket.remoteAddress ?? '';
    const ofAddress = this.#connectionsOf.get(address) ?? 0;
    if (this.#connections >= this.limits.maxConnections || ofAddress >= this.limits.maxConnectionsPerAddress) {
      return refuse(socket, 503, 'Too many connections to the relay; close one and try again.');
    }
    // The slot is taken now (concurrent handshakes count) and given back when the socket closes,
    // whether the handshake failed (ws answers 400 and never calls back) or the WebSocket ended.
    this.#connections += 1;
    this.#connectionsOf.set(address, ofAddress + 1);
    socket.once('close', () => {
      this.#connections -= 1;
      const left = (this.#connectionsOf.get(address) ?? 1) - 1;
      if (left === 0) this.#connectionsOf.delete(address);
      else this.#connectionsOf.set(address, left);
    });
    this.#server.handleUpgrade(request, socket, head, (ws) => this.#connected(ws, address));
  }

  #connected(ws: WebSocket, address: string): void {
    const limits = this.limits;
    let cut: NodeJS.Timeout | undefined;
    /** Closes with `code` after a NOTICE, ignoring what still comes, and cuts the connection if it does not answer. */
    const drop = (code: number, notice: string): void => {
      if (cut !== undefined) return;
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(['NOTICE', notice]));
      ws.close(code, notice.slice(0, 100));
      cut = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS).unref();
    };
    const client: Client = {
      get readyState() {
        return ws.readyState as ClientReadyState;
      },
      // What a client does not read piles up here: past the limit it is cut instead.
      send: (data) => {
        if (cut !== undefined) return;
        if (ws.bufferedAmount > limits.maxBufferedBytes) return drop(1008, 'rate-limited: the connection is not reading what the relay sends');
        ws.send(data);
      },
    };
    this.#sockets.add(ws);
    (ws as AliveSocket).alive = true;
    this.#relay.handleConnection(client, address);
    let windowStart = performance.now();
    let inWindow = 0;
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (cut !== undefined) return;
      const now = performance.now();
      if (now - windowStart >= 1_000) {
        windowStart = now;
        inWindow = 0;
      }
      if (++inWindow > limits.maxMessagesPerSecond) return drop(1008, `rate-limited: more than ${limits.maxMessagesPerSecond} messages a second`);
      if (isBinary) return client.send(JSON.stringify(['NOTICE', 'invalid: Nostr messages are text (JSON), not binary']));
      const checked = parseMessage((data as Buffer).toString('utf8'), limits);
      if (!checked.ok) return client.send(JSON.stringify(checked.reply));
      this.#relay.handleMessage(client, checked.message).catch(this.#onError);
    });
    ws.on('pong', () => ((ws as AliveSocket).alive = true));
    // A client's protocol errors (oversized or invalid frames) close its connection; nothing to report.
    ws.on('error', () => {});
    ws.on('close', () => {
      clearTimeout(cut);
      this.#sockets.delete(ws);
      this.#relay.handleDisconnect(client);
      this.#contexts.delete(client);
    });
  }

  /** Cuts connections that did not answer the last ping (their peer is gone), pings the others. */
  #beat(): void {
    for (const ws of this.#sockets) {
      const socket = ws as AliveSocket;
      if (!socket.alive) {
        ws.terminate();
        continue;
      }
      socket.alive = false;
      ws.ping();
    }
  }

  readonly #port: RelayPort = {
    // As JSON text, as a socket's message: the same size limit, and the core gets plain data.
    check: (message) => {
      let text: string;
      try {
        text = JSON.stringify(message);
      } catch {
        return { ok: false, reply: ['NOTICE', 'invalid: the message is not JSON'] };
      }
      return parseMessage(text, this.limits);
    },
    handle: async (client, message) => {
      await this.#relay.handleMessage(client, message);
    },
    disconnect: (client) => {
      this.#relay.handleDisconnect(client);
      this.#contexts.delete(client);
    },
  };

  readonly #kindPolicy: BeforeHandleEventPlugin = {
    beforeHandleEvent: (event) => (NWC_KIND_SET.has(event.kind) ? { canHandle: true } : { canHandle: false, message: BLOCKED_KIND }),
  };

  /** Remembers each client's context for the broadcast, and holds REQs to the subscription limit. */
  readonly #tracker: HandleMessagePlugin = {
    handleMessage: async (ctx, message, next) => {
      this.#contexts.set(ctx.client, ctx);
      // The core keeps subscriptions in an LRU of this size: a new one past it would silently
      // drop the oldest. Refuse it instead.
      if (message[0] === 'REQ' && ctx.subscriptions.size >= this.limits.maxSubscriptions && !ctx.subscriptions.has(message[1])) {
        ctx.sendMessage(['CLOSED', message[1], `blocked: at most ${this.limits.maxSubscriptions} open subscriptions per connection; CLOSE one first`]);
        return;
      }
      return next();
    },
  };

  /** Sends each event to the subscriptions with a filter it matches (tags included). Replaces the core's. */
  readonly #broadcaster: BroadcastPlugin = {
    broadcast: async (event) => {
      for (const ctx of this.#contexts.values()) {
        if (!ctx.isOpen) continue;
        ctx.subscriptions.forEach((filters, subscriptionId) => {
          if (!matchesAnyFilter(event, filters)) return;
          try {
            ctx.sendMessage(['EVENT', subscriptionId, event]);
          } catch (error) {
            this.#onError(error);
          }
        });
      }
    },
  };

  /** The core's logger: silent, but for errors. */
  readonly #logger: Logger = {
    setLogLevel: () => {},
    debug: () => {},
    info: () => {},
    warn: () => {},
    error: (message, ...details) => this.#onError(details.find((detail) => detail instanceof Error) ?? new Error(message)),
  };
}

type AliveSocket = WebSocket & { alive?: boolean };

/** The package's version, for NIP-11 (a constant when no package.json is found). */
const VERSION = (() => {
  try {
    return packageVersion();
  } catch {
    return '0.0.0';
  }
})();

/** Answers an upgrade that will not happen with a short plain-text response, then closes. */
function refuse(socket: Duplex, status: number, text: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}
