/**
 * What running a due item means. A payment request's change (its expiry or a rule's outcome) is
 * recorded through the change log, with its event and deliveries; a delivery attempt goes to the
 * dispatcher's queue. Each first checks the item is still due: the scheduler never cancels one.
 */
import type { ChangeLog } from './change-log.js';
import { asOf } from '../payments/state-machine.js';
import type { AccountClocks } from '../ports.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import type { DeliveryDispatcher } from '../webhooks/delivery-dispatcher.js';
import type { DueSchedule } from '../due/due-schedule.js';
import type { DueItem, DueItemRunner } from '../due/scheduler.js';

/** What the runner needs: all of it built over the scheduler, before the runner. */
export interface DueRunnerDeps {
  store: Pick<SandboxStore, 'getDelivery' | 'getPaymentRequest'>;
  clocks: Pick<AccountClocks, 'now'>;
  changes: Pick<ChangeLog, 'save'>;
  deliveries: Pick<DeliveryDispatcher, 'enqueue'>;
  due: Pick<DueSchedule, 'scheduleNextChanges'>;
}

/** Runs what has fallen due. */
export class DueRunner implements DueItemRunner {
  readonly #deps: DueRunnerDeps;

  constructor(deps: DueRunnerDeps) {
    this.#deps = deps;
  }

  /** Records the request's change, or queues the delivery attempt; nothing for an item no longer due. */
  run(accountId: string, item: DueItem): Promise<void> | void {
    const { store, clocks, changes, deliveries, due } = this.#deps;
    if (item.kind === 'delivery') {
      const delivery = store.getDelivery(item.id, item.attempt);
      if (delivery?.status === 'pending' && delivery.scheduledAt !== null) deliveries.enqueue(delivery);
      return;
    }
    const stored = store.getPaymentRequest(item.id);
    if (stored === undefined || stored.status !== 'pending') return;
    const current = asOf(stored, clocks.now(accountId));
    // Not yet: a clock moved back (reset) since this was scheduled.
    if (current === stored) return due.scheduleNextChanges([stored]);
    return changes.save(current, stored);
  }
}
