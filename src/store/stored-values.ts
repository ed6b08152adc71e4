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

/** Enough of an endpoint, event or delivery attempt to be indexed. */
export function isAccountRecord(value: unknown): value is { id: string; accountId: string } {
  return isJsonObject(value) && typeof value.id === 'string' && typeof value.accountId === 'string';
}

/** A store change (see StoreChange) whose parts can be indexed. */
export function isStoreChange(value: unknown): boolean {
  if (!isJsonObject(value)) return false;
  const lists = ['paymentRequests', 'events', 'deliveries', 'endpoints', 'deletedEndpoints'] as const;
  if (!lists.every((list) => value[list] === undefined || Array.isArray(value[list]))) return false;
  return (
    ((value.paymentRequests as unknown[] | undefined) ?? []).every(isIndexableRecord) &&
    (['events', 'deliveries', 'endpoints'] as const).every((list) => ((value[list] as unknown[] | undefined) ?? []).every(isAccountRecord)) &&
    ((value.deletedEndpoints as unknown[] | undefined) ?? []).every((id) => typeof id === 'string')
  );
}
