/**
 * Ids: a prefix and 24 base62 characters (~143 bits), unguessable across accounts. `pr_` payment
 * requests, `evt_` events, `we_` webhook endpoints, `wd_` webhook deliveries, `acct_` accounts
 * made through the accounts API, `wal_` test wallets, `tx_` wallet transactions.
 */
import type { RandomSource } from './ports.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const ID_LENGTH = 24;

/** What an id names, by its prefix. */
export type IdPrefix = 'pr_' | 'evt_' | 'we_' | 'wd_' | 'acct_' | 'wal_' | 'tx_';

/** A new id with `prefix`, drawn from `random`. */
export function newId(prefix: IdPrefix, random: RandomSource): string {
  return prefix + randomBase62(ID_LENGTH, random);
}

/** `length` base62 characters drawn from `random`, each equally likely (~5.95 bits apiece). */
export function randomBase62(length: number, random: RandomSource): string {
  // Character codes first, one string at the end: no string built a character at a time.
  const codes = new Array<number>(length);
  let filled = 0;
  while (filled < length) {
    // Draws `length` bytes each time, as ever, so a seeded source gives the ids it always gave.
    for (const byte of random.bytes(length)) {
      // 248 = 4 * 62: dropping bytes above it keeps every character equally likely.
      if (byte < 248 && filled < length) codes[filled++] = ALPHABET.charCodeAt(byte % 62);
    }
  }
  return String.fromCharCode(...codes);
}

/** A new `pr_` id drawn from `random`. */
export function newPaymentRequestId(random: RandomSource): string {
  return newId('pr_', random);
}
