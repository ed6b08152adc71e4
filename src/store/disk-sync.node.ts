/**
 * fsync helper. Writing a file is not enough to survive a power loss: its data must be synced
 * (the writer does that on its own handle), and so must its directory when the file was created
 * or renamed into place.
 */
import { open } from 'node:fs/promises';

/** Makes creations, renames and deletions in a directory durable. */
export async function syncDirectory(path: string): Promise<void> {
  // Windows cannot open a directory for syncing; NTFS journals its metadata itself.
  if (process.platform === 'win32') return;
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
