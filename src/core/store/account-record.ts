/**
 * An account made through the accounts API (`POST /sandbox/v1/accounts`), as the store keeps it:
 * its keys only as SHA-256 digests (the directory compares digests; the keys themselves are shown
 * once, in the answer that creates them). Accounts of the accounts file are not stored: the file is
 * read at every start. A record is a value, replaced and never mutated.
 */

/** What a key may do. Reading covers the GET endpoints; `accounts` creates, lists and deletes accounts. */
export type Permission = 'create' | 'read' | 'accounts';

/** One API key of a stored account. */
export interface StoredKey {
  /** Lower-case hex SHA-256 of the key's UTF-8 bytes. */
  sha256: string;
  permissions: Permission[];
}

/** A created account as stored. */
export interface AccountRecord {
  id: string;
  /** The name given at creation, or null. */
  name: string | null;
  mode: 'custodial' | 'nwc';
  /** NWC accounts: the relay of the connected wallet. */
  nwcRelay?: string;
  /** NWC accounts: hex private key of the connected wallet's node, which signs their invoices. */
  walletNodeKey?: string;
  keys: StoredKey[];
  /** Real time of the creation, ISO 8601 with milliseconds. */
  createdAt: string;
}
