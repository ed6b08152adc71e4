/**
 * The default store: everything in memory, gone on exit. Browser-safe, so the MSW transport
 * uses it as is; writes resolve at once because there is nothing to wait for.
 */
import type { ClockState, SandboxStore } from '../core/store/sandbox-store.js';
import type { PaymentRequestRecord } from '../core/store/payment-request.js';
import { indexReads } from './index-reads.js';
import { StoreIndex } from './store-index.js';

/** What a memory store starts with, e.g. fixtures. */
export interface MemoryStoreContents {
  paymentRequests?: Iterable<PaymentRequestRecord>;
  clocks?: Iterable<[accountId: string, state: ClockState]>;
  /** Events kept per account; 1,000 by default. */
  eventHistory?: number;
}

/** A store held in memory only. */
export function createMemoryStore(initial: MemoryStoreContents = {}): SandboxStore {
  const index = new StoreIndex(initial.eventHistory);
  for (const record of initial.paymentRequests ?? []) index.put(record);
  for (const [accountId, state] of initial.clocks ?? []) index.setClock(accountId, state);

  return {
    ...indexReads(index),
    savePaymentRequest: async (record) => {
      index.put(record);
    },
    commit: async (change) => {
      index.apply(change);
    },
    deletePaymentRequestsOf: async (accountId) => {
      index.deleteAccount(accountId);
    },
    saveClock: async (accountId, state) => {
      index.setClock(accountId, state);
    },
    close: async () => {},
  };
}
