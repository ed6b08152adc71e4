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
 * The core checks and stores events; the rest is ours. Its subscriptions and broadcast are
 * replaced (it ignores `#x` tag filters, so every subscriber of kind 23194 would get every
 * wallet's requests, and checks every event against every open filter): REQ and CLOSE are served
 * here, from `subscription-index.ts`, which checks an event only against the filters that could
 * match it. So are its result caches (a REQ could read a 1 s old answer, and the 10-minute cache
 * of results by event id would let an event with a forged signature fix the answer for its id),
 * and its console logger (errors go to `onError`).
 *
 * Relay work must never take the HTTP API's time (the relay shares its event loop). Why budgets
 * and not a worker thread: the sandbox's own wallets and NWC client talk to the relay in-process
 * (every NWC create is a round trip through it), a socket cannot be handed to a worker thread
 * (its bytes would still cross the main thread), and a worker would bound the relay's CPU but
 * not its output or memory. Instead every socket client's cost is bounded where it is incurred
 * (`relay-limits.ts`), per connection, per remote address and for the relay as a whole, so
 * clients from many addresses are bounded too:
 * - bytes sent a second: a subscription that would get more is CLOSED "rate-limited: …"; past
 *   the relay's whole budget, clients' EVENTs are refused until it refills;
 * - matching work a second (filters checked × tags): an EVENT whose matching would go beyond gets
 *   OK false "rate-limited: …" before any of it is done; a REQ reading too much, CLOSED;
 * - the same signed event again is OK true "duplicate: …", not broadcast again.
 * The sandbox's own in-process sessions are never refused: its wallets keep working under attack.
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
  type Event,
  type Filter,
  type HandleMessagePlugin,
  type Logger,
} from '@nostr-relay/common';
import { NostrRelay } from '@nostr-relay/core';
import { wasmEventSigner } from '../event-signer.node.js';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { packageVersion } from '../../cli/package-version.js';
import type { RelaySession } from '../relay-session.js';
import { MemoryEventRepository, type EventOrigin } from './event-repository.js';
import { InProcessSession, type RelayPort } from './in-process-session.js';
import { parseMessage } from './message-check.js';
import { PartyBudgets } from './rate-budget.js';
import { RecentEventIds } from './recent-event-ids.js';
import { RELAY_LIMITS, type RelayLimits } from './relay-limits.js';
import { SubscriptionIndex } from './subscription-index.js';


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

/** Who a client is: the sandbox itself (in-process), or a socket at a remote address with its budgets. */
type Peer = { own: true } | { own: false; address: string; connection: PartyBudgets; ofAddress: PartyBudgets };

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
  /** Who an upgrade comes from, for the per-address limits; the socket's remote address by default. */
  clientAddress?: (request: HttpRequest) => string;
  /**
   * Whether an upgrade is the sandbox's own, as its in-process sessions are (a fellow replica's
   * wallets, vouched for by the replicas' token): its events are kept apart and never evicted, and
   * no budget applies to it.
   */
  isOwn?: (request: HttpRequest) => boolean;
}

