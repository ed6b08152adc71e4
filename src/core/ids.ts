/** Payment request ids: `pr_` and 24 base62 characters (~143 bits), unguessable across accounts. */
import type { RandomSource } from './ports.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 24;

/** A new `pr_` id drawn from `random`. */
export function newPaymentRequestId(random: RandomSource): string {
  let id = 'pr_';
  while (id.length < 3 + ID_LENGTH) {
    for (const byte of random.bytes(ID_LENGTH)) {
      // 248 = 4 * 62: dropping bytes above it keeps every character equally likely.
      if (byte < 248 && id.length < 3 + ID_LENGTH) id += ALPHABET[byte % 62];
    }
  }
  return id;
}
