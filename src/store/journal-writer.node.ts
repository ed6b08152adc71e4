/**
 * Appends journal entries with group commit: every entry requested while a flush is under way,
 * or in the same turn of the event loop, goes out in the next single write + datasync, so
 * concurrent writers share the cost of durability. Also rotates the file out for compaction.
 */
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDirectory } from './disk-sync.node.js';
import { formatJournalLine, type JournalEntry } from './journal-entry.js';
import { activeJournalPath, rotatedJournalPath } from './journal-files.node.js';

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}
type QueuedLine = Waiter & { kind: 'line'; line: string; seq: number };
type QueuedRotation = Waiter & { kind: 'rotation' };
type Queued = QueuedLine | QueuedRotation;

/** How the journal is written. */
export interface JournalWriterOptions {
  /** Datasync each write (survives power loss) or not (survives a process crash only). */
  sync: boolean;
  /** The last sequence in the journals so far, which names the active file if rotated untouched. */
  lastSequence: number;
}

/** The writer of `FILE.journal`, one per open store. */
export class JournalWriter {
  readonly #dataFile: string;
  readonly #path: string;
  readonly #sync: boolean;
  #handle: FileHandle;
  #bytes: number;
  #fileLastSequence: number;
  #queue: Queued[] = [];
  #draining: Promise<void> | null = null;
  #failure: Error | null = null;
  #flushes = 0;

  private constructor(dataFile: string, handle: FileHandle, bytes: number, options: JournalWriterOptions) {
    this.#dataFile = dataFile;
    this.#path = activeJournalPath(dataFile);
    this.#sync = options.sync;
    this.#handle = handle;
    this.#bytes = bytes;
    this.#fileLastSequence = options.lastSequence;
  }

  /** Opens (creating if needed) the active journal of the data file for appending. */
  static async open(dataFile: string, options: JournalWriterOptions): Promise<JournalWriter> {
    const handle = await open(activeJournalPath(dataFile), 'a');
    const { size } = await handle.stat();
    // An empty journal may have just been created: its directory entry must outlive a power loss.
    if (options.sync && size === 0) await syncDirectory(dirname(dataFile));
    return new JournalWriter(dataFile, handle, size, options);
  }

  /** Write batches made so far; each is one write (+ one datasync) for any number of entries. */
  get flushes(): number {
    return this.#flushes;
  }

  /** Why the journal stopped accepting entries, if it did. */
  get failure(): Error | null {
    return this.#failure;
  }

  /** Queues the entry; resolves once it is written (and synced, if so configured). */
  append(entry: JournalEntry): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    return this.#enqueue({ kind: 'line', line: formatJournalLine(entry), seq: entry.seq });
  }

  /**
   * Resolves once every entry appended before this call is in a rotated file named after its
   * last sequence, and later ones go to a fresh active journal.
   */
  rotate(): Promise<void> {
    return this.#enqueue({ kind: 'rotation' });
  }

  /** Waits for queued entries, closes the file, and deletes it if it holds none. */
  async close(): Promise<void> {
    await this.#draining;
    await this.#handle.close();
    if (this.#bytes === 0) await rm(this.#path, { force: true });
  }

  #enqueue(item: { kind: 'line'; line: string; seq: number } | { kind: 'rotation' }): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ ...item, resolve, reject });
      this.#draining ??= this.#drain();
    });
  }

  async #drain(): Promise<void> {
    // Let the writes made in this turn of the event loop join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#queue.length > 0) {
      const rotationAt = this.#queue.findIndex((item) => item.kind === 'rotation');
      const batch = this.#queue.splice(0, rotationAt === -1 ? this.#queue.length : Math.max(rotationAt, 1));
      try {
        if (this.#failure) throw this.#failure;
        await (batch[0]?.kind === 'rotation' ? this.#rotateNow() : this.#write(batch as QueuedLine[]));
        for (const item of batch) item.resolve();
      } catch (error) {
        // After a failed write or sync the file's tail is unknown: appending more could leave
        // acknowledged entries behind a damaged line, which replay rightly refuses.
        this.#failure ??= new Error(
          `cannot append to ${this.#path} (${(error as Error).message}); ` +
            'the store refuses further writes until it is reopened',
          { cause: error },
        );
        for (const item of batch) item.reject(this.#failure);
      }
    }
    this.#draining = null;
  }

  async #write(batch: QueuedLine[]): Promise<void> {
    const data = Buffer.from(batch.map((item) => item.line).join(''));
    await this.#handle.appendFile(data);
    if (this.#sync) await this.#handle.datasync();
    this.#bytes += data.length;
    this.#fileLastSequence = batch[batch.length - 1]?.seq ?? this.#fileLastSequence;
    this.#flushes += 1;
  }

  async #rotateNow(): Promise<void> {
    if (this.#bytes === 0) return;
    // On POSIX the open handle follows the renamed file; the new one takes the name at once.
    await rename(this.#path, rotatedJournalPath(this.#dataFile, this.#fileLastSequence));
    const next = await open(this.#path, 'a');
    await this.#handle.close();
    this.#handle = next;
    this.#bytes = 0;
    // Entries acknowledged from the new file on must not vanish with an unsynced directory entry.
    if (this.#sync) await syncDirectory(dirname(this.#dataFile));
  }
}
