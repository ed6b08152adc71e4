/**
 * Payment preimages, hashes and secrets. A preimage is fresh randomness per payment request and
 * its SHA-256 is the payment hash, so `sha256(preimage) == paymentHash` holds by construction.
 * The random source is injectable so tests and seeded fixtures can be reproducible.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes as cryptoRandomBytes } from '@noble/hashes/utils.js';

/** A source of random bytes; the default is `globalThis.crypto.getRandomValues` (Node 20 and browsers). */
export type RandomBytes = (length: number) => Uint8Array;

function random32(randomBytes: RandomBytes): Uint8Array {
  const bytes = randomBytes(32);
  if (!(bytes instanceof Uint8Array) || bytes.length !== 32) throw new Error('randomBytes(32) must return 32 bytes');
  return bytes;
}

/** A new random 32-byte payment preimage. */
export function newPreimage(randomBytes: RandomBytes = cryptoRandomBytes): Uint8Array {
  return random32(randomBytes);
}

/** The payment hash of a preimage: its SHA-256. */
export function paymentHashOf(preimage: Uint8Array): Uint8Array {
  return sha256(preimage);
}

/** A new random 32-byte payment secret (the invoice's `s` field). */
export function newPaymentSecret(randomBytes: RandomBytes = cryptoRandomBytes): Uint8Array {
  return random32(randomBytes);
}
