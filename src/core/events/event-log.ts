/**
 * What the control API reads of an account's events and deliveries, and redelivery: a new
 * delivery of a kept event to each of the account's endpoints that takes its type, due now and
 * without faults (a person pressing "Redeliver" wants it sent, not misbehaved with).
 */
import type { EventType } from '../../schemas/webhooks.js';
import type { DueSchedule } from '../due/due-schedule.js';
import { ApiError } from '../errors/errors.js';
import type { AccountClocks, RandomSource } from '../ports.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import { firstAttempt } from '../webhooks/delivery-plan.js';
import type { PendingDeliveries } from '../webhooks/pending-deliveries.js';
import type { DeliveryRecord, EventRecord } from '../store/webhook-records.js';

/** Events kept (and listed) per account, the newest; the store evicts older ones with their attempts. */
export const KEPT_EVENTS_PER_ACCOUNT = 1_000;

/**
 * Finished delivery attempts kept per account; past it the store lets go of the one that finished
 * first. Pending ones are never let go (they are bounded apart: pending-deliveries.ts).
 */
export const KEPT_FINISHED_ATTEMPTS_PER_ACCOUNT = 5_000;

/** Filters of `GET /sandbox/v1/events`. */
export interface EventFilter {
  type?: EventType;
  paymentRequestId?: string;
  limit: number;
}

/** Filters of `GET /sandbox/v1/webhook-deliveries`. */
export interface DeliveryFilter {
  event?: string;
  endpoint?: string;
  limit: number;
}

/** What the event log needs. */
export interface EventLogDeps {
  store: SandboxStore;
  clocks: AccountClocks;
  random: RandomSource;
  due: Pick<DueSchedule, 'scheduleDeliveries'>;
  pending: Pick<PendingDeliveries, 'admit' | 'note'>;
}

/** Reads events and deliveries, and redelivers. */
export class EventLog {
  readonly #deps: EventLogDeps;

  constructor(deps: EventLogDeps) {
    this.#deps = deps;
  }

  /** The account's events, newest first. */
  events(accountId: string, filter: EventFilter): EventRecord[] {
    const matching = this.#deps.store
      .eventsOf(accountId)
      .filter((event) => (filter.type === undefined || event.type === filter.type) && (filter.paymentRequestId === undefined || event.data.id === filter.paymentRequestId));
    return matching.slice(0, filter.limit);
  }

  /** The account's event; another account's reads as absent. */
  event(accountId: string, id: string): EventRecord {
    const event = this.#deps.store.getEvent(id);
    if (event === undefined || event.accountId !== accountId) {
      throw new ApiError('event_not_found', `No event with the id ${JSON.stringify(id.slice(0, 64))} (the sandbox keeps each account's newest ${KEPT_EVENTS_PER_ACCOUNT.toLocaleString('en')}).`);
    }
    return event;
  }

  /** The account's delivery attempts, newest first; 404 for a filter naming an unknown event. */
  deliveries(accountId: string, filter: DeliveryFilter): DeliveryRecord[] {
    if (filter.event !== undefined) this.event(accountId, filter.event);
    const matching = this.#deps.store
      .deliveriesOf(accountId)
      .filter((delivery) => (filter.event === undefined || delivery.event === filter.event) && (filter.endpoint === undefined || delivery.endpoint === filter.endpoint));
    return matching.slice(0, filter.limit);
  }

  /** Sends the event again to the account's endpoints that take its type; the new deliveries. */
  async redeliver(accountId: string, eventId: string): Promise<DeliveryRecord[]> {
    const { store, clocks, random, due, pending } = this.#deps;
    const event = this.event(accountId, eventId);
    const nowMs = clocks.now(accountId);
    const planned = store
      .endpointsOf(accountId)
      .filter((endpoint) => endpoint.events.includes(event.type))
      .map((endpoint) => firstAttempt(event, endpoint, nowMs, random));
    const deliveries = pending.admit(planned, nowMs);
    const durable = store.commit({ deliveries });
    pending.note(deliveries);
    await durable;
    due.scheduleDeliveries(deliveries);
    return deliveries;
  }
}
