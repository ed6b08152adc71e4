/**
 * Ids: a prefix and 24 base62 characters (~143 bits), unguessable across accounts. `pr_` payment
 * requests, `evt_` events, `we_` webhook endpoints, `wd_` webhook deliveries.
 */
import type { RandomSource } from './ports.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const ID_LENGTH = 24;

/** What an id names, by its prefix. */
export type IdPrefix = 'pr_' | 'evt_' | 'we_' | 'wd_';

/** A new id with `prefix`, drawn from `random`. */
export function newId(prefix: IdPrefix, random: RandomSource): string {
  let id = prefix;
  const length = prefix.length + ID_LENGTH;
  while (id.length < length) {
    for (const byte of random.bytes(ID_LENGTH)) {
      // 248 = 4 * 62: dropping bytes above it keeps every character equally likely.
      if (byte < 248 && id.length < length) id += ALPHABET[byte % 62];
    }
  }
  return id;
}

/** A new `pr_` id drawn from `random`. */
export function newPaymentRequestId(random: RandomSource): string {
  return newId('pr_', random);
}
