/**
 * Appends journal entries with group commit: every entry requested while a flush is under way,
 * or in the same turn of the event loop, goes out in the next single write + datasync, so
 * concurrent writers share the cost of durability. Also rotates the file out for compaction.
 *
 * A failed write (a full disk, an I/O error) refuses its batch and every entry queued behind it,
 * which were made on top of it, and leaves the file's tail unknown: appending more could leave
 * acknowledged entries behind a damaged line, which replay rightly refuses. So nothing more is
 * appended until `recover()` has cut the file back to what was acknowledged.
 */
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDirectory } from './disk-sync.node.js';
import { FILE_MODE } from './file-mode.node.js';
import { formatJournalLine, type JournalEntry } from './journal-entry.js';
import { activeJournalPath, rotatedJournalPath } from './journal-files.node.js';
import { StorageFault } from './storage-fault.js';

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}
type QueuedLine = Waiter & { kind: 'line'; line: string; entry: JournalEntry };
type QueuedRotation = Waiter & { kind: 'rotation' };
type Queued = QueuedLine | QueuedRotation;

/** How the journal is written, and who hears how writes went. */
export interface JournalWriterOptions {
  /** Datasync each write (survives power loss) or not (survives a process crash only). */
  sync: boolean;
  /** The last sequence in the journals so far, which names the active file if rotated untouched. */
  lastSequence: number;
  /** Hears the entries of each write once they are on disk, before their appends resolve. */
  onWritten?: (entries: readonly JournalEntry[]) => void;
  /** Hears a write failing, before any append is refused because of it. */
  onFailed?: (fault: StorageFault) => void;
}

/** The writer of `FILE.journal`, one per open store. */
export class JournalWriter {
  readonly #dataFile: string;
  readonly #path: string;
  readonly #options: JournalWriterOptions;
  #handle: FileHandle;
  /** Where the handle's file is: the active path, or its rotated name if a rotation could not finish. */
  #handlePath: string;
  /** Bytes of the active file that were acknowledged; anything after them is a failed write's. */
  #bytes: number;
  #fileLastSequence: number;
  #queue: Queued[] = [];
  #draining: Promise<void> | null = null;
  /** Why appends are refused, until `recover()` succeeds. */
  #fault: StorageFault | null = null;
  #flushes = 0;

  private constructor(dataFile: string, handle: FileHandle, bytes: number, options: JournalWriterOptions) {
    this.#dataFile = dataFile;
    this.#path = activeJournalPath(dataFile);
    this.#handlePath = this.#path;
    this.#options = options;
    this.#handle = handle;
    this.#bytes = bytes;
    this.#fileLastSequence = options.lastSequence;
  }

  /** Opens (creating if needed) the active journal of the data file for appending. */
  static async open(dataFile: string, options: JournalWriterOptions): Promise<JournalWriter> {
    const handle = await open(activeJournalPath(dataFile), 'a', FILE_MODE);
    const { size } = await handle.stat();
    // An empty journal may have just been created: its directory entry must outlive a power loss.
    if (options.sync && size === 0) await syncDirectory(dirname(dataFile));
    return new JournalWriter(dataFile, handle, size, options);
  }

  /** Write batches made so far; each is one write (+ one datasync) for any number of entries. */
  get flushes(): number {
    return this.#flushes;
  }

  /** Why appends are refused, if they are. */
  get fault(): StorageFault | null {
    return this.#fault;
  }

