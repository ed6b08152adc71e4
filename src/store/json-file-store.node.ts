/**
 * The `--data FILE` store. Reads come from the in-memory index; each write is applied there at
 * once and acknowledged once its line is in the journal (`FILE.journal`, group-committed). The
 * journal is folded into the data file (the snapshot) in the background once it grows past a
 * tenth of the snapshot's size, so a write costs an append, not a rewrite of every record.
 *
 * When the disk refuses a write (full, failing, read-only), the store goes back to what its files
 * hold: a second index, fed only with what reached the disk, replaces the one reads come from, so
 * the refused write, and every write queued behind it, is not visible afterwards (each is answered
 * with StorageUnavailableError, a 503) and never becomes durable later. New writes are refused at
 * once while a timer, backing off, cuts the journal back to its acknowledged end and checks that
 * the disk takes a write again; then writes are taken again, without a restart.
 */
import { StorageUnavailableError, type ClockState, type SandboxStore, type StorageHealth, type StoreChange } from '../core/store/sandbox-store.js';
import type { PaymentRequestRecord } from '../core/store/payment-request.js';
import { restrictToOwner } from './file-mode.node.js';
import { copyOf, indexOf, snapshotOf } from './index-snapshot.js';
import { applyJournalEntry, type JournalEntry } from './journal-entry.js';
import { activeJournalPath, removeRotatedJournals } from './journal-files.node.js';
import { replayJournals } from './journal-replay.node.js';
import { JournalWriter } from './journal-writer.node.js';
import { acquireLock, type FileLock } from './lock-file.node.js';
import { SnapshotFile } from './snapshot-file.node.js';
import { emptySnapshot } from './snapshot-format.js';
import { indexReads, type StoreReads } from './index-reads.js';
import { StorageFault } from './storage-fault.js';
import type { StoreIndex } from './store-index.js';
import { printStoreNotice, type StoreNotice } from './store-notice.js';

/** How a JSON file store trades durability and compaction work, and where it reports. */
export interface JsonFileStoreOptions {
  /**
   * 'fsync' (default): a write is acknowledged once datasynced, so it survives a power loss.
   * 'write': once written to the OS, so it survives a crash of the process only.
   */
  durability?: 'fsync' | 'write';
  /** Compact once the journal holds more than max(this, a tenth of the records in the last snapshot) entries. */
  compactAfterEntries?: number;
  /**
   * Hears what the store reports: writes failing (with the errno code and the file) and taken
   * again, compactions failing, torn journal lines dropped at open; default: a line on stderr.
   */
  onNotice?: (notice: StoreNotice) => void;
  /** While writes fail, how long before trying again: from `firstMs`, doubling up to `maxMs` (default 100 ms to 2 s). */
  retry?: { firstMs: number; maxMs: number };
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
  health(): StorageHealth;
}

/** Default for `compactAfterEntries`. */
export const DEFAULT_COMPACT_AFTER_ENTRIES = 10_000;

/** The journal may grow to this share of the snapshot's records (or compactAfterEntries) before a compaction. */
const JOURNAL_SHARE_OF_SNAPSHOT = 0.1;

/** Default delays between attempts to write again: short at first (a blip), at most 2 s (recovery within seconds). */
const DEFAULT_RETRY = { firstMs: 100, maxMs: 2_000 };

/** What the disk must take before writes are let through again: room for a burst of journal lines. */
const RECOVERY_CHECK_BYTES = 64 * 1024;

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
 * live process has it open, or StoreFileError if the file or its journal cannot be trusted
 * (every record is checked against its schema).
 */
