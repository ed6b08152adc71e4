/**
 * Reads a journal file back. A last line without its newline is a write torn by a crash: it was
 * never acknowledged (acknowledgement waits for the whole line), so it is dropped. Any other
 * bad line means the file was damaged, and guessing past it could lose or invent writes.
 */
import { readFile } from 'node:fs/promises';
import { parseJournalLine, type JournalEntry } from './journal-entry.js';
import { StoreFileError } from './store-file-error.js';

/** The entries of a journal file and where its complete lines end. */
export interface JournalContents {
  entries: JournalEntry[];
  /** Bytes up to and including the last newline; anything after is a torn write. */
  completeBytes: number;
  /** Bytes in the file. */
  totalBytes: number;
}

/** Reads a journal; null if the file does not exist. Throws StoreFileError on a damaged line. */
export async function readJournal(path: string): Promise<JournalContents | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const completeBytes = bytes.lastIndexOf(0x0a) + 1;
  const lines = bytes.subarray(0, completeBytes).toString('utf8').split('\n');
  lines.pop(); // the empty string after the last newline
  const entries = lines.map((line, lineIndex) => {
    const parsed = parseJournalLine(line);
    if ('invalid' in parsed) throw new StoreFileError(path, `line ${lineIndex + 1} is damaged: ${parsed.invalid}`);
    return parsed.entry;
  });
  return { entries, completeBytes, totalBytes: bytes.length };
}