  /** Queues the entry; resolves once it is written (and synced, if so configured). */
  append(entry: JournalEntry): Promise<void> {
    if (this.#fault) return Promise.reject(this.#fault);
    return this.#enqueue({ kind: 'line', line: formatJournalLine(entry), entry });
  }

  /**
   * Resolves once every entry appended before this call is in a rotated file named after its
   * last sequence, and later ones go to a fresh active journal.
   */
  rotate(): Promise<void> {
    if (this.#fault) return Promise.reject(this.#fault);
    return this.#enqueue({ kind: 'rotation' });
  }

  /**
   * After a failed write: puts the file back under its name if a rotation left it elsewhere, cuts
   * it back to what was acknowledged, through a fresh handle (the old one may be what failed), and
   * syncs that. Appends are taken again once this resolves; rejects with a StorageFault if not.
   */
  async recover(): Promise<void> {
    if (!this.#fault) return;
    await this.#draining;
    try {
      if (this.#handlePath !== this.#path) {
        await rename(this.#handlePath, this.#path);
        this.#handlePath = this.#path;
      }
      const handle = await open(this.#path, 'a', FILE_MODE);
      try {
        const { size } = await handle.stat();
        if (size < this.#bytes) {
          throw new Error(`it holds ${size} bytes, fewer than the ${this.#bytes} acknowledged: something else cut it short`);
        }
        await handle.truncate(this.#bytes);
        if (this.#options.sync) {
          await handle.datasync();
          await syncDirectory(dirname(this.#dataFile));
        }
      } catch (error) {
        await handle.close().catch(() => {});
        throw error;
      }
      await this.#handle.close().catch(() => {});
      this.#handle = handle;
      this.#fault = null;
    } catch (error) {
      throw StorageFault.of(error, this.#path);
    }
  }

  /** Waits for queued entries, closes the file, and deletes it if it holds none. */
  async close(): Promise<void> {
    await this.#draining;
    await this.#handle.close();
    if (this.#bytes === 0 && !this.#fault) await rm(this.#path, { force: true });
  }

  #enqueue(item: { kind: 'line'; line: string; entry: JournalEntry } | { kind: 'rotation' }): Promise<void> {
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
      if (batch[0]?.kind === 'rotation') {
        await this.#rotateNow().then(batch[0].resolve, batch[0].reject);
        continue;
      }
      const lines = batch as QueuedLine[];
      try {
        await this.#write(lines);
      } catch (error) {
        this.#fail(StorageFault.of(error, this.#path), lines);
        continue;
      }
      this.#options.onWritten?.(lines.map((item) => item.entry));
      for (const item of lines) item.resolve();
    }
    this.#draining = null;
  }

  /** Stops appending: the batch and everything queued behind it are refused with `fault`. */
  #fail(fault: StorageFault, batch: Queued[]): void {
    this.#fault ??= fault;
    this.#options.onFailed?.(fault);
    for (const item of [...batch, ...this.#queue.splice(0)]) item.reject(fault);
  }

  async #write(batch: QueuedLine[]): Promise<void> {
    const data = Buffer.from(batch.map((item) => item.line).join(''));
    await this.#handle.appendFile(data);
    if (this.#options.sync) await this.#handle.datasync();
    this.#bytes += data.length;
    this.#fileLastSequence = batch[batch.length - 1]?.entry.seq ?? this.#fileLastSequence;
    this.#flushes += 1;
  }

  /** Rotates the file out; on failure the journal goes on as it was, or refuses appends until recovered. */
  async #rotateNow(): Promise<void> {
    if (this.#bytes === 0) return;
    const rotated = rotatedJournalPath(this.#dataFile, this.#fileLastSequence);
    // On POSIX the open handle follows the renamed file; the new one takes the name at once.
    try {
      await rename(this.#path, rotated);
    } catch (error) {
      throw StorageFault.of(error, this.#path);
    }
    this.#handlePath = rotated;
    let next: FileHandle;
    try {
      next = await open(this.#path, 'a', FILE_MODE);
    } catch (error) {
      const fault = StorageFault.of(error, this.#path);
      // Appends must go on under the active name, where replay looks for entries after the last
      // rotated file; if the name cannot be put back, they wait for recover() to do it.
      await rename(rotated, this.#path).then(
        () => (this.#handlePath = this.#path),
        () => this.#fail(fault, []),
      );
      throw fault;
    }
    await this.#handle.close().catch(() => {});
    this.#handle = next;
    this.#handlePath = this.#path;
    this.#bytes = 0;
    // Entries acknowledged from the new file on must not vanish with an unsynced directory entry.
    if (this.#options.sync) {
      try {
        await syncDirectory(dirname(this.#dataFile));
      } catch (error) {
        const fault = StorageFault.of(error, dirname(this.#dataFile));
        this.#fail(fault, []);
        throw fault;
      }
    }
  }
}
