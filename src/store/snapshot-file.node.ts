/**
 * Reads and writes the data file. Reading goes through lowdb's TextFile adapter, which reports a
 * missing file as null; we parse ourselves, so parse errors can name the file. Writing is ours:
 * lowdb's writer (steno) takes the whole document as one string (~85 MB at 100,000 records,
 * whose building and writing stall the event loop) and renames its temp file without syncing
 * it, so a power loss could leave a renamed but empty data file after the journal it replaced
 * was deleted. Here the JSON goes to `FILE.tmp` a chunk at a time, is datasynced, renamed over
 * the data file, and the directory is synced.
 */
import type { FileHandle } from 'node:fs/promises';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { TextFile } from 'lowdb/node';
import { syncDirectory } from './disk-sync.node.js';
import { FILE_MODE } from './file-mode.node.js';
import { parseSnapshot, snapshotChunks, type Snapshot } from './snapshot-format.js';

/** Bytes handed to the disk at a time: each write is an await, so the event loop runs in between. */
const WRITE_BYTES = 1 << 20;

/** What a snapshot write does to the file system; tests pass one that records the order. */
export interface SnapshotFs {
  open(path: string, flags: 'w', mode: number): Promise<SnapshotHandle>;
  rename(from: string, to: string): Promise<void>;
  syncDirectory(path: string): Promise<void>;
}

/** The calls a snapshot write makes on its temp file. */
export type SnapshotHandle = Pick<FileHandle, 'write' | 'datasync' | 'close'>;

/** The real file system. */
export const nodeSnapshotFs: SnapshotFs = { open, rename, syncDirectory };

/** Where a snapshot is written before it replaces the data file. */
export function snapshotTempPath(dataFile: string): string {
  return `${dataFile}.tmp`;
}

/** The data file at one path. */
export class SnapshotFile {
  readonly #path: string;
  readonly #tempPath: string;
  readonly #reader: TextFile;
  readonly #fs: SnapshotFs;

  constructor(path: string, fs: SnapshotFs = nodeSnapshotFs) {
    this.#path = path;
    this.#tempPath = snapshotTempPath(path);
    this.#reader = new TextFile(path);
    this.#fs = fs;
  }

  /** The file's snapshot, or null if there is no file; throws StoreFileError if it is not one. */
  async read(): Promise<Snapshot | null> {
    const text = await this.#reader.read();
    return text === null ? null : parseSnapshot(text, this.#path);
  }

  /** Deletes a temp file left by a write that a crash interrupted (the data file is still whole). */
  async removeStaleTemp(): Promise<void> {
    await rm(this.#tempPath, { force: true });
  }

  /**
   * Whether the file system takes `bytes` now: writes them to the temp file (synced if `sync`),
   * then deletes it. Rejects as a failed write would (ENOSPC, EIO, EROFS…).
   */
  async checkSpace(bytes: number, sync: boolean): Promise<void> {
    try {
      const handle = await this.#createTemp();
      try {
        await writeAll(handle, Buffer.alloc(bytes));
        if (sync) await handle.datasync();
      } finally {
        await handle.close();
      }
    } finally {
      await this.removeStaleTemp();
    }
  }

  /**
   * Replaces the file atomically, a chunk at a time with the event loop free in between; with
   * `sync`, the new content is on the device before it takes the name, and the name before this
   * resolves (the caller then deletes the journals it replaces). A failed write deletes its temp
   * file: on a full disk, that is the room the journal needs.
   */
  async write(snapshot: Snapshot, sync: boolean): Promise<void> {
    try {
      await this.#writeTemp(snapshot, sync);
    } catch (error) {
      await this.removeStaleTemp().catch(() => {});
      throw error;
    }
    await this.#fs.rename(this.#tempPath, this.#path);
    if (sync) await this.#fs.syncDirectory(dirname(this.#path));
  }

  /**
   * A new, empty temp file, readable by its owner only (a snapshot holds webhook secrets): a
   * stale one is deleted first, as opening it would keep whatever mode it had.
   */
  async #createTemp(): Promise<SnapshotHandle> {
    await this.removeStaleTemp();
    return this.#fs.open(this.#tempPath, 'w', FILE_MODE);
  }

  /** The snapshot in the temp file. */
  async #writeTemp(snapshot: Snapshot, sync: boolean): Promise<void> {
    const handle = await this.#createTemp();
    try {
      // Small pieces packed into one reused buffer: neither the JSON nor its bytes ever exist
      // whole, and nothing large is allocated, which would bring on the collector's long pauses.
      const buffer = Buffer.allocUnsafe(WRITE_BYTES);
      let used = 0;
      for (const piece of snapshotChunks(snapshot)) {
        const bytes = Buffer.byteLength(piece);
        if (used + bytes > buffer.length) {
          await writeAll(handle, buffer.subarray(0, used));
          used = 0;
        }
        if (bytes > buffer.length) await writeAll(handle, Buffer.from(piece));
        else used += buffer.write(piece, used);
      }
      await writeAll(handle, buffer.subarray(0, used));
      if (sync) await handle.datasync();
    } finally {
      await handle.close();
    }
  }
}

/** Writes all of `bytes` at the handle's position (a write may take fewer bytes than asked). */
async function writeAll(handle: SnapshotHandle, bytes: Buffer): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
    written += bytesWritten;
  }
}