/** The sandbox's Nostr relay. */
export class SandboxRelay {
  /** Public URL of the relay (ws://host:port/nostr), set by the transport once listening; undefined before. */
  url: string | undefined = undefined;
  readonly limits: RelayLimits;
  readonly #onError: (error: unknown) => void;
  readonly #repository: MemoryEventRepository;
  readonly #relay: NostrRelay;
  /** Every client that may send (sockets and in-process ones), and who it is. */
  readonly #peers = new Map<Client, Peer>();
  readonly #subscriptions = new SubscriptionIndex<Client>();
  readonly #recent: RecentEventIds;
  /** Who is publishing each event being handled, for the store. */
  readonly #origins = new Map<string, EventOrigin>();
  /** Budgets of each remote address with connections (or still owing), and of all socket clients. */
  readonly #addressBudgets = new Map<string, PartyBudgets>();
  readonly #allBudgets: PartyBudgets;
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
    this.#repository = new MemoryEventRepository(this.limits, (event) => this.#origins.get(event.id) ?? { own: false });
    this.#recent = new RecentEventIds(this.limits.recentEventIds);
    this.#allBudgets = new PartyBudgets(this.limits.maxBytesOutPerSecondInAll, this.limits.maxMatchWorkPerSecondInAll);
    this.#relay = new NostrRelay(this.#repository, {
      logger: this.#logger,
      maxSubscriptionsPerClient: this.limits.maxSubscriptions,
      filterResultCacheTtl: 0,
      eventHandlingResultCacheTtl: 0,
    });
    this.#relay.register(this.#kindPolicy).register(this.#handler).register(this.#broadcaster);
  }

  /** Serves `path` WebSocket upgrades on `server`; `accept(request)` false → 421 and the socket closed. */
  attach(server: Server, { path = '/nostr', accept, clientAddress, isOwn }: AttachOptions = {}): void {
    if (this.#closing !== undefined) throw new Error('the relay is closed');
    this.#server ??= new WebSocketServer({ noServer: true, maxPayload: this.limits.maxMessageBytes, clientTracking: false });
    this.#heartbeat ??= setInterval(() => this.#beat(), HEARTBEAT_MS).unref();
    const onUpgrade = (request: HttpRequest, socket: Duplex, head: Buffer): void => this.#upgrade(request, socket, head, path, accept, clientAddress, isOwn);
    server.on('upgrade', onUpgrade);
    this.#detach.push(() => server.off('upgrade', onUpgrade));
  }

  /** The NIP-11 relay information document. */
  info(): Record<string, unknown> {
    const limits = this.limits;
    return {
      name: 'lnpr-sandbox relay',
      description:
        "The lnpr-sandbox's own Nostr relay, for Nostr Wallet Connect (NIP-47) only: it relays kinds 13194 and 23194-23197 and keeps, in memory, the newest wallet info event (13194) of each wallet. " +
          `Budgets: ${limits.maxBytesOutPerSecond} bytes sent a second per connection (${limits.maxBytesOutPerSecondPerAddress} per address, ${limits.maxBytesOutPerSecondInAll} in all), ` +
          `${limits.maxMatchWorkPerSecond} matching steps a second per connection (${limits.maxMatchWorkPerSecondPerAddress} per address, ${limits.maxMatchWorkPerSecondInAll} in all); beyond, "rate-limited: …".`,
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
    this.#peers.clear();
    this.#recent.clear();
  }

  #upgrade(request: HttpRequest, socket: Duplex, head: Buffer, path: string, accept: AttachOptions['accept'], clientAddress: AttachOptions['clientAddress'], isOwn: AttachOptions['isOwn']): void {
    socket.on('error', () => {});
    const url = request.url ?? '';
    const query = url.indexOf('?');
    if ((query === -1 ? url : url.slice(0, query)) !== path) return refuse(socket, 404, 'No WebSocket is served at this path.');
    if (this.#closing !== undefined || this.#server === undefined) return refuse(socket, 503, 'The relay is shutting down.');
    if (accept !== undefined && !accept(request)) {
      return refuse(socket, 421, 'The Host header names no address this sandbox serves (DNS rebinding?); see --public-url.');
    }
    const address = clientAddress?.(request) ?? request.socket.remoteAddress ?? '';
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
      this.#forgetBudgets();
    });
    const own = isOwn?.(request) === true;
    this.#server.handleUpgrade(request, socket, head, (ws) => this.#connected(ws, address, own));
  }

  #connected(ws: WebSocket, address: string, own = false): void {
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
    let ofAddress = this.#addressBudgets.get(address);
    if (ofAddress === undefined) {
      ofAddress = new PartyBudgets(limits.maxBytesOutPerSecondPerAddress, limits.maxMatchWorkPerSecondPerAddress);
      this.#addressBudgets.set(address, ofAddress);
    }
    this.#peers.set(client, own ? { own: true } : { own: false, address, connection: new PartyBudgets(limits.maxBytesOutPerSecond, limits.maxMatchWorkPerSecond), ofAddress });
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
      this.#forget(client);
    });
  }

  /** Forgets a client: its subscriptions end. */
  #forget(client: Client): void {
    this.#relay.handleDisconnect(client);
    this.#subscriptions.removeClient(client);
    this.#peers.delete(client);
  }

  /** Drops the budgets of addresses with no connection left that owe nothing (a reconnect gains nothing). */
  #forgetBudgets(): void {
    for (const [address, budgets] of this.#addressBudgets) {
      if (!this.#connectionsOf.has(address) && budgets.bytesOut.full && budgets.matchWork.full) this.#addressBudgets.delete(address);
    }
  }

  /** Cuts connections that did not answer the last ping (their peer is gone), pings the others. */
  #beat(): void {
    this.#forgetBudgets();
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
      if (!this.#peers.has(client)) this.#peers.set(client, OWN);
      await this.#relay.handleMessage(client, message);
    },
    disconnect: (client) => this.#forget(client),
  };

  readonly #kindPolicy: BeforeHandleEventPlugin = {
    beforeHandleEvent: (event) => (NWC_KIND_SET.has(event.kind) ? { canHandle: true } : { canHandle: false, message: BLOCKED_KIND }),
  };

  /** Serves REQ and CLOSE; lets an EVENT through to the core unless it is a duplicate or over a budget. */
  readonly #handler: HandleMessagePlugin = {
    handleMessage: async (ctx, message, next) => {
      const peer = this.#peers.get(ctx.client) ?? OWN;
      if (message[0] === 'REQ') return this.#subscribe(ctx, peer, message[1], message.slice(2) as Filter[]);
      if (message[0] === 'CLOSE') {
        this.#subscriptions.remove(ctx.client, message[1]);
        return;
      }
      if (message[0] !== 'EVENT') return next();
      const event = message[1];
      if (this.#recent.has(event.id)) return ctx.sendMessage(['OK', event.id, true, 'duplicate: this event was already relayed']);
      const refusal = peer.own ? undefined : this.#publishRefusal(peer, event);
      if (refusal !== undefined) return ctx.sendMessage(['OK', event.id, false, refusal]);
      // Remembered before the core's awaits, so the same event sent again meanwhile is a duplicate too.
      const relayedOnly = event.kind >= 20_000 && event.kind < 30_000;
      if (relayedOnly) this.#recent.add(event.id);
      this.#origins.set(event.id, peer.own ? { own: true } : { own: false, address: peer.address });
      try {
        const result = await next();
        if (relayedOnly && !(result !== undefined && 'success' in result && result.success === true)) this.#recent.delete(event.id);
        return result;
      } finally {
        this.#origins.delete(event.id);
      }
    },
  };

  /** Why a client's event is refused before anything is done with it, if it is: the budgets it would pass. */
  #publishRefusal(peer: Exclude<Peer, { own: true }>, event: Event): string | undefined {
    const limits = this.limits;
    if (this.#allBudgets.bytesOut.available() <= 0) {
      return `rate-limited: the relay is sending its most (${limits.maxBytesOutPerSecondInAll} bytes a second to all clients); try again in a second`;
    }
    const work = this.#subscriptions.workOf(event);
    const over = this.#overWork(peer, work);
    if (over !== undefined) {
      return `rate-limited: matching this event against the open subscriptions (${work} steps) would pass the matching budget of ${over}; send fewer events, or events with fewer tags`;
    }
    return undefined;
  }

  /** Which matching budget `work` more steps would pass (undefined: none; then they are charged). */
  #overWork(peer: Exclude<Peer, { own: true }>, work: number): string | undefined {
    const limits = this.limits;
    if (!peer.connection.matchWork.has(work)) return `${limits.maxMatchWorkPerSecond} steps a second per connection`;
    if (!peer.ofAddress.matchWork.has(work)) return `${limits.maxMatchWorkPerSecondPerAddress} steps a second per address`;
    if (!this.#allBudgets.matchWork.has(work)) return `${limits.maxMatchWorkPerSecondInAll} steps a second for all clients`;
    for (const budgets of [peer.connection, peer.ofAddress, this.#allBudgets]) budgets.matchWork.charge(work);
    return undefined;
  }

  /** A REQ: its stored events (within the budgets), EOSE, then the live ones; refused with CLOSED. */
  #subscribe(ctx: ClientContext, peer: Peer, id: string, filters: Filter[]): void {
    const limits = this.limits;
    const client = ctx.client;
    // A new one past the limit is refused (the core's LRU would silently drop the oldest).
    if (this.#subscriptions.countOf(client) >= limits.maxSubscriptions && !this.#subscriptions.has(client, id)) {
      return ctx.sendMessage(['CLOSED', id, `blocked: at most ${limits.maxSubscriptions} open subscriptions per connection; CLOSE one first`]);
    }
    this.#subscriptions.remove(client, id);
    if (!peer.own && this.#allBudgets.bytesOut.available() <= 0) {
      return ctx.sendMessage(['CLOSED', id, `rate-limited: the relay is sending its most (${limits.maxBytesOutPerSecondInAll} bytes a second to all clients); try again in a second`]);
    }
    const events: Event[] = [];
    const seen = new Set<string>();
    for (const filter of filters) {
      const budget = peer.own
        ? Infinity
        : Math.min(peer.connection.matchWork.available(), peer.ofAddress.matchWork.available(), this.#allBudgets.matchWork.available());
      const found = this.#repository.search(filter, Math.max(0, budget));
      if (!peer.own) for (const budgets of [peer.connection, peer.ofAddress, this.#allBudgets]) budgets.matchWork.charge(Math.min(found.work, Math.max(0, budget)));
      if (!found.complete) {
        return ctx.sendMessage(['CLOSED', id, `rate-limited: reading the stored events for these filters would pass the matching budget (${limits.maxMatchWorkPerSecond} steps a second per connection, ${limits.maxMatchWorkPerSecondPerAddress} per address); narrow them (authors, kinds) or try again in a second`]);
      }
      for (const event of found.events) {
        if (seen.has(event.id)) continue;
        seen.add(event.id);
        events.push(event);
      }
    }
    for (const event of events) {
      if (!this.#deliver(client, peer, id, eventMessage(id, JSON.stringify(event)))) return;
    }
    ctx.sendMessage(['EOSE', id]);
    this.#subscriptions.add(client, id, filters);
  }

  /**
   * Sends one EVENT of subscription `id` to `client`, within its budgets: a socket client that
   * would pass its connection's or its address's bytes a second gets CLOSED for the subscription
   * instead (false). What is sent counts against the relay's whole budget.
   */
  #deliver(client: Client, peer: Peer, id: string, text: string): boolean {
    if (peer.own) {
      client.send(text);
      return true;
    }
    const limits = this.limits;
    const bytes = text.length;
    const over = !peer.connection.bytesOut.has(bytes)
      ? `${limits.maxBytesOutPerSecond} bytes a second per connection`
      : !peer.ofAddress.bytesOut.has(bytes)
        ? `${limits.maxBytesOutPerSecondPerAddress} bytes a second per address`
        : undefined;
    if (over !== undefined) {
      this.#subscriptions.remove(client, id);
      client.send(JSON.stringify(['CLOSED', id, `rate-limited: this subscription would pass the relay's output budget of ${over}; subscribe to less (authors, #p) or read less at once`]));
      return false;
    }
    for (const budgets of [peer.connection, peer.ofAddress, this.#allBudgets]) budgets.bytesOut.charge(bytes);
    client.send(text);
    return true;
  }

  /** Sends each event to the subscriptions with a filter it matches (tags included), within their budgets. Replaces the core's. */
  readonly #broadcaster: BroadcastPlugin = {
    broadcast: async (event) => {
      const subscriptions = this.#subscriptions.subscriptionsFor(event);
      if (subscriptions.length === 0) return;
      // The event's JSON once, not once per subscriber.
      const json = JSON.stringify(event);
      for (const { client, id } of subscriptions) {
        if (client.readyState !== ClientReadyState.OPEN) continue;
        try {
          this.#deliver(client, this.#peers.get(client) ?? OWN, id, eventMessage(id, json));
        } catch (error) {
          this.#onError(error);
        }
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

const OWN: Peer = { own: true };

/** `["EVENT", id, event]` from the event's JSON. */
function eventMessage(id: string, eventJson: string): string {
  return `["EVENT",${JSON.stringify(id)},${eventJson}]`;
}

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
