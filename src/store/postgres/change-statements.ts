/**
 * What a batch of writes does to the tables: the journal entries of one group commit (the same
 * entries the index applies, journal-entry.ts) turned into a few set-based statements, in an order
 * that gives the same result as applying them one by one. Statements on different tables commute
 * (no foreign keys), so an entry's row joins an earlier statement of the same kind on its table as
 * long as no statement of another kind on that table came in between: a batch of 50 creates is
 * one upsert of payment requests and one of events, whatever their interleaving. No I/O.
 */
import type { StoreChange } from '../../core/store/sandbox-store.js';
import { deliveryKey } from '../../core/store/webhook-records.js';
import type { PrunedRecord } from '../event-index.js';
import type { JournalEntry } from '../journal-entry.js';

/** The tables that hold records, each `(id text primary key, account_id, seq, data json)`. */
export const RECORD_TABLES = [
  'lnpr_payment_requests',
  'lnpr_clocks',
  'lnpr_events',
  'lnpr_endpoints',
  'lnpr_deliveries',
  'lnpr_accounts',
  'lnpr_wallets',
  'lnpr_wallet_transactions',
] as const;
export type RecordTable = (typeof RECORD_TABLES)[number];

/** A row as the upsert reads it: key, account, wallet (transactions only), the record. */
export interface Row {
  k: string;
  a: string;
  w?: string;
  d: unknown;
}

/** One set-based statement. `ids` are keys, accounts or wallets by `kind`. */
export type Statement =
  | { kind: 'upsert'; table: RecordTable; rows: Map<string, Row> }
  | { kind: 'deleteById' | 'deleteByAccount' | 'deleteByWallet'; table: RecordTable; ids: Set<string> };

/** The statements that make the entries durable, in order. */
export function statementsOf(entries: readonly JournalEntry[]): Statement[] {
  const out: Statement[] = [];
  const upsert = (table: RecordTable, row: Row) => add(out, { kind: 'upsert', table, rows: new Map([[row.k, row]]) });
  const remove = (kind: 'deleteById' | 'deleteByAccount' | 'deleteByWallet', table: RecordTable, id: string) =>
    add(out, { kind, table, ids: new Set([id]) });
  const clearAccount = (accountId: string, endpoints: boolean) => {
    for (const table of ['lnpr_payment_requests', 'lnpr_events', 'lnpr_deliveries', 'lnpr_wallets', 'lnpr_wallet_transactions'] as const) {
      remove('deleteByAccount', table, accountId);
    }
    if (endpoints) remove('deleteByAccount', 'lnpr_endpoints', accountId);
  };
  for (const entry of entries) {
    switch (entry.op) {
      case 'put':
        upsert('lnpr_payment_requests', { k: entry.record.id, a: entry.record.accountId, d: entry.record });
        break;
      case 'deleteAccount':
        remove('deleteByAccount', 'lnpr_payment_requests', entry.accountId);
        break;
      case 'clock':
        upsert('lnpr_clocks', { k: entry.accountId, a: entry.accountId, d: entry.state });
        break;
      case 'change':
        changeStatements(entry.change, { upsert, remove, clearAccount });
        break;
    }
  }
  return out;
}

interface Emit {
  upsert(table: RecordTable, row: Row): void;
  remove(kind: 'deleteById' | 'deleteByAccount' | 'deleteByWallet', table: RecordTable, id: string): void;
  clearAccount(accountId: string, endpoints: boolean): void;
}

/** In the order StoreIndex.apply applies a change. */
function changeStatements(change: StoreChange, { upsert, remove, clearAccount }: Emit): void {
  for (const clearing of change.clearedAccounts ?? []) clearAccount(clearing.accountId, clearing.endpoints);
  for (const accountId of change.deletedAccounts ?? []) {
    clearAccount(accountId, true);
    remove('deleteById', 'lnpr_clocks', accountId);
    remove('deleteById', 'lnpr_accounts', accountId);
  }
  for (const record of change.paymentRequests ?? []) upsert('lnpr_payment_requests', { k: record.id, a: record.accountId, d: record });
  for (const event of change.events ?? []) upsert('lnpr_events', { k: event.id, a: event.accountId, d: event });
  for (const endpoint of change.endpoints ?? []) upsert('lnpr_endpoints', { k: endpoint.id, a: endpoint.accountId, d: endpoint });
  for (const id of change.deletedEndpoints ?? []) remove('deleteById', 'lnpr_endpoints', id);
  for (const delivery of change.deliveries ?? []) upsert('lnpr_deliveries', { k: deliveryKey(delivery), a: delivery.accountId, d: delivery });
  for (const account of change.accounts ?? []) upsert('lnpr_accounts', { k: account.id, a: account.id, d: account });
  for (const id of change.deletedWallets ?? []) {
    remove('deleteById', 'lnpr_wallets', id);
    remove('deleteByWallet', 'lnpr_wallet_transactions', id);
  }
  for (const wallet of change.wallets ?? []) upsert('lnpr_wallets', { k: wallet.id, a: wallet.accountId, d: wallet });
  for (const transaction of change.walletTransactions ?? []) {
    upsert('lnpr_wallet_transactions', { k: transaction.id, a: transaction.accountId, w: transaction.walletId, d: transaction });
  }
}

/** Appends `next`, or merges it into the last statement on its table when that one is of its kind. */
function add(out: Statement[], next: Statement): void {
  for (let i = out.length - 1; i >= 0; i--) {
    const earlier = out[i]!;
    if (earlier.table !== next.table) continue;
    if (earlier.kind !== next.kind) break;
    if (earlier.kind === 'upsert' && next.kind === 'upsert') {
      // A later write of the same key wins and keeps the first one's place (as a Map does).
      for (const [key, row] of next.rows) earlier.rows.set(key, row);
    } else if (earlier.kind !== 'upsert' && next.kind !== 'upsert') {
      for (const id of next.ids) earlier.ids.add(id);
    }
    return;
  }
  out.push(next);
}

/** The table of each kind of record the history bounds let go. */
export const PRUNED_TABLE: Readonly<Record<PrunedRecord['kind'], RecordTable>> = {
  event: 'lnpr_events',
  delivery: 'lnpr_deliveries',
  walletTransaction: 'lnpr_wallet_transactions',
};

/** Deletes of rows the index let go, by key, one statement per table. */
export function pruneStatements(pruned: ReadonlyMap<RecordTable, ReadonlySet<string>>): Statement[] {
  const out: Statement[] = [];
  for (const [table, ids] of pruned) if (ids.size > 0) out.push({ kind: 'deleteById', table, ids: new Set(ids) });
  return out;
}
