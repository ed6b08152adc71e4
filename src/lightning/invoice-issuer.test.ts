/**
 * The issuer's `paymentHashOf` remembers what it issued and read (settling a payment request reads
 * the hash back from its invoice; recovering the signature's key for that cost ~2 ms of pure JS),
 * and answers exactly what decoding would: the same hash, the same refusals, also once forgotten.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { bytesToHex } from '@noble/hashes/utils.js';
import * as decoder from './bolt11-decode.js';
import { createInvoiceIssuer, REMEMBERED_INVOICES } from './invoice-issuer.js';
import { nodeKeyFromSeed } from './node-key.js';
import { nobleSigner } from './signer.js';

vi.mock('./bolt11-decode.js', async (importOriginal) => {
  const original = await importOriginal<typeof decoder>();
  return { ...original, decodeInvoice: vi.fn(original.decodeInvoice) };
});
const decodeInvoice = vi.mocked(decoder.decodeInvoice);

const nodePrivateKey = nodeKeyFromSeed('invoice-issuer.test');
let counter = 0;
function input() {
  const paymentHash = new Uint8Array(32);
  new DataView(paymentHash.buffer).setUint32(0, ++counter);
  return { amountSats: 21, timestampSeconds: 1_717_171_717, paymentHash, paymentSecret: new Uint8Array(32).fill(0x5e), description: 'coffee', expirySeconds: 900, nodePrivateKey };
}

describe('createInvoiceIssuer: paymentHashOf', () => {
  beforeEach(() => {
    decodeInvoice.mockClear();
  });

  it('answers an invoice it issued without decoding it again (no signature recovery)', () => {
    const issuer = createInvoiceIssuer('regtest', nobleSigner);
    const given = input();
    const invoice = issuer.issue(given);
    expect(issuer.paymentHashOf(invoice)).toBe(bytesToHex(given.paymentHash));
    expect(issuer.paymentHashOf(invoice)).toBe(decoder.decodeInvoice(invoice).paymentHash);
    expect(decodeInvoice).toHaveBeenCalledTimes(1); // only the check's own call above
  });

  it("decodes another issuer's invoice once, then remembers it", () => {
    const other = createInvoiceIssuer('regtest', nobleSigner);
    const given = input();
    const invoice = other.issue(given);
    const issuer = createInvoiceIssuer('regtest', nobleSigner);
    expect(issuer.paymentHashOf(invoice)).toBe(bytesToHex(given.paymentHash));
    expect(issuer.paymentHashOf(invoice)).toBe(bytesToHex(given.paymentHash));
    expect(decodeInvoice).toHaveBeenCalledTimes(1);
  });

  it("does not remember a long invoice read from outside (over 1,024 characters): a client's text cannot fill its memory", () => {
    const other = createInvoiceIssuer('regtest', nobleSigner);
    const given = { ...input(), description: 'x'.repeat(600) };
    const invoice = other.issue(given);
    expect(invoice.length).toBeGreaterThan(1_024);
    const issuer = createInvoiceIssuer('regtest', nobleSigner);
    expect(issuer.paymentHashOf(invoice)).toBe(bytesToHex(given.paymentHash));
    expect(issuer.paymentHashOf(invoice)).toBe(bytesToHex(given.paymentHash));
    expect(decodeInvoice).toHaveBeenCalledTimes(2);
  });

  it('refuses a tampered invoice every time, as decoding does', () => {
    const issuer = createInvoiceIssuer('regtest', nobleSigner);
    const invoice = issuer.issue(input());
    // A character of the data changed: the checksum no longer matches.
    const at = invoice.length - 20;
    const tampered = invoice.slice(0, at) + (invoice[at] === 'q' ? 'p' : 'q') + invoice.slice(at + 1);
    expect(() => issuer.paymentHashOf(tampered)).toThrow(/checksum/);
    expect(() => issuer.paymentHashOf(tampered)).toThrow(/checksum/);
    expect(() => issuer.paymentHashOf('lnbcrt1garbage')).toThrow();
  });

  it(`forgets the oldest past its bound (${REMEMBERED_INVOICES} by default) and decodes it again, with the same answer`, () => {
    const issuer = createInvoiceIssuer('regtest', nobleSigner, 2);
    const given = [input(), input(), input()];
    const invoices = given.map((one) => issuer.issue(one));
    expect(decodeInvoice).not.toHaveBeenCalled();
    // The first is forgotten: decoded again (and remembered, forgetting the second).
    expect(issuer.paymentHashOf(invoices[0]!)).toBe(bytesToHex(given[0]!.paymentHash));
    expect(decodeInvoice).toHaveBeenCalledTimes(1);
    expect(issuer.paymentHashOf(invoices[2]!)).toBe(bytesToHex(given[2]!.paymentHash));
    expect(issuer.paymentHashOf(invoices[0]!)).toBe(bytesToHex(given[0]!.paymentHash));
    expect(decodeInvoice).toHaveBeenCalledTimes(1);
    expect(issuer.paymentHashOf(invoices[1]!)).toBe(bytesToHex(given[1]!.paymentHash));
    expect(decodeInvoice).toHaveBeenCalledTimes(2);
  });
});
