/**
 * A file operation of the store that failed, with the file it was on: Node's errors from a file
 * handle name no path, and a log line that says "ENOSPC" without the file helps nobody.
 * Browser-safe (only the node store makes them).
 */

/** A failed file operation: its errno code (ENOSPC, EIO, EROFS, EDQUOT…) and the file. */
export class StorageFault extends Error {
  override readonly name = 'StorageFault';

  constructor(
    /** The file the operation was on. */
    readonly path: string,
    /** The errno code, when the system gave one. */
    readonly code: string | undefined,
    /** What went wrong, without the path (e.g. `ENOSPC: no space left on device, write`). */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${path}: ${reason}`, options);
  }

  /** `error` as a fault on `path`; a fault already stays as it is. */
  static of(error: unknown, path: string): StorageFault {
    if (error instanceof StorageFault) return error;
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : String(error);
    return new StorageFault(path, typeof code === 'string' ? code : undefined, message, { cause: error });
  }
}
