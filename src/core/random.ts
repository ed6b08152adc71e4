/**
 * Crypto-strong randomness from Web Crypto, present in browsers and in Node 20+. Drawn in 4 KiB
 * batches: a create needs four small draws (preimage, payment secret, two ids), and each Web
 * Crypto call costs ~7 µs however few bytes it returns. Every draw is a copy, never a view of the
 * pool, so no two callers ever hold the same bytes.
 */
import type { RandomSource } from './ports.js';

/** Bytes drawn from Web Crypto at once (its limit per call is 65,536). */
const POOL_BYTES = 4096;

let pool = new Uint8Array(0);
let used = 0;

/** The default random source. */
export const cryptoRandom: RandomSource = {
  bytes: (length) => {
    if (length > POOL_BYTES) return globalThis.crypto.getRandomValues(new Uint8Array(length));
    if (used + length > pool.length) {
      pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL_BYTES));
      used = 0;
    }
    const bytes = pool.slice(used, used + length);
    // Handed-out bytes are wiped from the pool: they exist only in the caller's copy.
    pool.fill(0, used, used + length);
    used += length;
    return bytes;
  },
};
