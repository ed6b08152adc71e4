/** The memory store: the shared contract, plus its initial contents. */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory-store.js';
import { describeStoreContract } from './testing/store-contract.js';
import { testPaymentRequest } from './testing/payment-request.js';

describeStoreContract('memory store', async () => createMemoryStore());

describe('memory store', () => {
  it('starts with the records and clocks it is given', () => {
    const record = testPaymentRequest();
    const store = createMemoryStore({
      paymentRequests: [record],
      clocks: [['acct_test', { offsetMs: 1, frozenAtMs: null }]],
    });
    expect(store.getPaymentRequest(record.id)).toBe(record);
    expect(store.findPaymentRequestByHash(record.paymentHash)).toBe(record);
    expect(store.getClock('acct_test')).toEqual({ offsetMs: 1, frozenAtMs: null });
    expect(store.size()).toBe(1);
  });
});
