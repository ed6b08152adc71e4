/**
 * A RelaySession over a real WebSocket, for wallets on relays other than the sandbox's own (an
 * accounts file's `nwcUrl`, a signet wallet). Built on nostr-tools' AbstractRelay with `ws`, but
 * reconnecting itself: nostr-tools' own reconnect waits 10 s and narrows each filter's `since` to
 * the last event seen, which can skip events of the same second; here every subscription is sent
 * again as it was, after a short back-off, and consumers (the wallet service, the client) drop
 * events they have already seen by id.
 */
import { AbstractRelay, type Subscription } from 'nostr-tools/abstract-relay';
import type { Event } from 'nostr-tools/core';
import type { Filter } from 'nostr-tools/filter';
import { verifyEvent } from 'nostr-tools/pure';
import WebSocketImpl from 'ws';
import type { NostrEvent, NostrFilter, RelaySession } from './relay-session.js';

export interface WebSocketRelaySessionOptions {
  /** How long `publish` waits for a connection and then for the relay's OK, in ms (default 5000). */
  publishTimeoutMs?: number;
  /** How long one connection attempt may take, in ms (default 10000). */
  connectTimeoutMs?: number;
  /** Waits between reconnection attempts, in ms; the last one repeats (default 250 … 5000). */
  reconnectDelaysMs?: number[];
  /** The WebSocket class (default: `ws`); a browser passes its global. */
  WebSocket?: typeof WebSocket;
  /** NOTICEs, subscriptions the relay closes, and throws from `onEvent` listeners. */
  onError?: (error: unknown) => void;
  /** Headers of the upgrade request (with `ws` only), read at each connection. */
  headers?: () => Record<string, string>;
}

const DEFAULT_RECONNECT_DELAYS_MS = [250, 500, 1_000, 2_000, 5_000];

interface SessionSubscription {
  filters: NostrFilter[];
  onEvent: (event: NostrEvent) => void;
  active: Subscription | undefined;
  closed: boolean;
}

/** Opens (in the background) a reconnecting session to the relay at `url`. */
export function webSocketRelaySession(url: string, options: WebSocketRelaySessionOptions = {}): WebSocketRelaySession {
  return new WebSocketRelaySession(url, options);
}

export class WebSocketRelaySession implements RelaySession {
  readonly url: string;
  private readonly relay: AbstractRelay;
  private readonly publishTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly reconnectDelaysMs: number[];
  private readonly onError: (error: unknown) => void;
  private readonly subscriptions = new Set<SessionSubscription>();
  private readonly connectWaiters = new Set<{ resolve(): void; reject(error: Error): void }>();
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private attempts = 0;
  private connectedBefore = false;
  private readonly reconnectListeners: Array<() => void> = [];
  private closed = false;

