/**
 * The one way both NIP-47 sides talk to a relay: publish, subscribe, close. The sandbox's relay
 * hands out in-process sessions (no socket) and `webSocketRelaySession` reaches any relay over a
 * WebSocket, so the wallet service and the client never know which one they hold.
 * Browser-safe: types only.
 */

/** A signed Nostr event (NIP-01). */
export interface NostrEvent {
  id: string;
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  sig: string;
}

/** A NIP-01 filter; `#x` keys match tag values. */
export interface NostrFilter {
  ids?: string[];
  authors?: string[];
  kinds?: number[];
  since?: number;
  until?: number;
  limit?: number;
  [tag: `#${string}`]: string[] | undefined;
}

export interface RelaySession {
  /**
   * Whether every event it delivers was checked (id and signature) by the relay it comes from in
   * this very process: then checking again is wasted work. Never set for a socket to a relay.
   */
  readonly eventsVerified?: boolean;
  /** Resolves when the relay says OK true; rejects with the relay's reason on OK false or a timeout. */
  publish(event: NostrEvent): Promise<void>;
  /** Live events matching the filters (stored ones first); `close()` ends it. */
  subscribe(filters: NostrFilter[], onEvent: (event: NostrEvent) => void): { close(): void };
  /**
   * Calls `listener` each time the session is connected again after losing its relay (a socket's;
   * an in-process session never is): what the relay kept may be gone (another process runs it
   * now), so what must stay on it is published again.
   */
  onReconnected?(listener: () => void): void;
  close(): void;
}
