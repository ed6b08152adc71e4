/**
 * Everything the sandbox keeps for one account, erased as a whole: by a reset
 * (`POST /sandbox/v1/reset`), or with the account itself (`DELETE /sandbox/v1/accounts/{id}`).
 * Every part the engine keeps per account is listed here, so that neither can forget one; a new
 * per-account part (the request journal, test wallets: CONTRACT.md has a reset delete them) joins
 * `#eraseParts` when it exists.
 */
import type { RuleBook } from '../payments/rules.js';
import type { AccountClocks, SandboxStore } from '../ports.js';

/** What a reset erases: the account's activity (default), or also its set-up (`all`). */
export type ResetScope = 'activity' | 'all';

/** What erasing needs. */
export interface AccountDataDeps {
  store: SandboxStore;
  /** The clocks whose moves run what falls due (the event machinery's). */
  clocks: AccountClocks;
  rules: RuleBook;
  /** Drops what is scheduled for the account (expiries, outcomes, delivery attempts). */
  forgetDue(accountId: string): void;
}

/** Resets accounts and erases deleted ones. */
export class AccountData {
  readonly #deps: AccountDataDeps;

  constructor(deps: AccountDataDeps) {
    this.#deps = deps;
  }

  /**
   * Deletes the account's payment requests, events and deliveries (pending ones are cancelled:
   * nothing scheduled of them runs afterwards) and sets its clock back to real time. Webhook
   * endpoints and the account's rules stay, unless `scope` is `all`. Resolves once durable.
   */
  async reset(accountId: string, scope: ResetScope): Promise<void> {
    const all = scope === 'all';
    // One write, made (and visible) before anything else runs: no expiry or attempt of the old
    // data can slip in between.
    const erased = this.#deps.store.commit({ clearedAccounts: [{ accountId, endpoints: all }] });
    this.#eraseParts(accountId, all);
    await erased;
    await this.#deps.clocks.reset(accountId);
  }

  /** Erases everything of a deleted account: requests, events, deliveries, endpoints, clock, rules and its stored record. */
  async remove(accountId: string): Promise<void> {
    const erased = this.#deps.store.commit({ deletedAccounts: [accountId] });
    this.#eraseParts(accountId, true);
    await erased;
  }

  /** What lives outside the store: the schedule, and (with the set-up) the account's rules. */
  #eraseParts(accountId: string, setUp: boolean): void {
    this.#deps.forgetDue(accountId);
    if (setUp) this.#deps.rules.setAccountRules(accountId, []);
    // The request journal and test wallets are erased here when they exist (CONTRACT.md: a reset
    // deletes them, both scopes); API faults go with the set-up (`all`), as rules do.
  }
}
