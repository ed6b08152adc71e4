/**
 * The browser-safe signer: pure JS secp256k1 from @noble/curves, RFC 6979 deterministic and
 * low-S, so its invoices are identical to any other conforming signer's for the same inputs.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { RecoverableSigner } from '../core/ports.js';

/** RecoverableSigner over @noble/curves; runs anywhere (~1,000 signatures/s on the dev machine). */
export const nobleSigner: RecoverableSigner = {
  signRecoverable(messageHash, privateKey) {
    if (messageHash.length !== 32) throw new RangeError(`message hash must be 32 bytes, got ${messageHash.length}`);
    // `prehash: false`: the message is already the BOLT #11 SHA-256; `recovered` puts the recovery id first.
    const recovered = secp256k1.sign(messageHash, privateKey, { prehash: false, lowS: true, format: 'recovered' });
    return { signature: recovered.slice(1), recoveryId: recovered[0] ?? 0 };
  },
};
