/**
 * One process per data file: two writers appending to one journal would interleave and lose
 * acknowledged writes. The lock is a file created exclusively (`wx`) holding the owner's pid;
 * a lock whose process is gone (a crash, a SIGKILL) is stale and taken over.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

/** Refusal to open a data file that another live process holds. */
export class StoreLockedError extends Error {
  override readonly name = 'StoreLockedError';

  constructor(
    readonly dataFile: string,
    readonly lockFile: string,
    /** The holder's pid; null when the lock file names none. */
    readonly pid: number | null,
  ) {
    super(
      pid === null
        ? `${dataFile} is locked: ${lockFile} exists but names no process. ` +
            `If no other lnpr process uses ${dataFile}, delete ${lockFile} and start again.`
        : `${dataFile} is in use by process ${pid} (lock file ${lockFile}). ` +
            `Stop that process or give this one another data file; if process ${pid} is not lnpr, delete ${lockFile}.`,
    );
  }
}

/** A held lock. */
export interface FileLock {
  /** Deletes the lock file, unless another process has since taken it over. */
  release(): void;
}

/** Takes the lock beside `dataFile`, or throws StoreLockedError if a live process holds it. */
export function acquireLock(dataFile: string, lockFile = `${dataFile}.lock`): FileLock {
  const ours = String(process.pid);
  const release = () => {
    if (readHolder(lockFile) === process.pid) rmSync(lockFile, { force: true });
  };
  // A few rounds: the lock may be released, or a stale one removed, between our steps.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      writeFileSync(lockFile, ours, { flag: 'wx' });
      return { release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(lockFile);
    if (holder === 'gone') continue;
    // No pid may mean the holder is between creating the file and writing it: never steal that.
    if (holder === null || isAlive(holder)) throw new StoreLockedError(dataFile, lockFile, holder);
    rmSync(lockFile, { force: true });
  }
  // Other processes keep racing us for a stale lock: let the user sort it out.
  const holder = readHolder(lockFile);
  throw new StoreLockedError(dataFile, lockFile, holder === 'gone' ? null : holder);
}

/** The pid in the lock file; null if it names none, 'gone' if there is no lock file. */
function readHolder(lockFile: string): number | null | 'gone' {
  let text: string;
  try {
    text = readFileSync(lockFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
