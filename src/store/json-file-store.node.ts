/**
 * The `--data FILE` store. Reads come from the in-memory index; each write is applied there at
 * once and acknowledged once its line is in the journal (`FILE.journal`, group-committed). The
 * journal is folded into the data file (the snapshot) in the background once it grows past a
 * tenth of the snapshot's size, so a write costs an append, not a rewrite of every record.
 */
import type { ClockState, SandboxStore, StoreChange } from '../core/ports.js';
import type { PaymentRequestRecord } from '../core/payments/payment-request.js';
import { applyJournalEntry, type JournalEntry } from './journal-entry.js';
import { removeRotatedJournals } from './journal-files.node.js';
import { replayJournals } from './journal-replay.node.js';
import { JournalWriter } from './journal-writer.node.js';
import { acquireLock, type FileLock } from './lock-file.node.js';
import { SnapshotFile } from './snapshot-file.node.js';
import { emptySnapshot, SNAPSHOT_FORMAT, SNAPSHOT_VERSION, type Snapshot } from './snapshot-format.js';
import { indexReads, type StoreReads } from './index-reads.js';
import { StoreIndex } from './store-index.js';

/** How a JSON file store trades durability and compaction work. */
export interface JsonFileStoreOptions {
  /**
   * 'fsync' (default): a write is acknowledged once datasynced, so it survives a power loss.
   * 'write': once written to the OS, so it survives a crash of the process only.
   */
  durability?: 'fsync' | 'write';
  /** Compact once the journal holds more than max(this, a tenth of the records in the last snapshot) entries. */
  compactAfterEntries?: number;
  /** Receives background compaction failures (the journal still holds every write); default: a process warning. */
  onCompactionError?: (error: Error) => void;
}

/** Counters for tests and measurements. */
export interface JsonFileStoreStats {
  /** Journal writes; each carries every entry queued when it started. */
  flushes: number;
  /** Snapshots written since open. */
  compactions: number;
  /** A compaction is under way. */
  compacting: boolean;
  /** Journal entries not yet folded into the data file. */
  journalEntries: number;
}

/** A SandboxStore kept in a JSON file. */
export interface JsonFileStore extends SandboxStore {
  stats(): JsonFileStoreStats;
}

/** Default for `compactAfterEntries`. */
export const DEFAULT_COMPACT_AFTER_ENTRIES = 10_000;

/** The journal may grow to this share of the snapshot's records (or compactAfterEntries) before a compaction. */
const JOURNAL_SHARE_OF_SNAPSHOT = 0.1;

/** How many journal entries may build up past a snapshot of `snapshotRecords` before compacting. */
export function compactionThreshold(snapshotRecords: number, compactAfterEntries = DEFAULT_COMPACT_AFTER_ENTRIES): number {
  // Proportional, so the cost per write stays constant as the store grows (each compaction
  // rewrites the snapshot: ~10 records per write at a tenth), and short, so a restart after a
  // crash replays at most a tenth of what reading the snapshot costs. At 100,000 records a
  // journal as long as the snapshot (the threshold before) added ~0.9 s of CPU to the open; a
  // tenth adds ~0.09 s. Replaying an entry costs what reading a record from the snapshot does.
  return Math.max(compactAfterEntries, Math.ceil(snapshotRecords * JOURNAL_SHARE_OF_SNAPSHOT));
}

/**
 * Opens the store at `path` (created empty if missing), or throws StoreLockedError if another
 * live process has it open, or StoreFileError if the file or its journal cannot be trusted.
 */
export async function openJsonFileStore(path: string, options: JsonFileStoreOptions = {}): Promise<JsonFileStore> {
  const sync = (options.durability ?? 'fsync') === 'fsync';
  const lock = acquireLock(path);
  try {
    const snapshotFile = new SnapshotFile(path);
    let snapshot = await snapshotFile.read();
    if (!snapshot) {
      snapshot = emptySnapshot();
      await snapshotFile.write(snapshot, sync);
    }
    const index = new StoreIndex();
    for (const record of snapshot.paymentRequests) index.put(record);
    for (const [accountId, state] of Object.entries(snapshot.clocks)) index.setClock(accountId, state);
    index.apply({ endpoints: snapshot.endpoints ?? [], events: snapshot.events ?? [], deliveries: snapshot.deliveries ?? [] });
    const lastSequence = await replayJournals(path, index, snapshot.sequence);
    // Left by a crash between writing a snapshot and deleting the journals it replaced, or
    // during the writing of a snapshot.
    await removeRotatedJournals(path, snapshot.sequence);
    await snapshotFile.removeStaleTemp();
    const journal = await JournalWriter.open(path, { sync, lastSequence });
    return new FileStore({
      path,
      sync,
      lock,
      index,
      journal,
      snapshotFile,
      snapshot: { sequence: snapshot.sequence, records: snapshot.paymentRequests.length },
      lastSequence,
      compactAfterEntries: options.compactAfterEntries ?? DEFAULT_COMPACT_AFTER_ENTRIES,
      onCompactionError: options.onCompactionError ?? ((error) => process.emitWarning(error)),
    });
  } catch (error) {
    lock.release();
    throw error;
  }
}

