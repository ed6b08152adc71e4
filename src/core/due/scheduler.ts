/**
 * The mechanism under "due" (due-schedule.ts says what falls due, and when): a min-heap of due
 * items per account and one timer for the earliest of them on a running clock; advancing or
 * setting a clock runs what has fallen due at once, in time order; a frozen clock runs nothing.
 * Items are not cancelled: whoever runs one first checks that it is still due (lazy deletion), so
 * a request completed by hand simply finds its expiry entry stale.
 */
import type { AccountClocks, Timers, WallClock } from '../ports.js';
import { MinHeap } from './min-heap.js';

/** Something due on an account's clock. */
export type DueItem = { kind: 'paymentRequest'; id: string } | { kind: 'delivery'; id: string; attempt: number };

/** An item and its due moment on its account's clock. */
export interface DueEntry {
  accountId: string;
  dueMs: number;
  item: DueItem;
}

interface Entry {
  dueMs: number;
  /** Ties run in the order they were added. */
  order: number;
  item: DueItem;
}

/** Runs due items for the scheduler. */
export interface DueItemRunner {
  /**
   * Runs one due item. It must make its change visible before returning (the next item may depend
   * on it); the promise, if any, resolves once that change is durable.
   */
  run(accountId: string, item: DueItem): Promise<void> | void;
}

/** What the scheduler needs. */
export interface SchedulerOptions {
  clocks: Pick<AccountClocks, 'now' | 'isFrozen'>;
  wall: WallClock;
  timers: Timers;
  /** Sees failures of a run (bugs, or a store that refuses writes). */
  onError(error: unknown): void;
}

/** setTimeout's longest delay; a later moment is re-armed when the timer fires. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** The per-process scheduler of due items. */
export class Scheduler {
  readonly #options: SchedulerOptions;
  #runner: DueItemRunner | undefined = undefined;
  readonly #queues = new Map<string, MinHeap<Entry>>();
  #order = 0;
  #timer: unknown = undefined;
  #timerAtMs = Infinity;
  #soon = false;
  #closed = false;

  constructor(options: SchedulerOptions) {
    this.#options = options;
  }

  /**
   * Runs what falls due from now on with `runner`; until then items are only kept. Running an
   * item schedules more (an expiry's deliveries, a failed attempt's retry), so the runner is built
   * over this scheduler, and handed to it here once it exists.
   */
  start(runner: DueItemRunner): void {
    this.#runner = runner;
    if (this.hasDue()) this.#runSoon();
    this.#arm();
  }

  /** Schedules `item` at `dueMs` on the account's clock; runs it shortly if that moment has come. */
  add(accountId: string, dueMs: number, item: DueItem): void {
    if (this.#closed) return;
    this.#queueOf(accountId).push({ dueMs, order: (this.#order += 1), item });
    if (dueMs <= this.#options.clocks.now(accountId)) this.#runSoon();
    else this.#arm();
  }

  /** Schedules many items at once (what a store holds at start): one heap build and one timer. */
  addMany(items: Iterable<DueEntry>): void {
    if (this.#closed) return;
    const byAccount = new Map<string, Entry[]>();
    for (const { accountId, dueMs, item } of items) {
      let entries = byAccount.get(accountId);
      if (!entries) byAccount.set(accountId, (entries = []));
      entries.push({ dueMs, order: (this.#order += 1), item });
    }
    for (const [accountId, entries] of byAccount) this.#queueOf(accountId).pushAll(entries);
    if (this.hasDue()) this.#runSoon();
    this.#arm();
  }

  /**
   * Runs everything due on the account's clock, in time order; resolves once their changes are
   * durable. Called whenever a clock is moved, and by the timer.
   */
  async runDue(accountId: string): Promise<void> {
    const queue = this.#queues.get(accountId);
    const runner = this.#runner;
    const writes: Array<Promise<void>> = [];
    if (queue && runner && !this.#closed) {
      const now = this.#options.clocks.now(accountId);
      for (let next = queue.peek(); next !== undefined && next.dueMs <= now; next = queue.peek()) {
        queue.pop();
        try {
          const write = runner.run(accountId, next.item);
          if (write) writes.push(write.catch(this.#options.onError));
        } catch (error) {
          this.#options.onError(error);
        }
      }
    }
    this.#arm();
    await Promise.all(writes);
  }

  /** Drops everything scheduled for the account (its data was erased: a reset, a deletion); nothing of it runs after this. */
  forget(accountId: string): void {
    if (!this.#queues.delete(accountId)) return;
    this.#arm();
  }

  /** Runs what is due on every account's clock. */
  runAllDue(): Promise<void> {
    return this.#runAll();
  }

  /** Whether any item is due now on its account's clock. */
  hasDue(): boolean {
    for (const [accountId, queue] of this.#queues) {
      const next = queue.peek();
      if (next !== undefined && next.dueMs <= this.#options.clocks.now(accountId)) return true;
    }
    return false;
  }

  /** Stops the timer; nothing runs after this. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) this.#options.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Not started yet, or closed: items are kept, nothing runs. */
  #idle(): boolean {
    return this.#runner === undefined || this.#closed;
  }

  #queueOf(accountId: string): MinHeap<Entry> {
    let queue = this.#queues.get(accountId);
    if (!queue) this.#queues.set(accountId, (queue = new MinHeap((a, b) => a.dueMs < b.dueMs || (a.dueMs === b.dueMs && a.order < b.order))));
    return queue;
  }

  #runAll(): Promise<void> {
    if (this.#idle()) return Promise.resolve();
    return Promise.all(Array.from(this.#queues.keys(), (accountId) => this.runDue(accountId))).then(() => {});
  }

  /** Runs due items after the current work (an API answer is never held up by them). */
  #runSoon(): void {
    if (this.#soon || this.#idle()) return;
    this.#soon = true;
    this.#options.timers.setTimeout(() => {
      this.#soon = false;
      void this.#runAll();
    }, 0);
  }

  /** Sets the one timer for the earliest item on a running clock, in wall time. */
  #arm(): void {
    if (this.#idle()) return;
    const { clocks, wall, timers } = this.#options;
    const wallNow = wall.now();
    let earliest = Infinity;
    for (const [accountId, queue] of this.#queues) {
      const next = queue.peek();
      if (next === undefined || clocks.isFrozen(accountId)) continue;
      // A running clock is wall time plus a fixed offset, so its due moment maps to one wall moment.
      earliest = Math.min(earliest, next.dueMs - (clocks.now(accountId) - wallNow));
    }
    if (earliest === this.#timerAtMs) return;
    if (this.#timer !== undefined) timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAtMs = earliest;
    if (earliest === Infinity) return;
    this.#timer = timers.setTimeout(() => {
      this.#timer = undefined;
      this.#timerAtMs = Infinity;
      void this.#runAll();
    }, Math.min(Math.max(0, earliest - wallNow), LONGEST_TIMER_MS));
  }
}
