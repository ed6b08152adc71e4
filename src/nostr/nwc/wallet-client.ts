/**
 * The client side of NIP-47: what the sandbox uses to reach a merchant's connected wallet (its
 * own or any NWC wallet on any relay). It reads the wallet's info event once to pick the
 * encryption (NIP-44 v2 when advertised, NIP-04 when the tag is absent), sends requests, matches
 * answers by their `e` tag, and gives up after `timeoutMs` with nothing left behind.
 *
 * Only events signed by the wallet count, and answers addressed (`p`) to another client are
 * dropped. Answers without a `p` tag are taken: NIP-47 says SHOULD, and @getalby/sdk's wallet
 * service sends none. For the same reason the answers are found by kind and author, not `#p`.
 */
import { getPublicKey } from 'nostr-tools/pure';
import { pureEventSigner, type NostrEventSigner } from '../event-signer.js';
import type { NostrEvent, RelaySession } from '../relay-session.js';
import {
  NIP47_KIND,
  Nip47Error,
  type Nip47Encryption,
  type Nip47Info,
  type Nip47ListTransactionsParams,
  type Nip47LookupInvoiceParams,
  type Nip47MakeInvoiceParams,
  type Nip47Notification,
  type Nip47PayInvoiceParams,
  type Nip47PayResult,
  type Nip47Transaction,
} from './nip47.js';
import { nip47Decrypt, nip47Encrypt } from './nip47-crypto.js';

export interface NwcClientConnection {
  walletPubkey: string;
  clientSecretKey: Uint8Array;
}

export interface NwcClientOptions {
  /** How long a request (info event lookup included) may take, in ms (default 10000). */
  timeoutMs?: number;
  /** Use this encryption without reading the info event. */
  encryption?: Nip47Encryption;
  /** Throws from notification listeners, unreadable notifications. */
  onError?(error: unknown): void;
  /** Wall-clock ms, for created_at and the requests' expiration tag (default Date.now). */
  now?(): number;
  /** Signs and checks events; nostr-tools' pure JS by default (Node passes a WASM one). */
  signer?: NostrEventSigner;
}

/** The wallet could not be reached: no answer, or the relay refused the request. */
export class NwcUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NwcUnavailableError';
  }
}

/** No answer (or no info event) within the timeout. */
export class NwcTimeoutError extends NwcUnavailableError {
  readonly method: string;
  readonly timeoutMs: number;