  constructor(url: string, options: WebSocketRelaySessionOptions = {}) {
    this.url = url;
    this.publishTimeoutMs = options.publishTimeoutMs ?? 5_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.reconnectDelaysMs = options.reconnectDelaysMs?.length ? options.reconnectDelaysMs : DEFAULT_RECONNECT_DELAYS_MS;
    this.onError = options.onError ?? (() => {});
    const headers = options.headers;
    // nostr-tools makes the socket with the URL only: a subclass of ws adds the headers. It also
    // listens to `error` for good: nostr-tools closes a socket still in its handshake (its connect
    // timeout, or close()) after dropping its own listener, and `ws` then emits `error` with nobody
    // listening, which would end the process. The failure still reaches nostr-tools (the attempt
    // rejects, `onclose` runs) and the session tries again.
    class NodeWebSocket extends WebSocketImpl {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, headers === undefined ? {} : { headers: headers() });
        this.on('error', () => {});
      }
    }
    this.relay = new AbstractRelay(url, {
      verifyEvent: (event) => verifyEvent(event),
      websocketImplementation: options.WebSocket ?? (NodeWebSocket as unknown as typeof WebSocket),
      // A ping every 29 s finds connections that died without a close frame.
      enablePing: true,
      enableReconnect: false,
    });
    this.relay.publishTimeout = this.publishTimeoutMs;
    this.relay.onnotice = (message) => this.onError(new Error(`NOTICE from ${url}: ${message}`));
    // nostr-tools calls this after every lost or failed connection (and after our own close()).
    this.relay.onclose = () => this.scheduleReconnect();
    this.connect();
  }

  /** Whether the socket is open now. */
  get connected(): boolean {
    return this.relay.connected;
  }

  async publish(event: NostrEvent): Promise<void> {
    if (this.closed) throw new Error(`relay session to ${this.url} is closed`);
    const deadline = Date.now() + this.publishTimeoutMs;
    await this.waitConnected(this.publishTimeoutMs);
    // One budget for both waits; nostr-tools' own publish timer stays as the backstop that
    // forgets the pending OK.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no OK from ${this.url} within ${this.publishTimeoutMs} ms`)), Math.max(0, deadline - Date.now()));
    });
    try {
      await Promise.race([this.relay.publish(event as Event), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  subscribe(filters: NostrFilter[], onEvent: (event: NostrEvent) => void): { close(): void } {
    if (filters.length === 0) throw new Error('a subscription needs at least one filter');
    const subscription: SessionSubscription = { filters, onEvent, active: undefined, closed: this.closed };
    if (!this.closed) {
      this.subscriptions.add(subscription);
      this.open(subscription);
    }
    return {
      close: () => {
        if (subscription.closed) return;
        subscription.closed = true;
        this.subscriptions.delete(subscription);
        const active = subscription.active;
        subscription.active = undefined;
        active?.close();
      },
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    for (const subscription of this.subscriptions) subscription.closed = true;
    this.subscriptions.clear();
    for (const waiter of this.connectWaiters) waiter.reject(new Error(`relay session to ${this.url} is closed`));
    this.connectWaiters.clear();
    this.relay.close();
  }

  private connect(): void {
    if (this.closed) return;
    this.relay.connect({ timeout: this.connectTimeoutMs }).then(
      () => this.onConnected(),
      // Failures also reach relay.onclose; this catches the ones that do not (a URL `ws` refuses).
      () => this.scheduleReconnect(),
    );
  }

  onReconnected(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  private onConnected(): void {
    if (this.closed) return;
    this.attempts = 0;
    for (const subscription of this.subscriptions) this.open(subscription);
    for (const waiter of this.connectWaiters) waiter.resolve();
    this.connectWaiters.clear();
    if (this.connectedBefore) {
      for (const listener of this.reconnectListeners) {
        try {
          listener();
        } catch (error) {
          this.onError(error);
        }
      }
    }
    this.connectedBefore = true;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer !== undefined || this.relay.connected) return;
    // The subscriptions died with the socket; they are sent again once it is back.
    for (const subscription of this.subscriptions) subscription.active = undefined;
    const delay = this.reconnectDelaysMs[Math.min(this.attempts, this.reconnectDelaysMs.length - 1)] ?? 1_000;
    this.attempts += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect();
    }, delay);
  }

  /** Sends the REQ; only while connected, as nostr-tools would otherwise reject unobserved. */
  private open(subscription: SessionSubscription): void {
    if (subscription.closed || subscription.active || !this.relay.connected) return;
    const active = this.relay.subscribe(
      subscription.filters.map((filter) => ({ ...filter }) as Filter),
      {
        onevent: (event) => {
          if (subscription.closed) return;
          try {
            subscription.onEvent(event);
          } catch (error) {
            this.onError(error);
          }
        },
        onclose: (reason) => {
          if (subscription.active !== active) return;
          subscription.active = undefined;
          // Closed by the relay (CLOSED) while the socket stays up: say so, it will not come back
          // until the next reconnection.
          if (!subscription.closed && this.relay.connected) this.onError(new Error(`relay ${this.url} closed a subscription: ${reason}`));
        },
      },
    );
    subscription.active = active;
  }

  private waitConnected(timeoutMs: number): Promise<void> {
    if (this.relay.connected) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.connectWaiters.delete(waiter);
        reject(new Error(`not connected to ${this.url} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.connectWaiters.add(waiter);
    });
  }
}
