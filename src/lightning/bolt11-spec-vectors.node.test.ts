/**
 * The spec examples against independent implementations: libsecp256k1 (tiny-secp256k1, WASM) and
 * the `bolt11` package. Node only because both load through Node (fs, Buffer).
 */
import { describe, expect, it } from 'vitest';
import bolt11 from 'bolt11';
import { recover, type RecoveryIdType } from 'tiny-secp256k1';
import { bech32 } from '@scure/base';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import vectors from '../../fixtures/bolt11-spec-vectors.json' with { type: 'json' };
import { decodeInvoice } from './bolt11-decode.js';
import { encodeInvoice, SIGNATURE_WORDS } from './bolt11-encode.js';
import { invoiceSigningHash } from './signing-hash.js';
import { wasmSigner } from './signer.node.js';

const HIGH_S_TITLE = 'Public-key recovery with high-S signature';
// bolt11 1.4 does not skip `n` fields of the wrong length (BOLT #11 says readers must), so it
// compares the signer with a garbage key and throws on this valid example.
const BOLT11_PACKAGE_REJECTS = 'Same, but including fields which must be ignored.';

describe('spec examples, cross-checked', () => {
  for (const vector of vectors.valid) {
    if (vector.title === BOLT11_PACKAGE_REJECTS) continue;
    it(`the bolt11 package recovers the same payee and amount: ${vector.title}`, () => {
      const ours = decodeInvoice(vector.invoice);
      const theirs = bolt11.decode(vector.invoice);
      expect(theirs.payeeNodeKey).toBe(ours.payeeNodeKey);
      expect(theirs.millisatoshis ?? null).toBe(ours.amountMsat === null ? null : String(ours.amountMsat));
      expect(theirs.timestamp).toBe(ours.timestampSeconds);
      expect(theirs.tagsObject.payment_hash).toBe(ours.paymentHash);
    });
  }

  it('the bolt11 package indeed rejects the example with fields that must be ignored', () => {
    const vector = vectors.valid.find((v) => v.title === BOLT11_PACKAGE_REJECTS);
    expect(() => bolt11.decode(vector?.invoice ?? '')).toThrow(/does not match payee pubkey/);
  });

  it('libsecp256k1 recovers from the high-S example the same key as our decoder, not the spec key', () => {
    const vector = vectors.valid.find((v) => v.title === HIGH_S_TITLE);
    const invoice = vector?.invoice ?? '';
    const decoded = decodeInvoice(invoice);
    const { prefix, words } = bech32.decode(invoice as `${string}1${string}`, false);
    const messageHash = invoiceSigningHash(prefix, words.slice(0, -SIGNATURE_WORDS));
    const recovered = recover(messageHash, hexToBytes(decoded.signature), decoded.recoveryId as RecoveryIdType, true);
    expect(recovered && bytesToHex(recovered)).toBe(decoded.payeeNodeKey);
    expect(decoded.payeeNodeKey).not.toBe(vectors.publicKey);
  });

  for (const vector of vectors.valid) {
    if (vector.title === HIGH_S_TITLE) continue;
    it(`the WASM signer re-encodes byte for byte too: ${vector.title}`, () => {
      const decoded = decodeInvoice(vector.invoice);
      const invoice = encodeInvoice(
        { hrp: decoded.hrp, timestampSeconds: decoded.timestampSeconds, fields: decoded.fields },
        hexToBytes(vectors.privateKey),
        wasmSigner,
      );
      expect(invoice).toBe(vector.invoice.toLowerCase());
    });
  }
});
