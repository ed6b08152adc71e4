/**
 * The states of a payment request and how it moves between them. `pending` is the only state with
 * a way out: to `completed`, `failed` or `expired`. Terminal states never change. Time-driven moves
 * (expiry, outcomes scheduled by behaviour rules) are derived on read from the account's clock, so
 * a read never waits for the scheduler, which records the same change (and its event) when it
 * falls due; a frozen clock really stops the world.
 */
import { ApiError } from '../errors/errors.js';
import { TERMINAL_STATUSES, type PaymentRequestRecord, type PaymentRequestStatus, type Transition } from '../store/payment-request.js';

/** Where each transition leads. */
export const TRANSITION_TARGETS: Readonly<Record<Transition, PaymentRequestStatus>> = {
  complete: 'completed',
  fail: 'failed',
  expire: 'expired',
};

const TERMINAL_PHRASES: Partial<Record<PaymentRequestStatus, string>> = {
  completed: 'is already completed (paid)',
  expired: 'has expired',
  failed: 'has failed',
};

/**
 * The record as of `nowMs`. A pending request whose scheduled outcome is due (strictly before its
 * expiry) takes that outcome; else, once `expiresAt` has passed, it reads as expired. `updatedAt`
 * is the instant the change happened, not the instant it was noticed. The next write persists it.
 */
export function asOf(record: PaymentRequestRecord, nowMs: number): PaymentRequestRecord {
  if (record.status !== 'pending') return record;
  const expiresAtMs = expiresAtMsOf(record);
  const scheduled = record.scheduledOutcome;
  if (scheduled !== undefined) {
    const dueMs = Date.parse(scheduled.at);
    if (dueMs <= nowMs && dueMs < expiresAtMs) return moved(record, scheduled.transition, dueMs);
  }
  return nowMs < expiresAtMs ? record : moved(record, 'expire', expiresAtMs);
}

// Stored records are immutable values, read far more often than written: each one's expiry is
// parsed once (a WeakMap lookup costs less than Date.parse on every read). Nothing stored changes.
const expiries = new WeakMap<PaymentRequestRecord, number>();

function expiresAtMsOf(record: PaymentRequestRecord): number {
  let expiresAtMs = expiries.get(record);
  if (expiresAtMs === undefined) expiries.set(record, (expiresAtMs = Date.parse(record.expiresAt)));
  return expiresAtMs;
}

/**
 * When `asOf` will next read the record differently: its scheduled outcome or its expiry, on its
 * account's clock; undefined for a terminal record. The scheduler wakes then to record the change.
 */
export function nextChangeAtMs(record: PaymentRequestRecord): number | undefined {
  if (record.status !== 'pending') return undefined;
  const expiresAtMs = Date.parse(record.expiresAt);
  const dueMs = record.scheduledOutcome === undefined ? Infinity : Date.parse(record.scheduledOutcome.at);
  return Math.min(dueMs, expiresAtMs);
}

/**
 * The record after `transition` at `nowMs`; throws `invalid_transition` (409) from a terminal
 * state. `record` must already be `asOf(nowMs)`.
 */
export function applyTransition(record: PaymentRequestRecord, transition: Transition, nowMs: number): PaymentRequestRecord {
  if (TERMINAL_STATUSES.has(record.status)) {
    throw new ApiError(
      'invalid_transition',
      `Cannot ${transition} payment request ${record.id}: it ${TERMINAL_PHRASES[record.status]}; completed, expired and failed are final.`,
    );
  }
  // `updatedAt` must move on every change, even when a frozen clock shows the same instant twice.
  return moved(record, transition, Math.max(nowMs, Date.parse(record.updatedAt) + 1));
}

function moved(record: PaymentRequestRecord, transition: Transition, atMs: number): PaymentRequestRecord {
  const { scheduledOutcome: _settled, ...rest } = record;
  return { ...rest, status: TRANSITION_TARGETS[transition], updatedAt: new Date(atMs).toISOString() };
}
