/**
 * A session of the sandbox's own relay without a socket, for the sandbox's wallets and NWC client.
 * It is made of @nostr-relay/core clients (objects with `send` and an OPEN `readyState`), so what
 * it publishes takes the same path as a socket's messages: the shape check, the kind policy, the
 * core's id and signature checks, the store and the broadcast to every subscriber. One client per
 * subscription and one per publish: a subscription's events come to its own `send`, and a
 * publish's `OK` to its own, so nothing needs matching up or timing out (the core answers an
 * EVENT before `handleMessage` resolves).
 */
import { ClientReadyState, type Client, type IncomingMessage, type OutgoingMessage } from '@nostr-relay/common';
import type { NostrEvent, NostrFilter, RelaySession } from '../relay-session.js';
import type { CheckResult } from './message-check.js';

/** What a session needs of the relay. */
export interface RelayPort {
  /** The checks a socket's messages get (size and shape). */
  check(message: unknown): CheckResult;
  /** Hands a checked message of `client` to the core; its answers go to `client.send`. */
  handle(client: Client, message: IncomingMessage): Promise<void>;
  /** Forgets `client` (its subscriptions end). */
  disconnect(client: Client): void;
}

/** The reason a relay refused a publish or a subscription, as it said it (`blocked: …`, `invalid: …`). */
export class RelayRefusal extends Error {
  override readonly name = 'RelayRefusal';
}

/** An in-process RelaySession; `SandboxRelay.session()` makes them. */
export class InProcessSession implements RelaySession {
  /** What it delivers went through the relay's checks (id, signature) in this process. */
  readonly eventsVerified = true;
  readonly #port: RelayPort;
  readonly #onError: (error: unknown) => void;
  readonly #onClose: (session: InProcessSession) => void;
  readonly #subscriptions = new Set<() => void>();
  #serial = 0;
  #closed = false;

  constructor(port: RelayPort, onError: (error: unknown) => void, onClose: (session: InProcessSession) => void) {
    this.#port = port;
    this.#onError = onError;
    this.#onClose = onClose;
  }

  /** Resolves on the relay's `OK true`; rejects with a RelayRefusal naming its reason otherwise. */
  async publish(event: NostrEvent): Promise<void> {
    if (this.#closed) throw new RelayRefusal('error: the relay session is closed');
    const checked = this.#port.check(['EVENT', event]);
    if (!checked.ok) throw new RelayRefusal(reasonOf(checked.reply));
    const replies: OutgoingMessage[] = [];
    const client: Client = { readyState: ClientReadyState.OPEN, send: (data) => void replies.push(JSON.parse(data) as OutgoingMessage) };
    try {
      await this.#port.handle(client, checked.message);
    } finally {
      this.#port.disconnect(client);
    }
    const ok = replies.find((reply) => reply[0] === 'OK');
    if (ok === undefined) throw new RelayRefusal(replies.length > 0 ? reasonOf(replies[0]!) : 'error: the relay did not answer');
    if (ok[2] !== true) throw new RelayRefusal(ok[3]);
  }

  /**
   * Stored events matching `filters` (newest first), then live ones, each to `onEvent` (called
   * asynchronously; what it throws goes to `onError`). Throws a RelayRefusal for filters the relay
   * refuses.
   */
  subscribe(filters: NostrFilter[], onEvent: (event: NostrEvent) => void): { close(): void } {
    if (this.#closed) throw new RelayRefusal('error: the relay session is closed');
    const id = `in-process-${++this.#serial}`;
    const checked = this.#port.check(['REQ', id, ...filters]);
    if (!checked.ok) throw new RelayRefusal(reasonOf(checked.reply));
    let open = true;
    const client: Client = {
      get readyState() {
        return open ? ClientReadyState.OPEN : ClientReadyState.CLOSED;
      },
      send: (data) => {
        const message = JSON.parse(data) as OutgoingMessage;
        if (message[0] === 'EVENT') {
          const event = message[2] as NostrEvent;
          // Not inside the core's broadcast loop: a slow or throwing listener must not hold up or
          // break the delivery to the other subscribers.
          queueMicrotask(() => {
            if (!open) return;
            try {
              onEvent(event);
            } catch (error) {
              this.#onError(error);
            }
          });
        } else if (message[0] === 'CLOSED') {
          close();
          this.#onError(new RelayRefusal(message[2]));
        }
      },
    };
    const close = (): void => {
      if (!open) return;
      open = false;
      this.#subscriptions.delete(close);
      this.#port.disconnect(client);
    };
    this.#subscriptions.add(close);
    this.#port.handle(client, checked.message).catch(this.#onError);
    return { close };
  }

  /** Ends every subscription; later publishes and subscriptions are refused. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const close of [...this.#subscriptions]) close();
    this.#onClose(this);
  }
}

/** The text of a refusal: an OK's or CLOSED's reason, a NOTICE's message. */
function reasonOf(reply: OutgoingMessage): string {
  if (reply[0] === 'OK') return reply[3];
  if (reply[0] === 'CLOSED') return reply[2];
  return String(reply[1]);
}
