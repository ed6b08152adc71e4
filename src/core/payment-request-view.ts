/**
 * What clients see of a stored payment request: expiry derived from the account's clock, and the
 * spec's presence rules (no `destinationWallet` ever, `preimage` only once completed, `nwcRelay`
 * only in NWC mode), in one fixed key order.
 */
import type { PaymentRequest } from '../schemas/payment-request.js';
import type { PaymentRequestRecord } from './payment-request.js';

/**
 * The record as of `nowMs`: a pending request whose `expiresAt` has passed reads as expired, with
 * `updatedAt` at the instant it expired. No background job is needed; the next write persists it.
 */
export function asOf(record: PaymentRequestRecord, nowMs: number): PaymentRequestRecord {
  if (record.status !== 'pending' || nowMs < Date.parse(record.expiresAt)) return record;
  return { ...record, status: 'expired', updatedAt: record.expiresAt };
}

/** The response object of a record. */
export function toPaymentRequestView(record: PaymentRequestRecord): PaymentRequest {
  return {
    id: record.id,
    status: record.status,
    amount: record.amount,
    description: record.description,
    invoice: record.invoice,
    paymentHash: record.paymentHash,
    expiresAt: record.expiresAt,
    isNwc: record.isNwc,
    ...(record.isNwc && record.nwcRelay !== undefined ? { nwcRelay: record.nwcRelay } : {}),
    ...(record.status === 'completed' ? { preimage: record.preimage } : {}),
    feeAmount: record.feeAmount,
    feePercentage: record.feePercentage,
    ...(record.metadata !== undefined ? { metadata: record.metadata } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
