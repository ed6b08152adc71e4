/**
 * The store's files are its owner's alone: the data file and the journal hold webhook secrets in
 * plain text (fine for a test tool on a machine of one's own, not for everyone on it to read).
 */
import { chmod, stat } from 'node:fs/promises';

/** The mode every file of the store is created with: read and write for its owner only. */
export const FILE_MODE = 0o600;

/**
 * Takes group and other access away from `path` if it has any (a file made before files were
 * created 0600); resolves with why not when that fails, undefined otherwise (or if it is missing).
 */
export async function restrictToOwner(path: string): Promise<Error | undefined> {
  try {
    const { mode } = await stat(path);
    if ((mode & 0o077) !== 0) await chmod(path, FILE_MODE);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : (error as Error);
  }
}
