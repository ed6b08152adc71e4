/**
 * The wallet side of the in-memory index: test wallets by id and by account, and the
 * transactions of every sandbox-run wallet by id, by wallet and (incoming invoices) by payment
 * hash, which is how a payment finds the wallet it pays. Transactions are bounded per wallet
 * (`KEPT_TRANSACTIONS_PER_WALLET`): past it the oldest go, whatever their state. Browser-safe.
 */
import type { WalletStoreReads } from '../core/store/sandbox-store.js';
import { KEPT_TRANSACTIONS_PER_WALLET } from '../core/wallets/wallet-limits.js';
import type { WalletRecord, WalletTransactionRecord } from '../core/store/wallet-records.js';
import type { PruneListener } from './event-index.js';

/** Maps of wallets and transactions, kept consistent with each other on every change. */
export class WalletIndex implements WalletStoreReads {
  readonly #wallets = new Map<string, WalletRecord>();
  readonly #transactions = new Map<string, WalletTransactionRecord>();
  /** Per wallet, in the order transactions were first written (Map keeps insertion order). */
  readonly #byWallet = new Map<string, Map<string, WalletTransactionRecord>>();
  readonly #incomingByHash = new Map<string, WalletTransactionRecord>();
  /** Hears what the bound lets go (set by StoreIndex.onPruned). */
  onPruned: PruneListener | undefined;

  getWallet(id: string): WalletRecord | undefined {
    return this.#wallets.get(id);
  }

  walletsOf(accountId: string): WalletRecord[] {
    return Array.from(this.#wallets.values()).filter((wallet) => wallet.accountId === accountId);
  }

  walletTransactionsOf(walletId: string): WalletTransactionRecord[] {
    return Array.from(this.#byWallet.get(walletId)?.values() ?? []).reverse();
  }

  findWalletInvoice(paymentHash: string): WalletTransactionRecord | undefined {
    return this.#incomingByHash.get(paymentHash);
  }

  /** Whether the transaction with this id is kept. */
  hasTransaction(id: string): boolean {
    return this.#transactions.has(id);
  }

  putWallet(wallet: WalletRecord): void {
    this.#wallets.set(wallet.id, wallet);
  }

  deleteWallet(id: string): void {
    this.#wallets.delete(id);
    this.#dropTransactionsOf(id);
  }

  putTransaction(transaction: WalletTransactionRecord): void {
    this.#transactions.set(transaction.id, transaction);
    let ofWallet = this.#byWallet.get(transaction.walletId);
    if (!ofWallet) this.#byWallet.set(transaction.walletId, (ofWallet = new Map()));
    ofWallet.set(transaction.id, transaction);
    if (transaction.type === 'incoming') this.#incomingByHash.set(transaction.paymentHash, transaction);
    if (ofWallet.size > KEPT_TRANSACTIONS_PER_WALLET) {
      const oldest = ofWallet.values().next().value!;
      this.onPruned?.({ kind: 'walletTransaction', key: oldest.id });
      this.#drop(oldest);
      ofWallet.delete(oldest.id);
    }
  }

  /** Forgets the account's test wallets and the transactions of every wallet of it. */
  deleteAccount(accountId: string): void {
    for (const wallet of this.walletsOf(accountId)) this.#wallets.delete(wallet.id);
    for (const [walletId, ofWallet] of this.#byWallet) {
      const first = ofWallet.values().next().value;
      if (first?.accountId === accountId) this.#dropTransactionsOf(walletId);
    }
  }

  /** Every wallet, in insertion order; a new array. */
  allWallets(): WalletRecord[] {
    return Array.from(this.#wallets.values());
  }

  /** Every transaction, in insertion order; a new array. */
  allTransactions(): WalletTransactionRecord[] {
    return Array.from(this.#transactions.values());
  }

  #dropTransactionsOf(walletId: string): void {
    for (const transaction of this.#byWallet.get(walletId)?.values() ?? []) this.#drop(transaction);
    this.#byWallet.delete(walletId);
  }

  #drop(transaction: WalletTransactionRecord): void {
    this.#transactions.delete(transaction.id);
    if (this.#incomingByHash.get(transaction.paymentHash) === transaction) this.#incomingByHash.delete(transaction.paymentHash);
  }
}
