/**
 * A replica's directory brought up to date with the accounts the database holds (the accounts
 * API's; another replica may have made or deleted one). A read that began before this replica
 * deleted an account may still hold it: an account deleted here is never brought back by such a
 * read. One that a read did not find is taken out, but not for good: a creation here may have been
 * in flight (a request for it reads the accounts again before it is served or refused).
 */
import type { AccountDirectory } from '../core/accounts/accounts.js';
import type { AccountRecord } from '../core/store/account-record.js';

/**
 * Adds the stored accounts the directory lacks and removes those no longer stored, except one of
 * this replica's own (`servedHere`), whose write may still be in flight.
 */
export function mergeStoredAccounts(directory: AccountDirectory, stored: readonly AccountRecord[], servedHere: (accountId: string) => boolean): void {
  const ids = new Set(stored.map((record) => record.id));
  for (const record of stored) if (!directory.accounts.has(record.id) && !directory.wasRemoved(record.id)) directory.add(record);
  // Not remembered as deleted: one this replica is making may be missing from a read begun before its write.
  for (const created of directory.createdAccounts()) if (!ids.has(created.id) && !servedHere(created.id)) directory.remove(created.id, { remember: false });
}
