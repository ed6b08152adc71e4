/**
 * The NWC bench's client side, kept cheap on the driver's CPU so that the figures are the
 * server's: events are signed with libsecp256k1 compiled to WebAssembly (tiny-secp256k1, ~0.2 ms
 * a signature here, where nostr-tools' pure-JS signer takes ~2.5 ms), ids hashed with node:crypto,
 * NIP-44 conversation keys computed once per wallet, and answers matched by their `e` tag and
 * decrypted without checking their signature (the bench trusts the server it measures; the
 * relay has verified every event it relays). A raw `ws` socket per wallet, no client library:
 * @getalby/sdk's NWCClient and our own NwcClient over a WebSocketRelaySession both verify every
 * event they receive in pure JS (~1.9 ms each), which would make the driver, not the server,
 * the bottleneck on 2 cores.
 *
 * Also the reader of the dashboard's live stream (Server-Sent Events), which tells when a payment
 * request completes without polling.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as nip44 from 'nostr-tools/nip44';
import { signSchnorr, xOnlyPointFromScalar } from 'tiny-secp256k1';
import WebSocket from 'ws';

/** NIP-47's kinds. */
export const NWC_REQUEST_KIND = 23194;
export const NWC_RESPONSE_KIND = 23195;

/** A signed Nostr event. */
export interface SignedEvent {
  id: string;
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  sig: string;
}

/** Wall-clock milliseconds with sub-millisecond resolution (the server's `updatedAt` is wall clock). */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

/** A Nostr key pair. */
export interface NostrKeys {
  secretKey: Uint8Array;
  pubkey: string;
}

export function nostrKeys(secretKey: Uint8Array = randomBytes(32)): NostrKeys {
  return { secretKey, pubkey: Buffer.from(xOnlyPointFromScalar(secretKey)).toString('hex') };
}

/** Signs an event (NIP-01 id, BIP-340 signature). */
export function signEvent(keys: NostrKeys, template: { kind: number; tags: string[][]; content: string; created_at?: number }): SignedEvent {
  const created_at = template.created_at ?? Math.floor(Date.now() / 1000);
  const serialized = JSON.stringify([0, keys.pubkey, created_at, template.kind, template.tags, template.content]);
  const hash = createHash('sha256').update(serialized).digest();
  const sig = Buffer.from(signSchnorr(hash, keys.secretKey, randomBytes(32))).toString('hex');
  return { id: hash.toString('hex'), pubkey: keys.pubkey, created_at, kind: template.kind, tags: template.tags, content: template.content, sig };
}

/** One WebSocket connection to a relay: publish, subscribe, the relay's OK answers. */
export class RelayConnection {
  readonly #ws: WebSocket;
  readonly #subscriptions = new Map<string, (event: SignedEvent, at: number) => void>();
  readonly #eose = new Map<string, () => void>();
  readonly #okWaiters = new Map<string, (ok: boolean, reason: string) => void>();
  /** NOTICEs and CLOSED reasons the relay sent: a bench that hit a relay limit must say so. */
  readonly problems: string[] = [];
  #nextSubscription = 0;

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.on('message', (data: WebSocket.RawData) => this.#receive(data.toString(), performance.now()));
    ws.on('close', (code: number, reason: Buffer) => {
      if (code !== 1000 && code !== 1005) this.problems.push(`closed ${code} ${reason.toString()}`);
    });
  }

  static open(url: string): Promise<RelayConnection> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false });
      ws.once('open', () => resolve(new RelayConnection(ws)));
      ws.once('error', reject);
    });
  }

  /** Subscribes to `filter`; resolves at the relay's EOSE. */
  subscribe(filter: Record<string, unknown>, onEvent: (event: SignedEvent, at: number) => void): Promise<void> {
    const id = `s${this.#nextSubscription++}`;
    this.#subscriptions.set(id, onEvent);
    return new Promise((resolve) => {
      this.#eose.set(id, resolve);
      this.#ws.send(JSON.stringify(['REQ', id, filter]));
    });
  }

  /** Sends the event; `onOk` hears the relay's OK for it. */
  publish(event: SignedEvent, onOk?: (ok: boolean, reason: string) => void): void {
    if (onOk) this.#okWaiters.set(event.id, onOk);
    this.#ws.send(`["EVENT",${JSON.stringify(event)}]`);
  }

  close(): Promise<void> {
    if (this.#ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.#ws.once('close', () => resolve());
      this.#ws.close(1000);
    });
  }

  #receive(text: string, at: number): void {
    const message = JSON.parse(text) as unknown[];
    switch (message[0]) {
      case 'EVENT':
        this.#subscriptions.get(message[1] as string)?.(message[2] as SignedEvent, at);
        break;
      case 'OK': {
        const id = message[1] as string;
        const waiter = this.#okWaiters.get(id);
        this.#okWaiters.delete(id);
        waiter?.(message[2] === true, String(message[3] ?? ''));
        break;
      }
      case 'EOSE': {
        const resolve = this.#eose.get(message[1] as string);
        this.#eose.delete(message[1] as string);
        resolve?.();
        break;
      }
      default:
        this.problems.push(text.slice(0, 200));
    }
  }
}

