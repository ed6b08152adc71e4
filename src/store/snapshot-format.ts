/**
 * The data file's format, version 1: what `--data FILE` holds after a clean shutdown and what
 * users read. `sequence` is the last journal entry folded in, so replay knows where to resume.
 * Browser-safe: parsing and serializing are plain JSON, kept apart from the file I/O.
 */
import type { AccountRecord } from '../core/store/account-record.js';
import type { DeliveryRecord, EndpointRecord, EventRecord } from '../core/store/webhook-records.js';
import type { ClockState } from '../core/store/sandbox-store.js';
import type { PaymentRequestRecord } from '../core/store/payment-request.js';
import type { WalletRecord, WalletTransactionRecord } from '../core/store/wallet-records.js';
import { StoreFileError } from './store-file-error.js';
import { storedRecordProblem, type StoredRecordKind } from './stored-records.js';
import { isClockState, isJsonObject, isStoredAccount } from './stored-values.js';

/** The `format` field that marks a file as ours. */
export const SNAPSHOT_FORMAT = 'lnpr-sandbox';
/** The only version this code reads and writes. */
export const SNAPSHOT_VERSION = 1;

/** The data file's content. */
export interface Snapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  /** The last journal sequence whose effect is included. */
  sequence: number;
  paymentRequests: PaymentRequestRecord[];
  clocks: Record<string, ClockState>;
  /** Webhook endpoints, events and delivery attempts; absent in files written before webhooks. */
  endpoints?: EndpointRecord[];
  events?: EventRecord[];
  deliveries?: DeliveryRecord[];
  /** Accounts made through the accounts API (keys as SHA-256 digests); absent in files written before them. */
  accounts?: AccountRecord[];
  /** Test wallets (with their Nostr secrets) and wallet transactions; absent in files written before them. */
  wallets?: WalletRecord[];
  walletTransactions?: WalletTransactionRecord[];
}

/** The content of a new data file. */
export function emptySnapshot(): Snapshot {
  return { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, sequence: 0, paymentRequests: [], clocks: {} };
}

/** The lists of records in a data file, with the kind of record each holds. */
const RECORD_LISTS = [
  ['paymentRequests', 'payment request'],
  ['endpoints', 'webhook endpoint'],
  ['events', 'event'],
  ['deliveries', 'delivery attempt'],
  ['wallets', 'test wallet'],
  ['walletTransactions', 'wallet transaction'],
] as const satisfies ReadonlyArray<readonly [keyof Snapshot, StoredRecordKind]>;

/**
 * Parses and checks a data file's text, each record against its schema (stored-records.ts);
 * throws StoreFileError naming `file` and the problem: for a record, its place, id and field.
 */
export function parseSnapshot(text: string, file: string): Snapshot {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new StoreFileError(file, `not a JSON file (${(error as Error).message})`);
  }
  if (!isJsonObject(data) || data.format !== SNAPSHOT_FORMAT) {
    throw new StoreFileError(file, `not an lnpr-sandbox data file (no "format": "${SNAPSHOT_FORMAT}")`);
  }
  if (data.version !== SNAPSHOT_VERSION) {
    throw new StoreFileError(
      file,
      `format version ${JSON.stringify(data.version)} is not supported (this lnpr-sandbox reads version ${SNAPSHOT_VERSION})`,
    );
  }
  const { sequence, clocks } = data;
  if (!Number.isSafeInteger(sequence) || (sequence as number) < 0) {
    throw new StoreFileError(file, '"sequence" is not a non-negative integer');
  }
  if (!Array.isArray(data.paymentRequests)) throw new StoreFileError(file, '"paymentRequests" is not an array');
  if (!isJsonObject(clocks)) throw new StoreFileError(file, '"clocks" is not an object');
  const badClock = Object.entries(clocks).find(([, state]) => !isClockState(state));
  if (badClock) throw new StoreFileError(file, `clocks[${JSON.stringify(badClock[0])}] is not a clock state`);
  for (const [list, kind] of RECORD_LISTS) {
    const items = data[list];
    if (items === undefined) continue;
    if (!Array.isArray(items)) throw new StoreFileError(file, `"${list}" is not an array`);
    for (const [place, item] of items.entries()) {
      const problem = storedRecordProblem(kind, item);
      if (problem !== undefined) throw new StoreFileError(file, `${list}[${place}] is not a valid ${kind}: ${problem}`);
    }
  }
  if (data.accounts !== undefined) {
    if (!Array.isArray(data.accounts)) throw new StoreFileError(file, '"accounts" is not an array');
    const bad = data.accounts.findIndex((account) => !isStoredAccount(account));
    if (bad !== -1) throw new StoreFileError(file, `accounts[${bad}] is not an account (id, mode, name, keys as SHA-256 digests, createdAt)`);
  }
  return data as unknown as Snapshot;
}

/**
 * About how many characters of JSON each chunk of snapshotChunks holds: well under a
 * millisecond of work, and small enough to die young (a large string would go straight to the
 * old generation, whose collection pauses are long).
 */
const CHUNK_CHARS = 1 << 16;
/** Items in an array's first chunk, before their size is known. */
const FIRST_CHUNK_ITEMS = 16;

/**
 * The snapshot's compact JSON, exactly as JSON.stringify would produce it, in chunks of about
 * 64 KB, so a writer can hand them to the disk and yield in between: at 100,000 records the
 * whole document is ~85 MB, and building it as one string stalls every request for ~0.5 s.
 * Every array in the snapshot (payment requests, and whatever kinds of records come next) is
 * written a slice at a time; other values whole.
 */
export function* snapshotChunks(snapshot: Snapshot): Generator<string, void, undefined> {
  let separator = '{';
  for (const [key, value] of Object.entries(snapshot)) {
    if (value === undefined) continue; // as JSON.stringify does
    yield `${separator}${JSON.stringify(key)}:`;
    if (Array.isArray(value)) yield* arrayChunks(value);
    else yield JSON.stringify(value);
    separator = ',';
  }
  yield separator === '{' ? '{}' : '}';
}

/** An array's JSON in chunks; the number of items per chunk follows their measured size. */
function* arrayChunks(items: readonly unknown[]): Generator<string, void, undefined> {
  yield '[';
  let perChunk = FIRST_CHUNK_ITEMS;
  let start = 0;
  while (start < items.length) {
    const slice = items.slice(start, start + perChunk);
    const json = JSON.stringify(slice);
    // The slice's brackets are dropped; a comma joins it to the previous slice.
    yield start === 0 ? json.slice(1, -1) : `,${json.slice(1, -1)}`;
    start += slice.length;
    // Growing at most twofold a step, so a run of small items does not make one huge chunk.
    perChunk = Math.max(1, Math.min(2 * slice.length, Math.round((slice.length * CHUNK_CHARS) / json.length)));
  }
  yield ']';
}
