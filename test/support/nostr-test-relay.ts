/**
 * TEST HARNESS, not the product's relay: @nostr-relay/core's NostrRelay served over a `ws`
 * WebSocketServer on 127.0.0.1 port 0, with a trivial in-memory repository. The NIP-47 tests run
 * through it while the sandbox's own relay (src/nostr/relay/) is built; switch them to
 * SandboxRelay once it lands.
 *
 * Note: @nostr-relay/core 0.0.40 matches live events on ids/authors/kinds/since/until only: tag
 * filters (#p, #e) are ignored when it broadcasts, so subscribers get more than they asked for and
 * the code under test must check tags itself (nostr-tools' Relay also filters on receipt).
 */
import { EventRepository, type Event, type Filter, type IncomingMessage } from '@nostr-relay/common';
import { NostrRelay } from '@nostr-relay/core';
import { matchFilter } from 'nostr-tools/filter';
import { WebSocketServer, type WebSocket } from 'ws';

class MemoryRepository extends EventRepository {
  private events: Event[] = [];
  isSearchSupported(): boolean {
    return false;
  }
  upsert(event: Event): { isDuplicate: boolean } {
    if (this.events.some((stored) => stored.id === event.id)) return { isDuplicate: true };
    const sameSlot = (stored: Event) => stored.kind === event.kind && stored.pubkey === event.pubkey;
    if (event.kind === 0 || event.kind === 3 || (event.kind >= 10_000 && event.kind < 20_000)) {
      if (this.events.some((stored) => sameSlot(stored) && stored.created_at > event.created_at)) return { isDuplicate: true };
      this.events = this.events.filter((stored) => !sameSlot(stored));
    }
    this.events.push(event);
    return { isDuplicate: false };
  }
  find(filter: Filter): Event[] {
    const found = this.events.filter((event) => matchFilter(filter as never, event)).sort((a, b) => b.created_at - a.created_at);
    return found.slice(0, filter.limit ?? found.length);
  }
  async destroy(): Promise<void> {}
}

export interface NostrTestRelay {
  url: string;
  /** Every EVENT message handled, in order. */
  events: Event[];
  /** Resolves once `count` (default 1) REQs whose filters pass `match` are registered, earlier ones included. */
  waitForSubscription(match: (filters: Filter[]) => boolean, options?: { count?: number; timeoutMs?: number }): Promise<void>;
  /** Cuts every client's socket (no close handshake), as a network failure would. */
  dropConnections(): void;
  close(): Promise<void>;
}

const silent = { setLogLevel() {}, debug() {}, info() {}, warn() {}, error() {} };

/** `refuse(event)` returning a reason makes the relay answer OK false with it. */
export async function startNostrTestRelay(options: { refuse?: (event: Event) => string | undefined } = {}): Promise<NostrTestRelay> {
  // No result caches: the same event may be sent twice on purpose, and reads must see the latest 13194.
  const relay = new NostrRelay(new MemoryRepository(), { logger: silent, filterResultCacheTtl: 0, eventHandlingResultCacheTtl: 0 });
  const events: Event[] = [];
  const reqs: Filter[][] = [];
  const waiters = new Set<() => void>();
  relay.register({ beforeHandleEvent: (event: Event) => ({ canHandle: !options.refuse?.(event), message: options.refuse?.(event) }) });
  relay.register({
    async handleMessage(_ctx, message, next) {
      const result = await next(); // after next(): the REQ's subscription is registered
      if (message[0] === 'EVENT') events.push(message[1]);
      if (message[0] === 'REQ') reqs.push(message.slice(2) as Filter[]);
      for (const waiter of waiters) waiter();
      return result;
    },
  });
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  server.on('connection', (socket: WebSocket) => {
    relay.handleConnection(socket);
    socket.on('message', (data) => {
      let message: unknown;
      try {
        message = JSON.parse(data.toString());
      } catch {
        return;
      }
      if (Array.isArray(message)) relay.handleMessage(socket, message as IncomingMessage).catch(() => {});
    });
    socket.on('close', () => relay.handleDisconnect(socket));
  });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}`,
    events,
    waitForSubscription(match, { count = 1, timeoutMs = 5_000 } = {}) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (reqs.filter(match).length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error('no matching subscription reached the test relay'));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    dropConnections() {
      for (const client of server.clients) client.terminate();
    },
    async close() {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await relay.destroy();
    },
  };
}
