/**
 * Accounts and API keys. A key maps to an account (or to none: a key that only manages accounts)
 * and a set of permissions; the account decides the payment mode (custodial, or NWC through its
 * connected wallet). Accounts come from the accounts file and, while the sandbox runs, from the
 * accounts API, which adds and removes them. Keys are compared through their SHA-256 digests in
 * constant time, so neither timing nor logs reveal them; a created account's keys are known here
 * only as digests.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Rule } from '../../schemas/rules.js';
import type { EventType } from '../../schemas/webhooks.js';
import { ApiError } from '../errors/errors.js';
import type { AccountRecord, Permission } from '../store/account-record.js';

export type { Permission } from '../store/account-record.js';

/** An endpoint fixed at start (`--webhook`, accounts file): its secret may be given. */
export interface ConfiguredEndpoint {
  url: string;
  secret?: string;
  events?: EventType[];
}

/** An account as configured (accounts.json or `--config`). */
export interface AccountConfig {
  id: string;
  mode: 'custodial' | 'nwc';
  /** The relay of the account's Nostr Wallet Connect connection; required for `nwc`. */
  nwcRelay?: string;
  /** Hex private key of the connected wallet's node, which signs this account's invoices; an NWC account needs it or `nwcUrl`. */
  walletNodeKey?: string;
  /** An NWC account's connected wallet run elsewhere (`nostr+walletconnect://…`), instead of one the sandbox runs. */
  nwcUrl?: string;
  /** Webhook endpoints the account has from the start. */
  webhooks?: ConfiguredEndpoint[];
}

/** An API key as configured; a key without an account may only have the `accounts` permission. */
export interface ApiKeyConfig {
  key: string;
  account?: string;
  permissions: Permission[];
}

/** The accounts file: the default one is `fixtures/accounts.json`. */
export interface AccountsConfig {
  /** Hex private key of the service's node, which signs custodial invoices. */
  serviceNodeKey?: string;
  accounts: AccountConfig[];
  keys: ApiKeyConfig[];
  /** Behaviour rules in force from the start. */
  rules?: Rule[];
}

/** An account ready for the engine. */
export interface Account {
  id: string;
  isNwc: boolean;
  nwcRelay?: string;
  /** Only for NWC accounts whose wallet the sandbox runs; custodial ones are signed by the service's node key. */
  walletNodeKey?: Uint8Array;
  /** An NWC account's connected wallet elsewhere, by its connection URL. */
  nwcUrl?: string;
}

/** Whoever holds a valid key: the account behind it (none for a key that only manages accounts) and what it may do. */
export interface KeyHolder {
  account: Account | undefined;
  permissions: ReadonlySet<Permission>;
}

/** A caller acting on an account: the account behind the key and what the key may do. */
export interface Caller extends KeyHolder {
  account: Account;
}

interface KeyEntry {
  digest: Uint8Array;
  holder: KeyHolder;
}

/** How many removed accounts' ids a directory remembers (far more than can be removed while one read of the accounts is under way). */
const REMEMBERED_REMOVALS = 10_000;

/** Looks key holders up by API key; accounts may be added and removed while it serves. */
export class AccountDirectory {
  readonly #accounts = new Map<string, Account>();
  readonly #configured = new Set<string>();
  /** The accounts API's accounts, oldest first (Map keeps insertion order). */
  readonly #created = new Map<string, AccountRecord>();
  /** Every key; replaced (never changed in place) when accounts come and go. */
  #keys: KeyEntry[] = [];
  /** Valid keys seen before, so a known key skips hashing; bounded by the number of keys, and purged with their account. */
  readonly #known = new Map<string, KeyHolder>();
  /**
   * The `Bearer <key>` headers of those keys, so the usual spelling skips parsing too. A map of its
   * own: a bare key sent as the whole header must still be refused (only Bearer authenticates).
   */
  readonly #knownHeaders = new Map<string, KeyHolder>();
  /**
   * The ids of the accounts removed lately, newest last: a read of the stored accounts that began
   * before a removal was written must not bring the account back (replicas read them often).
   */
  readonly #removed = new Set<string>();

