/**
 * A store for browsers that survives a page reload: payment requests and account clocks kept in
 * `localStorage` through lowdb's browser adapter (`LocalStorage` + `LowSync`). Reads come from the
 * in-memory index, as in every store; each write updates the index and then rewrites the whole
 * document synchronously, so a reload right after an answer still finds what it acknowledged.
 * Rewriting everything costs O(records) per write: fine for the hundreds of requests a page makes,
 * and `localStorage` (about 5 MB) would not hold many more anyway.
 *
 * A page must keep working whatever it finds: unreadable content, a missing or blocked
 * `localStorage`, or a full quota are reported with `console.warn`, and the store carries on in
 * memory. Browser-safe: no Node APIs.
 */
import { LowSync } from 'lowdb';
import { LocalStorage } from 'lowdb/browser';
import type { AccountRecord } from '../core/store/account-record.js';
import type { DeliveryRecord, EndpointRecord, EventRecord } from '../core/store/webhook-records.js';
import type { ClockState, SandboxStore } from '../core/store/sandbox-store.js';
import type { PaymentRequestRecord } from '../core/store/payment-request.js';
import { indexReads } from './index-reads.js';
import { StoreIndex } from './store-index.js';
import { isClockState, isIndexableRecord, isJsonObject, isStoredAccount } from './stored-values.js';

/** The `format` field that marks a `localStorage` value as ours. */
export const LOCAL_STORAGE_FORMAT = 'lnpr-sandbox/local-storage';
/** The only version this code reads and writes. */
export const LOCAL_STORAGE_VERSION = 1;
/** The `localStorage` key used unless told otherwise. */
export const DEFAULT_STORAGE_KEY = 'lnpr-sandbox';

/** The document kept under the key. */
export interface LocalStorageDocument {
  format: typeof LOCAL_STORAGE_FORMAT;
  version: typeof LOCAL_STORAGE_VERSION;
  paymentRequests: PaymentRequestRecord[];
  clocks: Record<string, ClockState>;
  /** Absent in documents written before webhooks existed. */
  events?: EventRecord[];
  endpoints?: EndpointRecord[];
  deliveries?: DeliveryRecord[];
  /** Accounts made through the accounts API; absent in documents written before them. */
  accounts?: AccountRecord[];
}

/** Options of `openLocalStorageStore`. */
export interface LocalStorageStoreOptions {
  /** The `localStorage` key; `lnpr-sandbox` by default. Two sandboxes on one page need two keys. */
  key?: string;
}

/**
 * Opens the store kept under `key` in `localStorage`. Never throws: content it cannot read is
 * reported and replaced on the next write; without a usable `localStorage` it keeps to memory.
 * One tab at a time: two tabs on the same key each write their own view (the last write wins).
 */
export function openLocalStorageStore(options: LocalStorageStoreOptions = {}): SandboxStore {
  const key = options.key ?? DEFAULT_STORAGE_KEY;
  const index = new StoreIndex();
  const db = openDocument(key);
  if (db) {
    const document = readDocument(db, key);
    for (const record of document?.paymentRequests ?? []) index.put(record);
    for (const [accountId, state] of Object.entries(document?.clocks ?? {})) index.setClock(accountId, state);
    index.apply({ events: document?.events ?? [], endpoints: document?.endpoints ?? [], deliveries: document?.deliveries ?? [], accounts: document?.accounts ?? [] });
  }

  // Warn once per run of failures, not once per write: a full quota would otherwise flood the console.
  let failing = false;
  const persist = (): void => {
    if (!db) return;
    db.data = {
      format: LOCAL_STORAGE_FORMAT,
      version: LOCAL_STORAGE_VERSION,
      paymentRequests: index.records(),
      clocks: Object.fromEntries(index.clocks()),
      events: index.events.allEvents(),
      endpoints: index.events.allEndpoints(),
      deliveries: index.events.allDeliveries(),
      accounts: index.accountRecords(),
    };
    try {
      db.write();
      failing = false;
    } catch (error) {
      if (!failing) warn(`cannot write localStorage["${key}"] (${messageOf(error)}); changes are kept in memory only until it can`);
      failing = true;
    }
  };

  return {
    ...indexReads(index),
    savePaymentRequest: async (record) => {
      index.put(record);
      persist();
    },
    commit: async (change) => {
      index.apply(change);
      persist();
    },
    deletePaymentRequestsOf: async (accountId) => {
      index.deleteAccount(accountId);
      persist();
    },
    saveClock: async (accountId, state) => {
      index.setClock(accountId, state);
      persist();
    },
    // Every write is already in localStorage: nothing to flush.
    close: async () => {},
  };
}

/** The lowdb database over the key, or undefined (with a warning) where `localStorage` is missing or blocked. */
function openDocument(key: string): LowSync<unknown> | undefined {
  try {
    // Reading the global can itself throw (a sandboxed iframe, storage blocked by the user).
    if (typeof globalThis.localStorage === 'undefined') throw new Error('there is no localStorage here');
    return new LowSync<unknown>(new LocalStorage<unknown>(key), null);
  } catch (error) {
    warn(`localStorage is not usable (${messageOf(error)}); payment requests are kept in memory only`);
    return undefined;
  }
}

/** The stored document, checked; undefined when there is none or it cannot be used (with a warning). */
function readDocument(db: LowSync<unknown>, key: string): LocalStorageDocument | undefined {
  try {
    db.read();
  } catch (error) {
    warn(`localStorage["${key}"] is not JSON (${messageOf(error)}); starting empty, and it will be replaced on the next write`);
    return undefined;
  }
  if (db.data === null) return undefined;
  const problem = problemOf(db.data);
  if (problem !== undefined) {
    warn(`localStorage["${key}"] ${problem}; starting empty, and it will be replaced on the next write`);
    return undefined;
  }
  return db.data as LocalStorageDocument;
}

/** What makes `data` unusable as a document, or undefined when it is one. */
function problemOf(data: unknown): string | undefined {
  if (!isJsonObject(data) || data.format !== LOCAL_STORAGE_FORMAT) return `is not an lnpr-sandbox document (no "format": "${LOCAL_STORAGE_FORMAT}")`;
  if (data.version !== LOCAL_STORAGE_VERSION) {
    return `has format version ${JSON.stringify(data.version)}, but this lnpr-sandbox reads version ${LOCAL_STORAGE_VERSION}`;
  }
  if (!Array.isArray(data.paymentRequests) || !data.paymentRequests.every(isIndexableRecord)) {
    return 'has a "paymentRequests" that is not a list of payment requests';
  }
  if (!isJsonObject(data.clocks) || !Object.values(data.clocks).every(isClockState)) return 'has a "clocks" that is not a map of clock states';
  if (data.accounts !== undefined && !(Array.isArray(data.accounts) && data.accounts.every(isStoredAccount))) return 'has an "accounts" that is not a list of accounts';
  for (const list of ['events', 'endpoints', 'deliveries'] as const) {
    if (data[list] !== undefined && !(Array.isArray(data[list]) && data[list].every(isJsonObject))) return `has a "${list}" that is not a list of objects`;
  }
  return undefined;
}

function warn(message: string): void {
  console.warn(`lnpr-sandbox: ${message}`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
