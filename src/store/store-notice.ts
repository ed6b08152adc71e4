/**
 * What a store has to tell its operator: writes failing (with the errno code and the file) and
 * succeeding again, a compaction failing, a torn journal line dropped at start. The store never
 * logs by itself; whoever opens it decides where notices go. Browser-safe.
 */

/** One thing the store reports. */
export interface StoreNotice {
  /** `error`: writes are refused; `warn`: something was dropped or postponed; `info`: back to normal. */
  level: 'error' | 'warn' | 'info';
  /** A line for people: what happened, to which file, why, and what the store does about it. */
  message: string;
  /** The errno code (ENOSPC, EIO, …) when a file operation failed. */
  code?: string;
  /** The file concerned. */
  path?: string;
}

/** Where notices go when nobody says: one line each on the console's error stream. */
export function printStoreNotice(notice: StoreNotice): void {
  console.error(`lnpr-sandbox: ${notice.message}`);
}