  constructor(method: string, timeoutMs: number, what = 'no answer') {
    super(`${what} from the wallet to ${method} within ${timeoutMs} ms`);
    this.name = 'NwcTimeoutError';
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/** The relay did not take the request (OK false, or no OK in time). */
export class NwcPublishError extends NwcUnavailableError {
  constructor(method: string, reason: string) {
    super(`the relay did not take the ${method} request: ${reason}`);
    this.name = 'NwcPublishError';
  }
}

interface PendingRequest {
  method: string;
  encryption: Nip47Encryption | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

const HEX_32 = /^[0-9a-f]{64}$/;
/** Notification event ids remembered to drop a relay's repeats. */
const MAX_SEEN_NOTIFICATIONS = 1_000;

export class NwcClient {
  readonly walletPubkey: string;
  readonly clientPubkey: string;
  private readonly session: RelaySession;
  private readonly secretKey: Uint8Array;
  private readonly timeoutMs: number;
  private readonly options: NwcClientOptions;
  private readonly now: () => number;
  private readonly signer: NostrEventSigner;
  /** By request event id, once published; `requests` also holds those still being prepared. */
  private readonly pending = new Map<string, PendingRequest>();
  private readonly requests = new Set<PendingRequest>();
  private readonly listeners = new Set<(notification: Nip47Notification) => void>();
  private readonly seenNotifications = new Set<string>();
  private subscription: { close(): void } | undefined;
  private detection: Promise<Nip47Encryption> | undefined;
  private stopDetection: (() => void) | undefined;
  private closed = false;

  constructor(session: RelaySession, connection: NwcClientConnection, options: NwcClientOptions = {}) {
    if (!HEX_32.test(connection.walletPubkey)) throw new TypeError('walletPubkey must be 64 lowercase hex characters');
    this.session = session;
    this.walletPubkey = connection.walletPubkey;
    this.secretKey = connection.clientSecretKey;
    this.clientPubkey = getPublicKey(connection.clientSecretKey);
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.options = options;
    this.now = options.now ?? Date.now;
    this.signer = options.signer ?? pureEventSigner;
    if (options.encryption) this.detection = Promise.resolve(options.encryption);
  }

  /** Requests sent or being prepared and not yet answered, failed or timed out. */
  get pendingRequests(): number {
    return this.requests.size;
  }

  /**
   * Sends `method` and resolves with the wallet's result. Rejects with a Nip47Error (the wallet's
   * error answer, with its code), a NwcTimeoutError (no answer or info event within the timeout)
   * or a NwcPublishError (the relay refused the request).
   */
  request<T = unknown>(method: string, params: object = {}): Promise<T> {
    if (this.closed) return Promise.reject(new NwcUnavailableError('the NWC client is closed'));
    const deadline = this.now() + this.timeoutMs;
    return new Promise<T>((resolve, reject) => {
      let eventId: string | undefined;
      const finish = (settle: () => void): void => {
        if (!this.requests.delete(request)) return;
        clearTimeout(timer);
        if (eventId !== undefined) this.pending.delete(eventId);
        settle();
      };
      const request: PendingRequest = {
        method,
        encryption: undefined,
        resolve: (value) => finish(() => resolve(value as T)),
        reject: (error) => finish(() => reject(error)),
      };
      const timer = setTimeout(() => request.reject(new NwcTimeoutError(method, this.timeoutMs)), this.timeoutMs);
      this.requests.add(request);

      this.encryption().then(
        (encryption) => {
          if (!this.requests.has(request)) return;
          request.encryption = encryption;
          const event = this.signer.finalize(
            {
              kind: NIP47_KIND.request,
              created_at: Math.floor(this.now() / 1000),
              tags: [
                ['p', this.walletPubkey],
                ['encryption', encryption],
                // A wallet that gets the request after we gave up must not act on it (a late payment).
                ['expiration', String(Math.ceil(deadline / 1000))],
              ],
              content: nip47Encrypt(encryption, this.secretKey, this.walletPubkey, JSON.stringify({ method, params })),
            },
            this.secretKey,
          );
          eventId = event.id;
          this.pending.set(event.id, request);
          this.listen();
          this.session.publish(event).catch((error: unknown) => request.reject(new NwcPublishError(method, messageOf(error))));
        },
        (error: unknown) => request.reject(error instanceof NwcTimeoutError ? new NwcTimeoutError(method, this.timeoutMs, 'no info event') : error),
      );
    });
  }

  getInfo(): Promise<Nip47Info> {
    return this.request<Nip47Info>('get_info', {}).then((info) => expectObject('get_info', info, 'methods', Array.isArray));
  }

  getBalance(): Promise<{ balance: number }> {
    return this.request<{ balance: number }>('get_balance', {}).then((result) => expectObject('get_balance', result, 'balance', isNumber));
  }

  makeInvoice(params: Nip47MakeInvoiceParams): Promise<Nip47Transaction> {
    return this.request<Nip47Transaction>('make_invoice', params).then((result) => expectObject('make_invoice', result, 'invoice', isString));
  }

  lookupInvoice(params: Nip47LookupInvoiceParams): Promise<Nip47Transaction> {
    return this.request<Nip47Transaction>('lookup_invoice', params).then((result) => expectObject('lookup_invoice', result, 'payment_hash', isString));
  }

  payInvoice(params: Nip47PayInvoiceParams): Promise<Nip47PayResult> {
    return this.request<Nip47PayResult>('pay_invoice', params).then((result) => expectObject('pay_invoice', result, 'preimage', isString));
  }

  listTransactions(params: Nip47ListTransactionsParams = {}): Promise<{ transactions: Nip47Transaction[] }> {
    return this.request<{ transactions: Nip47Transaction[] }>('list_transactions', params).then((result) =>
      expectObject('list_transactions', result, 'transactions', Array.isArray),
    );
  }

  /**
   * Calls `listener` with each notification the wallet sends this client, in the encryption the
   * client uses (a wallet that supports both sends each twice, once per scheme). Returns the
   * unsubscribe function. Notifications are not stored by relays: only those sent while listening arrive.
   */
  onNotification(listener: (notification: Nip47Notification) => void): () => void {
    if (this.closed) return () => {};
    this.listeners.add(listener);
    this.listen();
    // Learn the encryption now rather than when the first notification arrives.
    this.encryption().catch(() => {});
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** From the wallet's info event: nip44_v2 when its `encryption` tag lists it, nip04 when the tag is absent. */
  encryption(): Promise<Nip47Encryption> {
    if (this.closed) return Promise.reject(new NwcUnavailableError('the NWC client is closed'));
    this.detection ??= this.detect().catch((error: unknown) => {
      this.detection = undefined; // try again on the next request
      throw error;
    });
    return this.detection;
  }

  /** Rejects what is pending (NwcUnavailableError) and stops listening. The session stays open. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const request of [...this.requests]) request.reject(new NwcUnavailableError('the NWC client is closed'));
    this.subscription?.close();
    this.subscription = undefined;
    this.stopDetection?.();
    this.listeners.clear();
  }

  private detect(): Promise<Nip47Encryption> {
    return new Promise<Nip47Encryption>((resolve, reject) => {
      let subscription: { close(): void } | undefined;
      let done = false;
      const finish = (settle: () => void): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.stopDetection = undefined;
        // An in-process session may deliver stored events before subscribe() returns.
        subscription?.close();
        settle();
      };
      const timer = setTimeout(() => finish(() => reject(new NwcTimeoutError('the info event', this.timeoutMs, 'no info event'))), this.timeoutMs);
      this.stopDetection = () => finish(() => reject(new NwcUnavailableError('the NWC client is closed')));
      subscription = this.session.subscribe([{ kinds: [NIP47_KIND.info], authors: [this.walletPubkey], limit: 1 }], (event) => {
        if (done || event.kind !== NIP47_KIND.info || event.pubkey !== this.walletPubkey || !this.verified(event)) return;
        finish(() => {
          const chosen = encryptionOfInfo(event);
          if (chosen) resolve(chosen);
          else reject(new Nip47Error('UNSUPPORTED_ENCRYPTION', `the wallet offers no encryption this client speaks (${tagValue(event, 'encryption')})`));
        });
      });
      if (done) subscription.close();
    });
  }

  /** One subscription for all answers and notifications, kept until close(). */
  private listen(): void {
    if (this.subscription || this.closed) return;
    this.subscription = this.session.subscribe(
      [
        { kinds: [NIP47_KIND.response], authors: [this.walletPubkey] },
        { kinds: [NIP47_KIND.notification, NIP47_KIND.notificationNip04], authors: [this.walletPubkey], '#p': [this.clientPubkey] },
      ],
      (event) => this.receive(event),
    );
  }

  private receive(event: NostrEvent): void {
    if (this.closed || !event || event.pubkey !== this.walletPubkey || typeof event.content !== 'string' || !Array.isArray(event.tags)) return;
    if (event.kind === NIP47_KIND.response) this.receiveAnswer(event);
    else if (event.kind === NIP47_KIND.notification || event.kind === NIP47_KIND.notificationNip04) {
      this.receiveNotification(event).catch((error: unknown) => this.reportError(error));
    }
  }

  /** Whether the event's id and signature hold; a session whose relay checked them is believed. */
  private verified(event: NostrEvent): boolean {
    return this.session.eventsVerified === true || this.signer.verify(event);
  }

  private receiveAnswer(event: NostrEvent): void {
    const request = this.pending.get(tagValue(event, 'e') ?? '');
    if (!request || !request.encryption) return;
    const addressee = tagValue(event, 'p');
    if (addressee !== undefined && addressee !== this.clientPubkey) return;
    if (!this.verified(event)) return;
    const body = this.open(event.content, [request.encryption, request.encryption === 'nip04' ? 'nip44_v2' : 'nip04']);
    if (!isObject(body)) {
      request.reject(new Nip47Error('INTERNAL', `the wallet's answer to ${request.method} could not be read`));
      return;
    }
    if (isObject(body.error)) {
      const code = typeof body.error.code === 'string' ? body.error.code : 'OTHER';
      request.reject(new Nip47Error(code, typeof body.error.message === 'string' ? body.error.message : code));
    } else if (body.result !== undefined && body.result !== null) {
      request.resolve(body.result);
    } else {
      request.reject(new Nip47Error('INTERNAL', `the wallet's answer to ${request.method} has neither result nor error`));
    }
  }

  private async receiveNotification(event: NostrEvent): Promise<void> {
    if (this.listeners.size === 0 || tagValue(event, 'p') !== this.clientPubkey || this.seenNotifications.has(event.id)) return;
    if (!this.verified(event)) return;
    this.seenNotifications.add(event.id);
    if (this.seenNotifications.size > MAX_SEEN_NOTIFICATIONS) this.seenNotifications.delete(this.seenNotifications.values().next().value!);
    const encryption: Nip47Encryption = event.kind === NIP47_KIND.notification ? 'nip44_v2' : 'nip04';
    // A wallet that speaks both sends every notification twice: keep the copy in our scheme. When
    // the info event cannot be read, take whichever arrives.
    const ours = await this.encryption().catch(() => undefined);
    if (ours !== undefined && ours !== encryption) return;
    const notification = this.open(event.content, [encryption]);
    if (!isObject(notification) || typeof notification.notification_type !== 'string' || !isObject(notification.notification)) {
      this.reportError(new Error(`unreadable notification ${event.id} from the wallet`));
      return;
    }
    for (const listener of [...this.listeners]) {
      try {
        listener(notification as unknown as Nip47Notification);
      } catch (error) {
        this.reportError(error);
      }
    }
  }

  /** The decrypted JSON, trying the schemes in order; undefined when none reads. */
  private open(content: string, encryptions: Nip47Encryption[]): unknown {
    for (const encryption of encryptions) {
      try {
        return JSON.parse(nip47Decrypt(encryption, this.secretKey, this.walletPubkey, content));
      } catch {
        // the next scheme, if any
      }
    }
    return undefined;
  }

  private reportError(error: unknown): void {
    try {
      this.options.onError?.(error);
    } catch {
      // nothing more to do
    }
  }
}

/** NIP-47: prefer nip44_v2; no `encryption` tag means the wallet only speaks nip04. */
export function encryptionOfInfo(info: NostrEvent): Nip47Encryption | undefined {
  const tag = tagValue(info, 'encryption');
  if (tag === undefined) return 'nip04';
  const offered = tag.split(/\s+/);
  if (offered.includes('nip44_v2')) return 'nip44_v2';
  if (offered.includes('nip04')) return 'nip04';
  return undefined;
}

function tagValue(event: NostrEvent, name: string): string | undefined {
  const tag = event.tags.find((candidate) => Array.isArray(candidate) && candidate[0] === name);
  return typeof tag?.[1] === 'string' ? tag[1] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isString(value: unknown): boolean {
  return typeof value === 'string';
}

function isNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

function expectObject<T>(method: string, result: T, field: string, check: (value: unknown) => boolean): T {
  if (!isObject(result) || !check(result[field])) throw new Nip47Error('INTERNAL', `the wallet's ${method} answer has no valid ${field}`);
  return result;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
