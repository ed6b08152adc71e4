/**
 * A token bucket: `perSecond` units a second, at most one second's worth saved up. The relay's
 * budgets (bytes sent, matching work) are made of these, one per connection, per remote address
 * and for the relay as a whole, so what one client can make the relay do in a second is bounded
 * whatever it sends, and so is what all of them can.
 */

/** One budget that refills continuously. */
export class RateBudget {
  readonly #perSecond: number;
  readonly #now: () => number;
  #tokens: number;
  #at: number;

  /** `now` in milliseconds (`performance.now` by default). */
  constructor(perSecond: number, now: () => number = () => performance.now()) {
    this.#perSecond = perSecond;
    this.#now = now;
    this.#tokens = perSecond;
    this.#at = now();
  }

  /** Units available now (negative after a `charge` beyond them). */
  available(): number {
    const now = this.#now();
    this.#tokens = Math.min(this.#perSecond, this.#tokens + ((now - this.#at) * this.#perSecond) / 1000);
    this.#at = now;
    return this.#tokens;
  }

  /** Whether `amount` units are available now. */
  has(amount: number): boolean {
    return this.available() >= amount;
  }

  /** Uses `amount` units, even beyond what is available (the debt is paid back first). */
  charge(amount: number): void {
    this.available();
    this.#tokens -= amount;
  }

  /** True when a second's worth is saved up: nothing is owed, the budget can be forgotten. */
  get full(): boolean {
    return this.available() >= this.#perSecond;
  }
}

/** The two budgets of one party (a connection, an address, the relay): bytes sent and matching work. */
export class PartyBudgets {
  readonly bytesOut: RateBudget;
  readonly matchWork: RateBudget;

  constructor(bytesOutPerSecond: number, matchWorkPerSecond: number) {
    this.bytesOut = new RateBudget(bytesOutPerSecond);
    this.matchWork = new RateBudget(matchWorkPerSecond);
  }
}
