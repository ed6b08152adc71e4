/**
 * The engine's invoices, read back with our decoder: every network, the amount range, the d/h
 * switch at 639 UTF-8 bytes, and the exact field layout real nodes expect.
 */
import { describe, expect, it } from 'vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { decodeInvoice } from './bolt11-decode.js';
import { createInvoice, MAX_AMOUNT_SATS, type InvoiceInput } from './invoice.js';
import { NETWORKS } from './networks.js';
import { nodeKeyFromSeed, publicKeyOf } from './node-key.js';
import { paymentHashOf } from './preimage.js';
import { nobleSigner } from './signer.js';

const nodeKey = nodeKeyFromSeed('invoice.test');
const preimage = new Uint8Array(32).fill(7);
const baseInput: InvoiceInput = {
  network: 'regtest',
  amountSats: 21,
  timestampSeconds: 1_717_171_717,
  paymentHash: paymentHashOf(preimage),
  paymentSecret: new Uint8Array(32).fill(0x5e),
  description: 'coffee',
  expirySeconds: 900,
};

function issue(overrides: Partial<InvoiceInput> = {}): string {
  return createInvoice({ ...baseInput, ...overrides }, nodeKey, nobleSigner);
}

// Each amount with its shortest BOLT #11 spelling.
const AMOUNTS: ReadonlyArray<readonly [sats: number, hrpAmount: string]> = [
  [21, '210n'],
  [999, '9990n'],
  [1000, '10u'],
  [250_000, '2500u'],
  [2_100_000_000_000_000, '21000000'],
];

describe('createInvoice', () => {
  const prefixes = { mainnet: 'lnbc', testnet: 'lntb', signet: 'lntbs', regtest: 'lnbcrt' } as const;
  for (const network of NETWORKS) {
    for (const [amountSats, hrpAmount] of AMOUNTS) {
      it(`${network}, ${amountSats} sats: every field reads back`, () => {
        const invoice = issue({ network, amountSats });
        expect(invoice.startsWith(`${prefixes[network]}${hrpAmount}1`)).toBe(true);
        const decoded = decodeInvoice(invoice);
        expect(decoded.network).toBe(network);
        expect(decoded.prefix).toBe(prefixes[network]);
        expect(decoded.amountSats).toBe(amountSats);
        expect(decoded.amountMsat).toBe(BigInt(amountSats) * 1000n);
        expect(decoded.timestampSeconds).toBe(baseInput.timestampSeconds);
        expect(decoded.paymentHash).toBe(bytesToHex(sha256(preimage)));
        expect(decoded.paymentSecret).toBe('5e'.repeat(32));
        expect(decoded.description).toBe('coffee');
        expect(decoded.expirySeconds).toBe(900);
        expect(decoded.minFinalCltvExpiryDelta).toBe(80);
        expect(decoded.featureBits).toEqual([8, 14]);
        expect(decoded.payeeNodeKey).toBe(publicKeyOf(nodeKey));
      });
    }
  }

  it('writes fields p, s, d, x, c, 9 in that order, with minimal x, c and 9', () => {
    const invoice = issue({ expirySeconds: 60 });
    const fields = decodeInvoice(invoice).fields;
    expect(fields.map((field) => field.tag)).toEqual(['p', 's', 'd', 'x', 'c', '9']);
    expect(fields.find((field) => field.tag === 'x')?.words).toEqual([1, 28]);
    expect(fields.find((field) => field.tag === 'c')?.words).toEqual([2, 16]);
    // The spec examples' feature field: length qr (3 words), data sgq (bits 8 and 14), unpadded.
    expect(fields.find((field) => field.tag === '9')?.words).toEqual([16, 8, 0]);
    expect(invoice).toContain('xqzpu');
    expect(invoice).toContain('cqzzs');
    expect(invoice).toContain('9qrsgq');
  });

  const boundary: ReadonlyArray<readonly [label: string, fits: string, overflows: string]> = [
    ['ASCII', 'a'.repeat(639), 'a'.repeat(640)],
    ['2-byte é', `${'é'.repeat(319)}a`, 'é'.repeat(320)],
    ['3-byte €', '€'.repeat(213), `${'€'.repeat(213)}a`],
    ['4-byte emoji', `${'🙂'.repeat(159)}abc`, `${'🙂'.repeat(160)}`],
  ];
  for (const [label, fits, overflows] of boundary) {
    it(`puts a 639-byte description in d and a 640-byte one in h (${label})`, () => {
      expect(utf8ToBytes(fits)).toHaveLength(639);
      expect(utf8ToBytes(overflows)).toHaveLength(640);
      const inline = decodeInvoice(issue({ description: fits }));
      expect(inline.description).toBe(fits);
      expect(inline.descriptionHash).toBeUndefined();
      expect(inline.fields.find((field) => field.tag === 'd')?.words).toHaveLength(1023);
      const hashed = decodeInvoice(issue({ description: overflows }));
      expect(hashed.description).toBeUndefined();
      expect(hashed.descriptionHash).toBe(bytesToHex(sha256(utf8ToBytes(overflows))));
      expect(hashed.fields.map((field) => field.tag)).toEqual(['p', 's', 'h', 'x', 'c', '9']);
    });
  }

  it('writes an empty description as an empty d field', () => {
    const decoded = decodeInvoice(issue({ description: '' }));
    expect(decoded.description).toBe('');
    expect(decoded.fields.find((field) => field.tag === 'd')?.words).toEqual([]);
  });

  it('is deterministic: the same inputs give the same invoice', () => {
    expect(issue()).toBe(issue());
    expect(issue({ amountSats: 22 })).not.toBe(issue());
  });

  const invalid: ReadonlyArray<readonly [label: string, overrides: Partial<InvoiceInput>, reason: RegExp]> = [
    ['zero amount', { amountSats: 0 }, /amountSats/],
    ['fractional amount', { amountSats: 1.5 }, /amountSats/],
    ['more than 21 million BTC', { amountSats: MAX_AMOUNT_SATS + 1 }, /amountSats/],
    ['short payment hash', { paymentHash: new Uint8Array(31) }, /paymentHash must be 32 bytes/],
    ['short payment secret', { paymentSecret: new Uint8Array(16) }, /paymentSecret must be 32 bytes/],
    ['zero expiry', { expirySeconds: 0 }, /expirySeconds/],
    ['unknown network', { network: 'litecoin' as InvoiceInput['network'] }, /unknown network/],
    ['timestamp past 35 bits', { timestampSeconds: 2 ** 35 }, /timestamp/],
  ];
  for (const [label, overrides, reason] of invalid) {
    it(`refuses ${label}`, () => {
      expect(() => issue(overrides)).toThrow(reason);
    });
  }
});