  /** The configured accounts and keys, and the created accounts a store kept (`created`). */
  constructor(config: AccountsConfig, created: Iterable<AccountRecord> = []) {
    for (const a of config.accounts) {
      if (this.#accounts.has(a.id)) throw new Error(`accounts: the id ${a.id} appears twice`);
      if (a.mode === 'nwc' && !a.walletNodeKey && !a.nwcUrl) {
        throw new Error(`accounts: the NWC account ${a.id} needs walletNodeKey (a wallet the sandbox runs) or nwcUrl (one elsewhere)`);
      }
      this.#accounts.set(a.id, { ...accountOf(a.id, a.mode, a.nwcRelay, a.walletNodeKey), ...(a.mode === 'nwc' && a.nwcUrl ? { nwcUrl: a.nwcUrl } : {}) });
      this.#configured.add(a.id);
    }
    const seen = new Set<string>();
    this.#keys = config.keys.map((k, index) => {
      if (seen.has(k.key)) throw new Error(`accounts: key #${index + 1} is listed twice`);
      seen.add(k.key);
      let account: Account | undefined;
      if (k.account !== undefined) {
        account = this.#accounts.get(k.account);
        if (!account) throw new Error(`accounts: key #${index + 1} names the unknown account ${k.account}`);
      } else if (k.permissions.some((permission) => permission !== 'accounts')) {
        throw new Error(`accounts: key #${index + 1} has no account, so it may only have the accounts permission`);
      }
      return { digest: sha256(utf8ToBytes(k.key)), holder: { account, permissions: new Set(k.permissions) } };
    });
    // A configured account wins over a kept one with the same id (a changed --config).
    for (const record of created) if (!this.#accounts.has(record.id)) this.add(record);
  }

  /** Every account, configured and created, by id. */
  get accounts(): ReadonlyMap<string, Account> {
    return this.#accounts;
  }

