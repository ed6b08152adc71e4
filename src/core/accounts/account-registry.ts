/**
 * The accounts API: accounts made and deleted while the sandbox runs, so that test runs sharing
 * one sandbox each take an account of their own. A new account is empty, with its own clock and
 * two random keys (create+read, read only) that only the answer creating it shows: the directory
 * and the store keep their SHA-256 digests. Accounts of the accounts file are listed too, and
 * cannot be deleted (they would come back at the next start): a reset empties them instead.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { AccountView, CreateAccountBody, CreatedAccount } from '../../schemas/accounts.js';
import { newId, randomBase62 } from '../ids.js';
import { ApiError } from '../errors/errors.js';
import type { RandomSource, WallClock } from '../ports.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import type { AccountRecord } from '../store/account-record.js';
import type { AccountDirectory, AccountsConfig } from './accounts.js';

/**
 * Accounts the API may hold at once: far more than parallel test runs need, few enough that a
 * loop cannot grow the sandbox (and the key table every unknown key is compared with) unbounded.
 */
export const MAX_CREATED_ACCOUNTS = 1_000;

/** Characters of a key after `sk_test_`: 32 base62 characters, ~190 bits. */
const KEY_LENGTH = 32;

/** The relay of a new NWC account when the accounts file has no NWC account to borrow it from. */
export const DEFAULT_NWC_RELAY = 'wss://relay.sandbox.lnpr.test';

/** What the registry needs. */
export interface AccountRegistryDeps {
  directory: AccountDirectory;
  store: SandboxStore;
  wall: WallClock;
  /** Crypto-strong: keys and wallet node keys are secrets. */
  random: RandomSource;
  /** Erases a deleted account's data. */
  data: { remove(accountId: string): Promise<void> };
  /** The accounts file: a new NWC account uses the relay of its first NWC account. */
  config: AccountsConfig;
}

/** Creates, lists and deletes accounts. */
export class AccountRegistry {
  readonly #deps: AccountRegistryDeps;
  readonly #nwcRelay: string;

  constructor(deps: AccountRegistryDeps) {
    this.#deps = deps;
    this.#nwcRelay = deps.config.accounts.find((account) => account.mode === 'nwc')?.nwcRelay ?? DEFAULT_NWC_RELAY;
  }

  /** Makes an empty account with two new keys; resolves once it is stored durably. */
  async create(body: CreateAccountBody): Promise<CreatedAccount> {
    const { directory, store, wall, random } = this.#deps;
    if (directory.createdCount >= MAX_CREATED_ACCOUNTS) {
      throw new ApiError(
        'account_limit_reached',
        `The sandbox already holds ${MAX_CREATED_ACCOUNTS.toLocaleString('en')} accounts made through the API, the most it may; delete some first (DELETE /sandbox/v1/accounts/{id}).`,
      );
    }
    const secret = newApiKey(random);
    const readOnly = newApiKey(random);
    const record: AccountRecord = {
      id: newId('acct_', random),
      name: body.name ?? null,
      mode: body.mode,
      ...(body.mode === 'nwc' ? { nwcRelay: this.#nwcRelay, walletNodeKey: bytesToHex(newNodeKey(random)) } : {}),
      keys: [
        { sha256: digestOf(secret), permissions: ['create', 'read'] },
        { sha256: digestOf(readOnly), permissions: ['read'] },
      ],
      createdAt: new Date(wall.now()).toISOString(),
    };
    // In the directory at once, like every write is in the index at once: the bound holds for
    // creations in flight too. A write the store refuses takes the account back out.
    directory.add(record);
    try {
      await store.commit({ accounts: [record] });
    } catch (error) {
      directory.remove(record.id);
      throw error;
    }
    return { ...viewOf(record), configured: false, createdAt: record.createdAt, keys: { secret, readOnly } };
  }

  /** Every account, newest first: created ones by creation, then those of the accounts file; at most `limit`. */
  list(limit: number): AccountView[] {
    const { directory, config } = this.#deps;
    const created = directory.createdAccounts().reverse().map(viewOf);
    const configured = config.accounts.map(({ id, mode }): AccountView => ({ id, name: null, mode, configured: true, createdAt: null }));
    return [...created, ...configured].slice(0, limit);
  }

  /** Deletes a created account, its keys and all its data; 404 for an unknown id, 409 for one of the accounts file. */
  async delete(accountId: string): Promise<void> {
    const { directory, data } = this.#deps;
    if (directory.isConfigured(accountId)) {
      throw new ApiError(
        'account_not_deletable',
        `The account ${accountId} comes from the accounts file (lnpr serve --config) and cannot be deleted; POST /sandbox/v1/reset {"scope": "all"} with its key empties it.`,
      );
    }
    const record = directory.createdAccounts().find((account) => account.id === accountId);
    if (record === undefined) throw new ApiError('account_not_found', `No account with the id ${JSON.stringify(accountId.slice(0, 64))}.`);
    // Its keys stop working before anything of it is erased; a write the store refuses leaves the
    // account as it was (the store keeps it), so its keys come back and the deletion can be retried.
    directory.remove(accountId);
    try {
      await data.remove(accountId);
    } catch (error) {
      if (!directory.accounts.has(accountId)) directory.add(record);
      throw error;
    }
  }
}

function viewOf(record: AccountRecord): AccountView {
  return { id: record.id, name: record.name, mode: record.mode, configured: false, createdAt: record.createdAt };
}

/** A new API key: `sk_test_` and 32 random base62 characters. */
function newApiKey(random: RandomSource): string {
  return `sk_test_${randomBase62(KEY_LENGTH, random)}`;
}

function digestOf(key: string): string {
  return bytesToHex(sha256(utf8ToBytes(key)));
}

/** A random secp256k1 private key: the node key of a new NWC account's connected wallet. */
function newNodeKey(random: RandomSource): Uint8Array {
  for (;;) {
    const key = random.bytes(32);
    // Out of range (0 or >= n) with probability ~2^-128: draw again.
    if (secp256k1.utils.isValidSecretKey(key)) return key;
  }
}
