/**
 * The index as a snapshot and back: what a compaction writes, what an open starts from, and how a
 * store that must forget the writes it could not make durable gets an index of only those it did
 * (the state a restart would show). Records are values, so both directions copy references.
 * Browser-safe.
 */
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type Snapshot } from './snapshot-format.js';
import type { PruneListener } from './event-index.js';
import { StoreIndex } from './store-index.js';

/** Everything in `index`, as the data file holds it after the journal entry `sequence`. */
export function snapshotOf(index: StoreIndex, sequence: number): Snapshot {
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    sequence,
    paymentRequests: index.records(),
    clocks: Object.fromEntries(index.clocks()),
    endpoints: index.events.allEndpoints(),
    events: index.events.allEvents(),
    deliveries: index.events.allDeliveries(),
    accounts: index.accountRecords(),
    wallets: index.wallets.allWallets(),
    walletTransactions: index.wallets.allTransactions(),
  };
}

/** A new index holding what `snapshot` holds; `onPruned` hears what the history bounds leave out of it. */
export function indexOf(snapshot: Snapshot, onPruned?: PruneListener): StoreIndex {
  const index = new StoreIndex();
  index.onPruned(onPruned);
  for (const record of snapshot.paymentRequests) index.put(record);
  for (const [accountId, state] of Object.entries(snapshot.clocks)) index.setClock(accountId, state);
  index.apply({
    endpoints: snapshot.endpoints ?? [],
    events: snapshot.events ?? [],
    deliveries: snapshot.deliveries ?? [],
    accounts: snapshot.accounts ?? [],
    wallets: snapshot.wallets ?? [],
    walletTransactions: snapshot.walletTransactions ?? [],
  });
  index.onPruned(undefined);
  return index;
}

/** A new index with the same content as `index`, changed apart from it from now on. */
export function copyOf(index: StoreIndex): StoreIndex {
  return indexOf(snapshotOf(index, 0));
}
