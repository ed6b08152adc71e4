/**
 * Accounts and API keys. A key maps to one account and a set of permissions; the account decides
 * the payment mode (custodial, or NWC through its connected wallet). Keys are compared through
 * their SHA-256 digests in constant time, so neither timing nor logs reveal them.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Rule } from '../../schemas/rules.js';
import type { ConfiguredEndpoint } from '../webhooks/webhook-endpoints.js';
import { ApiError } from '../pipeline/errors.js';

/** What a key may do. Reading covers both GET endpoints. */
export type Permission = 'create' | 'read';

/** An account as configured (accounts.json or `--config`). */
export interface AccountConfig {
  id: string;
  mode: 'custodial' | 'nwc';
  /** The relay of the account's Nostr Wallet Connect connection; required for `nwc`. */
  nwcRelay?: string;
  /** Hex private key of the connected wallet's node, which signs this account's invoices; required for `nwc`. */
  walletNodeKey?: string;
  /** Webhook endpoints the account has from the start. */
  webhooks?: ConfiguredEndpoint[];
}

/** An API key as configured. */
export interface ApiKeyConfig {
  key: string;
  account: string;
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
  /** Only for NWC accounts; custodial ones are signed by the service's node key. */
  walletNodeKey?: Uint8Array;
}

/** Who is calling: the account behind the key and what the key may do. */
export interface Caller {
  account: Account;
  permissions: ReadonlySet<Permission>;
}

/** Valid keys seen before, so a known key skips hashing; bounded by the number of configured keys. */
type KnownKeys = Map<string, Caller>;

interface KeyEntry {
  digest: Uint8Array;
  caller: Caller;
}

/** Looks callers up by API key. */
export class AccountDirectory {
  readonly accounts: ReadonlyMap<string, Account>;
  readonly #keys: KeyEntry[];
  readonly #keyCount: number;
  readonly #known: KnownKeys = new Map();

  constructor(config: AccountsConfig) {
    const accounts = new Map<string, Account>();
    for (const a of config.accounts) {
      if (accounts.has(a.id)) throw new Error(`accounts: the id ${a.id} appears twice`);
      if (a.mode === 'nwc' && (!a.nwcRelay || !a.walletNodeKey)) {
        throw new Error(`accounts: the NWC account ${a.id} needs nwcRelay and walletNodeKey`);
      }
      accounts.set(a.id, {
        id: a.id,
        isNwc: a.mode === 'nwc',
        ...(a.mode === 'nwc' ? { nwcRelay: a.nwcRelay, walletNodeKey: hexToBytes(a.walletNodeKey!) } : {}),
      });
    }
    const seen = new Set<string>();
    this.#keys = config.keys.map((k, index) => {
      const account = accounts.get(k.account);
      if (!account) throw new Error(`accounts: key #${index + 1} names the unknown account ${k.account}`);
      if (seen.has(k.key)) throw new Error(`accounts: key #${index + 1} is listed twice`);
      seen.add(k.key);
      return { digest: sha256(utf8ToBytes(k.key)), caller: { account, permissions: new Set(k.permissions) } };
    });
    this.#keyCount = this.#keys.length;
    this.accounts = accounts;
  }

  /** The caller behind an `Authorization` header value; throws `unauthorized` when there is none. */
  authenticate(authorization: string | undefined): Caller {
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
    // constant-time path. Only configured keys are ever remembered, so the map stays small.
    const caller = this.#known.get(key) ?? this.#lookUp(key);
    if (!caller) throw new ApiError('unauthorized', 'Invalid API key.');
    this.#known.set(key, caller);
    return caller;
  }

  // Every configured key is compared, whether or not an earlier one matched, so the time taken
  // depends on neither which key matched nor how much of it did.
  #lookUp(key: string): Caller | undefined {
    const digest = sha256(utf8ToBytes(key));
    let found: Caller | undefined;
    for (let i = 0; i < this.#keyCount; i++) {
      const entry = this.#keys[i]!;
      let difference = 0;
      for (let j = 0; j < 32; j++) difference |= entry.digest[j]! ^ digest[j]!;
      if (difference === 0) found = entry.caller;
    }
    return found;
  }
}

/** What a key without each permission is told. */
const PERMISSION_REFUSALS: Readonly<Record<Permission, string>> = {
  read: 'This API key may not read this account.',
  create: 'This API key is read-only: it may read, not create or change anything.',
};

/** Throws `insufficient_permission` unless the caller may do `permission`. */
export function requirePermission(caller: Caller, permission: Permission): void {
  if (!caller.permissions.has(permission)) {
    throw new ApiError('insufficient_permission', PERMISSION_REFUSALS[permission]);
  }
}
