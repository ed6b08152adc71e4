/**
 * Test support: the behaviour every SandboxStore must share, run against each implementation
 * so the engine can take any of them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxStore } from '../../core/store/sandbox-store.js';
import { testPaymentRequest } from './payment-request.js';

/** Defines the SandboxStore contract tests; `openStore` gives a fresh, empty store per test. */
export function describeStoreContract(name: string, openStore: () => Promise<SandboxStore>): void {
  describe(`${name}: SandboxStore contract`, () => {
    let store: SandboxStore;

    beforeEach(async () => {
      store = await openStore();
    });

    afterEach(async () => {
      await store.close();
    });

    it('saves and gets a record by id', async () => {
      const record = testPaymentRequest();
      await store.savePaymentRequest(record);
      expect(store.getPaymentRequest(record.id)).toEqual(record);
      expect(store.getPaymentRequest('pr_unknown')).toBeUndefined();
    });

    it('replaces the record with the same id', async () => {
      const record = testPaymentRequest();
      await store.savePaymentRequest(record);
      const completed = { ...record, status: 'completed' as const, updatedAt: '2025-01-01T00:10:00.000Z' };
      await store.savePaymentRequest(completed);
      expect(store.getPaymentRequest(record.id)).toEqual(completed);
      expect(store.size()).toBe(1);
    });

    it('finds a record by payment hash, following replacements', async () => {
      const record = testPaymentRequest();
      await store.savePaymentRequest(record);
      expect(store.findPaymentRequestByHash(record.paymentHash)).toEqual(record);
      const rehashed = { ...record, paymentHash: 'ab'.repeat(32) };
      await store.savePaymentRequest(rehashed);
      expect(store.findPaymentRequestByHash(record.paymentHash)).toBeUndefined();
      expect(store.findPaymentRequestByHash(rehashed.paymentHash)).toEqual(rehashed);
    });

    it('deletes the payment requests of one account only', async () => {
      const mine = [testPaymentRequest({ accountId: 'acct_a' }), testPaymentRequest({ accountId: 'acct_a' })];
      const theirs = testPaymentRequest({ accountId: 'acct_b' });
      await Promise.all([...mine, theirs].map((record) => store.savePaymentRequest(record)));
      await store.saveClock('acct_a', { offsetMs: 5, frozenAtMs: null });

      await store.deletePaymentRequestsOf('acct_a');

      for (const record of mine) {
        expect(store.getPaymentRequest(record.id)).toBeUndefined();
        expect(store.findPaymentRequestByHash(record.paymentHash)).toBeUndefined();
      }
      expect(store.getPaymentRequest(theirs.id)).toEqual(theirs);
      expect(store.findPaymentRequestByHash(theirs.paymentHash)).toEqual(theirs);
      expect(store.getClock('acct_a')).toEqual({ offsetMs: 5, frozenAtMs: null });
      expect(store.size()).toBe(1);
      await store.deletePaymentRequestsOf('acct_none');
    });

    it("lists an account's records newest first, a replaced one keeping its place", async () => {
      const first = testPaymentRequest({ accountId: 'acct_a' });
      const second = testPaymentRequest({ accountId: 'acct_a' });
      const third = testPaymentRequest({ accountId: 'acct_a' });
      const theirs = testPaymentRequest({ accountId: 'acct_b' });
      for (const record of [first, theirs, second, third]) await store.savePaymentRequest(record);
      const completed = { ...first, status: 'completed' as const };
      await store.savePaymentRequest(completed);
      expect(store.paymentRequestsOf('acct_a')).toEqual([third, second, completed]);
      expect(store.paymentRequestsOf('acct_b')).toEqual([theirs]);
      expect(store.paymentRequestsOf('acct_none')).toEqual([]);
      await store.savePaymentRequest({ ...second, accountId: 'acct_b' });
      expect(store.paymentRequestsOf('acct_a').map((r) => r.id)).toEqual([third.id, first.id]);
    });

    it('forgets a record moved to another account when the old account is deleted', async () => {
      const record = testPaymentRequest({ accountId: 'acct_a' });
      await store.savePaymentRequest(record);
      await store.savePaymentRequest({ ...record, accountId: 'acct_b' });
      await store.deletePaymentRequestsOf('acct_a');
      expect(store.getPaymentRequest(record.id)?.accountId).toBe('acct_b');
    });

    it('keeps a clock per account', async () => {
      expect(store.getClock('acct_a')).toBeUndefined();
      await store.saveClock('acct_a', { offsetMs: 60_000, frozenAtMs: null });
      await store.saveClock('acct_b', { offsetMs: 0, frozenAtMs: 1_700_000_000_000 });
      await store.saveClock('acct_a', { offsetMs: 120_000, frozenAtMs: null });
      expect(store.getClock('acct_a')).toEqual({ offsetMs: 120_000, frozenAtMs: null });
      expect(store.getClock('acct_b')).toEqual({ offsetMs: 0, frozenAtMs: 1_700_000_000_000 });
    });

    it('counts payment requests across accounts', async () => {
      expect(store.size()).toBe(0);
      await store.savePaymentRequest(testPaymentRequest({ accountId: 'acct_a' }));
      await store.savePaymentRequest(testPaymentRequest({ accountId: 'acct_b' }));
      expect(store.size()).toBe(2);
    });
  });
}
