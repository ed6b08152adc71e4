/**
 * The in-memory index every store reads from: payment requests by id, by payment hash and by
 * account, clocks by account, and events and webhooks (`events`). Mutations are synchronous so a store can apply a write before
 * it is durable and still answer reads from one place. Browser-safe.
 */
import type { AccountRecord } from '../core/store/account-record.js';
import type { AccountClearing, ClockState, StoreChange } from '../core/store/sandbox-store.js';
import type { PaymentRequestRecord } from '../core/store/payment-request.js';
import { EventIndex, type PrunedRecord, type PruneListener } from './event-index.js';
import { WalletIndex } from './wallet-index.js';

/** Maps of stored values, kept consistent with each other on every change. */
export class StoreIndex {
  readonly #byId = new Map<string, PaymentRequestRecord>();
  readonly #byHash = new Map<string, PaymentRequestRecord>();
  readonly #idsByAccount = new Map<string, Set<string>>();
  readonly #clocks = new Map<string, ClockState>();
  /** Accounts made through the accounts API, oldest first. */
  readonly #accounts = new Map<string, AccountRecord>();
  /** Events, webhook endpoints and delivery attempts. */
  readonly events: EventIndex;
  /** Test wallets and wallet transactions. */
  readonly wallets = new WalletIndex();

  constructor(eventHistory?: number) {
    this.events = new EventIndex(eventHistory);
  }

  /**
   * Hears every record the history bounds let go from now on (events past the kept history,
   * finished attempts past theirs, wallet transactions past theirs); not what a deletion or a
   * reset removes. A store that keeps rows deletes those too (the PostgreSQL store does).
   */
  onPruned(listener: PruneListener | undefined): void {
    this.events.onPruned = listener;
    this.wallets.onPruned = listener;
  }

  /** Applies a change whole: erasures first, then records, events, endpoints, the attempts that refer to them, accounts. */
  apply(change: StoreChange): void {
    for (const clearing of change.clearedAccounts ?? []) this.clearAccount(clearing);
    for (const accountId of change.deletedAccounts ?? []) this.removeAccount(accountId);
    for (const record of change.paymentRequests ?? []) this.put(record);
    for (const event of change.events ?? []) this.events.putEvent(event);
    for (const endpoint of change.endpoints ?? []) this.events.putEndpoint(endpoint);
    for (const id of change.deletedEndpoints ?? []) this.events.deleteEndpoint(id);
    for (const delivery of change.deliveries ?? []) this.events.putDelivery(delivery);
    for (const account of change.accounts ?? []) this.#accounts.set(account.id, account);
    for (const id of change.deletedWallets ?? []) this.wallets.deleteWallet(id);
    for (const wallet of change.wallets ?? []) this.wallets.putWallet(wallet);
    for (const transaction of change.walletTransactions ?? []) this.wallets.putTransaction(transaction);
    this.events.endChange();
  }

  /** Whether the record is kept (again: one the bounds let go may be written anew, e.g. a transaction paid after it went). */
  holds({ kind, key }: PrunedRecord): boolean {
    if (kind === 'event') return this.events.getEvent(key) !== undefined;
    if (kind === 'delivery') return this.events.hasDelivery(key);
    return this.wallets.hasTransaction(key);
  }

  /** Erases the account's payment requests, events and delivery attempts, and with `endpoints` its webhook endpoints. */
  clearAccount({ accountId, endpoints }: AccountClearing): void {
    this.deleteAccount(accountId);
    this.events.deleteAccount(accountId, endpoints);
    this.wallets.deleteAccount(accountId);
  }

  /** Forgets the account and everything of it: what a clearing erases, its endpoints, its clock, its record. */
  removeAccount(accountId: string): void {
    this.clearAccount({ accountId, endpoints: true });
    this.#clocks.delete(accountId);
    this.#accounts.delete(accountId);
  }

  /** The accounts made through the accounts API, oldest first; a new array. */
  accountRecords(): AccountRecord[] {
    return Array.from(this.#accounts.values());
  }

  /** The record with this id. */
  get(id: string): PaymentRequestRecord | undefined {
    return this.#byId.get(id);
  }

  /** The record with this payment hash. */
  findByHash(paymentHash: string): PaymentRequestRecord | undefined {
    return this.#byHash.get(paymentHash);
  }

  /**
   * Inserts or replaces by id; records are values, so the reference itself is kept. A replaced
   * record keeps its place in its account's list, which stays in creation order.
   */
  put(record: PaymentRequestRecord): void {
    const previous = this.#byId.get(record.id);
    if (previous && previous.accountId === record.accountId) {
      if (this.#byHash.get(previous.paymentHash) === previous) this.#byHash.delete(previous.paymentHash);
    } else if (previous) {
      this.#unindex(previous);
    }
    this.#byId.set(record.id, record);
    this.#byHash.set(record.paymentHash, record);
    let ids = this.#idsByAccount.get(record.accountId);
    if (!ids) this.#idsByAccount.set(record.accountId, (ids = new Set()));
    ids.add(record.id);
  }

  /** Removes every record of the account; returns how many there were. */
  deleteAccount(accountId: string): number {
    const ids = this.#idsByAccount.get(accountId);
    if (!ids) return 0;
    for (const id of ids) {
      const record = this.#byId.get(id);
      this.#byId.delete(id);
      // Another record may since have claimed the same hash; only drop our own entry.
      if (record && this.#byHash.get(record.paymentHash) === record) this.#byHash.delete(record.paymentHash);
    }
    this.#idsByAccount.delete(accountId);
    return ids.size;
  }

  /** The account's records, newest (last created) first; a new array. */
  recordsOf(accountId: string): PaymentRequestRecord[] {
    const ids = Array.from(this.#idsByAccount.get(accountId) ?? []);
    const records: PaymentRequestRecord[] = [];
    for (let i = ids.length - 1; i >= 0; i--) records.push(this.#byId.get(ids[i]!)!);
    return records;
  }

  /** The account's clock. */
  getClock(accountId: string): ClockState | undefined {
    return this.#clocks.get(accountId);
  }

  /** Sets the account's clock to a copy of the state, so a caller's later changes do not leak in. */
  setClock(accountId: string, state: ClockState): void {
    this.#clocks.set(accountId, { offsetMs: state.offsetMs, frozenAtMs: state.frozenAtMs });
  }

  /** Number of payment requests. */
  get size(): number {
    return this.#byId.size;
  }

  /** Every record, in insertion order; a new array, so later writes do not change it. */
  records(): PaymentRequestRecord[] {
    return Array.from(this.#byId.values());
  }

  /** Every clock as [accountId, state]; a new array, so later writes do not change it. */
  clocks(): Array<[string, ClockState]> {
    return Array.from(this.#clocks.entries());
  }

  #unindex(record: PaymentRequestRecord): void {
    if (this.#byHash.get(record.paymentHash) === record) this.#byHash.delete(record.paymentHash);
    const ids = this.#idsByAccount.get(record.accountId);
    ids?.delete(record.id);
    if (ids?.size === 0) this.#idsByAccount.delete(record.accountId);
  }
}
