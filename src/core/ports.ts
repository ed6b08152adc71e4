/**
 * The engine's ports: what it needs from the world, each implemented per platform. The engine
 * itself does no I/O, so the same code runs behind Fastify in Node and behind MSW in a browser.
 */
import type { AddressRefusal } from './webhooks/address-policy.js';
import type { AccountRecord } from './accounts/account-record.js';
import type { DeliveryRecord, EndpointRecord, EventRecord } from './webhooks/records.js';
import type { PaymentRequestRecord } from './payments/payment-request.js';
import type { WalletRecord, WalletTransactionRecord } from './wallets/wallet-records.js';
import { ApiError } from './pipeline/errors.js';

/** An account's clock: wall time plus an offset, or frozen at an instant (epoch ms). */
export interface ClockState {
  offsetMs: number;
  frozenAtMs: number | null;
}

/**
 * What a reset erases of an account: its payment requests, events and delivery attempts (pending
 * ones are cancelled with them), its test wallets and wallet transactions; with `endpoints`, its
 * webhook endpoints too (`{"scope": "all"}`).
 */
export interface AccountClearing {
  accountId: string;
  endpoints: boolean;
}

/**
 * One write that must land whole: a payment request's new state, the event that records it and
 * the deliveries that event owes (a transactional outbox), or an endpoint and what it stops, or
 * an account made, cleared or deleted. Clearings and deletions are applied first; deliveries,
 * endpoints and accounts replace those with the same key.
 */
export interface StoreChange {
  paymentRequests?: PaymentRequestRecord[];
  events?: EventRecord[];
  deliveries?: DeliveryRecord[];
  endpoints?: EndpointRecord[];
  deletedEndpoints?: string[];
  /** Accounts whose activity is erased (a reset). */
  clearedAccounts?: AccountClearing[];
  /** Accounts made through the accounts API. */
  accounts?: AccountRecord[];
  /** Created accounts removed with everything of theirs: requests, events, deliveries, endpoints, clock. */
  deletedAccounts?: string[];
  /** Test wallets made or changed (a balance moved). */
  wallets?: WalletRecord[];
  /** Test wallets removed with their transactions. */
  deletedWallets?: string[];
  /** Transactions of sandbox-run wallets, made or changed. */
  walletTransactions?: WalletTransactionRecord[];
}

/** The wallet side of a store: test wallets and the transactions of every sandbox-run wallet. */
export interface WalletStoreReads {
  getWallet(id: string): WalletRecord | undefined;
  /** The account's test wallets, oldest first. */
  walletsOf(accountId: string): WalletRecord[];
  /** Every test wallet, all accounts (to serve their connections after a start). */
  allWallets(): WalletRecord[];
  /** The wallet's kept transactions, newest first. */
  walletTransactionsOf(walletId: string): WalletTransactionRecord[];
  /** The incoming transaction (an invoice a sandbox-run wallet made) with this payment hash. */
  findWalletInvoice(paymentHash: string): WalletTransactionRecord | undefined;
}

/** The event side of a store: events, webhook endpoints and delivery attempts, per account. */
export interface EventStoreReads {
  getEvent(id: string): EventRecord | undefined;
  /** The account's kept events, newest first. */
  eventsOf(accountId: string): EventRecord[];
  getEndpoint(id: string): EndpointRecord | undefined;
  /** The account's endpoints, oldest first. */
  endpointsOf(accountId: string): EndpointRecord[];
  getDelivery(id: string, attempt: number): DeliveryRecord | undefined;
  /** The account's delivery attempts, newest first. */
  deliveriesOf(accountId: string): DeliveryRecord[];
  /** Every attempt not yet made, all accounts (to schedule them after a start). */
  pendingDeliveries(): DeliveryRecord[];
}

/** Whether a store can take writes; while `unavailable`, `GET /healthz` answers 503. */
export type StorageHealth =
  | { status: 'ok' }
  | {
      status: 'unavailable';
      /** Since when (epoch ms). */
      since: number;
      /** Why, for logs (e.g. `ENOSPC writing /data/sandbox.json.journal`); never shown to clients. */
      cause: string;
    };