  /** The created accounts as stored, oldest first. */
  createdAccounts(): AccountRecord[] {
    return Array.from(this.#created.values());
  }

  /** How many accounts the accounts API made (and has not deleted). */
  get createdCount(): number {
    return this.#created.size;
  }

  /** Whether the account comes from the accounts file (and so cannot be deleted). */
  isConfigured(accountId: string): boolean {
    return this.#configured.has(accountId);
  }

  /** Adds a created account and its keys; they work from now on (again, if it was removed). */
  add(record: AccountRecord): Account {
    if (this.#accounts.has(record.id)) throw new Error(`accounts: the id ${record.id} is taken`);
    this.#removed.delete(record.id);
    const account = accountOf(record.id, record.mode, record.nwcRelay, record.walletNodeKey);
    this.#accounts.set(record.id, account);
    this.#created.set(record.id, record);
    const entries = record.keys.map(({ sha256: digest, permissions }) => ({ digest: hexToBytes(digest), holder: { account, permissions: new Set(permissions) } }));
    this.#keys = [...this.#keys, ...entries];
    return account;
  }

  /**
   * Removes a created account: its keys stop working at once. False when there is no such created
   * account. A deletion is remembered (`wasRemoved`); `remember: false` is for an account a read of
   * the stored accounts did not find, which a later read may find after all (its write was in flight).
   */
  remove(accountId: string, { remember = true }: { remember?: boolean } = {}): boolean {
    if (!this.#created.delete(accountId)) return false;
    if (remember) {
      this.#removed.add(accountId);
      if (this.#removed.size > REMEMBERED_REMOVALS) this.#removed.delete(this.#removed.values().next().value!);
    }
    this.#accounts.delete(accountId);
    this.#keys = this.#keys.filter(({ holder }) => holder.account?.id !== accountId);
    for (const known of [this.#known, this.#knownHeaders]) for (const [text, holder] of known) if (holder.account?.id === accountId) known.delete(text);
    return true;
  }

  /** Whether the account was deleted lately (and not added again): a stored copy read earlier is stale. */
  wasRemoved(accountId: string): boolean {
    return this.#removed.has(accountId);
  }

  /** The holder of the key in an `Authorization` header value; throws `unauthorized` when there is none. */
  identify(authorization: string | undefined): KeyHolder {
    // The usual spelling of a key seen before (`Bearer <key>`) is found without parsing the header.
    const known = authorization === undefined ? undefined : this.#knownHeaders.get(authorization);
    if (known !== undefined) return known;
    if (authorization === undefined || authorization === '') {
      throw new ApiError('unauthorized', 'Missing API key: send "Authorization: Bearer <API_KEY>".');
    }
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!match) {
      throw new ApiError('unauthorized', 'Malformed Authorization header: expected "Bearer <API_KEY>".');
    }
    const key = match[1]!;
    // A key that already proved valid is found by a hash lookup of the whole string, which tells
    // nothing about how much of any stored key a guess matches; every other key takes the
    // constant-time path. Only valid keys are ever remembered, so the map stays small.
    const holder = this.#known.get(key) ?? this.#lookUp(key);
    if (!holder) throw new ApiError('unauthorized', 'Invalid API key.');
    this.#known.set(key, holder);
    if (authorization === `Bearer ${key}`) this.#knownHeaders.set(authorization, holder);
    return holder;
  }

  /** The caller behind an `Authorization` header value, which must be a key of an account (401 otherwise). */
  authenticate(authorization: string | undefined): Caller {
    const holder = this.identify(authorization);
    requireAccount(holder);
    return holder;
  }

  // Every key is compared, whether or not an earlier one matched, so the time taken depends on
  // neither which key matched nor how much of it did (only on how many keys there are).
  #lookUp(key: string): KeyHolder | undefined {
    const digest = sha256(utf8ToBytes(key));
    const keys = this.#keys;
    let found: KeyHolder | undefined;
    for (let i = 0; i < keys.length; i++) {
      const entry = keys[i]!;
      let difference = 0;
      for (let j = 0; j < 32; j++) difference |= entry.digest[j]! ^ digest[j]!;
      if (difference === 0) found = entry.holder;
    }
    return found;
  }
}

function accountOf(id: string, mode: 'custodial' | 'nwc', nwcRelay: string | undefined, walletNodeKey: string | undefined): Account {
  return {
    id,
    isNwc: mode === 'nwc',
    ...(mode === 'nwc' ? { ...(nwcRelay ? { nwcRelay } : {}), ...(walletNodeKey ? { walletNodeKey: hexToBytes(walletNodeKey) } : {}) } : {}),
  };
}

/** What a key without each permission is told. */
const PERMISSION_REFUSALS: Readonly<Record<Permission, string>> = {
  read: 'This API key may not read this account.',
  create: 'This API key is read-only: it may read, not create or change anything.',
  accounts: 'This API key may not manage accounts: that takes a key with the accounts permission.',
};

/** Throws `insufficient_permission` unless the holder may do `permission`. */
export function requirePermission(holder: KeyHolder, permission: Permission): void {
  if (!holder.permissions.has(permission)) {
    throw new ApiError('insufficient_permission', PERMISSION_REFUSALS[permission]);
  }
}

/** Throws `insufficient_permission` unless the key belongs to an account (a key that only manages accounts has none). */
export function requireAccount(holder: KeyHolder): asserts holder is Caller {
  if (holder.account === undefined) {
    throw new ApiError(
      'insufficient_permission',
      'This API key only manages accounts (POST, GET and DELETE /sandbox/v1/accounts): it has no account of its own. Use a key of an account, such as the keys an account is created with.',
    );
  }
}
