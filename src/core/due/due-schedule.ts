/**
 * One notion of "due": what falls due on an account's clock, when, and putting it on the
 * scheduler. A pending payment request falls due at its next change (its expiry or a rule's
 * outcome, as the state machine reads it); a delivery attempt at its `scheduledAt`, which the
 * outbox stores with it (a first attempt at its event's moment, a retry by the retry schedule).
 * Whoever writes such a record hands it here, so every due moment is decided in this module.
 */
import type { PaymentRequestRecord } from '../store/payment-request.js';
import { nextChangeAtMs } from '../payments/state-machine.js';
import type { DeliveryRecord } from '../store/webhook-records.js';
import type { DueEntry, Scheduler } from './scheduler.js';

/** A pending record's next change (its expiry or a rule's outcome); undefined once it is final. */
export function nextChangeDue(record: PaymentRequestRecord): DueEntry | undefined {
  const dueMs = nextChangeAtMs(record);
  return dueMs === undefined ? undefined : { accountId: record.accountId, dueMs, item: { kind: 'paymentRequest', id: record.id } };
}

/** A delivery attempt yet to be made; undefined for one made already or held (the `reorder` fault). */
export function attemptDue(delivery: DeliveryRecord): DueEntry | undefined {
  if (delivery.status !== 'pending' || delivery.scheduledAt === null) return undefined;
  return { accountId: delivery.accountId, dueMs: Date.parse(delivery.scheduledAt), item: { kind: 'delivery', id: delivery.id, attempt: delivery.attempt } };
}

/**
 * When an event's first delivery attempts fall due: at the change it records, later by an
 * endpoint's `delaySeconds` fault. An event ahead of the account's clock, as a transition's
 * `updatedAt` is (1 ms) on a frozen clock that shows the create's instant, counts from now:
 * due at the event's time, the attempt would wait for a clock that never moves.
 */
export function firstAttemptDueMs(eventTimestamp: string, nowMs: number, delaySeconds = 0): number {
  return Math.min(Date.parse(eventTimestamp), nowMs) + delaySeconds * 1000;
}

/** Puts what falls due on the scheduler. */
export class DueSchedule {
  readonly #scheduler: Pick<Scheduler, 'add' | 'addMany'>;

  constructor(scheduler: Pick<Scheduler, 'add' | 'addMany'>) {
    this.#scheduler = scheduler;
  }

  /** Schedules the record's next change, if it has one. */
  scheduleNextChange(record: PaymentRequestRecord): void {
    const due = nextChangeDue(record);
    if (due !== undefined) this.#scheduler.add(due.accountId, due.dueMs, due.item);
  }

  /** Schedules many records' next changes at once (what a store holds at start, fixtures): one heap build. */
  scheduleNextChanges(records: Iterable<PaymentRequestRecord>): void {
    this.#scheduler.addMany(nextChangesDue(records));
  }

  /** Schedules a delivery attempt at its due moment; one made already or held waits for nothing. */
  scheduleDelivery(delivery: DeliveryRecord): void {
    const due = attemptDue(delivery);
    if (due !== undefined) this.#scheduler.add(due.accountId, due.dueMs, due.item);
  }

  /** Schedules each delivery attempt, as scheduleDelivery does. */
  scheduleDeliveries(deliveries: Iterable<DeliveryRecord>): void {
    for (const delivery of deliveries) this.scheduleDelivery(delivery);
  }
}

function* nextChangesDue(records: Iterable<PaymentRequestRecord>): Iterable<DueEntry> {
  for (const record of records) {
    const due = nextChangeDue(record);
    if (due !== undefined) yield due;
  }
}
