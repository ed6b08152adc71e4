/**
 * The bound on what the outbox owes. A pending delivery is never dropped, so a receiver that never
 * answers 2xx would make them pile up for as long as events come; instead each account has at most
 * MAX_PENDING_DELIVERIES_PER_ACCOUNT pending, and a new delivery past that is recorded `failed` at
 * once, never attempted, with an error that says why (it is listed, and its event can be
 * redelivered once the backlog drains). Retries replace the attempt they follow, so they never
 * count twice. Counted from the writes the engine makes, after one pass over the store's pending
 * attempts when first needed (what a data file brought). Browser-safe.
 */
import type { EventStoreReads } from '../store/sandbox-store.js';
import { deliveryKey, type DeliveryRecord } from '../store/webhook-records.js';

/**
 * Pending deliveries one account may have: room for a load test's burst (attempts give way to a
 * busy API, so 3,000 creates a second for 6 s leave 18,000 waiting), and a ceiling on what they
 * hold (about 1.6 KB each with the event kept for them: some 80 MB).
 */
export const MAX_PENDING_DELIVERIES_PER_ACCOUNT = 50_000;

/** Counts pending attempts per account, and admits new deliveries within the bound. */
export class PendingDeliveries {
  readonly #store: Pick<EventStoreReads, 'pendingDeliveries' | 'getDelivery'>;
  readonly #limit: number;
  /** Keys of the pending attempts, per account; built from the store when first needed. */
  #byAccount: Map<string, Set<string>> | undefined;

  constructor(store: Pick<EventStoreReads, 'pendingDeliveries' | 'getDelivery'>, limit = MAX_PENDING_DELIVERIES_PER_ACCOUNT) {
    this.#store = store;
    this.#limit = limit;
  }

  /** The account's pending attempts. */
  count(accountId: string): number {
    return this.#keys().get(accountId)?.size ?? 0;
  }

  /**
   * `deliveries` about to be written, with each new pending one past the bound turned `failed`
   * (not attempted) at `nowMs`; those already pending (a held one released) pass as they are.
   */
  admit(deliveries: DeliveryRecord[], nowMs: number): DeliveryRecord[] {
    const added = new Map<string, number>();
    return deliveries.map((delivery) => {
      const { accountId } = delivery;
      const keys = this.#keys().get(accountId);
      if (delivery.status !== 'pending' || keys?.has(deliveryKey(delivery))) return delivery;
      const count = (keys?.size ?? 0) + (added.get(accountId) ?? 0);
      if (count < this.#limit) {
        added.set(accountId, (added.get(accountId) ?? 0) + 1);
        return delivery;
      }
      const { heldFor: _held, ...rest } = delivery;
      const error = `not attempted: ${this.#limit.toLocaleString('en')} deliveries of this account are pending already (the most the sandbox keeps); redeliver the event once they have gone`;
      return { ...rest, status: 'failed', error, attemptedAt: new Date(nowMs).toISOString(), durationMs: 0 };
    });
  }

  /** Takes note of attempts just written (call it right after the commit that holds them: reads see a commit at once). */
  note(deliveries: Iterable<DeliveryRecord>): void {
    const byAccount = this.#keys();
    for (const written of deliveries) {
      const key = deliveryKey(written);
      // As stored: a store drops an attempt whose event it no longer keeps.
      const pending = this.#store.getDelivery(written.id, written.attempt)?.status === 'pending';
      let keys = byAccount.get(written.accountId);
      if (pending) {
        if (!keys) byAccount.set(written.accountId, (keys = new Set()));
        keys.add(key);
      } else {
        keys?.delete(key);
      }
    }
  }

  /** Forgets the account's count, once its attempts are erased (a reset, a deletion). */
  forget(accountId: string): void {
    this.#byAccount?.delete(accountId);
  }

  #keys(): Map<string, Set<string>> {
    if (this.#byAccount === undefined) {
      this.#byAccount = new Map();
      for (const delivery of this.#store.pendingDeliveries()) {
        let keys = this.#byAccount.get(delivery.accountId);
        if (!keys) this.#byAccount.set(delivery.accountId, (keys = new Set()));
        keys.add(deliveryKey(delivery));
      }
    }
    return this.#byAccount;
  }
}
