/**
 * Test support: minimal valid payment request records, unique per call (and per process, so a
 * crash-test child's records never collide with the parent's).
 */
import type { PaymentRequestRecord } from '../../core/store/payment-request.js';

const run = Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0');
let count = 0;

/** A pending record with a fresh id and payment hash; `overrides` replace any field. */
export function testPaymentRequest(overrides: Partial<PaymentRequestRecord> = {}): PaymentRequestRecord {
  count += 1;
  const unique = `${run}${count.toString(16).padStart(8, '0')}`;
  return {
    id: `pr_${unique}`,
    accountId: 'acct_test',
    status: 'pending',
    amount: 1_000,
    description: 'Test payment',
    destinationWallet: 'wallet_test',
    expiresIn: 3_600,
    invoice: `lnbcrt10u1p${unique}`,
    paymentHash: unique.padStart(64, '0'),
    preimage: unique.padStart(64, 'f'),
    isNwc: false,
    feeAmount: 1,
    feePercentage: 0.1,
    createdAt: '2025-01-01T00:00:00.000Z',
    expiresAt: '2025-01-01T01:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}