/**
 * A write the store could not make durable (a full disk, an I/O error, a read-only file system).
 * Nothing of it was kept: it is not visible afterwards and never becomes durable later. The
 * pipeline answers it like any ApiError: 503 `storage_unavailable`.
 */
export class StorageUnavailableError extends ApiError {
  constructor(cause?: unknown) {
    super('storage_unavailable');
    this.name = 'StorageUnavailableError';
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * Where payment requests, account clocks, events and webhooks live. Reads are synchronous (every
 * store keeps an in-memory index, and a write is visible there as soon as it is made); writes
 * resolve only once durable, so a transport may acknowledge them, and reject with
 * StorageUnavailableError when storage cannot take them.
 */
export interface SandboxStore extends EventStoreReads, WalletStoreReads {
  getPaymentRequest(id: string): PaymentRequestRecord | undefined;
  findPaymentRequestByHash(paymentHash: string): PaymentRequestRecord | undefined;
  /** The account's payment requests as stored, newest (last created) first. */
  paymentRequestsOf(accountId: string): PaymentRequestRecord[];
  /** Every stored record whose status is `pending` (to schedule expiries after a start). */
  pendingPaymentRequests(): PaymentRequestRecord[];
  /** Inserts or replaces the record with the same id. */
  savePaymentRequest(record: PaymentRequestRecord): Promise<void>;
  /** Writes a change atomically; see StoreChange. */
  commit(change: StoreChange): Promise<void>;
  /** Deletes every payment request of the account. */
  deletePaymentRequestsOf(accountId: string): Promise<void>;
  getClock(accountId: string): ClockState | undefined;
  saveClock(accountId: string, state: ClockState): Promise<void>;
  /** Number of stored payment requests, all accounts. */
  size(): number;
  /** The accounts made through the accounts API, oldest first. */
  accountRecords(): AccountRecord[];
  /** Whether writes can be made now; a store without it (memory) always can. */
  health?(): StorageHealth;
  /** Flushes pending writes and releases the store (file handles, locks). */
  close(): Promise<void>;
}

/** secp256k1 ECDSA with public-key recovery, RFC 6979 deterministic nonces. */
export interface RecoverableSigner {
  /** Signs a 32-byte message hash; returns the 64-byte compact (r || s, low-S) signature. */
  signRecoverable(messageHash: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recoveryId: number };
}

/** Real time, as epoch milliseconds. Injected so tests and fixtures can pin it. */
export interface WallClock {
  now(): number;
}

/** What an invoice needs from a new payment request; the network is the issuer's own setting. */
export interface InvoiceInput {
  amountSats: number;
  timestampSeconds: number;
  /** 32 bytes: SHA-256 of the preimage. */
  paymentHash: Uint8Array;
  /** 32 bytes, random per invoice. */
  paymentSecret: Uint8Array;
  description: string;
  /**
   * 32 bytes: the SHA-256 of a description kept elsewhere (NIP-47 `description_hash`, an LNURL-pay
   * server's metadata). When given, the invoice carries it as `h` and no `d`, whatever `description` is.
   */
  descriptionHash?: Uint8Array;
  expirySeconds: number;
  /** The key of the node that would be paid: the service's, or the account's connected wallet's. */
  nodePrivateKey: Uint8Array;
}

/** Signs BOLT11 invoices and reads them back. */
export interface InvoiceIssuer {
  issue(input: InvoiceInput): string;
  /** The payment hash (hex) of a BOLT11 invoice; throws on anything that is not a valid invoice. */
  paymentHashOf(invoice: string): string;
}

/** Randomness: ids, preimages, payment secrets. Seeded in fixtures, crypto-strong otherwise. */
export interface RandomSource {
  bytes(length: number): Uint8Array;
}

/** The account clocks: one per account, wall time plus an offset, or frozen. */
export interface AccountClocks {
  /** The account's current time, epoch ms. */
  now(accountId: string): number;
  /** Whether the account's clock is frozen. */
  isFrozen(accountId: string): boolean;
  /** Moves the account's clock on by `seconds` (frozen or not). */
  advance(accountId: string, seconds: number): Promise<void>;
  /** Stops the account's clock at its current time. */
  freeze(accountId: string): Promise<void>;
  /** Lets the account's clock run again from where it stands. */
  unfreeze(accountId: string): Promise<void>;
  /** Sets the account's clock to read `epochMs` now, frozen or running as it is (e.g. to a fixtures file's time). */
  setTime(accountId: string, epochMs: number): Promise<void>;
  /** Back to wall time, in the sandbox's starting mode. */
  reset(accountId: string): Promise<void>;
}

/** One webhook delivery attempt as it goes over the wire. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The attempt fails after this long without a complete answer. */
  timeoutMs: number;
  /**
   * For a sender that resolves names itself: the refusal of an address the name resolves to, or
   * undefined where it may be used; checked before connecting. Absent: nothing to check.
   */
  checkAddress?: (address: string) => AddressRefusal | undefined;
}

/** How an attempt went: the receiver's status, or why there was none. */
export type WebhookResponse = { status: number; durationMs: number } | { error: string; durationMs: number };

/**
 * Sends webhook deliveries (Node: node:http with a timeout, a cap on the response size and no
 * redirects followed). Never throws: failures are answers. Aborted by `signal` when the sandbox
 * closes; an aborted attempt is not recorded, so it is made again after a restart.
 */
export interface WebhookSender {
  send(request: WebhookRequest, signal: AbortSignal): Promise<WebhookResponse>;
}

/** Timers, injected so the scheduler can be driven by tests; the platform's by default. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** An NWC account, as its connected wallet is found: by id, and for a sandbox-run wallet its node key. */
export interface WalletOwner {
  id: string;
  walletNodeKey?: Uint8Array;
  /** A wallet run elsewhere, by its NWC connection URL. */
  nwcUrl?: string;
}

/** What `make_invoice` asks an NWC account's connected wallet for. */
export interface ConnectedInvoiceRequest {
  amountMsats: number;
  description: string;
  expirySeconds: number;
}

/** A connected wallet's invoice. */
export interface ConnectedInvoice {
  invoice: string;
  /** Hex. */
  paymentHash: string;
}

/** How an account's connection looks (`GET /sandbox/v1/wallet`); `nwcUrl` holds the secret. */
export interface ConnectionState {
  relay: string;
  walletPubkey: string;
  nwcUrl: string;
  online: boolean;
  encryption: 'nip44_v2' | 'nip04';
}

/**
 * The connected wallets of NWC accounts, as the service reaches them: NIP-47 over a relay in Node
 * (the sandbox-run wallets on the sandbox's own relay, or any wallet an accounts file names), the
 * sandbox-run wallets in-process in MSW. Rejects with WalletUnavailableError when a wallet does
 * not answer in time and WalletError (NIP-47 code) when it refuses.
 */
export interface ConnectedWallets {
  makeInvoice(account: WalletOwner, request: ConnectedInvoiceRequest): Promise<ConnectedInvoice>;
  /** `lookup_invoice`: the invoice's state, with the preimage once settled. */
  lookupInvoice(account: WalletOwner, paymentHash: string): Promise<{ state: string; preimage?: string }>;
  /** The account's connection as `GET /sandbox/v1/wallet` shows it. */
  connection(account: WalletOwner): ConnectionState;
  /**
   * Starts hearing the wallets: `onSettled` is called for every incoming payment a wallet reports
   * settled (a `payment_received` notification), at most once per payment hash is not promised.
   */
  start(onSettled: (accountId: string, paymentHash: string, preimage: string) => void): void;
  close(): void;
}

/** A connected wallet that did not answer in time. */
export class WalletUnavailableError extends ApiError {
  constructor(message?: string) {
    super('wallet_unavailable', message);
    this.name = 'WalletUnavailableError';
  }
}
