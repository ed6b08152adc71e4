/**
 * Reader rules beyond the spec examples: which field wins, what is skipped, what is refused.
 * Invoices are built with the low-level encoder so each test controls exactly one detail.
 */
import { describe, expect, it } from 'vitest';
import { bech32 } from '@scure/base';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { decodeInvoice } from './bolt11-decode.js';
import { encodeInvoice, SIGNATURE_WORDS } from './bolt11-encode.js';
import { InvoiceDecodeError } from './errors.js';
import { nodeKeyFromSeed, publicKeyOf } from './node-key.js';
import { nobleSigner } from './signer.js';
import type { TaggedField } from './tagged-fields.js';
import { bytesToWords, intToWords, wordsToBytes } from './words.js';

const key = nodeKeyFromSeed('bolt11-decode.test');
const otherKey = nodeKeyFromSeed('someone else');
const hash = new Uint8Array(32).fill(0xaa);
const secret = new Uint8Array(32).fill(0x11);

const P: TaggedField = { tag: 'p', words: bytesToWords(hash) };
const S: TaggedField = { tag: 's', words: bytesToWords(secret) };
const D: TaggedField = { tag: 'd', words: bytesToWords(new TextEncoder().encode('test')) };
const FEATURES: TaggedField = { tag: '9', words: [16, 8, 0] };

function invoiceWith(fields: TaggedField[], hrp = 'lnbcrt10u', signingKey = key): string {
  return encodeInvoice({ hrp, timestampSeconds: 1_700_000_000, fields }, signingKey, nobleSigner);
}

function expectRejected(invoice: string, reason: RegExp): void {
  expect(() => decodeInvoice(invoice)).toThrow(InvoiceDecodeError);
  expect(() => decodeInvoice(invoice)).toThrow(reason);
}

describe('decodeInvoice', () => {
  it('reads a minimal invoice, with the spec defaults for x and c', () => {
    const decoded = decodeInvoice(invoiceWith([P, S, D, FEATURES]));
    expect(decoded).toMatchObject({
      network: 'regtest',
      prefix: 'lnbcrt',
      hrp: 'lnbcrt10u',
      amountMsat: 1_000_000n,
      amountSats: 1000,
      timestampSeconds: 1_700_000_000,
      paymentHash: bytesToHex(hash),
      paymentSecret: bytesToHex(secret),
      description: 'test',
      expirySeconds: 3600,
      minFinalCltvExpiryDelta: 18,
      featureBits: [8, 14],
      payeeNodeKey: publicKeyOf(key),
    });
    expect(decoded.descriptionHash).toBeUndefined();
  });

  it('gives amountSats null for an amount that is not whole satoshis', () => {
    const decoded = decodeInvoice(invoiceWith([P, S, D], 'lnbc10p'));
    expect(decoded.amountMsat).toBe(1n);
    expect(decoded.amountSats).toBeNull();
  });

  it('uses the first field of a kind and skips p fields of the wrong length', () => {
    const shortP: TaggedField = { tag: 'p', words: P.words.slice(0, 51) };
    const laterP: TaggedField = { tag: 'p', words: bytesToWords(new Uint8Array(32).fill(0xbb)) };
    const decoded = decodeInvoice(invoiceWith([shortP, S, D, P, laterP]));
    expect(decoded.paymentHash).toBe(bytesToHex(hash));
  });

  it('takes the payee from a valid n field, and refuses an n the signature does not match', () => {
    const n = (pubkeyHex: string): TaggedField => ({ tag: 'n', words: bytesToWords(hexToBytes(pubkeyHex)) });
    expect(decodeInvoice(invoiceWith([P, S, D, n(publicKeyOf(key))])).payeeNodeKey).toBe(publicKeyOf(key));
    expectRejected(invoiceWith([P, S, D, n(publicKeyOf(otherKey))]), /does not verify against the payee node key/);
  });

  it('recovers a different payee from a tampered invoice (the checksum alone proves nothing)', () => {
    const invoice = invoiceWith([P, S, D]);
    const { prefix, words } = bech32.decode(invoice as `${string}1${string}`, false);
    // Flip one bit of the payment hash (word 10 is the first data word of p, after the timestamp and p's header).
    const tampered = bech32.encode(prefix, words.map((word, i) => (i === 10 ? word ^ 1 : word)), false);
    const decoded = decodeInvoice(tampered);
    expect(decoded.paymentHash).not.toBe(bytesToHex(hash));
    expect(decoded.payeeNodeKey).not.toBe(publicKeyOf(key));
  });

  it('refuses an invoice with both d and h, or with neither', () => {
    const h: TaggedField = { tag: 'h', words: bytesToWords(new Uint8Array(32)) };
    expectRejected(invoiceWith([P, S, D, h]), /both a description \(d\) and a description hash \(h\)/);
    expectRejected(invoiceWith([P, S]), /neither a description \(d\) nor a description hash \(h\)/);
  });

  it('refuses a missing payment hash', () => {
    expectRejected(invoiceWith([S, D]), /missing payment hash/);
  });

  it('refuses a description that is not UTF-8', () => {
    expectRejected(invoiceWith([P, S, { tag: 'd', words: bytesToWords(Uint8Array.of(0xc3, 0x28)) }]), /not valid UTF-8/);
  });

  it('refuses unknown prefixes and leading zeros in the amount', () => {
    expectRejected(invoiceWith([P, S, D], 'lnltc10u'), /unknown network prefix "lnltc"/);
    expectRejected(invoiceWith([P, S, D], 'bc10u'), /not a Lightning invoice prefix/);
    expectRejected(invoiceWith([P, S, D], 'lnbc010u'), /leading zero/);
  });

  it('refuses a recovery id above 3', () => {
    const { prefix, words } = bech32.decode(invoiceWith([P, S, D]) as `${string}1${string}`, false);
    const signature = wordsToBytes(words.slice(-SIGNATURE_WORDS), 'trim').subarray(0, 64);
    const forged = [...words.slice(0, -SIGNATURE_WORDS), ...bytesToWords(concatBytes(signature, Uint8Array.of(4)))];
    expectRejected(bech32.encode(prefix, forged, false), /recovery id must be 0..3, got 4/);
  });

  it('refuses a field that runs into the signature', () => {
    const { prefix, words } = bech32.decode(invoiceWith([P, S, D]) as `${string}1${string}`, false);
    // Rewrite the last field's (d's) length to claim more words than remain before the signature.
    const dStart = words.length - SIGNATURE_WORDS - 3 - D.words.length;
    const forged = [...words];
    forged.splice(dStart + 1, 2, ...intToWords(D.words.length + 1, 2));
    expectRejected(bech32.encode(prefix, forged, false), /runs into the signature/);
  });

  it('refuses what is not an invoice', () => {
    expectRejected('', /no "1" separating/);
    expectRejected('hello world', /no "1" separating/);
    expectRejected(` ${invoiceWith([P, S, D])}`, /not valid bech32/);
  });
});
