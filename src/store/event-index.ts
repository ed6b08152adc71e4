/**
 * The event side of the in-memory index: events, webhook endpoints and delivery attempts, bounded
 * per account so that a long-running sandbox, or a receiver that never answers 2xx, does not grow
 * without end. The newest `eventHistory` events are listed; an evicted event takes its attempts
 * with it. Finished attempts are bounded apart (`attemptHistory`): past it the attempt that
 * finished first goes, whichever event it belongs to. Pending attempts are never let go (the
 * outbox: a burst of writes must not lose the deliveries it queued); an event past the bound with
 * one is kept, unlisted, until its attempts end. The engine bounds how many may be pending
 * (core/webhooks/pending-deliveries.ts). Browser-safe.
 */
import type { EventStoreReads } from '../core/store/sandbox-store.js';
import { KEPT_EVENTS_PER_ACCOUNT, KEPT_FINISHED_ATTEMPTS_PER_ACCOUNT } from '../core/events/event-log.js';
import { deliveryKey, type DeliveryRecord, type EndpointRecord, type EventRecord } from '../core/store/webhook-records.js';

/** A record the history bounds let go, or an attempt of an event no longer kept (not what a deletion or a reset removed): its kind and key. */
export interface PrunedRecord {
  kind: 'event' | 'delivery' | 'walletTransaction';
  /** The event's or transaction's id; an attempt's deliveryKey. */
  key: string;
}

/** Hears each record the bounds let go, so a store that keeps rows can delete them too. */
export type PruneListener = (pruned: PrunedRecord) => void;

/** Maps of events, endpoints and attempts, kept consistent with each other on every change. */
export class EventIndex implements EventStoreReads {
  readonly #eventHistory: number;
  readonly #attemptHistory: number;
  readonly #events = new Map<string, EventRecord>();
  /** Per account, in the order events happened (Map keeps insertion order). */
  readonly #eventsByAccount = new Map<string, Map<string, EventRecord>>();
  readonly #endpoints = new Map<string, EndpointRecord>();
  readonly #deliveries = new Map<string, DeliveryRecord>();
  /** Per account, attempts in the order they were first written. */
  readonly #deliveriesByAccount = new Map<string, Map<string, DeliveryRecord>>();
  readonly #deliveryKeysByEvent = new Map<string, Set<string>>();
  /** Per account, keys of finished attempts in the order they finished (the first goes first). */
  readonly #finishedByAccount = new Map<string, Set<string>>();
  /** Events past the bound kept for their pending attempts (still in #events, not listed). */
  readonly #retained = new Map<string, EventRecord>();
  /** What the change being applied touched: accounts that gained events, events whose attempts changed. */
  readonly #touchedAccounts = new Set<string>();
  readonly #touchedEvents = new Set<string>();
  /** Accounts whose finished attempts grew in the change being applied. */
  readonly #touchedFinished = new Set<string>();
  /** Hears what the bounds let go (set by StoreIndex.onPruned). */
  onPruned: PruneListener | undefined;

  constructor(eventHistory = KEPT_EVENTS_PER_ACCOUNT, attemptHistory = KEPT_FINISHED_ATTEMPTS_PER_ACCOUNT) {
    this.#eventHistory = eventHistory;
    this.#attemptHistory = attemptHistory;
  }

  getEvent(id: string): EventRecord | undefined {
    return this.#events.get(id);
  }

