/**
 * The WASM signer must be interchangeable with the browser one: identical signatures and
 * recovery ids (RFC 6979 nonces, low-S), hence identical invoices for identical inputs.
 */
import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';
import { createInvoice, type InvoiceInput } from './invoice.js';
import { nodeKeyFromSeed } from './node-key.js';
import { nobleSigner } from './signer.js';
import { wasmSigner } from './signer.node.js';

describe('wasmSigner and nobleSigner', () => {
  it('agree on signature and recovery id for 200 random (key, hash) pairs', () => {
    const recoveryIds = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const key = secp256k1.utils.randomSecretKey();
      const hash = randomBytes(32);
      const noble = nobleSigner.signRecoverable(hash, key);
      const wasm = wasmSigner.signRecoverable(hash, key);
      expect(bytesToHex(wasm.signature)).toBe(bytesToHex(noble.signature));
      expect(wasm.recoveryId).toBe(noble.recoveryId);
      expect(noble.signature).toHaveLength(64);
      expect(secp256k1.Signature.fromBytes(noble.signature, 'compact').hasHighS()).toBe(false);
      recoveryIds.add(noble.recoveryId);
    }
    // Both parities must have come up, or the recovery-id comparison proved little.
    expect(recoveryIds).toEqual(new Set([0, 1]));
  });

  it('sign the same hash the same way twice (RFC 6979, no extra entropy)', () => {
    const key = nodeKeyFromSeed('determinism');
    const hash = new Uint8Array(32).fill(3);
    expect(bytesToHex(nobleSigner.signRecoverable(hash, key).signature)).toBe(bytesToHex(nobleSigner.signRecoverable(hash, key).signature));
    expect(bytesToHex(wasmSigner.signRecoverable(hash, key).signature)).toBe(bytesToHex(wasmSigner.signRecoverable(hash, key).signature));
  });

  it('produce identical invoices for identical inputs', () => {
    const key = nodeKeyFromSeed('signer.node.test');
    for (const network of ['mainnet', 'regtest'] as const) {
      for (const amountSats of [21, 250_000]) {
        const input: InvoiceInput = {
          network,
          amountSats,
          timestampSeconds: 1_700_000_000 + amountSats,
          paymentHash: randomBytes(32),
          paymentSecret: randomBytes(32),
          description: `order ${amountSats}`,
          expirySeconds: 600,
        };
        const byWasm = createInvoice(input, key, wasmSigner);
        expect(createInvoice(input, key, nobleSigner)).toBe(byWasm);
        expect(createInvoice(input, key, wasmSigner)).toBe(byWasm);
      }
    }
  });
});
