/**
 * The BOLT #11 spec's own examples (fixtures/bolt11-spec-vectors.json): every valid one decodes to
 * the values the spec states and re-encodes byte for byte with the spec's key; every invalid one
 * is rejected. Expected values below are transcribed from the spec text, not from our decoder.
 */
import { describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bech32 } from '@scure/base';
import vectors from '../../fixtures/bolt11-spec-vectors.json' with { type: 'json' };
import { decodeInvoice, type DecodedInvoice } from './bolt11-decode.js';
import { encodeInvoice, SIGNATURE_WORDS } from './bolt11-encode.js';
import { InvoiceDecodeError } from './errors.js';
import type { Network } from './networks.js';
import { invoiceSigningHash } from './signing-hash.js';
import { nobleSigner } from './signer.js';
import { wordsToBytes } from './words.js';

const privateKey = hexToBytes(vectors.privateKey);
const HASHED_LIST =
  'One piece of chocolate cake, one icecream cone, one pickle, one slice of swiss cheese, one slice of salami, one lollypop, one piece of cherry pie, one sausage, one cupcake, and one slice of watermelon';
const listHash = bytesToHex(sha256(utf8ToBytes(HASHED_LIST)));

interface Expected {
  network?: Network;
  amountMsat: bigint | null;
  description?: string;
  descriptionHash?: string;
  expirySeconds?: number;
  minFinalCltvExpiryDelta?: number;
  featureBits?: number[];
  /** Version word of the first `f` (fallback address) field: 17 P2PKH, 18 P2SH, 0 / 1 witness v0 / v1, when present. */
  fallbackVersion?: number;
  timestampSeconds?: number;
  paymentHash?: string;
}

// Keyed by the start of each vector's title.
const EXPECTED: ReadonlyArray<readonly [titleStart: string, Expected]> = [
  ['Please make a donation', { amountMsat: null, description: 'Please consider supporting this project' }],
  ['Please send $3 for a cup of coffee', { amountMsat: 250_000_000n, description: '1 cup coffee', expirySeconds: 60 }],
  ['Please send 0.0025 BTC for a cup of nonsense', { amountMsat: 250_000_000n, description: 'ナンセンス 1杯', expirySeconds: 60 }],
  ['Now send $24', { amountMsat: 2_000_000_000n, descriptionHash: listHash }],
  ['The same, on testnet', { network: 'testnet', amountMsat: 2_000_000_000n, descriptionHash: listHash, fallbackVersion: 17 }],
  ['On mainnet, with fallback address 1RustyRX', { amountMsat: 2_000_000_000n, descriptionHash: listHash, fallbackVersion: 17 }],
  ['On mainnet, with fallback (P2SH)', { amountMsat: 2_000_000_000n, descriptionHash: listHash, fallbackVersion: 18 }],
  ['On mainnet, with fallback (P2WPKH)', { amountMsat: 2_000_000_000n, descriptionHash: listHash, fallbackVersion: 0 }],
  ['On mainnet, with fallback (P2WSH)', { amountMsat: 2_000_000_000n, descriptionHash: listHash, fallbackVersion: 0 }],
  ['On mainnet, with fallback (P2TR)', { amountMsat: 2_000_000_000n, descriptionHash: listHash, fallbackVersion: 1 }],
  [
    'Please send 0.00967878534 BTC',
    {
      amountMsat: 967_878_534n,
      description:
        'Blockstream Store: 88.85 USD for Blockstream Ledger Nano S x 1, "Back In My Day" Sticker x 2, "I Got Lightning Working" Sticker x 2 and 1 more items',
      expirySeconds: 604_800,
      minFinalCltvExpiryDelta: 10,
      // This example predates the others: its own timestamp and payment hash.
      timestampSeconds: 1_572_468_703,
      paymentHash: '462264ede7e14047e9b249da94fefc47f41f7d02ee9b091815a5506bc8abf75f',
    },
  ],
  ['Please send $30 for coffee beans', { amountMsat: 2_500_000_000n, description: 'coffee beans', featureBits: [8, 14, 99] }],
  ['Same, but all upper case', { amountMsat: 2_500_000_000n, description: 'coffee beans', featureBits: [8, 14, 99] }],
  [
    'Same, but including fields which must be ignored',
    // Its `f` field has witness version 19, unknown, which readers skip.
    { amountMsat: 2_500_000_000n, description: 'coffee beans', featureBits: [8, 14, 99], fallbackVersion: 19 },
  ],
  ['Please send 0.01 BTC with payment metadata', { amountMsat: 1_000_000_000n, description: 'payment metadata inside', featureBits: [8, 14, 48] }],
  ['Public-key recovery with high-S signature', { amountMsat: null, description: 'Please consider supporting this project' }],
];