  eventsOf(accountId: string): EventRecord[] {
    return Array.from(this.#eventsByAccount.get(accountId)?.values() ?? []).reverse();
  }

  /** Whether the attempt with this deliveryKey is kept. */
  hasDelivery(key: string): boolean {
    return this.#deliveries.has(key);
  }

  getEndpoint(id: string): EndpointRecord | undefined {
    return this.#endpoints.get(id);
  }

  endpointsOf(accountId: string): EndpointRecord[] {
    return Array.from(this.#endpoints.values()).filter((endpoint) => endpoint.accountId === accountId);
  }

  getDelivery(id: string, attempt: number): DeliveryRecord | undefined {
    return this.#deliveries.get(deliveryKey({ id, attempt }));
  }

  deliveriesOf(accountId: string): DeliveryRecord[] {
    return Array.from(this.#deliveriesByAccount.get(accountId)?.values() ?? []).reverse();
  }

  pendingDeliveries(): DeliveryRecord[] {
    return Array.from(this.#deliveries.values()).filter((delivery) => delivery.status === 'pending');
  }

  /** Adds an event; the history bound is applied by `endChange`. */
  putEvent(event: EventRecord): void {
    this.#events.set(event.id, event);
    let ofAccount = this.#eventsByAccount.get(event.accountId);
    if (!ofAccount) this.#eventsByAccount.set(event.accountId, (ofAccount = new Map()));
    ofAccount.set(event.id, event);
    this.#touchedAccounts.add(event.accountId);
  }

  /**
   * Applies the history bound once a whole change is in: an attempt's outcome and its retry are
   * written together, and an event is let go only when none of its attempts is pending after both.
   */
  endChange(): void {
    for (const accountId of this.#touchedAccounts) {
      const ofAccount = this.#eventsByAccount.get(accountId)!;
      while (ofAccount.size > this.#eventHistory) this.#evict(ofAccount, ofAccount.keys().next().value!);
    }
    for (const eventId of this.#touchedEvents) {
      if (this.#retained.has(eventId) && !this.#hasPending(eventId)) this.#prune(this.#retained.get(eventId)!);
    }
    for (const accountId of this.#touchedFinished) {
      const finished = this.#finishedByAccount.get(accountId);
      while (finished !== undefined && finished.size > this.#attemptHistory) this.#forgetAttempt(finished.values().next().value!);
    }
    this.#touchedAccounts.clear();
    this.#touchedEvents.clear();
    this.#touchedFinished.clear();
  }

  /** Inserts or replaces an attempt; one for an event no longer kept is dropped. */
  putDelivery(delivery: DeliveryRecord): void {
    const key = deliveryKey(delivery);
    if (!this.#events.has(delivery.event)) {
      // Not kept, so not kept as a row either.
      this.onPruned?.({ kind: 'delivery', key });
      return;
    }
    this.#deliveries.set(key, delivery);
    let ofAccount = this.#deliveriesByAccount.get(delivery.accountId);
    if (!ofAccount) this.#deliveriesByAccount.set(delivery.accountId, (ofAccount = new Map()));
    ofAccount.set(key, delivery);
    let keys = this.#deliveryKeysByEvent.get(delivery.event);
    if (!keys) this.#deliveryKeysByEvent.set(delivery.event, (keys = new Set()));
    keys.add(key);
    this.#touchedEvents.add(delivery.event);
    let finished = this.#finishedByAccount.get(delivery.accountId);
    if (delivery.status === 'pending') {
      finished?.delete(key);
    } else if (!finished?.has(key)) {
      if (!finished) this.#finishedByAccount.set(delivery.accountId, (finished = new Set()));
      finished.add(key);
      this.#touchedFinished.add(delivery.accountId);
    }
  }

  /** Forgets the account's events and delivery attempts (pending ones too: a reset cancels them), and with `endpoints` its endpoints. */
  deleteAccount(accountId: string, endpoints: boolean): void {
    for (const event of [...(this.#eventsByAccount.get(accountId)?.values() ?? []), ...this.#retained.values()]) {
      if (event.accountId === accountId) this.#drop(event);
    }
    this.#eventsByAccount.delete(accountId);
    this.#deliveriesByAccount.delete(accountId);
    this.#finishedByAccount.delete(accountId);
    this.#touchedAccounts.delete(accountId);
    this.#touchedFinished.delete(accountId);
    if (endpoints) for (const endpoint of this.endpointsOf(accountId)) this.#endpoints.delete(endpoint.id);
  }

  putEndpoint(endpoint: EndpointRecord): void {
    this.#endpoints.set(endpoint.id, endpoint);
  }

  deleteEndpoint(id: string): void {
    this.#endpoints.delete(id);
  }

  /** Every event, oldest first per account, those kept for their attempts first (for a snapshot). */
  allEvents(): EventRecord[] {
    return [...this.#retained.values(), ...Array.from(this.#eventsByAccount.values()).flatMap((events) => Array.from(events.values()))];
  }

  /** Every attempt, in the order first written per account (for a snapshot). */
  allDeliveries(): DeliveryRecord[] {
    return Array.from(this.#deliveriesByAccount.values()).flatMap((deliveries) => Array.from(deliveries.values()));
  }

  /** Every endpoint (for a snapshot). */
  allEndpoints(): EndpointRecord[] {
    return Array.from(this.#endpoints.values());
  }

  #evict(ofAccount: Map<string, EventRecord>, eventId: string): void {
    const event = ofAccount.get(eventId)!;
    ofAccount.delete(eventId);
    if (this.#hasPending(eventId)) this.#retained.set(eventId, event);
    else this.#prune(event);
  }

  /** Lets go of an event past the bound, with its attempts, and says so. */
  #prune(event: EventRecord): void {
    const listener = this.onPruned;
    if (listener) {
      listener({ kind: 'event', key: event.id });
      for (const key of this.#deliveryKeysByEvent.get(event.id) ?? []) listener({ kind: 'delivery', key });
    }
    this.#drop(event);
  }

  #hasPending(eventId: string): boolean {
    for (const key of this.#deliveryKeysByEvent.get(eventId) ?? []) {
      if (this.#deliveries.get(key)?.status === 'pending') return true;
    }
    return false;
  }

  /** Forgets the event and its attempts. */
  #drop(event: EventRecord): void {
    const eventId = event.id;
    this.#retained.delete(eventId);
    this.#events.delete(eventId);
    const deliveriesOfAccount = this.#deliveriesByAccount.get(event.accountId);
    const finishedOfAccount = this.#finishedByAccount.get(event.accountId);
    for (const key of this.#deliveryKeysByEvent.get(eventId) ?? []) {
      this.#deliveries.delete(key);
      deliveriesOfAccount?.delete(key);
      finishedOfAccount?.delete(key);
    }
    this.#deliveryKeysByEvent.delete(eventId);
  }

  /** Forgets one finished attempt (its event stays). */
  #forgetAttempt(key: string): void {
    this.onPruned?.({ kind: 'delivery', key });
    const delivery = this.#deliveries.get(key)!;
    this.#deliveries.delete(key);
    this.#deliveriesByAccount.get(delivery.accountId)?.delete(key);
    this.#finishedByAccount.get(delivery.accountId)?.delete(key);
    const ofEvent = this.#deliveryKeysByEvent.get(delivery.event);
    ofEvent?.delete(key);
    if (ofEvent?.size === 0) this.#deliveryKeysByEvent.delete(delivery.event);
  }
}
