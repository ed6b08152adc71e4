/**
 * The wallet side of NIP-47: serves many wallet connections on one relay session. Each connection
 * has its own wallet key, one client key and a backend (the wallet's money); the service publishes
 * the connection's info event, reads the client's requests, asks the backend and answers.
 *
 * A client is a stranger on the network, so what one can make the service hold is bounded
 * (`NWC_SERVICE_LIMITS`): requests in flight per connection (more are answered RATE_LIMITED), the
 * request ids remembered to answer each request once, the size of a request it will decrypt, the
 * size of an answer. No request, however malformed, stops the service: a backend that throws
 * answers INTERNAL and is reported to `onError`.
 */
import { getPublicKey } from 'nostr-tools/pure';
import { pureEventSigner, type NostrEventSigner } from '../event-signer.js';
import type { NostrEvent, NostrFilter, RelaySession } from '../relay-session.js';
import {
  isNip47Encryption,
  isNip47ErrorCode,
  NIP47_ENCRYPTIONS,
  NIP47_KIND,
  NIP47_MAX_METADATA_CHARS,
  NIP47_METHODS,
  Nip47Error,
  type Nip47Encryption,
  type Nip47Info,
  type Nip47ListTransactionsParams,
  type Nip47LookupInvoiceParams,
  type Nip47MakeInvoiceParams,
  type Nip47Method,
  type Nip47Notification,
  type Nip47PayInvoiceParams,
  type Nip47PayResult,
  type Nip47Transaction,
} from './nip47.js';
import { nip47Decrypt, nip47Encrypt } from './nip47-crypto.js';

type MaybePromise<T> = T | Promise<T>;

/**
 * The wallet behind a connection. Each method may throw a `Nip47Error` (or any error whose `code`
 * is a NIP-47 code) to answer that error; any other throw answers INTERNAL.
 */
export interface WalletBackend {
  /** alias, color, pubkey (node), network, block_height, block_hash; methods and notifications are the connection's. */
  getInfo(): MaybePromise<Omit<Nip47Info, 'methods'> & { methods?: string[] }>;
  /** msats */
  getBalance(): MaybePromise<{ balance: number }>;
  payInvoice(params: Nip47PayInvoiceParams): Promise<Nip47PayResult>;
  makeInvoice(params: Nip47MakeInvoiceParams): Promise<Nip47Transaction>;
  lookupInvoice(params: Nip47LookupInvoiceParams): MaybePromise<Nip47Transaction>;
  listTransactions(params: Nip47ListTransactionsParams): MaybePromise<{ transactions: Nip47Transaction[] }>;
}

export interface WalletConnection {
  walletSecretKey: Uint8Array;
  clientPubkey: string;
  backend: WalletBackend;
  /** The methods this connection may call (its info event's content). */
  methods: string[];
  /** The notifications it sends. */
  notifications: string[];
  /** What its info event advertises and its requests may use (default nip44_v2 and nip04). */
  encryptions?: Nip47Encryption[];
}

/** One request as the dashboard's "recent NIP-47 requests" shows it. */
export interface NwcRequestRecord {
  /** When it arrived (ms since the epoch). */
  at: number;
  walletPubkey: string;
  clientPubkey: string;
  requestId: string;
  /** Absent when the request could not be read. */
  method?: string;
  encryption?: string;
  /** 'ignored': no answer was sent (`reason` says why). */
  outcome: 'result' | 'error' | 'ignored';
  errorCode?: string;
  reason?: string;
  durationMs: number;
}

export interface NwcServiceLimits {
  /** Requests answered at once per connection; more are answered RATE_LIMITED, then ignored. */
  maxInFlightPerConnection: number;
  /** Request ids remembered so a request seen twice is answered once. */
  maxSeenRequestIds: number;
  /** Longest request content decrypted, in characters (a relay's message limit is ~64 KiB). */
  maxContentChars: number;
  /** Longest answer before encryption; list_transactions answers drop their oldest entries to fit. */
  maxAnswerChars: number;
  /** Connections served by one relay subscription (relays cap subscriptions and filter sizes). */
  connectionsPerSubscription: number;
}

/**
 * The defaults. Memory a client can pin: ≤ 2 × 50 pending answers per connection and 10,000 ids
 * (~1 MB) for the whole service; 40,000 characters of answer encrypts to < 64 KiB in either scheme.
 */
export const NWC_SERVICE_LIMITS: NwcServiceLimits = {
  maxInFlightPerConnection: 50,
  maxSeenRequestIds: 10_000,
  maxContentChars: 65_536,
  maxAnswerChars: 40_000,
  connectionsPerSubscription: 100,
};

