/**
 * Recovery at open: folds into the index every journal entry the snapshot does not include,
 * rotated journals first (oldest first), then the active one. Sequences make this safe to
 * repeat (entries the snapshot already holds are skipped) and make a lost entry detectable.
 */
import { truncate } from 'node:fs/promises';
import { applyJournalEntry } from './journal-entry.js';
import { activeJournalPath, listRotatedJournals } from './journal-files.node.js';
import { readJournal } from './journal-reader.node.js';
import { StoreFileError } from './store-file-error.js';
import type { StoreIndex } from './store-index.js';
import type { StoreNotice } from './store-notice.js';

/**
 * Applies the journal entries after `snapshotSequence`; returns the last sequence applied. A torn
 * last line is dropped, and `onNotice` hears which and how much.
 */
export async function replayJournals(
  dataFile: string,
  index: StoreIndex,
  snapshotSequence: number,
  onNotice: (notice: StoreNotice) => void,
): Promise<number> {
  const active = activeJournalPath(dataFile);
  const files = [...(await listRotatedJournals(dataFile)).map((journal) => journal.path), active];
  let lastSequence = snapshotSequence;
  for (const file of files) {
    const contents = await readJournal(file);
    if (!contents) continue;
    for (const [lineIndex, entry] of contents.entries.entries()) {
      if (entry.seq <= lastSequence) continue;
      if (entry.seq !== lastSequence + 1) {
        throw new StoreFileError(
          file,
          `line ${lineIndex + 1} has sequence ${entry.seq} but the last one before it is ${lastSequence}: ` +
            'journal entries are missing (was a journal file deleted?)',
        );
      }
      applyJournalEntry(index, entry);
      lastSequence = entry.seq;
    }
    const torn = contents.totalBytes - contents.completeBytes;
    if (torn === 0) continue;
    onNotice({
      level: 'warn',
      path: file,
      message:
        `${file}: dropped a torn last line (line ${contents.entries.length + 1}, ${torn} bytes): ` +
        'a write cut short by a crash or a failed write, never acknowledged',
    });
    // New entries are appended to the active journal: they must not follow a torn fragment.
    if (file === active) await truncate(file, contents.completeBytes);
  }
  return lastSequence;
}
