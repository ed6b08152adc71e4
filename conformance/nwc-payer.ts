/**
 * Paying invoices through a Nostr Wallet Connect wallet (NIP-47 `pay_invoice`), for a run given
 * `payerNwcUrl`: the lifecycle checks pay the target's invoices the way a customer's wallet would,
 * against any implementation (a sandbox, or one on signet with a funded signet wallet).
 *
 * A small NIP-47 client of its own, over one WebSocket to the URI's first relay, made of
 * nostr-tools' event and encryption functions: the suite is a black box and borrows nothing from
 * the sandbox. It reads the wallet's info event (kind 13194) once, to learn that it offers
 * `pay_invoice` and which encryption it speaks (NIP-44 v2 when its `encryption` tag lists it,
 * NIP-04 otherwise), then sends each payment as a kind-23194 request and waits for the kind-23195
 * answer that names it (`e` tag), signed by the wallet.
 *
 * The URI holds the client's secret key: nothing here repeats the URI or the secret, in messages
 * or errors (they name the relay and the wallet's public key, which are not secret). The run
 * loads this module only when it is given a payer (a dynamic import), so other uses of the suite,
 * in browsers too, never load it.
 */
import { hexToBytes } from '@noble/hashes/utils.js';
import * as nip04 from 'nostr-tools/nip04';
import * as nip44 from 'nostr-tools/nip44';
import { finalizeEvent, verifyEvent, type Event } from 'nostr-tools/pure';

/** What a payment through the wallet answered. */
export interface NwcPayment {
  /** The preimage the wallet returned (hex). */
  preimage: string;
  /** `fees_paid` in msats, when the wallet said. */
  feesPaidMsat?: number;
}

/** A connected paying wallet. */
export interface NwcPayer {
  /** The wallet and its relay, for messages (no secret in it). */
  readonly description: string;
  /** Pays a BOLT11 invoice; rejects with an NwcPayerError saying why it was not paid (of "the wallet": `description` says which). */
  pay(invoice: string): Promise<NwcPayment>;
  /** Closes the connection; payments still waiting reject. */
  close(): void;
}

/** A payment or connection that did not work; the message never holds the URI's secret. */
export class NwcPayerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NwcPayerError';
  }
}

/** The URI could not be used as it is (a usage problem: the run does not start). */
export class NwcPayerUriError extends NwcPayerError {
  constructor(message: string) {
    super(`the payer's NWC connection URI is not usable: ${message}`);
    this.name = 'NwcPayerUriError';
  }
}

/** The parts of a connection URI. */
interface Connection {
  walletPubkey: string;
  relay: string;
  secret: Uint8Array;
}

const KIND_INFO = 13194;
const KIND_REQUEST = 23194;
const KIND_RESPONSE = 23195;
const HEX_32 = /^[0-9a-fA-F]{64}$/;

type Encryption = 'nip44_v2' | 'nip04';

/**
 * Reads `nostr+walletconnect://<wallet pubkey>?relay=<ws(s) URL>&secret=<hex>`. Errors say which
 * part is wrong, never its value.
 */
export function parsePayerUri(uri: string): Connection {
  const text = String(uri).trim();
  const scheme = ['nostr+walletconnect://', 'nostr+walletconnect:'].find((prefix) => text.slice(0, prefix.length).toLowerCase() === prefix);
  if (scheme === undefined) throw new NwcPayerUriError('it must start with nostr+walletconnect://');
  const rest = text.slice(scheme.length);
  const queryAt = rest.indexOf('?');
  const walletPubkey = (queryAt === -1 ? rest : rest.slice(0, queryAt)).replace(/\/+$/, '');
  if (!HEX_32.test(walletPubkey)) throw new NwcPayerUriError('the wallet public key after the scheme must be 64 hex digits');
  const query = new URLSearchParams(queryAt === -1 ? '' : rest.slice(queryAt + 1));
  const relay = query.getAll('relay').map((value) => value.trim())[0];
  if (relay === undefined || relay === '') throw new NwcPayerUriError('it names no relay (relay=wss://…)');
  if (!isRelayUrl(relay)) throw new NwcPayerUriError('its first relay is not a ws:// or wss:// URL');
  const secrets = query.getAll('secret');
  if (secrets.length !== 1 || !HEX_32.test(secrets[0]!.trim())) throw new NwcPayerUriError('it must carry one secret of 64 hex digits (secret=…)');
  return { walletPubkey: walletPubkey.toLowerCase(), relay, secret: hexToBytes(secrets[0]!.trim().toLowerCase()) };
}

function isRelayUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'ws:' || url.protocol === 'wss:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The WebSocket of the platform (browsers, Node 22+), or the `ws` package's on Node 20. */
async function webSocketClass(): Promise<typeof WebSocket> {
  const platform = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  if (platform !== undefined) return platform;
  const ws = await import('ws');
  return ws.WebSocket as unknown as typeof WebSocket;
}

