/**
 * Where journals live beside the data file. The active journal is `FILE.journal`; compaction
 * renames it `FILE.journal.N`, N being its last sequence, so replay can order the files and
 * compaction can tell which ones a snapshot has made redundant.
 */
import { readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The journal new writes are appended to. */
export function activeJournalPath(dataFile: string): string {
  return `${dataFile}.journal`;
}

/** The name a journal takes when rotated out, after the last sequence it holds. */
export function rotatedJournalPath(dataFile: string, lastSequence: number): string {
  return `${activeJournalPath(dataFile)}.${lastSequence}`;
}

/** A journal rotated out but not yet deleted. */
export interface RotatedJournal {
  path: string;
  lastSequence: number;
}

/** The rotated journals beside the data file, oldest first. */
export async function listRotatedJournals(dataFile: string): Promise<RotatedJournal[]> {
  const prefix = `${basename(activeJournalPath(dataFile))}.`;
  const directory = dirname(dataFile);
  const journals: RotatedJournal[] = [];
  for (const name of await readdir(directory)) {
    const suffix = name.slice(prefix.length);
    if (name.startsWith(prefix) && /^\d+$/.test(suffix)) {
      journals.push({ path: join(directory, name), lastSequence: Number(suffix) });
    }
  }
  return journals.sort((a, b) => a.lastSequence - b.lastSequence);
}

/** Deletes the rotated journals whose every entry is at or before `sequence`. */
export async function removeRotatedJournals(dataFile: string, sequence: number): Promise<void> {
  for (const journal of await listRotatedJournals(dataFile)) {
    if (journal.lastSequence <= sequence) await rm(journal.path, { force: true });
  }
}