function expectedFor(title: string): Expected {
  const entry = EXPECTED.find(([start]) => title.startsWith(start));
  if (entry === undefined) throw new Error(`no expectations written for vector "${title}"`);
  return entry[1];
}

function reencode(decoded: DecodedInvoice): string {
  return encodeInvoice({ hrp: decoded.hrp, timestampSeconds: decoded.timestampSeconds, fields: decoded.fields }, privateKey, nobleSigner);
}

const HIGH_S_TITLE = 'Public-key recovery with high-S signature';

function signingHashOf(invoice: string): Uint8Array {
  const { prefix, words } = bech32.decode(invoice as `${string}1${string}`, false);
  return invoiceSigningHash(prefix, words.slice(0, -SIGNATURE_WORDS));
}

describe('BOLT #11 valid examples', () => {
  it('the fixture holds the 16 valid and 10 invalid examples of the spec', () => {
    expect(vectors.valid).toHaveLength(16);
    expect(vectors.invalid).toHaveLength(10);
    expect(EXPECTED).toHaveLength(16);
  });

  it("the fixture's public key is the public key of its private key", () => {
    expect(bytesToHex(secp256k1.getPublicKey(privateKey, true))).toBe(vectors.publicKey);
  });

  for (const vector of vectors.valid) {
    it(`decodes: ${vector.title}`, () => {
      const expected = expectedFor(vector.title);
      const decoded = decodeInvoice(vector.invoice);
      expect(decoded.network).toBe(expected.network ?? 'mainnet');
      expect(decoded.amountMsat).toBe(expected.amountMsat);
      expect(decoded.amountSats).toBe(expected.amountMsat === null || expected.amountMsat % 1000n !== 0n ? null : Number(expected.amountMsat / 1000n));
      expect(decoded.timestampSeconds).toBe(expected.timestampSeconds ?? vectors.timestamp);
      expect(decoded.paymentHash).toBe(expected.paymentHash ?? vectors.paymentHash);
      expect(decoded.paymentSecret).toBe(vectors.paymentSecret);
      expect(decoded.description).toBe(expected.description);
      expect(decoded.descriptionHash).toBe(expected.descriptionHash);
      expect(decoded.expirySeconds).toBe(expected.expirySeconds ?? 3600);
      expect(decoded.minFinalCltvExpiryDelta).toBe(expected.minFinalCltvExpiryDelta ?? 18);
      expect(decoded.featureBits).toEqual(expected.featureBits ?? [8, 14]);
      expect(decoded.fields.find((field) => field.tag === 'f')?.words[0]).toBe(expected.fallbackVersion);
      if (vector.title !== HIGH_S_TITLE) expect(decoded.payeeNodeKey).toBe(vectors.publicKey);
    });

    if (vector.title === HIGH_S_TITLE) continue;
    it(`re-encodes byte for byte: ${vector.title}`, () => {
      // BIP-173 allows an all upper-case invoice; the signature covers the lower-case hrp.
      expect(reencode(decodeInvoice(vector.invoice))).toBe(vector.invoice.toLowerCase());
    });
  }

  it('keeps the raw payment metadata field (m = 0x01fafaf0) for re-encoding', () => {
    const vector = vectors.valid.find((v) => v.title.includes('payment metadata'));
    const metadata = decodeInvoice(vector?.invoice ?? '').fields.find((field) => field.tag === 'm');
    expect(bytesToHex(wordsToBytes(metadata?.words ?? [], 'trim'))).toBe('01fafaf0');
  });

  it('keeps the fields that must be ignored, in order, and reads none of them', () => {
    const vector = vectors.valid.find((v) => v.title.startsWith('Same, but including fields which must be ignored'));
    const decoded = decodeInvoice(vector?.invoice ?? '');
    // Wrong-length p/h/s/n fields and the unknown type 2 (`2`) field are skipped, yet kept raw.
    expect(decoded.fields.map((field) => `${field.tag}${field.words.length}`)).toEqual([
      'p52', 'd20', 's52', '920', '23', 'f33', 'p51', 'p53', 'h51', 'h53', 's51', 's53', 'n52', 'n54',
    ]);
    expect(decoded.descriptionHash).toBeUndefined();
  });

  describe(HIGH_S_TITLE, () => {
    // This example is the donation example with s replaced by n - s and the recovery id left
    // unchanged (1). (r, n - s) is still a valid signature by the spec key, but of the nonce's
    // negation, whose R has the other y parity, so honest recovery with the transmitted id 1
    // yields a different key. BOLT #11 (bolts#1284) only asks readers to accept high-S when
    // recovering, "matching secp256k1's behavior" (lnd, Core Lightning, LDK, Eclair): libsecp256k1
    // recovers 02d0139c… from it, and so do we (cross-checked against tiny-secp256k1 and the bolt11
    // package in bolt11-spec-vectors.node.test.ts). Byte-exact re-encoding cannot apply either: an
    // RFC 6979 low-S signer produces the low-S twin, which is exactly the donation example.
    const vector = vectors.valid.find((v) => v.title === HIGH_S_TITLE);
    const donation = vectors.valid[0];
    const decoded = decodeInvoice(vector?.invoice ?? '');
    const n = secp256k1.Point.CURVE().n;

    it('carries the donation signature with s negated and the same recovery id', () => {
      const original = decodeInvoice(donation?.invoice ?? '');
      expect(decoded.signature.slice(0, 64)).toBe(original.signature.slice(0, 64));
      expect(BigInt(`0x${decoded.signature.slice(64)}`)).toBe(n - BigInt(`0x${original.signature.slice(64)}`));
      expect(secp256k1.Signature.fromHex(decoded.signature, 'compact').hasHighS()).toBe(true);
      expect(decoded.recoveryId).toBe(original.recoveryId);
    });

    it('decodes, recovering the key libsecp256k1 recovers with the transmitted recovery id', () => {
      expect(decoded.payeeNodeKey).toBe('02d0139ce7427d6dfffd26a326c18be754ef1e64672b42694ba5b23ef6e6e7803d');
    });

    it("is nonetheless a valid signature by the spec's key, whose recovery id would be the other parity", () => {
      const signature = hexToBytes(decoded.signature);
      const messageHash = signingHashOf(vector?.invoice ?? '');
      const publicKey = hexToBytes(vectors.publicKey);
      expect(secp256k1.verify(signature, messageHash, publicKey, { prehash: false, lowS: false })).toBe(true);
      expect(secp256k1.verify(signature, messageHash, publicKey, { prehash: false, lowS: true })).toBe(false);
      const withOtherParity = Uint8Array.of(decoded.recoveryId ^ 1, ...signature);
      expect(bytesToHex(secp256k1.recoverPublicKey(withOtherParity, messageHash, { prehash: false }))).toBe(vectors.publicKey);
    });

    it('re-encodes with the low-S RFC 6979 signer into the donation example exactly', () => {
      expect(reencode(decoded)).toBe(donation?.invoice);
    });
  });
});

describe('BOLT #11 invalid examples', () => {
  const reasons: Readonly<Record<string, RegExp>> = {
    'Same, but adding invalid unknown feature 100': /unknown required feature bit\(s\) 100/,
    'Bech32 checksum is invalid.': /checksum/,
    'Malformed bech32 string (no 1)': /no "1" separating/,
    'Malformed bech32 string (mixed case)': /mixes upper and lower case/,
    'Signature is not recoverable.': /not recoverable/,
    'String is too short.': /too short/,
    'Invalid multiplier': /invalid multiplier "x"/,
    'Invalid sub-millisatoshi precision.': /sub-millisatoshi/,
    'Missing required `s` field.': /missing payment secret/,
    "Non canonical signature (high-S) with 'n' field defined": /not low-S/,
  };
  for (const vector of vectors.invalid) {
    it(`rejects: ${vector.title}`, () => {
      const reason = reasons[vector.title];
      expect(reason, 'a reason is written for every invalid vector').toBeDefined();
      expect(() => decodeInvoice(vector.invoice)).toThrow(InvoiceDecodeError);
      expect(() => decodeInvoice(vector.invoice)).toThrow(reason as RegExp);
    });
  }
});
