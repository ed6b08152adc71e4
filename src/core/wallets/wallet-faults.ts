/**
 * Faults of an NWC account's sandbox-run connected wallet (`PUT /sandbox/v1/wallet/faults`), to see
 * how the service and a merchant's code cope with a wallet that misbehaves: offline (requests go
 * unanswered: creates get 502 `wallet_unavailable` after the NWC timeout), notifications dropped,
 * duplicated or delayed. Each notification's fate is decided from its event id (a payment hash
 * where no event is made: in-process), so a run repeats. Kept in memory; a reset of scope `all`
 * clears them, as it does rules.
 */
import { eventFraction } from '../webhooks/fault-decisions.js';

/** The faults of one account's wallet; absent fields are off. */
export interface WalletFaults {
  offline?: boolean;
  /** Probability in [0, 1] that a notification is not sent. */
  dropNotifications?: number;
  /** Probability in [0, 1] that a notification is sent twice. */
  duplicateNotifications?: number;
  /** Seconds every notification waits before it is sent (real time). */
  delaySeconds?: number;
}

/** What becomes of one notification. */
export interface NotificationFate {
  /** 0 (dropped), 1 or 2 copies. */
  copies: 0 | 1 | 2;
  delayMs: number;
}

/** The wallet faults of every account. */
export class WalletFaultBook {
  readonly #faults = new Map<string, WalletFaults>();

  /** The account's faults (an empty object when none). */
  of(accountId: string): WalletFaults {
    return this.#faults.get(accountId) ?? {};
  }

  /** Replaces the account's faults. */
  set(accountId: string, faults: WalletFaults): void {
    if (Object.keys(faults).length === 0) this.#faults.delete(accountId);
    else this.#faults.set(accountId, { ...faults });
  }

  /** Whether the account's wallet answers requests. */
  isOnline(accountId: string): boolean {
    return this.#faults.get(accountId)?.offline !== true;
  }

  /** What becomes of the notification `id` (an event id, or a payment hash in-process) of the account's wallet. */
  fateOf(accountId: string, id: string): NotificationFate {
    const faults = this.#faults.get(accountId);
    if (faults === undefined) return { copies: 1, delayMs: 0 };
    const delayMs = (faults.delaySeconds ?? 0) * 1000;
    if ((faults.dropNotifications ?? 0) > 0 && eventFraction(id, 'wallet-drop') < faults.dropNotifications!) return { copies: 0, delayMs };
    const twice = (faults.duplicateNotifications ?? 0) > 0 && eventFraction(id, 'wallet-duplicate') < faults.duplicateNotifications!;
    return { copies: twice ? 2 : 1, delayMs };
  }
}