/** How a `pay_invoice` went: when its answer arrived (performance.now()), and its error code if it failed. */
export interface PayAnswer {
  at: number;
  error?: string;
}

/** A test wallet's connection, as an app holds it: pays invoices with NIP-47 `pay_invoice` over NIP-44. */
export class NwcPayer {
  readonly walletPubkey: string;
  readonly relayUrl: string;
  readonly #keys: NostrKeys;
  readonly #conversationKey: Uint8Array;
  readonly #pending = new Map<string, (answer: PayAnswer) => void>();
  #relay: RelayConnection | undefined;

  constructor(nwcUrl: string) {
    const match = /^nostr\+walletconnect:\/\/([0-9a-f]{64})\?(.*)$/.exec(nwcUrl);
    if (!match) throw new Error(`not a NWC URL: ${nwcUrl}`);
    const query = new URLSearchParams(match[2]!);
    this.walletPubkey = match[1]!;
    this.relayUrl = query.get('relay') ?? '';
    this.#keys = nostrKeys(Buffer.from(query.get('secret') ?? '', 'hex'));
    this.#conversationKey = nip44.v2.utils.getConversationKey(this.#keys.secretKey, this.walletPubkey);
  }

  /** Connects and subscribes to the wallet's answers to this client. */
  async connect(): Promise<void> {
    this.#relay = await RelayConnection.open(this.relayUrl);
    await this.#relay.subscribe({ kinds: [NWC_RESPONSE_KIND], authors: [this.walletPubkey], '#p': [this.#keys.pubkey] }, (event, at) =>
      this.#answer(event, at),
    );
  }

  /** What the relay complained about, if anything. */
  get problems(): string[] {
    return this.#relay?.problems ?? [];
  }

  /**
   * Builds and sends a `pay_invoice` request; `sentAt` (performance.now()) is taken as the event
   * goes to the socket, after it was encrypted and signed.
   */
  pay(invoice: string): { id: string; sentAt: number; answer: Promise<PayAnswer> } {
    const content = nip44.v2.encrypt(JSON.stringify({ method: 'pay_invoice', params: { invoice } }), this.#conversationKey);
    const event = signEvent(this.#keys, {
      kind: NWC_REQUEST_KIND,
      tags: [
        ['p', this.walletPubkey],
        ['encryption', 'nip44_v2'],
      ],
      content,
    });
    const answer = new Promise<PayAnswer>((resolve) => this.#pending.set(event.id, resolve));
    const sentAt = performance.now();
    this.#relay!.publish(event, (ok, reason) => {
      if (ok) return;
      const resolve = this.#pending.get(event.id);
      this.#pending.delete(event.id);
      resolve?.({ at: performance.now(), error: `relay refused: ${reason}` });
    });
    return { id: event.id, sentAt, answer };
  }

  close(): Promise<void> {
    return this.#relay?.close() ?? Promise.resolve();
  }

  #answer(event: SignedEvent, at: number): void {
    const requestId = event.tags.find((tag) => tag[0] === 'e')?.[1];
    const resolve = requestId === undefined ? undefined : this.#pending.get(requestId);
    if (resolve === undefined) return;
    this.#pending.delete(requestId!);
    try {
      const body = JSON.parse(nip44.v2.decrypt(event.content, this.#conversationKey)) as { error?: { code?: string } | null };
      resolve(body.error ? { at, error: body.error.code ?? 'OTHER' } : { at });
    } catch {
      resolve({ at, error: 'unreadable answer' });
    }
  }
}

/**
 * Reads a Server-Sent Events stream (the dashboard's `GET /sandbox/v1/stream`) and calls `onEvent`
 * with each message and when it arrived (performance.now()); resolves once the stream answered 200.
 */
export async function openEventStream(
  url: string,
  authorization: string,
  onEvent: (event: string, data: string, at: number) => void,
): Promise<{ close(): void }> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { authorization, accept: 'text/event-stream' }, signal: abort.signal });
  if (response.status !== 200 || response.body === null) {
    throw new Error(`${url} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffered = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const at = performance.now();
        buffered += value;
        let end: number;
        while ((end = buffered.indexOf('\n\n')) !== -1) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length > 0) onEvent(event, data.join('\n'), at);
        }
      }
    } catch {
      // aborted by close(), or the server went away: the waiters time out
    }
  })();
  return { close: () => abort.abort() };
}
