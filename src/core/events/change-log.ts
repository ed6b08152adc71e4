/**
 * Every change of a payment request goes through here: its new state, the event that records it
 * and the deliveries that event owes are one store write (a transactional outbox), so a crash can
 * never keep one and lose another. Then the scheduler learns what has become due, and listeners
 * (in-process users, MSW users, live pages) see the event.
 */
import type { WebhookEvent, EventType } from '../../schemas/webhooks.js';
import { newId } from '../ids.js';
import type { PaymentRequestRecord, PaymentRequestStatus } from '../payments/payment-request.js';
import { toPaymentRequestView } from '../payments/payment-request-view.js';
import { nextChangeAtMs } from '../payments/state-machine.js';
import type { AccountClocks, RandomSource, SandboxStore } from '../ports.js';
import { planDeliveries } from './delivery-plan.js';
import { Listeners } from './listeners.js';
import { toEventView, type DeliveryRecord, type EventRecord } from './records.js';
import type { Scheduler } from './scheduler.js';

/** Sees each event once it is durable, and the account it belongs to (not part of the event's public view). */
export type EventListener = (event: WebhookEvent, accountId: string) => void;

const EVENT_TYPE_OF: Record<PaymentRequestStatus, EventType> = {
  pending: 'payment_request.created',
  completed: 'payment_request.completed',
  failed: 'payment_request.failed',
  expired: 'payment_request.expired',
};

/** What the change log needs. */
export interface ChangeLogDeps {
  store: SandboxStore;
  clocks: Pick<AccountClocks, 'now'>;
  random: RandomSource;
  scheduler: Scheduler;
  /** Sees a listener's exception (a listener must not break the API). */
  onError(error: unknown): void;
}

/** Records payment-request changes with their events and deliveries. */
export class ChangeLog {
  readonly #deps: ChangeLogDeps;
  readonly #listeners: Listeners<Parameters<EventListener>>;

  constructor(deps: ChangeLogDeps) {
    this.#deps = deps;
    this.#listeners = new Listeners(deps.onError);
  }

  /** Calls `listener` with every event from now on; returns the function that stops it. */
  subscribe(listener: EventListener): () => void {
    return this.#listeners.add(listener);
  }

  /**
   * Saves `record` (new, or changed from `previous`) with its event and deliveries; resolves once
   * durable. The write is made before this returns its promise, so reads see it at once.
   */
  async save(record: PaymentRequestRecord, previous?: PaymentRequestRecord): Promise<void> {
    const { store, clocks, random, scheduler } = this.#deps;
    if (previous !== undefined && previous.status === record.status) {
      await store.savePaymentRequest(record);
      return;
    }
    const event: EventRecord = {
      id: newId('evt_', random),
      accountId: record.accountId,
      type: EVENT_TYPE_OF[record.status],
      // The account's clock at the change: a time-driven change happened when it fell due.
      timestamp: previous === undefined ? record.createdAt : record.updatedAt,
      data: toPaymentRequestView(record),
    };
    const deliveries = planDeliveries(event, store.endpointsOf(record.accountId), heldIn(store), random, clocks.now(record.accountId));
    const durable = store.commit({ paymentRequests: [record], events: [event], deliveries });
    const changeAtMs = nextChangeAtMs(record);
    if (changeAtMs !== undefined) scheduler.add(record.accountId, changeAtMs, { kind: 'paymentRequest', id: record.id });
    await durable;
    // Sent only once recorded: a delivery must never announce what a crash could take back.
    for (const delivery of deliveries) scheduleDelivery(scheduler, delivery);
    this.#listeners.emit(toEventView(event), event.accountId);
  }
}

/** Schedules a delivery attempt at its due moment (held ones wait to be released). */
export function scheduleDelivery(scheduler: Scheduler, delivery: DeliveryRecord): void {
  if (delivery.status !== 'pending' || delivery.scheduledAt === null) return;
  scheduler.add(delivery.accountId, Date.parse(delivery.scheduledAt), { kind: 'delivery', id: delivery.id, attempt: delivery.attempt });
}

/** The endpoint's deliveries held for a request's next event (the `reorder` fault). */
export function heldIn(store: SandboxStore) {
  return (endpoint: { id: string; accountId: string }, paymentRequestId: string): DeliveryRecord[] =>
    store.deliveriesOf(endpoint.accountId).filter((d) => d.endpoint === endpoint.id && d.heldFor === paymentRequestId && d.status === 'pending');
}
