/**
 * One line of the journal: a write, numbered. The same entry is applied to the index when the
 * write is made and again when the journal is replayed, so both paths cannot drift apart.
 * Browser-safe.
 */
import type { ClockState, StoreChange } from '../core/store/sandbox-store.js';
import type { PaymentRequestRecord } from '../core/store/payment-request.js';
import type { StoreIndex } from './store-index.js';
import { storeChangeProblem, storedRecordProblem } from './stored-records.js';
import { isClockState, isJsonObject, isStoreChange } from './stored-values.js';

/** A write as the journal holds it; `seq` counts up by one from the first write ever made. */
export type JournalEntry =
  | { seq: number; op: 'put'; record: PaymentRequestRecord }
  | { seq: number; op: 'deleteAccount'; accountId: string }
  | { seq: number; op: 'clock'; accountId: string; state: ClockState }
  | { seq: number; op: 'change'; change: StoreChange };

/** Applies an entry's write to the index. */
export function applyJournalEntry(index: StoreIndex, entry: JournalEntry): void {
  switch (entry.op) {
    case 'put':
      index.put(entry.record);
      break;
    case 'deleteAccount':
      index.deleteAccount(entry.accountId);
      break;
    case 'clock':
      index.setClock(entry.accountId, entry.state);
      break;
    case 'change':
      index.apply(entry.change);
      break;
  }
}

/** The entry as one journal line, newline included. */
export function formatJournalLine(entry: JournalEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

/** Parses one journal line (without its newline), or says why it is not an entry. */
export function parseJournalLine(line: string): { entry: JournalEntry } | { invalid: string } {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch (error) {
    return { invalid: `not JSON (${(error as Error).message})` };
  }
  if (!isJsonObject(entry) || !Number.isSafeInteger(entry.seq) || (entry.seq as number) < 1) {
    return { invalid: 'no positive integer "seq"' };
  }
  const problem = problemOf(entry);
  return problem === undefined ? { entry: entry as unknown as JournalEntry } : { invalid: `not a valid "${String(entry.op)}" entry: ${problem}` };
}

/** What is wrong with an entry's write (each record checked against its schema), or undefined. */
function problemOf(entry: Record<string, unknown>): string | undefined {
  switch (entry.op) {
    case 'put':
      return storedRecordProblem('payment request', entry.record);
    case 'deleteAccount':
      return typeof entry.accountId === 'string' ? undefined : '"accountId" is not a string';
    case 'clock':
      return typeof entry.accountId === 'string' && isClockState(entry.state) ? undefined : 'no string "accountId" and clock "state"';
    case 'change':
      return isStoreChange(entry.change) ? storeChangeProblem(entry.change as StoreChange) : 'its "change" is not lists of records and ids';
    default:
      return 'no such operation';
  }
}
