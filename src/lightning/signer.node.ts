/**
 * A faster signer for Node: libsecp256k1 compiled to WASM (tiny-secp256k1), several times the
 * throughput of the pure JS one. Node only because its loader reads the .wasm file with `fs`.
 * Same port, same RFC 6979 nonces and low-S rule, so it yields byte-identical invoices.
 */
import { signRecoverable } from 'tiny-secp256k1';
import type { RecoverableSigner } from '../core/ports.js';

/** RecoverableSigner over tiny-secp256k1 (WASM libsecp256k1). */
export const wasmSigner: RecoverableSigner = {
  signRecoverable(messageHash, privateKey) {
    const { signature, recoveryId } = signRecoverable(messageHash, privateKey);
    return { signature, recoveryId };
  },
};
