/**
 * Shape checks for values read back from disk. They check only what the index relies on (ids,
 * account, payment hash, clock numbers): the engine wrote these values, so a full schema check
 * would cost startup time to catch what only hand edits produce.
 */
import type { ClockState } from '../core/ports.js';
import type { PaymentRequestRecord } from '../core/payments/payment-request.js';

/** A plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Enough of a payment request to be indexed. */
export function isIndexableRecord(value: unknown): value is PaymentRequestRecord {
  return (
    isJsonObject(value) &&
    typeof value.id === 'string' &&
    typeof value.accountId === 'string' &&
    typeof value.paymentHash === 'string'
  );
}

/** A clock state: a finite offset and a frozen instant or null. */
export function isClockState(value: unknown): value is ClockState {
  return (
    isJsonObject(value) &&
    Number.isFinite(value.offsetMs) &&
    (value.frozenAtMs === null || Number.isFinite(value.frozenAtMs))
  );
}
