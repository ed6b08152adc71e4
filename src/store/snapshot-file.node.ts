/**
 * Reads and writes the data file through lowdb's TextFile adapter: it reports a missing file as
 * null and writes atomically (steno: temp file, then rename). We parse and serialize ourselves,
 * so parse errors can name the file and serialization can yield to the event loop.
 */
import { dirname } from 'node:path';
import { TextFile } from 'lowdb/node';
import { syncDirectory, syncFile } from './disk-sync.node.js';
import { parseSnapshot, type Snapshot } from './snapshot-format.js';

/** Records serialized between two yields: about 5 ms of JSON.stringify each. */
const RECORDS_PER_SLICE = 1_000;

/** The data file at one path. */
export class SnapshotFile {
  readonly #path: string;
  readonly #file: TextFile;

  constructor(path: string) {
    this.#path = path;
    this.#file = new TextFile(path);
  }

  /** The file's snapshot, or null if there is no file; throws StoreFileError if it is not one. */
  async read(): Promise<Snapshot | null> {
    const text = await this.#file.read();
    return text === null ? null : parseSnapshot(text, this.#path);
  }

  /** Replaces the file atomically; with `sync`, also makes it durable before resolving. */
  async write(snapshot: Snapshot, sync: boolean): Promise<void> {
    await this.#file.write(await serializeSnapshot(snapshot));
    if (!sync) return;
    // steno renames without syncing: sync the result before anyone deletes the journal it replaces.
    await syncFile(this.#path);
    await syncDirectory(dirname(this.#path));
  }
}

/**
 * Compact JSON of a snapshot, as JSON.stringify would produce it, built a slice of records at a
 * time: at 100,000 records one JSON.stringify call would stall every request for ~0.4 s.
 */
export async function serializeSnapshot(snapshot: Snapshot): Promise<string> {
  const { paymentRequests } = snapshot;
  const slices: string[] = [];
  for (let start = 0; start < paymentRequests.length; start += RECORDS_PER_SLICE) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    slices.push(JSON.stringify(paymentRequests.slice(start, start + RECORDS_PER_SLICE)).slice(1, -1));
  }
  const header = JSON.stringify({ format: snapshot.format, version: snapshot.version, sequence: snapshot.sequence });
  return `${header.slice(0, -1)},"paymentRequests":[${slices.join(',')}],"clocks":${JSON.stringify(snapshot.clocks)}}`;
}
