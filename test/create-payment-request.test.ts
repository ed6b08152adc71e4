/** POST /api/v1/payment-requests through the real server: every field, presence rule and format. */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRequestSchema } from '../src/schemas/payment-request.js';
import { decodeInvoice } from '../src/lightning/bolt11-decode.js';
import { publicKeyOf } from '../src/lightning/node-key.js';
import { DEFAULT_ACCOUNTS } from '../src/sandbox.js';
import { decodeIndependently } from './support/bolt11-package.js';
import { createBody, KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

const validPaymentRequest = new Ajv({ strict: false }).compile(paymentRequestSchema);
const SERVICE_NODE_KEY = publicKeyOf(Uint8Array.from(Buffer.from(DEFAULT_ACCOUNTS.serviceNodeKey!, 'hex')));
const NWC_ACCOUNT = DEFAULT_ACCOUNTS.accounts.find((a) => a.id === 'acct_nwc')!;
const NWC_NODE_KEY = publicKeyOf(Uint8Array.from(Buffer.from(NWC_ACCOUNT.walletNodeKey!, 'hex')));

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe('create', () => {
  it('answers 201 with every field of the spec, in their formats', async () => {
    const before = Date.now();
    const res = await server.api('/api/v1/payment-requests', {
      body: createBody({ amount: 10_000, metadata: { orderId: 'ord_1', nested: { sku: ['a', 'b'] } } }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const pr = res.body;
    expect(validPaymentRequest(pr), JSON.stringify(validPaymentRequest.errors)).toBe(true);
    expect(pr.id).toMatch(/^pr_[0-9A-Za-z]{24}$/);
    expect(pr.status).toBe('pending');
    expect(pr.amount).toBe(10_000);
    expect(pr.description).toBe('Coffee beans');
    expect(pr.metadata).toEqual({ orderId: 'ord_1', nested: { sku: ['a', 'b'] } });
    expect(pr.isNwc).toBe(false);
    expect(pr.feeAmount).toBe(50);
    expect(pr.feePercentage).toBe(0.5);
    expect(pr.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(pr.expiresAt) - Date.parse(pr.createdAt)).toBe(3600 * 1000);
    expect(Date.parse(pr.createdAt)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(Date.parse(pr.createdAt)).toBeLessThanOrEqual(Date.now());
    expect(pr.updatedAt).toBe(pr.createdAt);
    expect(res.headers.get('location')).toBe(`/api/v1/payment-requests/${pr.id}`);
  });

  it('never returns destinationWallet, preimage before completion, or nwcRelay for custodial accounts', async () => {
    const { body } = await server.api('/api/v1/payment-requests', { body: createBody() });
    expect(body).not.toHaveProperty('destinationWallet');
    expect(body).not.toHaveProperty('preimage');
    expect(body).not.toHaveProperty('nwcRelay');
    expect(body).not.toHaveProperty('accountId');
    // Metadata was not given: the response does not invent one.
    expect(body).not.toHaveProperty('metadata');
  });

  it('returns metadata exactly as given, odd keys and all, as plain data', async () => {
    const metadata = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"emoji":"⚡","n":1.5e3,"list":[null,true,{}]}');
    const { status, text } = await server.api('/api/v1/payment-requests', { body: createBody({ metadata }) });
    expect(status).toBe(201);
    const echoed = JSON.parse(text).metadata;
    expect(Object.keys(echoed)).toEqual(['__proto__', 'constructor', 'emoji', 'n', 'list']);
    expect(JSON.stringify(echoed)).toBe(JSON.stringify(metadata));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('takes expiresIn into expiresAt and into the invoice', async () => {
    const { body } = await server.api('/api/v1/payment-requests', { body: createBody({ expiresIn: 90 }) });
    expect(Date.parse(body.expiresAt) - Date.parse(body.createdAt)).toBe(90_000);
    expect(decodeInvoice(body.invoice).expirySeconds).toBe(90);
  });

  it.each([
    [21, 10],
    [100, 10],
    [500, 10],
    [999, 10],
    [1000, 5],
    [10_000, 50],
    [1_001, 5],
    [1_100, 6],
    [123_456_789, 617_284],
  ])('charges %i sats a fee of %i sats', async (amount, fee) => {
    const { status, body } = await server.api('/api/v1/payment-requests', { body: createBody({ amount }) });
    expect(status).toBe(201);
    expect(body.feeAmount).toBe(fee);
    expect(body.feePercentage).toBe(0.5);
  });
});

describe('the invoice', () => {
  it('is a real regtest BOLT11 invoice that an independent decoder accepts, signed by the service node', async () => {
    const { body } = await server.api('/api/v1/payment-requests', { body: createBody({ amount: 2_500, expiresIn: 600 }) });
    expect(body.invoice).toMatch(/^lnbcrt25u1/);
    const ours = decodeInvoice(body.invoice);
    const theirs = decodeIndependently(body.invoice);
    for (const decoded of [ours, theirs]) {
      expect(decoded.payeeNodeKey).toBe(SERVICE_NODE_KEY);
      expect(decoded.paymentHash).toBe(body.paymentHash);
      expect(decoded.description).toBe('Coffee beans');
    }
    expect(theirs.satoshis).toBe(2_500);
    expect(ours.amountSats).toBe(2_500);
    expect(theirs.timestamp).toBe(Date.parse(body.createdAt) / 1000);
    expect(ours.timestampSeconds + ours.expirySeconds).toBe(Date.parse(body.expiresAt) / 1000);
    expect(theirs.expireTime).toBe(600);
    expect(ours.paymentSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(theirs.paymentSecret).toBe(ours.paymentSecret);
    expect(ours.minFinalCltvExpiryDelta).toBeGreaterThanOrEqual(18);
    expect(ours.featureBits).toEqual([8, 14]);
  });

  it('carries a description over 639 UTF-8 bytes as its SHA-256 in h', async () => {
    // 255 code points of 3 bytes each: within the spec's limit, too long for a `d` field.
    const description = '⚡'.repeat(255);
    const { status, body } = await server.api('/api/v1/payment-requests', { body: createBody({ description }) });
    expect(status).toBe(201);
    expect(body.description).toBe(description);
    const theirs = decodeIndependently(body.invoice);
    expect(theirs.description).toBeUndefined();
    expect(theirs.descriptionHash).toBe(bytesToHex(sha256(utf8ToBytes(description))));
  });

  it('differs per request: new payment hash, secret and id each time', async () => {
    const a = (await server.api('/api/v1/payment-requests', { body: createBody() })).body;
    const b = (await server.api('/api/v1/payment-requests', { body: createBody() })).body;
    expect(a.id).not.toBe(b.id);
    expect(a.paymentHash).not.toBe(b.paymentHash);
    expect(decodeInvoice(a.invoice).paymentSecret).not.toBe(decodeInvoice(b.invoice).paymentSecret);
  });
});

describe('NWC accounts', () => {
  it('report isNwc and nwcRelay, and their invoices are signed by the connected wallet node', async () => {
    const created = await server.api('/api/v1/payment-requests', { key: KEYS.nwc, body: createBody({ amount: 500 }) });
    expect(created.status).toBe(201);
    expect(created.body.isNwc).toBe(true);
    // The relay of the account's connection: the sandbox's own, its wallet being one the sandbox runs.
    expect(created.body.nwcRelay).toBe(`${server.url.replace('http', 'ws')}/nostr`);
    expect(created.body.feeAmount).toBe(10);
    expect(decodeIndependently(created.body.invoice).payeeNodeKey).toBe(NWC_NODE_KEY);
    const read = await server.api(`/api/v1/payment-requests/${created.body.id}`, { key: KEYS.nwc });
    expect(read.body.nwcRelay).toBe(`${server.url.replace('http', 'ws')}/nostr`);
  });
});

describe('networks', () => {
  it.each([
    ['mainnet', 'lnbc'],
    ['testnet', 'lntb'],
    ['signet', 'lntbs'],
  ] as const)('%s invoices start with %s and decode independently', async (network, prefix) => {
    const other = await startServer({ network });
    try {
      const { body } = await other.api('/api/v1/payment-requests', { body: createBody({ amount: 1_234 }) });
      expect(body.invoice.startsWith(`${prefix}12340n1`)).toBe(true);
      const theirs = decodeIndependently(body.invoice);
      expect(theirs.satoshis).toBe(1_234);
      expect(theirs.payeeNodeKey).toBe(SERVICE_NODE_KEY);
    } finally {
      await other.close();
    }
  });
});