export interface NwcWalletServiceOptions {
  onError?(error: unknown): void;
  onRequest?(record: NwcRequestRecord): void;
  limits?: Partial<NwcServiceLimits>;
  /** Wall-clock ms, for events' created_at and requests' expiration (default Date.now). */
  now?(): number;
  /** Signs and checks events; nostr-tools' pure JS by default (Node passes a WASM one). */
  signer?: NostrEventSigner;
}

type Answer = { result: unknown } | { error: { code: string; message: string } };

interface ServedConnection {
  walletPubkey: string;
  connection: WalletConnection;
  encryptions: Nip47Encryption[];
  inFlight: number;
  refusing: number;
  removed: boolean;
  group: SubscriptionGroup;
}

interface SubscriptionGroup {
  members: Map<string, ServedConnection>;
  subscription: { close(): void } | undefined;
}

const HEX_32 = /^[0-9a-f]{64}$/;

export class NwcWalletService {
  private readonly session: RelaySession;
  private readonly options: NwcWalletServiceOptions;
  private readonly limits: NwcServiceLimits;
  private readonly now: () => number;
  private readonly signer: NostrEventSigner;
  private readonly connections = new Map<string, ServedConnection>();
  private readonly groups = new Set<SubscriptionGroup>();
  /** Insertion-ordered: the oldest id goes first when full. */
  private readonly seen = new Set<string>();
  private closed = false;