interface FileStoreParts {
  path: string;
  sync: boolean;
  lock: FileLock;
  index: StoreIndex;
  journal: JournalWriter;
  snapshotFile: SnapshotFile;
  snapshot: { sequence: number; records: number };
  lastSequence: number;
  compactAfterEntries: number;
  onCompactionError: (error: Error) => void;
}

// The reads are the index's, as in every store: assigned in the constructor.
interface FileStore extends StoreReads {}

class FileStore implements JsonFileStore {
  readonly #parts: FileStoreParts;
  readonly #index: StoreIndex;
  readonly #journal: JournalWriter;
  #lastSequence: number;
  /** What the data file holds: the last sequence in it and how many records. */
  #snapshot: { sequence: number; records: number };
  /** Where the last compaction started, so a failing one is retried only a threshold later. */
  #lastCompactionAt: number;
  #compaction: Promise<void> | null = null;
  #compactions = 0;
  #closing: Promise<void> | null = null;

  constructor(parts: FileStoreParts) {
    Object.assign(this, indexReads(parts.index));
    this.#parts = parts;
    this.#index = parts.index;
    this.#journal = parts.journal;
    this.#lastSequence = parts.lastSequence;
    this.#snapshot = parts.snapshot;
    this.#lastCompactionAt = parts.snapshot.sequence;
    // A crash may have left a long journal behind.
    this.#compactIfDue();
  }

  savePaymentRequest(record: PaymentRequestRecord): Promise<void> {
    return this.#write((seq) => ({ seq, op: 'put', record }));
  }

  deletePaymentRequestsOf(accountId: string): Promise<void> {
    return this.#write((seq) => ({ seq, op: 'deleteAccount', accountId }));
  }

  commit(change: StoreChange): Promise<void> {
    return this.#write((seq) => ({ seq, op: 'change', change }));
  }

  saveClock(accountId: string, state: ClockState): Promise<void> {
    const copy = { offsetMs: state.offsetMs, frozenAtMs: state.frozenAtMs };
    return this.#write((seq) => ({ seq, op: 'clock', accountId, state: copy }));
  }

  stats(): JsonFileStoreStats {
    return {
      flushes: this.#journal.flushes,
      compactions: this.#compactions,
      compacting: this.#compaction !== null,
      journalEntries: this.#lastSequence - this.#snapshot.sequence,
    };
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  #write(entryAt: (seq: number) => JournalEntry): Promise<void> {
    if (this.#closing) return Promise.reject(new Error(`${this.#parts.path}: the store is closed`));
    // Refuse before applying: a write the journal cannot take must not become visible.
    if (this.#journal.failure) return Promise.reject(this.#journal.failure);
    this.#lastSequence += 1;
    const entry = entryAt(this.#lastSequence);
    applyJournalEntry(this.#index, entry);
    const durable = this.#journal.append(entry);
    this.#compactIfDue();
    return durable;
  }

  #compactIfDue(): void {
    if (this.#compaction || this.#closing) return;
    const threshold = compactionThreshold(this.#snapshot.records, this.#parts.compactAfterEntries);
    if (this.#lastSequence - this.#lastCompactionAt <= threshold) return;
    this.#compaction = this.#compact()
      .catch((error: unknown) => this.#parts.onCompactionError(asError(error)))
      .finally(() => {
        this.#compaction = null;
      });
  }

  /** Writes a snapshot of everything written so far, then deletes the journals it replaces. */
  async #compact(): Promise<void> {
    const sequence = this.#lastSequence;
    this.#lastCompactionAt = sequence;
    // Captured in the same turn as the rotation below: the snapshot holds exactly the entries
    // that end up in rotated files. Records are values, so copying references is enough.
    const snapshot: Snapshot = {
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_VERSION,
      sequence,
      paymentRequests: this.#index.records(),
      clocks: Object.fromEntries(this.#index.clocks()),
      endpoints: this.#index.events.allEndpoints(),
      events: this.#index.events.allEvents(),
      deliveries: this.#index.events.allDeliveries(),
    };
    await this.#journal.rotate();
    await this.#parts.snapshotFile.write(snapshot, this.#parts.sync);
    await removeRotatedJournals(this.#parts.path, sequence);
    this.#snapshot = { sequence, records: snapshot.paymentRequests.length };
    this.#compactions += 1;
  }

  async #close(): Promise<void> {
    try {
      await this.#compaction;
      try {
        // Users read the data file: after a clean shutdown it alone holds everything.
        if (this.#lastSequence > this.#snapshot.sequence) await this.#compact();
      } finally {
        await this.#journal.close();
      }
    } finally {
      this.#parts.lock.release();
    }
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
