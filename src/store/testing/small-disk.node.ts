/**
 * Test support: a real full disk. Mounts a small tmpfs (root only: Linux CI and this machine run
 * tests as root), fills it with a filler file until the kernel answers ENOSPC, and frees it
 * again. A real file system, not a mocked `fs`, so every path that writes meets the same errors
 * users would.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A mounted tmpfs. */
export interface SmallDisk {
  /** Where it is mounted. */
  directory: string;
  /** Writes a filler file until the disk is full (ENOSPC even for one byte). */
  fill(): void;
  /** Deletes the filler. */
  free(): void;
  /** Unmounts and deletes the mount point; safe to call twice. */
  unmount(): void;
}

/** Mounts a tmpfs of `size` (e.g. `2m`); resolves with why not when mounting is refused (not root). */
export function mountSmallDisk(size: string): SmallDisk | { refused: string } {
  const directory = mkdtempSync(join(tmpdir(), 'lnpr-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', directory], { stdio: 'pipe' });
  } catch (error) {
    rmdirSync(directory);
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { refused: stderr || (error as Error).message };
  }
  const filler = join(directory, 'filler');
  let mounted = true;
  return {
    directory,
    fill() {
      const fd = openSync(filler, 'a');
      try {
        // Big pieces, then smaller ones, down to a byte: no room left anywhere in the filler.
        for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 8, 1]) {
          const piece = Buffer.alloc(size, 0x20);
          for (;;) {
            try {
              writeSync(fd, piece);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
              throw error;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      if (!mounted) return;
      execFileSync('umount', ['-l', directory], { stdio: 'pipe' });
      mounted = false;
      rmdirSync(directory);
    },
  };
}
