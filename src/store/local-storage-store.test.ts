/**
 * The localStorage store, in Node: the shared contract, a reload keeping everything, and a page
 * never thrown at. `localStorage` is a Map-backed stand-in set on globalThis for these tests only.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import {
  DEFAULT_STORAGE_KEY,
  LOCAL_STORAGE_FORMAT,
  LOCAL_STORAGE_VERSION,
  openLocalStorageStore,
} from './local-storage-store.js';
import { describeStoreContract } from './testing/store-contract.js';
import { testPaymentRequest } from './testing/payment-request.js';

/** The part of the Storage interface the store uses, over a Map; `failWrites` simulates a full quota. */
class MemoryStorage {
  readonly items = new Map<string, string>();
  failWrites = false;

  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }

  setItem(key: string, value: string): void {
    if (this.failWrites) throw new Error('QuotaExceededError: the quota has been exceeded');
    this.items.set(key, String(value));
  }

  removeItem(key: string): void {
    this.items.delete(key);
  }

  clear(): void {
    this.items.clear();
  }
}

const storage = new MemoryStorage();
let warn: MockInstance<typeof console.warn>;

beforeAll(() => {
  Object.defineProperty(globalThis, 'localStorage', { value: storage, configurable: true, writable: true });
});

afterAll(() => {
  delete (globalThis as { localStorage?: unknown }).localStorage;
});

beforeEach(() => {
  storage.clear();
  storage.failWrites = false;
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
});

afterEach(() => {
  warn.mockRestore();
});

describeStoreContract('localStorage store', async () => {
  storage.clear();
  return openLocalStorageStore();
});

describe('localStorage store', () => {
  it('keeps payment requests and clocks across a reload, in a versioned document', async () => {
    const store = openLocalStorageStore();
    const kept = testPaymentRequest({ accountId: 'acct_a' });
    const deleted = testPaymentRequest({ accountId: 'acct_b' });
    await store.savePaymentRequest(kept);
    await store.savePaymentRequest(deleted);
    await store.saveClock('acct_a', { offsetMs: 60_000, frozenAtMs: null });
    await store.deletePaymentRequestsOf('acct_b');

    const reloaded = openLocalStorageStore();
    expect(reloaded.getPaymentRequest(kept.id)).toEqual(kept);
    expect(reloaded.findPaymentRequestByHash(kept.paymentHash)).toEqual(kept);
    expect(reloaded.getPaymentRequest(deleted.id)).toBeUndefined();
    expect(reloaded.getClock('acct_a')).toEqual({ offsetMs: 60_000, frozenAtMs: null });
    expect(reloaded.size()).toBe(1);
    expect(JSON.parse(storage.getItem(DEFAULT_STORAGE_KEY)!)).toEqual({
      format: LOCAL_STORAGE_FORMAT,
      version: LOCAL_STORAGE_VERSION,
      paymentRequests: [kept],
      clocks: { acct_a: { offsetMs: 60_000, frozenAtMs: null } },
      events: [],
      endpoints: [],
      deliveries: [],
      accounts: [],
    });
    expect(warn).not.toHaveBeenCalled();
  });

  it('keeps accounts made through the API across a reload, and forgets a deleted one with its data', async () => {
    const store = openLocalStorageStore();
    const account = { id: 'acct_made', name: null, mode: 'custodial' as const, keys: [{ sha256: 'ab'.repeat(32), permissions: ['create' as const, 'read' as const] }], createdAt: '2026-01-01T00:00:00.000Z' };
    const gone = { ...account, id: 'acct_gone' };
    await store.commit({ accounts: [account, gone] });
    await store.savePaymentRequest(testPaymentRequest({ accountId: 'acct_gone' }));
    await store.saveClock('acct_gone', { offsetMs: 5, frozenAtMs: null });
    await store.commit({ deletedAccounts: ['acct_gone'] });
    const reloaded = openLocalStorageStore();
    expect(reloaded.accountRecords()).toEqual([account]);
    expect([reloaded.paymentRequestsOf('acct_gone'), reloaded.getClock('acct_gone')]).toEqual([[], undefined]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('persists each write before it resolves, so a reload straight after sees it', async () => {
    const store = openLocalStorageStore();
    const record = testPaymentRequest();
    const write = store.savePaymentRequest(record);
    // Not awaited yet: the write is already in localStorage (LowSync).
    expect(openLocalStorageStore().getPaymentRequest(record.id)).toEqual(record);
    await write;
  });

  it('keeps separate keys apart', async () => {
    const one = openLocalStorageStore({ key: 'one' });
    await one.savePaymentRequest(testPaymentRequest());
    expect(openLocalStorageStore({ key: 'two' }).size()).toBe(0);
    expect(openLocalStorageStore({ key: 'one' }).size()).toBe(1);
    expect(storage.getItem(DEFAULT_STORAGE_KEY)).toBeNull();
  });

  it.each([
    ['text that is not JSON', '{"format": "lnpr-sandbox/loc', /is not JSON/],
    ['JSON of someone else', '{"theme": "dark"}', /is not an lnpr-sandbox document/],
    ['a JSON scalar', '42', /is not an lnpr-sandbox document/],
    ['a later format version', JSON.stringify({ format: LOCAL_STORAGE_FORMAT, version: 2, paymentRequests: [], clocks: {} }), /format version 2/],
    ['a broken record', JSON.stringify({ format: LOCAL_STORAGE_FORMAT, version: 1, paymentRequests: [{ id: 1 }], clocks: {} }), /"paymentRequests"/],
    ['a broken clock', JSON.stringify({ format: LOCAL_STORAGE_FORMAT, version: 1, paymentRequests: [], clocks: { a: { offsetMs: 'x' } } }), /"clocks"/],
  ])('starts empty with a warning on %s, and replaces it on the next write', async (_what, content, warning) => {
    storage.setItem(DEFAULT_STORAGE_KEY, content);
    const store = openLocalStorageStore();
    expect(store.size()).toBe(0);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(warning);

    const record = testPaymentRequest();
    await store.savePaymentRequest(record);
    expect(openLocalStorageStore().getPaymentRequest(record.id)).toEqual(record);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('keeps working in memory when writes fail (a full quota), warning once until they succeed again', async () => {
    const store = openLocalStorageStore();
    storage.failWrites = true;
    const first = testPaymentRequest();
    await store.savePaymentRequest(first);
    await store.savePaymentRequest(testPaymentRequest());
    expect(store.getPaymentRequest(first.id)).toEqual(first);
    expect(store.size()).toBe(2);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/cannot write localStorage\["lnpr-sandbox"\].*quota/);

    storage.failWrites = false;
    await store.saveClock('acct_test', { offsetMs: 1, frozenAtMs: null });
    // The next good write carries everything the failed ones held.
    expect(openLocalStorageStore().size()).toBe(2);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('keeps to memory, with a warning, where there is no localStorage', async () => {
    const saved = globalThis.localStorage;
    delete (globalThis as { localStorage?: unknown }).localStorage;
    try {
      const store = openLocalStorageStore();
      await store.savePaymentRequest(testPaymentRequest());
      expect(store.size()).toBe(1);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/localStorage is not usable/);
    } finally {
      Object.defineProperty(globalThis, 'localStorage', { value: saved, configurable: true, writable: true });
    }
  });
});