export async function openJsonFileStore(path: string, options: JsonFileStoreOptions = {}): Promise<JsonFileStore> {
  const sync = (options.durability ?? 'fsync') === 'fsync';
  const onNotice = options.onNotice ?? printStoreNotice;
  const lock = acquireLock(path);
  try {
    const snapshotFile = new SnapshotFile(path);
    let snapshot = await snapshotFile.read();
    if (!snapshot) {
      snapshot = emptySnapshot();
      await snapshotFile.write(snapshot, sync);
    }
    // Files written before they were created owner-only (they hold webhook secrets).
    for (const file of [path, activeJournalPath(path)]) {
      const refusal = await restrictToOwner(file);
      if (refusal) onNotice({ level: 'warn', path: file, message: `${file}: could not make it readable by its owner only (${refusal.message})` });
    }
    const index = indexOf(snapshot);
    const lastSequence = await replayJournals(path, index, snapshot.sequence, onNotice);
    // Left by a crash between writing a snapshot and deleting the journals it replaced, or
    // during the writing of a snapshot.
    await removeRotatedJournals(path, snapshot.sequence);
    await snapshotFile.removeStaleTemp();
    return await FileStore.open({
      path,
      sync,
      lock,
      index,
      snapshotFile,
      snapshot: { sequence: snapshot.sequence, records: snapshot.paymentRequests.length },
      lastSequence,
      compactAfterEntries: options.compactAfterEntries ?? DEFAULT_COMPACT_AFTER_ENTRIES,
      onNotice,
      retry: options.retry ?? DEFAULT_RETRY,
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
  snapshotFile: SnapshotFile;
  snapshot: { sequence: number; records: number };
  lastSequence: number;
  compactAfterEntries: number;
  onNotice: (notice: StoreNotice) => void;
  retry: { firstMs: number; maxMs: number };
}

/** A time writes are refused: since when, why (the latest cause), and the next attempt. */
interface Outage {
  since: number;
  fault: StorageFault;
  delayMs: number;
  timer: ReturnType<typeof setTimeout> | null;
}

// The reads are the index's, as in every store: assigned in the constructor (and on a rollback).
interface FileStore extends StoreReads {}

class FileStore implements JsonFileStore {
  readonly #parts: FileStoreParts;
  readonly #journal: JournalWriter;
  /** What reads see: every write made, durable or not yet. */
  #index: StoreIndex;
  /**
   * What the files hold: only writes that reached the disk; what a refused write rolls back to.
   * Made at the first write, as a copy of what open read (~0.1 s at 100,000 records, kept off
   * the start), and fed after each flush from then on.
   */
  #durable: StoreIndex | null = null;
  #durableSequence: number;
  #lastSequence: number;
  /** What the data file holds: the last sequence in it and how many records. */
  #snapshot: { sequence: number; records: number };
  /** Where the last compaction started, so a failing one is retried only a threshold later. */
  #lastCompactionAt: number;
  #compaction: Promise<void> | null = null;
  #compactions = 0;
  #outage: Outage | null = null;
  #recovering: Promise<void> | null = null;
  #closing: Promise<void> | null = null;

  /** The store over `parts`, with its journal open. */
  static async open(parts: FileStoreParts): Promise<FileStore> {
    // The writer reports to the store it is built for; it has nothing to report before both exist.
    let store: FileStore;
    const journal = await JournalWriter.open(parts.path, {
      sync: parts.sync,
      lastSequence: parts.lastSequence,
      onWritten: (entries) => store.#written(entries),
      onFailed: (fault) => store.#failed(fault),
    });
    store = new FileStore(parts, journal);
    return store;
  }

  private constructor(parts: FileStoreParts, journal: JournalWriter) {
    this.#parts = parts;
    this.#journal = journal;
    this.#index = parts.index;
    this.#durableSequence = parts.lastSequence;
    Object.assign(this, indexReads(this.#index));
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

  health(): StorageHealth {
    const outage = this.#outage;
    return outage ? { status: 'unavailable', since: outage.since, cause: outage.fault.message } : { status: 'ok' };
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  #write(entryAt: (seq: number) => JournalEntry): Promise<void> {
    if (this.#closing) return Promise.reject(new Error(`${this.#parts.path}: the store is closed`));
    // Refused before it is applied: while the disk refuses writes, none may become visible.
    if (this.#outage) return Promise.reject(new StorageUnavailableError(this.#outage.fault));
    this.#durable ??= copyOf(this.#index);
    this.#lastSequence += 1;
    const entry = entryAt(this.#lastSequence);
    applyJournalEntry(this.#index, entry);
    const durable = this.#journal.append(entry).catch((error: unknown) => {
      throw new StorageUnavailableError(error);
    });
    this.#compactIfDue();
    return durable;
  }

  /** Entries on disk: the durable index follows. */
  #written(entries: readonly JournalEntry[]): void {
    for (const entry of entries) applyJournalEntry(this.#durable!, entry);
    this.#durableSequence = entries[entries.length - 1]?.seq ?? this.#durableSequence;
  }

  /**
   * A journal write failed; every write not yet on disk is about to be refused. Reads go back to
   * what the files hold (before any refusal is seen), and writes stop until the disk recovers.
   */
  #failed(fault: StorageFault): void {
    // None yet if no write was ever made (a rotation at open failed): then there is nothing to undo.
    if (this.#durable) this.#useIndex(copyOf(this.#durable));
    this.#lastSequence = this.#durableSequence;
    if (this.#outage) {
      this.#outage.fault = fault;
      return;
    }
    this.#outage = { since: Date.now(), fault, delayMs: this.#parts.retry.firstMs, timer: null };
    this.#parts.onNotice({
      level: 'error',
      code: fault.code,
      path: fault.path,
      message:
        `cannot write ${fault.path}: ${fault.reason}; ` +
        'writes are refused (503 storage_unavailable, /healthz 503) and nothing refused is kept; ' +
        `trying again every ${this.#parts.retry.maxMs / 1000} s at most`,
    });
    this.#retryLater();
  }

  #useIndex(index: StoreIndex): void {
    this.#index = index;
    Object.assign(this, indexReads(index));
  }

  #retryLater(): void {
    const outage = this.#outage;
    if (!outage || this.#closing) return;
    outage.timer = setTimeout(() => {
      outage.timer = null;
      this.#recovering ??= this.#tryToRecover().finally(() => (this.#recovering = null));
    }, outage.delayMs);
    outage.timer.unref();
  }

  /** Cuts the journal back to its acknowledged end and checks that the disk takes a write; writes resume if so. */
  async #tryToRecover(): Promise<void> {
    const outage = this.#outage;
    if (!outage) return;
    try {
      await this.#compaction;
      await this.#journal.recover();
      await this.#parts.snapshotFile.checkSpace(RECOVERY_CHECK_BYTES, this.#parts.sync);
    } catch (error) {
      outage.fault = StorageFault.of(error, this.#parts.path);
      outage.delayMs = Math.min(outage.delayMs * 2, this.#parts.retry.maxMs);
      this.#retryLater();
      return;
    }
    this.#outage = null;
    this.#parts.onNotice({
      level: 'info',
      path: activeJournalPath(this.#parts.path),
      message: `${this.#parts.path}: writes are taken again after ${((Date.now() - outage.since) / 1000).toFixed(1)} s refused; nothing acknowledged was lost`,
    });
    this.#compactIfDue();
  }

  #compactIfDue(): void {
    if (this.#compaction || this.#closing || this.#outage) return;
    const threshold = compactionThreshold(this.#snapshot.records, this.#parts.compactAfterEntries);
    if (this.#lastSequence - this.#lastCompactionAt <= threshold) return;
    this.#compaction = this.#compact()
      .catch((error: unknown) => this.#compactionFailed(error))
      .finally(() => {
        this.#compaction = null;
      });
  }

  #compactionFailed(error: unknown): void {
    // A compaction refused with the journal's writes is part of the outage already reported.
    if (this.#outage) return;
    const fault = StorageFault.of(error, this.#parts.path);
    this.#parts.onNotice({
      level: 'warn',
      code: fault.code,
      path: fault.path,
      message: `could not fold the journal into ${this.#parts.path} (${fault.reason}); the journal still holds every write, and folding is tried again later`,
    });
  }

  /** Writes a snapshot of everything written so far, then deletes the journals it replaces. */
  async #compact(): Promise<void> {
    const sequence = this.#lastSequence;
    this.#lastCompactionAt = sequence;
    // Captured in the same turn as the rotation below: the snapshot holds exactly the entries
    // that end up in rotated files (a write refused before the rotation refuses the rotation too).
    const snapshot = snapshotOf(this.#index, sequence);
    await this.#journal.rotate();
    await this.#parts.snapshotFile.write(snapshot, this.#parts.sync);
    await removeRotatedJournals(this.#parts.path, sequence);
    this.#snapshot = { sequence, records: snapshot.paymentRequests.length };
    this.#compactions += 1;
  }

  async #close(): Promise<void> {
    try {
      if (this.#outage?.timer) clearTimeout(this.#outage.timer);
      await this.#recovering;
      await this.#compaction;
      try {
        // A failed write's leftovers must not follow the acknowledged entries into the next start.
        if (this.#outage) await this.#journal.recover();
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
