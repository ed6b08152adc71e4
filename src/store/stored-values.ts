/**
 * Shape checks for values read back from disk. They check only what the index relies on (ids,
 * account, payment hash, clock numbers): the engine wrote these values, so a full schema check
 * would cost startup time to catch what only hand edits produce.
 */
import type { AccountRecord } from '../core/store/account-record.js';
import type { ClockState } from '../core/store/sandbox-store.js';
import type { PaymentRequestRecord } from '../core/store/payment-request.js';

/** A plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Enough of a payment request to be indexed. */
export function isIndexableRecord(value: unknown): value is PaymentRequestRecord {
  return (
    isJsonObject(value) &&
    typeof value.id === 'string' &&
    typeof value.accountId === 'string' &&
    typeof value.paymentHash === 'string'
  );
}

/** A clock state: a finite offset and a frozen instant or null. */
export function isClockState(value: unknown): value is ClockState {
  return (
    isJsonObject(value) &&
    Number.isFinite(value.offsetMs) &&
    (value.frozenAtMs === null || Number.isFinite(value.frozenAtMs))
  );
}

/** Enough of an endpoint, event or delivery attempt to be indexed. */
export function isAccountRecord(value: unknown): value is { id: string; accountId: string } {
  return isJsonObject(value) && typeof value.id === 'string' && typeof value.accountId === 'string';
}

/** An account made through the accounts API: an id, a mode, a name or null, and keys as SHA-256 digests. */
export function isStoredAccount(value: unknown): value is AccountRecord {
  return (
    isJsonObject(value) &&
    typeof value.id === 'string' &&
    (value.mode === 'custodial' || (value.mode === 'nwc' && typeof value.nwcRelay === 'string' && typeof value.walletNodeKey === 'string' && /^[0-9a-f]{64}$/.test(value.walletNodeKey))) &&
    (value.name === null || typeof value.name === 'string') &&
    typeof value.createdAt === 'string' &&
    Array.isArray(value.keys) &&
    value.keys.every((key) => isJsonObject(key) && typeof key.sha256 === 'string' && /^[0-9a-f]{64}$/.test(key.sha256) && Array.isArray(key.permissions))
  );
}

/** A store change (see StoreChange) whose parts can be indexed. */
export function isStoreChange(value: unknown): boolean {
  if (!isJsonObject(value)) return false;
  const lists = [
    'paymentRequests',
    'events',
    'deliveries',
    'endpoints',
    'deletedEndpoints',
    'clearedAccounts',
    'accounts',
    'deletedAccounts',
    'wallets',
    'deletedWallets',
    'walletTransactions',
  ] as const;
  if (!lists.every((list) => value[list] === undefined || Array.isArray(value[list]))) return false;
  const items = (list: (typeof lists)[number]) => (value[list] as unknown[] | undefined) ?? [];
  return (
    items('paymentRequests').every(isIndexableRecord) &&
    (['events', 'deliveries', 'endpoints'] as const).every((list) => items(list).every(isAccountRecord)) &&
    items('deletedEndpoints').every((id) => typeof id === 'string') &&
    items('clearedAccounts').every((clearing) => isJsonObject(clearing) && typeof clearing.accountId === 'string' && typeof clearing.endpoints === 'boolean') &&
    items('accounts').every(isStoredAccount) &&
    items('deletedAccounts').every((id) => typeof id === 'string') &&
    items('deletedWallets').every((id) => typeof id === 'string')
  );
}
