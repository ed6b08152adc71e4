/**
 * The event side of the engine assembled: scheduler, change log, dispatcher, endpoints and log,
 * and the account clocks wrapped so that every move of a clock runs what it made due.
 */
import { asOf, nextChangeAtMs } from '../payments/state-machine.js';
import type { PaymentRequestRecord } from '../payments/payment-request.js';
import type { AccountClocks, RandomSource, SandboxStore, Timers, WallClock, WebhookSender } from '../ports.js';
import { ChangeLog, scheduleDelivery } from './change-log.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import { EventLog } from './event-log.js';
import { Listeners } from './listeners.js';
import { platformTimers } from './platform-timers.js';
import type { DueItem } from './scheduler.js';
import { Scheduler } from './scheduler.js';
import { WebhookEndpoints, type WebhookHostPolicy } from './webhook-endpoints.js';

/** What the event machinery needs. */
export interface EventMachineryOptions {
  store: SandboxStore;
  clocks: AccountClocks;
  wall: WallClock;
  random: RandomSource;
  sender: WebhookSender;
  allowedHosts: WebhookHostPolicy;
  timers?: Timers;
  /** How busy the API is; delivery attempts give way while it is. */
  apiLoad?: { readonly busy: boolean };
  onError(error: unknown): void;
}

/** The assembled parts. */
export interface EventMachinery {
  /** The account clocks; moving one runs what it made due before the move resolves. */
  clocks: AccountClocks;
  scheduler: Scheduler;
  changeLog: ChangeLog;
  dispatcher: DeliveryDispatcher;
  endpoints: WebhookEndpoints;
  log: EventLog;
  /** Calls `listener` with the account of every clock move (advance, freeze, unfreeze, set, reset); returns the function that stops it. */
  onClockMove(listener: (accountId: string) => void): () => void;
  /** Schedules the next change of records written without the change log (fixtures, a start). */
  track(records: Iterable<PaymentRequestRecord>): void;
  /**
   * Resolves once nothing is due and no attempt is queued or in flight: what the clocks have made
   * due has run, and every delivery it called for has been tried (for tests and scripts).
   */
  settle(): Promise<void>;
  /** Stops the timer and aborts attempts in flight (they stay pending for the next start). */
  close(): void;
}

/** The next change of each pending record, as scheduler items. */
function* dueItemsOf(records: Iterable<PaymentRequestRecord>) {
  for (const record of records) {
    const dueMs = nextChangeAtMs(record);
    if (dueMs !== undefined) yield { accountId: record.accountId, dueMs, item: { kind: 'paymentRequest' as const, id: record.id } };
  }
}

/** Builds the event machinery over the store, and schedules what the store already holds. */
export function createEventMachinery(options: EventMachineryOptions): EventMachinery {
  const { store, wall, random, sender, onError } = options;
  const rawClocks = options.clocks;
  let changeLog: ChangeLog;
  let dispatcher: DeliveryDispatcher;
  const run = (accountId: string, item: DueItem): Promise<void> | void => {
    if (item.kind === 'delivery') {
      const delivery = store.getDelivery(item.id, item.attempt);
      if (delivery?.status === 'pending' && delivery.scheduledAt !== null) dispatcher.enqueue(delivery);
      return;
    }
    const stored = store.getPaymentRequest(item.id);
    if (stored === undefined || stored.status !== 'pending') return;
    const current = asOf(stored, rawClocks.now(accountId));
    // Not yet: a clock moved back (reset) since this was scheduled.
    if (current === stored) return track([stored]);
    return changeLog.save(current, stored);
  };
  const timers = options.timers ?? platformTimers;
  const scheduler = new Scheduler({ clocks: rawClocks, wall, timers, run, onError });
  changeLog = new ChangeLog({ store, clocks: rawClocks, random, scheduler, onError });
  dispatcher = new DeliveryDispatcher({ store, clocks: rawClocks, wall, sender, scheduler, timers, onError, ...(options.apiLoad ? { apiLoad: options.apiLoad } : {}) });
  const endpoints = new WebhookEndpoints({ store, clocks: rawClocks, random, allowedHosts: options.allowedHosts });
  const log = new EventLog({ store, clocks: rawClocks, random, scheduler });

  function track(records: Iterable<PaymentRequestRecord>): void {
    scheduler.addMany(dueItemsOf(records));
  }

  // What a previous run left, pending requests and the outbox, is scheduled just after start:
  // at 100,000 records that is ~0.1 s a server need not spend before it answers. Anything
  // already due then runs at once, so nothing is lost by the wait.
  timers.setTimeout(() => {
    track(store.pendingPaymentRequests());
    for (const delivery of store.pendingDeliveries()) scheduleDelivery(scheduler, delivery);
  }, 0);

  const clockMoves = new Listeners<[accountId: string]>(onError);
  const afterMove = async (accountId: string, move: Promise<void>): Promise<void> => {
    await move;
    await scheduler.runDue(accountId);
    clockMoves.emit(accountId);
  };
  const clocks: AccountClocks = {
    now: (accountId) => rawClocks.now(accountId),
    isFrozen: (accountId) => rawClocks.isFrozen(accountId),
    advance: (accountId, seconds) => afterMove(accountId, rawClocks.advance(accountId, seconds)),
    freeze: (accountId) => afterMove(accountId, rawClocks.freeze(accountId)),
    unfreeze: (accountId) => afterMove(accountId, rawClocks.unfreeze(accountId)),
    setTime: (accountId, epochMs) => afterMove(accountId, rawClocks.setTime(accountId, epochMs)),
    reset: (accountId) => afterMove(accountId, rawClocks.reset(accountId)),
  };

  return {
    clocks,
    scheduler,
    changeLog,
    dispatcher,
    endpoints,
    log,
    onClockMove: (listener) => clockMoves.add(listener),
    track,
    async settle() {
      do {
        await scheduler.runAllDue();
        await dispatcher.idle();
      } while (scheduler.hasDue() || dispatcher.busy > 0);
    },
    close() {
      scheduler.close();
      dispatcher.close();
    },
  };
}
