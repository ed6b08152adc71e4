/**
 * Every change of a payment request goes through here: its new state, the event that records it
 * and the deliveries that event owes are one store write (a transactional outbox), so a crash can
 * never keep one and lose another. Then the due schedule learns what has become due, and
 * listeners (in-process users, MSW users, live pages) see the event.
 */
import type { WebhookEvent, EventType } from '../../schemas/webhooks.js';
import type { DueSchedule } from '../due/due-schedule.js';
import { newId } from '../ids.js';
import type { PaymentRequestRecord, PaymentRequestStatus } from '../store/payment-request.js';
import { paymentRequestViewOf } from '../payments/payment-request-view.js';
import type { PaymentChanges } from '../payments/payment-requests.js';
import type { AccountClocks, RandomSource } from '../ports.js';
import type { SandboxStore, StoreChange } from '../store/sandbox-store.js';
import { planDeliveries } from '../webhooks/delivery-plan.js';
import { heldDeliveriesIn } from '../webhooks/held-deliveries.js';
import type { PendingDeliveries } from '../webhooks/pending-deliveries.js';
import { toEventView, type EventRecord } from '../store/webhook-records.js';
import { Listeners } from '../listeners.js';

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
  due: Pick<DueSchedule, 'scheduleNextChange' | 'scheduleDeliveries'>;
  /** Bounds what the outbox owes: deliveries past it are recorded failed, not attempted. */
  pending: Pick<PendingDeliveries, 'admit' | 'note'>;
  /** Sees a listener's exception (a listener must not break the API). */
  onError(error: unknown): void;
}

/** Records payment-request changes with their events and deliveries. */
export class ChangeLog implements PaymentChanges {
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
   * `alongside` joins the same write (a wallet's side of a payment).
   */
  async save(record: PaymentRequestRecord, previous?: PaymentRequestRecord, alongside?: StoreChange): Promise<void> {
    const { store, clocks, random, due, pending } = this.#deps;
    if (previous !== undefined && previous.status === record.status) {
      await (alongside === undefined ? store.savePaymentRequest(record) : store.commit({ ...alongside, paymentRequests: [record] }));
      return;
    }
    const event: EventRecord = {
      id: newId('evt_', random),
      accountId: record.accountId,
      type: EVENT_TYPE_OF[record.status],
      // The account's clock at the change: a time-driven change happened when it fell due.
      timestamp: previous === undefined ? record.createdAt : record.updatedAt,
      data: paymentRequestViewOf(record),
    };
    const nowMs = clocks.now(record.accountId);
    const deliveries = pending.admit(planDeliveries(event, store.endpointsOf(record.accountId), heldDeliveriesIn(store), random, nowMs), nowMs);
    const durable = store.commit({ ...alongside, paymentRequests: [record], events: [event], deliveries });
    pending.note(deliveries);
    due.scheduleNextChange(record);
    await durable;
    // Sent only once recorded: a delivery must never announce what a crash could take back.
    due.scheduleDeliveries(deliveries);
    this.#listeners.emit(toEventView(event), event.accountId);
  }
}
