/**
 * Everything the sandbox keeps for one account, erased as a whole: by a reset
 * (`POST /sandbox/v1/reset`), or with the account itself (`DELETE /sandbox/v1/accounts/{id}`).
 * Every part the engine keeps per account is listed here, so that neither can forget one. What
 * the store holds (requests, events, deliveries, test wallets and wallet transactions) goes with
 * the store's clearing; what lives outside it (the schedule, the request journal, rules and
 * faults) is erased in `#eraseParts`.
 */
import type { RuleBook } from './payments/rules.js';
import type { AccountClocks } from './ports.js';
import type { SandboxStore } from './store/sandbox-store.js';
import type { TestWallets } from './wallets/test-wallets.js';
import type { ApiFaultBook } from './resilience/api-faults.js';
import type { RequestJournal } from './resilience/request-journal.js';
import type { WalletFaultBook } from './wallets/wallet-faults.js';
import type { WalletRecord } from './store/wallet-records.js';

/** What a reset erases: the account's activity (default), or also its set-up (`all`). */
export type ResetScope = 'activity' | 'all';

/** What erasing needs. */
export interface AccountDataDeps {
  store: SandboxStore;
  /** The clocks whose moves run what falls due (the event machinery's). */
  clocks: AccountClocks;
  rules: RuleBook;
  /** Faults of the sandbox-run connected wallets, set-up like rules. */
  walletFaults: WalletFaultBook;
  /** Told of the test wallets a reset or deletion erased, so their connections stop answering. */
  testWallets: Pick<TestWallets, 'erased'>;
  /** API faults: set-up, like rules. */
  apiFaults: Pick<ApiFaultBook, 'clear'>;
  /** The request journal: activity, erased by every reset. */
  journal: Pick<RequestJournal, 'clear'>;
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
    const wallets = this.#deps.store.walletsOf(accountId);
    // One write, made (and visible) before anything else runs: no expiry or attempt of the old
    // data can slip in between.
    const erased = this.#deps.store.commit({ clearedAccounts: [{ accountId, endpoints: all }] });
    this.#eraseParts(accountId, all, wallets);
    await erased;
    await this.#deps.clocks.reset(accountId);
  }

  /** Erases everything of a deleted account: requests, events, deliveries, endpoints, clock, rules and its stored record. */
  async remove(accountId: string): Promise<void> {
    const wallets = this.#deps.store.walletsOf(accountId);
    const erased = this.#deps.store.commit({ deletedAccounts: [accountId] });
    this.#eraseParts(accountId, true, wallets);
    await erased;
  }

  /** What lives outside the store: the schedule, and (with the set-up) the account's rules. */
  #eraseParts(accountId: string, setUp: boolean, wallets: WalletRecord[]): void {
    this.#deps.forgetDue(accountId);
    this.#deps.testWallets.erased(wallets);
    this.#deps.journal.clear(accountId);
    if (setUp) {
      this.#deps.rules.setAccountRules(accountId, []);
      this.#deps.walletFaults.set(accountId, {});
      this.#deps.apiFaults.clear(accountId);
    }
    // API faults and wallet faults go with the set-up (`all`), as rules do.
  }
}