/** What one subscription is told. */
interface SubscriptionHandlers {
  event(event: Event): void;
  eose?(): void;
  closed?(reason: string): void;
}

/** One WebSocket to a relay, NIP-01 only as far as paying needs. */
class RelayLink {
  private readonly subscriptions = new Map<string, SubscriptionHandlers>();
  private readonly oks = new Map<string, (accepted: boolean, message: string) => void>();
  private readonly lost = new Set<(reason: string) => void>();
  private nextId = 0;
  private gone: string | undefined;

  constructor(
    private readonly socket: WebSocket,
    readonly url: string,
  ) {
    socket.addEventListener('message', (message) => this.receive(typeof message.data === 'string' ? message.data : String(message.data)));
    socket.addEventListener('close', () => this.fail(`the relay ${url} closed the connection`));
    socket.addEventListener('error', () => this.fail(`the connection to the relay ${url} failed`));
  }

  static async open(url: string, timeoutMs: number): Promise<RelayLink> {
    const Socket = await webSocketClass();
    const socket = new Socket(url);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.close();
        reject(new NwcPayerError(`the relay ${url} did not accept a connection within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      socket.addEventListener('open', () => (clearTimeout(timer), resolve()));
      socket.addEventListener('error', () => (clearTimeout(timer), reject(new NwcPayerError(`the relay ${url} cannot be reached`))));
    });
    return new RelayLink(socket, url);
  }

  /** Subscribes; returns the function that closes the subscription. */
  subscribe(filter: Record<string, unknown>, handlers: SubscriptionHandlers): () => void {
    const id = `lnpr-${++this.nextId}`;
    this.subscriptions.set(id, handlers);
    this.send(['REQ', id, filter]);
    const onLost = (reason: string) => handlers.closed?.(reason);
    this.lost.add(onLost);
    return () => {
      this.lost.delete(onLost);
      if (this.subscriptions.delete(id) && this.gone === undefined) this.send(['CLOSE', id]);
    };
  }

  /** Publishes an event; resolves once the relay took it (OK true). */
  publish(event: Event, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.gone !== undefined) return reject(new NwcPayerError(this.gone));
      const done = (error?: NwcPayerError) => {
        clearTimeout(timer);
        this.oks.delete(event.id);
        this.lost.delete(onLost);
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(() => done(new NwcPayerError(`the relay ${this.url} did not confirm the request within ${timeoutMs / 1000} s`)), timeoutMs);
      const onLost = (reason: string) => done(new NwcPayerError(reason));
      this.lost.add(onLost);
      this.oks.set(event.id, (accepted, message) => done(accepted ? undefined : new NwcPayerError(`the relay ${this.url} refused the request: ${message}`)));
      this.send(['EVENT', event]);
    });
  }

  close(): void {
    this.fail('the payer was closed');
    this.socket.close();
  }

  private send(message: unknown[]): void {
    if (this.gone === undefined) this.socket.send(JSON.stringify(message));
  }

  private fail(reason: string): void {
    if (this.gone !== undefined) return;
    this.gone = reason;
    for (const onLost of [...this.lost]) onLost(reason);
    this.lost.clear();
  }

  private receive(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (!Array.isArray(message)) return;
    const [type, first, second, third] = message as [unknown, unknown, unknown, unknown];
    if (type === 'EVENT' && typeof first === 'string') this.subscriptions.get(first)?.event(second as Event);
    else if (type === 'EOSE' && typeof first === 'string') this.subscriptions.get(first)?.eose?.();
    else if (type === 'CLOSED' && typeof first === 'string') this.subscriptions.get(first)?.closed?.(`the relay ${this.url} closed the subscription: ${String(second)}`);
    else if (type === 'OK' && typeof first === 'string') this.oks.get(first)?.(second === true, String(third ?? ''));
  }
}

/** Whether `event` is a well-formed event of `kind` signed by `pubkey`. */
function isFrom(event: unknown, kind: number, pubkey: string): event is Event {
  if (typeof event !== 'object' || event === null) return false;
  const candidate = event as Event;
  if (candidate.kind !== kind || candidate.pubkey !== pubkey) return false;
  try {
    return verifyEvent(candidate);
  } catch {
    return false;
  }
}

/** Connects to the URI's wallet: opens its relay and reads its info event. Rejects with NwcPayerError. */
export async function connectNwcPayer(uri: string, options: { timeoutMs?: number; payTimeoutMs?: number } = {}): Promise<NwcPayer> {
  const connection = parsePayerUri(uri);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const payTimeoutMs = options.payTimeoutMs ?? 60_000;
  const wallet = connection.walletPubkey;
  const description = `the NWC wallet ${wallet.slice(0, 12)}… on ${connection.relay}`;
  const link = await RelayLink.open(connection.relay, timeoutMs);
  let encryption: Encryption;
  try {
    encryption = await walletEncryption(link, wallet, timeoutMs, description);
  } catch (error) {
    link.close();
    throw error;
  }
  const conversationKey = encryption === 'nip44_v2' ? nip44.v2.utils.getConversationKey(connection.secret, wallet) : undefined;
  const encrypt = (text: string) => (conversationKey !== undefined ? nip44.v2.encrypt(text, conversationKey) : nip04.encrypt(connection.secret, wallet, text));
  // NIP-04 payloads carry `?iv=`; a wallet answers in the scheme of the request, but read either.
  const decrypt = (payload: string) =>
    payload.includes('?iv=')
      ? nip04.decrypt(connection.secret, wallet, payload)
      : nip44.v2.decrypt(payload, conversationKey ?? nip44.v2.utils.getConversationKey(connection.secret, wallet));

  return {
    description,
    close: () => link.close(),
    pay(invoice) {
      const deadline = Date.now() + payTimeoutMs;
      const request = finalizeEvent(
        {
          kind: KIND_REQUEST,
          created_at: Math.floor(Date.now() / 1000),
          tags: [
            ['p', wallet],
            ['encryption', encryption],
            // A wallet that gets the request after the check gave up must not pay it then.
            ['expiration', String(Math.ceil(deadline / 1000))],
          ],
          content: encrypt(JSON.stringify({ method: 'pay_invoice', params: { invoice } })),
        },
        connection.secret,
      );
      return new Promise<NwcPayment>((resolve, reject) => {
        let settled = false;
        const finish = (outcome: () => void) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          unsubscribe();
          outcome();
        };
        const failWith = (message: string) => finish(() => reject(new NwcPayerError(message)));
        const timer = setTimeout(() => failWith(`the wallet did not answer pay_invoice within ${payTimeoutMs / 1000} s`), payTimeoutMs);
        let published = false;
        const unsubscribe = link.subscribe(
          { kinds: [KIND_RESPONSE], authors: [wallet], '#e': [request.id] },
          {
            event(answer) {
              if (!isFrom(answer, KIND_RESPONSE, wallet)) return;
              let body: any;
              try {
                body = JSON.parse(decrypt(answer.content));
              } catch {
                return failWith('the wallet answered pay_invoice with content this client cannot decrypt or read');
              }
              if (body?.error) {
                return failWith(`the wallet answered pay_invoice with ${String(body.error.code ?? 'an error')}: ${String(body.error.message ?? '')}`);
              }
              const preimage = body?.result?.preimage;
              if (typeof preimage !== 'string' || preimage === '') return failWith('the wallet answered pay_invoice without a preimage');
              const fees = body.result.fees_paid;
              finish(() => resolve({ preimage, ...(typeof fees === 'number' ? { feesPaidMsat: fees } : {}) }));
            },
            // Subscribed before the request goes out, so the answer cannot pass by unseen.
            eose() {
              if (published) return;
              published = true;
              link.publish(request, timeoutMs).catch((error: Error) => failWith(error.message));
            },
            closed: (reason) => failWith(reason),
          },
        );
      });
    },
  };
}

/** The encryption the wallet's info event offers; fails when it has none or does not offer pay_invoice. */
function walletEncryption(link: RelayLink, wallet: string, timeoutMs: number, description: string): Promise<Encryption> {
  return new Promise<Encryption>((resolve, reject) => {
    let found: Event | undefined;
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unsubscribe();
      outcome();
    };
    const timer = setTimeout(
      () => finish(() => reject(new NwcPayerError(`${description}: no info event (kind ${KIND_INFO}) within ${timeoutMs / 1000} s`))),
      timeoutMs,
    );
    const unsubscribe = link.subscribe(
      { kinds: [KIND_INFO], authors: [wallet], limit: 1 },
      {
        event(event) {
          if (isFrom(event, KIND_INFO, wallet) && (found === undefined || event.created_at > found.created_at)) found = event;
        },
        eose() {
          const info = found;
          if (info === undefined) {
            return finish(() => reject(new NwcPayerError(`${description} has no info event (kind ${KIND_INFO}) on its relay: is the wallet running, and is the URI its own?`)));
          }
          const methods = info.content.split(/\s+/);
          if (!methods.includes('pay_invoice')) {
            return finish(() => reject(new NwcPayerError(`${description} does not offer pay_invoice (its info event lists: ${info.content.slice(0, 200) || 'nothing'})`)));
          }
          const schemes = (info.tags.find((tag) => tag[0] === 'encryption')?.[1] ?? '').split(/\s+/);
          finish(() => resolve(schemes.includes('nip44_v2') ? 'nip44_v2' : 'nip04'));
        },
        closed: (reason) => finish(() => reject(new NwcPayerError(reason))),
      },
    );
  });
}
