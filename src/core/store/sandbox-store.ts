/**
 * The store port: what the engine keeps and how it asks for it. Every part that keeps records
 * reads and writes them through this interface; src/store implements it (memory, JSON file,
 * localStorage). Its records sit beside it in this folder, so every part may use the store.
 */
import type { AccountRecord } from './account-record.js';
import type { DeliveryRecord, EndpointRecord, EventRecord } from './webhook-records.js';
import type { PaymentRequestRecord } from './payment-request.js';
import type { WalletRecord, WalletTransactionRecord } from './wallet-records.js';
import { ApiError } from '../errors/errors.js';

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