  constructor(session: RelaySession, options: NwcWalletServiceOptions = {}) {
    this.session = session;
    this.options = options;
    this.limits = { ...NWC_SERVICE_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
    this.signer = options.signer ?? pureEventSigner;
    // The relay may be another process's now, without the info events: they are published again.
    session.onReconnected?.(() => {
      for (const served of this.connections.values()) if (!served.removed) this.publishInfo(served).catch((error: unknown) => this.options.onError?.(error));
    });
  }

  /**
   * Serves the connection (or updates the one with the same wallet key): listens for its client's
   * requests, then publishes its info event; resolves once the relay accepted that event. When the
   * relay refuses it, add() rejects but the connection stays served: add() again to retry.
   */
  async add(connection: WalletConnection): Promise<void> {
    if (this.closed) throw new Error('the wallet service is closed');
    if (!(connection.walletSecretKey instanceof Uint8Array) || connection.walletSecretKey.length !== 32) {
      throw new TypeError('walletSecretKey must be 32 bytes');
    }
    if (!HEX_32.test(connection.clientPubkey)) throw new TypeError('clientPubkey must be 64 lowercase hex characters');
    const encryptions = connection.encryptions ?? [...NIP47_ENCRYPTIONS];
    if (encryptions.length === 0 || !encryptions.every(isNip47Encryption)) {
      throw new TypeError(`encryptions must be a non-empty list of ${NIP47_ENCRYPTIONS.join(', ')}`);
    }
    const walletPubkey = getPublicKey(connection.walletSecretKey);
    const existing = this.connections.get(walletPubkey);
    if (existing) {
      // Updated in place, so requests in flight are still answered.
      const clientChanged = existing.connection.clientPubkey !== connection.clientPubkey;
      existing.connection = connection;
      existing.encryptions = encryptions;
      if (clientChanged) this.resubscribe(existing.group);
      await this.publishInfo(existing);
      return;
    }
    const group = this.groupWithRoom();
    const served: ServedConnection = { walletPubkey, connection, encryptions, inFlight: 0, refusing: 0, removed: false, group };
    this.connections.set(walletPubkey, served);
    group.members.set(walletPubkey, served);
    this.resubscribe(group);
    await this.publishInfo(served);
  }

  /** Stops answering the connection (answers still in progress are dropped). */
  remove(walletPubkey: string): void {
    const served = this.connections.get(walletPubkey);
    if (!served) return;
    served.removed = true;
    this.connections.delete(walletPubkey);
    const group = served.group;
    group.members.delete(walletPubkey);
    if (group.members.size === 0) {
      group.subscription?.close();
      this.groups.delete(group);
    } else {
      this.resubscribe(group);
    }
  }

  /** Whether the connection with this wallet key is served. */
  has(walletPubkey: string): boolean {
    return this.connections.has(walletPubkey);
  }

  /**
   * Publishes a notification to the connection's client: kind 23197 (NIP-44) and/or 23196 (NIP-04),
   * as the connection supports. Nothing is sent for an unknown connection or a notification type it
   * does not advertise.
   */
  async notify(walletPubkey: string, notification: Nip47Notification): Promise<void> {
    const served = this.connections.get(walletPubkey);
    if (!served || this.closed || !served.connection.notifications.includes(notification.notification_type)) return;
    const { walletSecretKey, clientPubkey } = served.connection;
    const plaintext = JSON.stringify(notification);
    const kinds: Array<[number, Nip47Encryption]> = [];
    if (served.encryptions.includes('nip44_v2')) kinds.push([NIP47_KIND.notification, 'nip44_v2']);
    if (served.encryptions.includes('nip04')) kinds.push([NIP47_KIND.notificationNip04, 'nip04']);
    await Promise.all(
      kinds.map(([kind, encryption]) =>
        this.session.publish(
          this.signer.finalize(
            { kind, created_at: this.seconds(), tags: [['p', clientPubkey]], content: nip47Encrypt(encryption, walletSecretKey, clientPubkey, plaintext) },
            walletSecretKey,
          ),
        ),
      ),
    );
  }

  /** Stops serving every connection. The session stays open: it is the caller's. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const group of this.groups) group.subscription?.close();
    this.groups.clear();
    for (const served of this.connections.values()) served.removed = true;
    this.connections.clear();
    this.seen.clear();
  }

  private async publishInfo(served: ServedConnection): Promise<void> {
    const { methods, notifications, walletSecretKey } = served.connection;
    const tags = [['encryption', served.encryptions.join(' ')]];
    if (notifications.length > 0) tags.push(['notifications', notifications.join(' ')]);
    // NIP-47's example lists "notifications" among the capabilities when there are any.
    const capabilities = notifications.length > 0 ? [...methods, 'notifications'] : methods;
    const info = this.signer.finalize({ kind: NIP47_KIND.info, created_at: this.seconds(), tags, content: capabilities.join(' ') }, walletSecretKey);
    await this.session.publish(info);
  }

  private groupWithRoom(): SubscriptionGroup {
    for (const group of this.groups) {
      if (group.members.size < this.limits.connectionsPerSubscription) return group;
    }
    const group: SubscriptionGroup = { members: new Map(), subscription: undefined };
    this.groups.add(group);
    return group;
  }

  /** Opens the group's new subscription before closing the old one: no gap (duplicates are dropped by id). */
  private resubscribe(group: SubscriptionGroup): void {
    const members = [...group.members.values()];
    const filter: NostrFilter = {
      kinds: [NIP47_KIND.request],
      authors: [...new Set(members.map((served) => served.connection.clientPubkey))],
      '#p': members.map((served) => served.walletPubkey),
    };
    const previous = group.subscription;
    group.subscription = this.session.subscribe([filter], (event) => this.receive(event));
    previous?.close();
  }

  private receive(event: NostrEvent): void {
    this.handle(event).catch((error) => this.reportError(error));
  }

  private async handle(event: NostrEvent): Promise<void> {
    const at = this.now();
    if (this.closed || !event || event.kind !== NIP47_KIND.request || typeof event.content !== 'string' || !Array.isArray(event.tags)) return;
    const served = this.connections.get(tagValue(event, 'p') ?? '');
    // Not addressed to a wallet of ours: a relay that ignores tag filters; nothing to say.
    if (!served) return;
    const { walletSecretKey, clientPubkey } = served.connection;
    const record = (fields: Pick<NwcRequestRecord, 'outcome'> & Partial<NwcRequestRecord>): void => {
      try {
        this.options.onRequest?.({ at, walletPubkey: served.walletPubkey, clientPubkey, requestId: String(event.id), durationMs: this.now() - at, ...fields });
      } catch (error) {
        this.reportError(error);
      }
    };
    const ignore = (reason: string, fields: Partial<NwcRequestRecord> = {}): void => record({ outcome: 'ignored', reason, ...fields });

    if (event.pubkey !== clientPubkey) return ignore("not signed by the connection's client");
    if (this.seen.has(event.id)) return; // the same request again (another relay, a resubscription)
    if (event.content.length > this.limits.maxContentChars) return ignore(`content over ${this.limits.maxContentChars} characters`);
    if (!this.session.eventsVerified && !this.signer.verify(event)) return ignore('bad id or signature');
    this.remember(event.id);
    const expiration = Number(tagValue(event, 'expiration'));
    if (Number.isFinite(expiration) && expiration * 1000 < at) return ignore('expired');

    // No tag: NIP-04, as NIP-47 says for clients that predate NIP-44.
    const encryption = tagValue(event, 'encryption') ?? 'nip04';
    if (!isNip47Encryption(encryption)) return ignore('unknown encryption', { encryption: encryption.slice(0, 32) });
    let request: unknown;
    try {
      request = JSON.parse(nip47Decrypt(encryption, walletSecretKey, clientPubkey, event.content));
    } catch {
      return ignore('content does not decrypt to JSON', { encryption });
    }
    if (!isObject(request) || typeof request.method !== 'string') return ignore('not a NIP-47 request (no method)', { encryption });
    const method = request.method.slice(0, 64);

    if (served.inFlight >= this.limits.maxInFlightPerConnection) {
      if (served.refusing >= this.limits.maxInFlightPerConnection) return ignore('too many requests in flight', { method, encryption });
      served.refusing += 1;
      try {
        const answer = error('RATE_LIMITED', `more than ${this.limits.maxInFlightPerConnection} requests in flight; retry in a few seconds`);
        await this.answer(served, event, encryption, method, answer);
        return record({ outcome: 'error', errorCode: 'RATE_LIMITED', method, encryption });
      } finally {
        served.refusing -= 1;
      }
    }

    served.inFlight += 1;
    try {
      const answer = served.encryptions.includes(encryption)
        ? await this.dispatch(served, method, request.params)
        : error('UNSUPPORTED_ENCRYPTION', `this connection supports ${served.encryptions.join(', ')}`);
      const sent = await this.answer(served, event, encryption, method, answer);
      if (!sent) return ignore('connection removed before the answer', { method, encryption });
      record('error' in sent ? { outcome: 'error', errorCode: sent.error.code, method, encryption } : { outcome: 'result', method, encryption });
    } finally {
      served.inFlight -= 1;
    }
  }

  private async dispatch(served: ServedConnection, method: string, rawParams: unknown): Promise<Answer> {
    if (!(NIP47_METHODS as readonly string[]).includes(method)) return error('NOT_IMPLEMENTED', `${method} is not implemented`);
    if (!served.connection.methods.includes(method)) return error('RESTRICTED', `this connection may not call ${method}`);
    try {
      const params = rawParams === undefined || rawParams === null ? {} : rawParams;
      if (!isObject(params)) throw new Nip47Error('OTHER', 'params must be an object');
      const result = await this.call(served, method as Nip47Method, params);
      if (!isObject(result)) throw new Error(`the backend's ${method} returned no object`);
      return { result };
    } catch (thrown) {
      if (thrown instanceof Nip47Error || (thrown instanceof Error && isNip47ErrorCode((thrown as { code?: unknown }).code))) {
        return error((thrown as Nip47Error).code, thrown.message);
      }
      this.reportError(thrown);
      return error('INTERNAL', `the wallet failed to handle ${method}`);
    }
  }

  private async call(served: ServedConnection, method: Nip47Method, params: Record<string, unknown>): Promise<unknown> {
    const { backend, methods, notifications } = served.connection;
    switch (method) {
      case 'get_info':
        return { ...(await backend.getInfo()), methods: [...methods], notifications: [...notifications] };
      case 'get_balance':
        return await backend.getBalance();
      case 'pay_invoice':
        return await backend.payInvoice({
          invoice: requiredString(params, 'invoice'),
          ...optionalField(params, 'amount', positiveInteger),
          ...metadataOf(params),
        });
      case 'make_invoice':
        return await backend.makeInvoice({
          amount: positiveInteger(params.amount, 'amount'),
          ...optionalField(params, 'description', string),
          ...optionalField(params, 'description_hash', hex32),
          ...optionalField(params, 'expiry', positiveInteger),
          ...metadataOf(params),
        });
      case 'lookup_invoice': {
        const lookup = { ...optionalField(params, 'payment_hash', string), ...optionalField(params, 'invoice', string) };
        if (lookup.payment_hash === undefined && lookup.invoice === undefined) throw new Nip47Error('OTHER', 'params.payment_hash or params.invoice is required');
        return await backend.lookupInvoice(lookup);
      }
      case 'list_transactions': {
        const list = await backend.listTransactions({
          ...optionalField(params, 'from', nonNegativeInteger),
          ...optionalField(params, 'until', nonNegativeInteger),
          ...optionalField(params, 'limit', nonNegativeInteger),
          ...optionalField(params, 'offset', nonNegativeInteger),
          ...optionalField(params, 'unpaid', boolean),
          ...optionalField(params, 'type', transactionType),
        });
        return isObject(list) && Array.isArray(list.transactions) ? { ...list, transactions: this.fitting(list.transactions) } : list;
      }
    }
  }

  /** The newest transactions whose JSON fits an answer (a relay refuses messages over ~64 KiB). */
  private fitting(transactions: unknown[]): unknown[] {
    let budget = this.limits.maxAnswerChars - 200;
    const kept: unknown[] = [];
    for (const transaction of transactions) {
      budget -= JSON.stringify(transaction).length + 1;
      if (budget < 0) break;
      kept.push(transaction);
    }
    return kept;
  }

  /** Encrypts and publishes the answer; undefined when the connection went away meanwhile. */
  private async answer(served: ServedConnection, request: NostrEvent, encryption: Nip47Encryption, method: string, answer: Answer): Promise<Answer | undefined> {
    if (served.removed || this.closed) return undefined;
    let body = JSON.stringify('error' in answer ? { result_type: method, error: answer.error, result: null } : { result_type: method, result: answer.result, error: null });
    if (body.length > this.limits.maxAnswerChars) {
      this.reportError(new Error(`the answer to ${method} is ${body.length} characters, over ${this.limits.maxAnswerChars}`));
      const tooLarge = { code: 'INTERNAL', message: `the answer to ${method} is too large` };
      answer = { error: tooLarge };
      body = JSON.stringify({ result_type: method, error: tooLarge, result: null });
    }
    const { walletSecretKey, clientPubkey } = served.connection;
    const response = this.signer.finalize(
      {
        kind: NIP47_KIND.response,
        created_at: this.seconds(),
        tags: [
          ['p', clientPubkey],
          ['e', request.id],
        ],
        content: nip47Encrypt(encryption, walletSecretKey, clientPubkey, body),
      },
      walletSecretKey,
    );
    await this.session.publish(response);
    return answer;
  }

  private remember(id: string): void {
    this.seen.add(id);
    if (this.seen.size > this.limits.maxSeenRequestIds) this.seen.delete(this.seen.values().next().value!);
  }

  private seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  private reportError(thrown: unknown): void {
    try {
      this.options.onError?.(thrown);
    } catch {
      // An onError that throws must not take the service down either.
    }
  }
}

function error(code: string, message: string): Answer {
  return { error: { code, message } };
}

function tagValue(event: NostrEvent, name: string): string | undefined {
  const tag = event.tags.find((candidate) => Array.isArray(candidate) && candidate[0] === name);
  return typeof tag?.[1] === 'string' ? tag[1] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Parameter checks: a wrong one answers OTHER naming the parameter (NIP-47 has no code of its own).

type Check<T> = (value: unknown, name: string) => T;

function optionalField<K extends string, T>(params: Record<string, unknown>, name: K, check: Check<T>): { [P in K]?: T } {
  const value = params[name];
  return (value === undefined || value === null ? {} : { [name]: check(value, name) }) as { [P in K]?: T };
}

function requiredString(params: Record<string, unknown>, name: string): string {
  const value = string(params[name], name);
  if (value === '') throw new Nip47Error('OTHER', `params.${name} is required`);
  return value;
}

const string: Check<string> = (value, name) => {
  if (typeof value !== 'string') throw new Nip47Error('OTHER', `params.${name} must be a string`);
  return value;
};

const hex32: Check<string> = (value, name) => {
  if (typeof value !== 'string' || !/^[0-9a-fA-F]{64}$/.test(value)) throw new Nip47Error('OTHER', `params.${name} must be 64 hex characters`);
  return value.toLowerCase();
};

// Not only safe integers: msats of amounts past ~90,000 BTC are whole numbers JSON cannot hold
// exactly, and a wallet takes them to the nearest sat rather than refuse them.
const positiveInteger: Check<number> = (value, name) => {
  if (!Number.isInteger(value) || (value as number) <= 0) throw new Nip47Error('OTHER', `params.${name} must be a positive integer`);
  return value as number;
};

const nonNegativeInteger: Check<number> = (value, name) => {
  if (!Number.isSafeInteger(value) || (value as number) < 0) throw new Nip47Error('OTHER', `params.${name} must be a non-negative integer`);
  return value as number;
};

const boolean: Check<boolean> = (value, name) => {
  if (typeof value !== 'boolean') throw new Nip47Error('OTHER', `params.${name} must be true or false`);
  return value;
};

const transactionType: Check<'incoming' | 'outgoing'> = (value, name) => {
  if (value !== 'incoming' && value !== 'outgoing') throw new Nip47Error('OTHER', `params.${name} must be "incoming" or "outgoing"`);
  return value;
};

/** NIP-47: metadata over 4096 characters is dropped, not refused. */
function metadataOf(params: Record<string, unknown>): { metadata?: Record<string, unknown> } {
  const metadata = params.metadata;
  if (!isObject(metadata)) return {};
  return JSON.stringify(metadata).length <= NIP47_MAX_METADATA_CHARS ? { metadata } : {};
}
