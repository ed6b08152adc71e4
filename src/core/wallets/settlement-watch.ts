/**
 * Makes up for payment notifications that never arrive: while an NWC payment request is pending,
 * its connected wallet is asked (`lookup_invoice`) every `LOOKUP_INTERVAL_MS`, and a settled
 * answer completes it as the notification would have. A real service does the same, since a
 * relay may drop any event. Only requests this process made or found pending at start are
 * watched; at most `LOOKUPS_PER_ROUND` are asked per round (oldest watched first).
 */
import type { Account } from '../accounts/accounts.js';
import type { PaymentRequestRecord } from '../store/payment-request.js';
import { asOf } from '../payments/state-machine.js';
import type { AccountClocks, ConnectedWallets, Timers } from '../ports.js';
import type { SandboxStore } from '../store/sandbox-store.js';

/** How often pending NWC requests are looked up: a dropped notification is made up for within 5 s. */
export const LOOKUP_INTERVAL_MS = 2_000;
/** Lookups per round at most, so thousands of pending requests cannot flood a wallet. */
export const LOOKUPS_PER_ROUND = 100;
/** Lookups in flight at once: a round's work is spread, not one burst that stalls every request. */
const LOOKUPS_AT_ONCE = 5;

/** What the watch needs. */
export interface SettlementWatchDeps {
  store: SandboxStore;
  clocks: AccountClocks;
  wallets: ConnectedWallets;
  timers: Timers;
  accountOf(accountId: string): Account | undefined;
  /** Completes the request the wallet says is settled. */
  settled(accountId: string, paymentHash: string, preimage: string): Promise<unknown>;
  onError(error: unknown): void;
}

/** Watches pending NWC payment requests until they end. */
export class SettlementWatch {
  readonly #deps: SettlementWatchDeps;
  /** Ids of watched requests, oldest first (a Set keeps insertion order). */
  readonly #watched = new Set<string>();
  #timer: unknown;
  #round: Promise<void> | undefined;
  #closed = false;

  constructor(deps: SettlementWatchDeps) {
    this.#deps = deps;
    for (const record of deps.store.pendingPaymentRequests()) if (record.isNwc) this.watch(record);
  }

  /** Watches `record` (a pending NWC request) until it ends. */
  watch(record: PaymentRequestRecord): void {
    if (this.#closed || !record.isNwc) return;
    this.#watched.add(record.id);
    this.#arm();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) this.#deps.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#closed || this.#watched.size === 0) return;
    this.#timer = this.#deps.timers.setTimeout(() => {
      this.#timer = undefined;
      this.#round ??= this.#lookUp().finally(() => {
        this.#round = undefined;
        this.#arm();
      });
    }, LOOKUP_INTERVAL_MS);
  }

  async #lookUp(): Promise<void> {
    const { store, clocks, wallets, accountOf, settled, onError } = this.#deps;
    const asked: Array<() => Promise<void>> = [];
    // A copy: the asked are moved to the back while this runs.
    for (const id of Array.from(this.#watched)) {
      if (asked.length >= LOOKUPS_PER_ROUND) break;
      const stored = store.getPaymentRequest(id);
      const account = stored && accountOf(stored.accountId);
      if (stored === undefined || account === undefined || asOf(stored, clocks.now(stored.accountId)).status !== 'pending') {
        this.#watched.delete(id);
        continue;
      }
      // Oldest first, and the asked go to the back: every request is asked in turn.
      this.#watched.delete(id);
      this.#watched.add(id);
      asked.push(() =>
        wallets.lookupInvoice(account, stored.paymentHash).then(
          async (found) => {
            if (found.state === 'settled' && found.preimage !== undefined) await settled(stored.accountId, stored.paymentHash, found.preimage);
          },
          () => {}, // an offline or refusing wallet: asked again next round
        ),
      );
    }
    for (let start = 0; start < asked.length && !this.#closed; start += LOOKUPS_AT_ONCE) {
      await Promise.all(asked.slice(start, start + LOOKUPS_AT_ONCE).map((ask) => ask())).catch(onError);
    }
  }
}
