/**
 * The event side of the engine assembled: what falls due (scheduler, due schedule, runner), change
 * log, dispatcher, endpoints and log, and the account clocks wrapped so that every move of a
 * clock runs what it made due. Running a due item schedules more, so the parts are built in the
 * order they need each other: the scheduler (it only keeps items), the due schedule over it, the
 * parts that write due things over that, and last the runner over those, which starts the scheduler.
 */
import { DueRunner } from './due-runner.js';
import { DueSchedule } from '../due/due-schedule.js';
import { platformTimers } from '../due/platform-timers.js';
import { Scheduler } from '../due/scheduler.js';
import type { PaymentRequestRecord } from '../store/payment-request.js';
import type { AccountClocks, RandomSource, Timers, WallClock } from '../ports.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import type { WebhookSender } from '../webhooks/webhook-sender.js';
import { DeliveryDispatcher } from '../webhooks/delivery-dispatcher.js';
import type { WebhookAddressPolicy } from '../settings.js';
import { PendingDeliveries } from '../webhooks/pending-deliveries.js';
import { WebhookEndpoints } from '../webhooks/webhook-endpoints.js';
import { ChangeLog } from './change-log.js';
import { EventLog } from './event-log.js';
import { Listeners } from '../listeners.js';

/** What the event machinery needs. */
export interface EventMachineryOptions {
  store: SandboxStore;
  clocks: AccountClocks;
  wall: WallClock;
  random: RandomSource;
  sender: WebhookSender;
  /** Where deliveries may go (the `webhookAllowedHosts` setting). */
  allowedHosts: WebhookAddressPolicy;
  timers?: Timers;
  /** How busy the API is; delivery attempts give way while it is. */
  apiLoad?: { readonly busy: boolean };
  onError(error: unknown): void;
}

/** The assembled parts. */
export interface EventMachinery {
  /** The account clocks; moving one runs what it made due before the move resolves. */
  clocks: AccountClocks;
  changeLog: ChangeLog;
  dispatcher: DeliveryDispatcher;
  endpoints: WebhookEndpoints;
  log: EventLog;
  /** Calls `listener` with the account of every clock move (advance, freeze, unfreeze, set, reset); returns the function that stops it. */
  onClockMove(listener: (accountId: string) => void): () => void;
  /** Schedules the next change of records written without the change log (fixtures, a start). */
  track(records: Iterable<PaymentRequestRecord>): void;
  /**
   * Schedules what the account's records, just loaded into the store, have due: its pending
   * requests' next changes and its pending delivery attempts (a replica taking the account over).
   */
  adopt(accountId: string): void;
  /**
   * Drops what was due for the account, once its requests and deliveries are erased (a reset, a
   * deletion): no expiry, outcome or attempt of them runs afterwards. An attempt already on the
   * wire finishes; its outcome, for an event no longer kept, is not recorded.
   */
  forget(accountId: string): void;
  /**
   * Resolves once nothing is due and no attempt is queued or in flight: what the clocks have made
   * due has run, and every delivery it called for has been tried (for tests and scripts).
   */
  settle(): Promise<void>;
  /** Stops the timer and aborts attempts in flight (they stay pending for the next start). */
  close(): void;
}

/** Builds the event machinery over the store, and schedules what the store already holds. */
export function createEventMachinery(options: EventMachineryOptions): EventMachinery {
  const { store, wall, random, sender, onError } = options;
  const rawClocks = options.clocks;
  const timers = options.timers ?? platformTimers;
  const scheduler = new Scheduler({ clocks: rawClocks, wall, timers, onError });
  const due = new DueSchedule(scheduler);
  const pending = new PendingDeliveries(store);
  const changeLog = new ChangeLog({ store, clocks: rawClocks, random, due, pending, onError });
  const dispatcher = new DeliveryDispatcher({
    store,
    clocks: rawClocks,
    wall,
    sender,
    due,
    timers,
    pending,
    addressPolicy: options.allowedHosts,
    onError,
    ...(options.apiLoad ? { apiLoad: options.apiLoad } : {}),
  });
  const endpoints = new WebhookEndpoints({ store, clocks: rawClocks, random, pending, addressPolicy: options.allowedHosts });
  const log = new EventLog({ store, clocks: rawClocks, random, due, pending });
  scheduler.start(new DueRunner({ store, clocks: rawClocks, changes: changeLog, deliveries: dispatcher, due }));

  // What a previous run left, pending requests and the outbox, is scheduled just after start:
  // at 100,000 records that is ~0.1 s a server need not spend before it answers. Anything
  // already due then runs at once, so nothing is lost by the wait.
  timers.setTimeout(() => {
    due.scheduleNextChanges(store.pendingPaymentRequests());
    due.scheduleDeliveries(store.pendingDeliveries());
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
    changeLog,
    dispatcher,
    endpoints,
    log,
    onClockMove: (listener) => clockMoves.add(listener),
    track: (records) => due.scheduleNextChanges(records),
    adopt(accountId) {
      due.scheduleNextChanges(store.paymentRequestsOf(accountId).filter((record) => record.status === 'pending'));
      const attempts = store.deliveriesOf(accountId).filter((delivery) => delivery.status === 'pending');
      pending.note(attempts);
      due.scheduleDeliveries(attempts);
    },
    forget(accountId) {
      scheduler.forget(accountId);
      pending.forget(accountId);
    },
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
