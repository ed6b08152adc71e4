/** Crypto-strong randomness from Web Crypto, present in browsers and in Node 20+. */
import type { RandomSource } from './ports.js';

/** The default random source. */
export const cryptoRandom: RandomSource = {
  bytes: (length) => globalThis.crypto.getRandomValues(new Uint8Array(length)),
};
