/**
 * Test wallets (CONTRACT.md, "Nostr Wallet Connect: the non-custodial mode for real, and wallets
 * that pay") through the real server and its relay at /nostr, with independent clients only:
 * @getalby/sdk 7.0.0's NWCClient (NIP-44) and a client made of nostr-tools alone (NIP-04). Every
 * NIP-47 method, wallets paying wallets with their notifications, the HTTP API, persistence with
 * a data file, resets, and the pay page / `POST /sandbox/v1/pay` completing NWC requests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { decode } from 'bolt11';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_WALLET_BALANCE_SATS } from '../src/schemas/wallets.js';
import { connectNip04Client, parseNwcUrl, type Nip04NwcClient } from './support/nostr-tools-nwc.js';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';
import { sdk, type SdkClient, walletErrorOf, withSdk } from './support/alby-sdk.js';


const ALL_METHODS = ['get_info', 'get_balance', 'pay_invoice', 'make_invoice', 'lookup_invoice', 'list_transactions'];
const NIP47_TRANSACTION_KEYS = ['type', 'state', 'invoice', 'payment_hash', 'amount', 'fees_paid', 'created_at'];

const hashOf = (preimage: string) => bytesToHex(sha256(hexToBytes(preimage)));

/** A short wait (no answer expected within it), in ms. */
const SILENCE_MS = 1_000;

let server: RunningServer;
beforeAll(async () => {
  // The sdk logs every request and failure; the assertions say what matters.
  for (const method of ['info', 'warn', 'error'] as const) vi.spyOn(console, method).mockImplementation(() => {});
  server = await startServer({ settings: { nwcTimeoutSeconds: 1 } });
});
afterAll(async () => {
  await server?.close();
  vi.restoreAllMocks();
});

interface WalletBody {
  id: string;
  name: string | null;
  balance: number;
  walletPubkey: string;
  nwcUrl: string;
  createdAt: string;
}

async function testWallet(balance: number, key: string = KEYS.custodial, on: RunningServer = server, name?: string): Promise<WalletBody> {
  const made = await on.api('/sandbox/v1/wallets', { key, body: { balance, ...(name !== undefined ? { name } : {}) } });
  expect(made.status, made.text).toBe(201);
  return made.body as WalletBody;
}

const httpBalance = async (id: string, key: string = KEYS.custodial, on: RunningServer = server) => (await on.api(`/sandbox/v1/wallets/${id}`, { key })).body.balance as number;


/** A nostr-tools NIP-04 client, closed afterwards. */
async function withNip04<T>(nwcUrl: string, body: (client: Nip04NwcClient) => Promise<T>): Promise<T> {
  const client = await connectNip04Client(nwcUrl);
  try {
    return await body(client);
  } finally {
    client.close();
  }
}


/** The sdk's own request path with a short reply timeout (its public calls wait 10 s or more). */
function quickRequest(client: SdkClient, method: string, params: Record<string, unknown> = {}, replyTimeout = SILENCE_MS): Promise<unknown> {
  const execute = (client as unknown as { executeNip47Request: (...args: unknown[]) => Promise<unknown> }).executeNip47Request.bind(client);
  return execute(method, params, () => true, { replyTimeout });
}

const newAccount = async (mode: 'custodial' | 'nwc', on: RunningServer = server) => {
  const res = await on.api('/sandbox/v1/accounts', { key: KEYS.admin, body: { mode } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; keys: { secret: string; readOnly: string } };
};

describe('every NIP-47 method of a test wallet over NIP-44 (@getalby/sdk 7.0.0 NWCClient)', () => {
  it('get_info, get_balance, make_invoice, lookup_invoice, pay_invoice, list_transactions', async () => {
    const wallet = await testWallet(50_000, KEYS.custodial, server, 'sdk wallet');
    await withSdk(wallet.nwcUrl, async (client) => {
      const info = await client.getInfo();
      expect(client.encryptionType).toBe('nip44_v2');
      expect([...info.methods].sort()).toEqual([...ALL_METHODS].sort());
      expect([...(info.notifications ?? [])].sort()).toEqual(['payment_received', 'payment_sent']);
      expect(info.network).toBe('regtest');
      expect(info.pubkey).toMatch(/^(02|03)[0-9a-f]{64}$/);

      // get_balance: msats, the HTTP balance (sats) × 1000.
      expect((await client.getBalance()).balance).toBe(50_000 * 1000);
      expect((await client.getBalance()).balance).toBe((await httpBalance(wallet.id)) * 1000);

      // make_invoice: a real BOLT11 invoice of this wallet's node.
      const made = await client.makeInvoice({ amount: 21_000, description: 'tip jar', expiry: 600 });
      expect(made).toMatchObject({ type: 'incoming', state: 'pending', amount: 21_000, description: 'tip jar', fees_paid: 0 });
      expect(made.expires_at! - made.created_at).toBe(600);
      expect(made.preimage ?? undefined).toBeUndefined(); // the wallet's secret until paid
      const decoded = decode(made.invoice);
      expect(made.invoice.startsWith('lnbcrt')).toBe(true);
      expect(decoded.millisatoshis).toBe('21000');
      expect(decoded.satoshis).toBe(21);
      expect(decoded.tagsObject.description).toBe('tip jar');
      expect(decoded.tagsObject.payment_hash).toBe(made.payment_hash);
      expect(decoded.tagsObject.expire_time).toBe(600);
      expect(decoded.timeExpireDate! - decoded.timestamp!).toBe(600);
      expect(decoded.timestamp).toBe(made.created_at);
      expect(decoded.payeeNodeKey).toBe(info.pubkey);

      // lookup_invoice, by payment hash and by invoice.
      await expect(client.lookupInvoice({ payment_hash: made.payment_hash })).resolves.toMatchObject({ invoice: made.invoice, state: 'pending', amount: 21_000 });
      await expect(client.lookupInvoice({ invoice: made.invoice })).resolves.toMatchObject({ payment_hash: made.payment_hash, state: 'pending' });
      expect(await walletErrorOf(client.lookupInvoice({ payment_hash: 'ab'.repeat(32) }))).toBe('NOT_FOUND');

      // pay_invoice: two payment requests of this sandbox.
      const first = await server.create({ amount: 1_000, description: 'first' });
      const second = await server.create({ amount: 2_000, description: 'second' });
      const paidFirst = await client.payInvoice({ invoice: first.invoice });
      expect(hashOf(paidFirst.preimage)).toBe(first.paymentHash);
      expect(paidFirst.fees_paid).toBe(0);
      const paidSecond = await client.payInvoice({ invoice: second.invoice });
      expect(hashOf(paidSecond.preimage)).toBe(second.paymentHash);
      expect((await client.getBalance()).balance).toBe((50_000 - 3_000) * 1000);
      expect(await httpBalance(wallet.id)).toBe(47_000);
      await expect(client.lookupInvoice({ payment_hash: first.paymentHash })).resolves.toMatchObject({ type: 'outgoing', state: 'settled', preimage: paidFirst.preimage });

      // list_transactions: newest first; settled only unless `unpaid`; `type` filters.
      const settled = (await client.listTransactions({})).transactions;
      expect(settled.map((transaction) => transaction.payment_hash)).toEqual([second.paymentHash, first.paymentHash]);
      expect(settled[0]).toMatchObject({ type: 'outgoing', state: 'settled', amount: 2_000_000, fees_paid: 0, preimage: paidSecond.preimage, description: 'second' });
      for (const transaction of settled) for (const key of NIP47_TRANSACTION_KEYS) expect(transaction).toHaveProperty(key);
      const withUnpaid = (await client.listTransactions({ unpaid: true })).transactions;
      expect(withUnpaid.map((transaction) => transaction.payment_hash)).toEqual([second.paymentHash, first.paymentHash, made.payment_hash]);
      const createdAts = withUnpaid.map((transaction) => transaction.created_at);
      expect(createdAts).toEqual([...createdAts].sort((a, b) => b - a));
      expect((await client.listTransactions({ type: 'incoming', unpaid: true })).transactions.map((transaction) => transaction.payment_hash)).toEqual([made.payment_hash]);
      expect((await client.listTransactions({ type: 'incoming' })).transactions).toEqual([]);
      expect((await client.listTransactions({ type: 'outgoing', unpaid: true })).transactions.map((transaction) => transaction.payment_hash)).toEqual([
        second.paymentHash,
        first.paymentHash,
      ]);
      expect((await client.listTransactions({ unpaid: true, limit: 1, offset: 1 })).transactions.map((transaction) => transaction.payment_hash)).toEqual([first.paymentHash]);
    });
  });

  it("pay_invoice refusals: INSUFFICIENT_BALANCE; PAYMENT_FAILED for garbage, a paid request, an expired request, an expired wallet invoice", async () => {
    const wallet = await testWallet(100);
    // Expiries on an account of their own, whose clock may move.
    const account = await newAccount('custodial');
    const payee = await testWallet(0, account.keys.secret);
    await withSdk(wallet.nwcUrl, async (client) => {
      const big = await server.create({ amount: 101 });
      expect(await walletErrorOf(client.payInvoice({ invoice: big.invoice }))).toBe('INSUFFICIENT_BALANCE');
      expect(await walletErrorOf(client.payInvoice({ invoice: 'lnbcrt1garbage' }))).toBe('PAYMENT_FAILED');
      const done = await server.create({ amount: 21 });
      expect((await server.api(`/sandbox/v1/payment-requests/${done.id}/complete`, { method: 'POST' })).status).toBe(200);
      expect(await walletErrorOf(client.payInvoice({ invoice: done.invoice }))).toBe('PAYMENT_FAILED');

      const expiring = await server.create({ amount: 21, expiresIn: 60 }, account.keys.secret);
      const walletInvoice = await withSdk(payee.nwcUrl, (payeeClient) => payeeClient.makeInvoice({ amount: 21_000, expiry: 60 }));
      expect((await server.api('/sandbox/v1/clock/advance', { key: account.keys.secret, body: { seconds: 61 } })).status).toBe(200);
      expect(await walletErrorOf(client.payInvoice({ invoice: expiring.invoice }))).toBe('PAYMENT_FAILED');
      expect(await walletErrorOf(client.payInvoice({ invoice: walletInvoice.invoice }))).toBe('PAYMENT_FAILED');
      await withSdk(payee.nwcUrl, async (payeeClient) => {
        await expect(payeeClient.lookupInvoice({ payment_hash: walletInvoice.payment_hash })).resolves.toMatchObject({ state: 'expired' });
      });

      expect((await client.getBalance()).balance).toBe(100_000);
      expect(await httpBalance(payee.id, account.keys.secret)).toBe(0);
    });
  });
});

describe('every NIP-47 method of a test wallet over NIP-04 (a nostr-tools client)', () => {
  it('the info event advertises nip44_v2 and nip04; every method answers over NIP-04', async () => {
    const wallet = await testWallet(30_000);
    await withNip04(wallet.nwcUrl, async (client) => {
      const info = await client.infoEvent();
      expect(info.kind).toBe(13194);
      expect(info.pubkey).toBe(client.walletPubkey);
      const encryption = info.tags.find(([name]) => name === 'encryption');
      expect(encryption?.[1]?.split(' ').sort()).toEqual(['nip04', 'nip44_v2']);
      expect(info.content.split(' ').sort()).toEqual([...ALL_METHODS, 'notifications'].sort());
      expect(info.tags).toContainEqual(['notifications', expect.stringMatching(/payment_received/)]);

      const gotInfo = await client.request('get_info');
      expect(gotInfo.error ?? undefined).toBeUndefined();
      expect(gotInfo.result_type).toBe('get_info');
      expect(gotInfo.result).toMatchObject({ network: 'regtest', pubkey: expect.stringMatching(/^[0-9a-f]{66}$/) });
      expect([...gotInfo.result.methods].sort()).toEqual([...ALL_METHODS].sort());

      const balance = await client.request('get_balance');
      expect(balance).toMatchObject({ result_type: 'get_balance', result: { balance: 30_000_000 } });

      const made = await client.request('make_invoice', { amount: 5_000, description: 'nip04 invoice', expiry: 120 });
      expect(made.result).toMatchObject({ type: 'incoming', state: 'pending', amount: 5_000, description: 'nip04 invoice' });
      const decoded = decode(made.result.invoice);
      expect([decoded.satoshis, decoded.tagsObject.description, decoded.tagsObject.expire_time, decoded.tagsObject.payment_hash]).toEqual([
        5,
        'nip04 invoice',
        120,
        made.result.payment_hash,
      ]);
      expect(decoded.payeeNodeKey).toBe(gotInfo.result.pubkey);

      await expect(client.request('lookup_invoice', { payment_hash: made.result.payment_hash })).resolves.toMatchObject({
        result_type: 'lookup_invoice',
        result: { invoice: made.result.invoice, state: 'pending' },
      });
      await expect(client.request('lookup_invoice', { invoice: made.result.invoice })).resolves.toMatchObject({ result: { payment_hash: made.result.payment_hash } });
      const unknown = await client.request('lookup_invoice', { payment_hash: 'cd'.repeat(32) });
      expect(unknown).toMatchObject({ result_type: 'lookup_invoice', error: { code: 'NOT_FOUND' } });

      const request = await server.create({ amount: 3_000 });
      const paid = await client.request('pay_invoice', { invoice: request.invoice });
      expect(paid).toMatchObject({ result_type: 'pay_invoice', result: { fees_paid: 0 } });
      expect(hashOf(paid.result.preimage)).toBe(request.paymentHash);
      expect((await server.api(`/api/v1/payment-requests/${request.id}`)).body).toMatchObject({ status: 'completed', preimage: paid.result.preimage });
      expect((await client.request('get_balance')).result.balance).toBe(27_000_000);
      expect(await httpBalance(wallet.id)).toBe(27_000);

      const listed = await client.request('list_transactions', { unpaid: true });
      expect(listed.result.transactions.map((transaction: { payment_hash: string }) => transaction.payment_hash)).toEqual([request.paymentHash, made.result.payment_hash]);
      const outgoing = await client.request('list_transactions', { type: 'outgoing' });
      expect(outgoing.result.transactions).toEqual([expect.objectContaining({ type: 'outgoing', state: 'settled', preimage: paid.result.preimage, amount: 3_000_000 })]);
      expect((await client.request('list_transactions', {})).result.transactions).toHaveLength(1);

      const broke = await client.request('pay_invoice', { invoice: (await server.create({ amount: 1_000_000 })).invoice });
      expect(broke.error?.code).toBe('INSUFFICIENT_BALANCE');
    });
  });
});

describe('a test wallet pays another test wallet', () => {
  it('both balances move, payment_received and payment_sent arrive, lookup shows it settled; twice or to itself: PAYMENT_FAILED', async () => {
    const payee = await testWallet(1_000, KEYS.custodial, server, 'payee');
    const payer = await testWallet(10_000, KEYS.nwc, server, 'payer'); // of another account: any invoice of the sandbox settles
    const payeeClient = new sdk.NWCClient({ nostrWalletConnectUrl: payee.nwcUrl });
    const payerClient = new sdk.NWCClient({ nostrWalletConnectUrl: payer.nwcUrl });
    const legacy = await connectNip04Client(payee.nwcUrl);
    const unsubscribes: Array<() => void> = [];
    try {
      const received: Array<{ notification_type: string; notification: any }> = [];
      const sent: Array<{ notification_type: string; notification: any }> = [];
      unsubscribes.push(await payeeClient.subscribeNotifications((notification) => received.push(notification)));
      unsubscribes.push(await payerClient.subscribeNotifications((notification) => sent.push(notification)));
      const overNip04 = await legacy.notifications([23196]);
      unsubscribes.push(overNip04.close);
      // The sdk subscribes in the background; a request on the same socket after it is proof the REQ went first.
      await payeeClient.getBalance();
      await payerClient.getBalance();

      const invoice = await payeeClient.makeInvoice({ amount: 2_500_000, description: 'wallet to wallet' });
      const paid = await payerClient.payInvoice({ invoice: invoice.invoice });
      expect(hashOf(paid.preimage)).toBe(invoice.payment_hash);
      expect(paid.fees_paid).toBe(0);

      expect(await httpBalance(payee.id)).toBe(3_500);
      expect(await httpBalance(payer.id, KEYS.nwc)).toBe(7_500);
      expect((await payeeClient.getBalance()).balance).toBe(3_500_000);
      expect((await payerClient.getBalance()).balance).toBe(7_500_000);

      await expect.poll(() => received.length, { timeout: 3_000 }).toBeGreaterThan(0);
      expect(received).toEqual([
        {
          notification_type: 'payment_received',
          notification: expect.objectContaining({ type: 'incoming', state: 'settled', payment_hash: invoice.payment_hash, preimage: paid.preimage, amount: 2_500_000 }),
        },
      ]);
      await expect.poll(() => sent.length, { timeout: 3_000 }).toBeGreaterThan(0);
      expect(sent).toEqual([
        {
          notification_type: 'payment_sent',
          notification: expect.objectContaining({ type: 'outgoing', state: 'settled', payment_hash: invoice.payment_hash, preimage: paid.preimage, amount: 2_500_000, fees_paid: 0 }),
        },
      ]);
      // The same notification over NIP-04 (kind 23196), for clients that speak only that.
      await expect.poll(() => overNip04.received.length, { timeout: 3_000 }).toBe(1);
      expect(overNip04.received[0]).toMatchObject({ kind: 23196, notification_type: 'payment_received', notification: { payment_hash: invoice.payment_hash, preimage: paid.preimage } });

      const looked = await payeeClient.lookupInvoice({ payment_hash: invoice.payment_hash });
      expect(looked).toMatchObject({ type: 'incoming', state: 'settled', preimage: paid.preimage, amount: 2_500_000 });
      expect(looked.settled_at).toBeGreaterThan(0);
      await expect(payerClient.lookupInvoice({ invoice: invoice.invoice })).resolves.toMatchObject({ type: 'outgoing', state: 'settled', preimage: paid.preimage });

      // Paid already: refused, and nothing moves.
      expect(await walletErrorOf(payerClient.payInvoice({ invoice: invoice.invoice }))).toBe('PAYMENT_FAILED');
      // A wallet paying its own invoice: refused.
      const own = await payerClient.makeInvoice({ amount: 1_000_000, description: 'to myself' });
      expect(await walletErrorOf(payerClient.payInvoice({ invoice: own.invoice }))).toBe('PAYMENT_FAILED');
      expect(await httpBalance(payee.id)).toBe(3_500);
      expect(await httpBalance(payer.id, KEYS.nwc)).toBe(7_500);
      await expect(payerClient.lookupInvoice({ payment_hash: own.payment_hash })).resolves.toMatchObject({ state: 'pending' });
      // No second notification came of the refused payments.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(received).toHaveLength(1);
      expect(sent).toHaveLength(1);
    } finally {
      for (const unsubscribe of unsubscribes) unsubscribe();
      payeeClient.close();
      payerClient.close();
      legacy.close();
    }
  });
});

describe('the HTTP API of test wallets', () => {
  it('create (201, Location, nwcUrl on the relay), list, get, topup, transactions, delete', async () => {
    const made = await server.api('/sandbox/v1/wallets', { body: { balance: 4_000, name: 'checkout tests' } });
    expect(made.status).toBe(201);
    const wallet = made.body as WalletBody;
    expect(wallet).toEqual({ id: expect.stringMatching(/^wal_/), name: 'checkout tests', balance: 4_000, walletPubkey: expect.any(String), nwcUrl: expect.any(String), createdAt: expect.any(String) });
    expect(made.headers.get('location')).toBe(`/sandbox/v1/wallets/${wallet.id}`);
    const relayUrl = `${server.url.replace(/^http/, 'ws')}/nostr`;
    const point = parseNwcUrl(wallet.nwcUrl);
    expect(point.relay).toBe(relayUrl);
    expect(point.walletPubkey).toMatch(/^[0-9a-f]{64}$/);
    expect(point.walletPubkey).toBe(wallet.walletPubkey);
    expect(point.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(Math.abs(Date.parse(wallet.createdAt) - Date.now())).toBeLessThan(60_000);
    // A name is optional.
    const unnamed = await testWallet(0);
    expect(unnamed.name).toBeNull();
    expect(unnamed.balance).toBe(0);

    const listed = await server.api('/sandbox/v1/wallets');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toContainEqual(wallet);
    expect(listed.body.data).toContainEqual(unnamed);
    expect(await server.api(`/sandbox/v1/wallets/${wallet.id}`)).toMatchObject({ status: 200, body: wallet });

    const topped = await server.api(`/sandbox/v1/wallets/${wallet.id}/topup`, { body: { amount: 1_000 } });
    expect(topped).toMatchObject({ status: 200, body: { ...wallet, balance: 5_000 } });
    for (const amount of [0, -5, 1.5, MAX_WALLET_BALANCE_SATS, MAX_WALLET_BALANCE_SATS + 1]) {
      const refused = await server.api(`/sandbox/v1/wallets/${wallet.id}/topup`, { body: { amount } });
      expect(refused.status, `topup ${amount}`).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
      expect(refused.body.error.details.map((detail: { field: string }) => detail.field)).toContain('amount');
    }
    // Up to the largest balance exactly is fine.
    const toTheTop = await server.api(`/sandbox/v1/wallets/${unnamed.id}/topup`, { body: { amount: MAX_WALLET_BALANCE_SATS } });
    expect(toTheTop).toMatchObject({ status: 200, body: { balance: MAX_WALLET_BALANCE_SATS } });
    const pastTheTop = await server.api(`/sandbox/v1/wallets/${unnamed.id}/topup`, { body: { amount: 1 } });
    expect(pastTheTop.status).toBe(400);
    expect(pastTheTop.body.error.details[0]).toMatchObject({ field: 'amount' });
    expect(await httpBalance(wallet.id)).toBe(5_000);

    // Transactions: NIP-47 objects, newest first, unpaid invoices included.
    const request = await server.create({ amount: 1_200 });
    await withSdk(wallet.nwcUrl, async (client) => {
      const made = await client.makeInvoice({ amount: 7_000, description: 'pending one' });
      await client.payInvoice({ invoice: request.invoice });
      const transactions = await server.api(`/sandbox/v1/wallets/${wallet.id}/transactions`);
      expect(transactions.status).toBe(200);
      expect(transactions.body.data).toEqual([
        expect.objectContaining({ type: 'outgoing', state: 'settled', payment_hash: request.paymentHash, amount: 1_200_000, fees_paid: 0, invoice: request.invoice }),
        expect.objectContaining({ type: 'incoming', state: 'pending', payment_hash: made.payment_hash, amount: 7_000, description: 'pending one' }),
      ]);
      for (const transaction of transactions.body.data) {
        for (const key of NIP47_TRANSACTION_KEYS) expect(transaction).toHaveProperty(key);
        expect(Number.isInteger(transaction.created_at)).toBe(true);
      }
      // The same objects the wallet itself shows.
      expect((await client.listTransactions({ unpaid: true })).transactions).toEqual(transactions.body.data);
      expect(await httpBalance(wallet.id)).toBe(3_800);

      // Delete: 204, gone, and its connection stops answering.
      const deleted = await server.api(`/sandbox/v1/wallets/${wallet.id}`, { method: 'DELETE' });
      expect([deleted.status, deleted.text]).toEqual([204, '']);
      expect((await server.api(`/sandbox/v1/wallets/${wallet.id}`)).body.error.code).toBe('wallet_not_found');
      expect((await server.api(`/sandbox/v1/wallets/${wallet.id}/transactions`)).status).toBe(404);
      expect((await server.api('/sandbox/v1/wallets')).body.data.map((listedWallet: WalletBody) => listedWallet.id)).not.toContain(wallet.id);
      expect(await quickRequest(client, 'get_balance').catch((error: unknown) => error)).toBeInstanceOf(sdk.Nip47ReplyTimeoutError);
    });
    // A nostr-tools client too: silence.
    await withNip04(wallet.nwcUrl, async (client) => {
      expect(await client.requestOrSilence('get_balance', {}, SILENCE_MS)).toBeUndefined();
    });
    expect((await server.api(`/sandbox/v1/wallets/${wallet.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('a read-only key reads but may not change (401 insufficient_permission)', async () => {
    const wallet = await testWallet(500);
    const list = await server.api('/sandbox/v1/wallets', { key: KEYS.readonly });
    expect(list.status).toBe(200);
    expect(list.body.data.map((listed: WalletBody) => listed.id)).toContain(wallet.id);
    expect(await server.api(`/sandbox/v1/wallets/${wallet.id}`, { key: KEYS.readonly })).toMatchObject({ status: 200, body: { id: wallet.id, balance: 500 } });
    expect((await server.api(`/sandbox/v1/wallets/${wallet.id}/transactions`, { key: KEYS.readonly })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/sandbox/v1/wallets', { balance: 1 }],
      ['POST', `/sandbox/v1/wallets/${wallet.id}/topup`, { amount: 1 }],
      ['DELETE', `/sandbox/v1/wallets/${wallet.id}`, undefined],
    ] as const) {
      const refused = await server.api(path, { method, key: KEYS.readonly, ...(body !== undefined ? { body } : {}) });
      expect([method, path, refused.status, refused.body.error?.code]).toEqual([method, path, 401, 'insufficient_permission']);
    }
    expect(await httpBalance(wallet.id)).toBe(500);
    // The account's NWC connection: its secret (nwcUrl) for a create key only.
    const nwcAccount = await newAccount('nwc');
    const readOnlyView = await server.api('/sandbox/v1/wallet', { key: nwcAccount.keys.readOnly });
    expect(readOnlyView.status).toBe(200);
    expect(readOnlyView.body).not.toHaveProperty('nwcUrl');
    expect(readOnlyView.body).toMatchObject({ walletPubkey: expect.stringMatching(/^[0-9a-f]{64}$/), online: true });
    expect((await server.api('/sandbox/v1/wallet', { key: nwcAccount.keys.secret })).body.nwcUrl).toMatch(/^nostr\+walletconnect:\/\//);
    expect((await server.api('/sandbox/v1/wallets', { key: nwcAccount.keys.readOnly, body: { balance: 1 } })).body.error.code).toBe('insufficient_permission');
  });

  it("another account's wallet reads as absent (404 wallet_not_found)", async () => {
    const wallet = await testWallet(500);
    for (const [method, path, body] of [
      ['GET', `/sandbox/v1/wallets/${wallet.id}`, undefined],
      ['GET', `/sandbox/v1/wallets/${wallet.id}/transactions`, undefined],
      ['POST', `/sandbox/v1/wallets/${wallet.id}/topup`, { amount: 1 }],
      ['DELETE', `/sandbox/v1/wallets/${wallet.id}`, undefined],
      ['GET', '/sandbox/v1/wallets/wal_doesnotexist', undefined],
    ] as const) {
      const res = await server.api(path, { method, key: KEYS.nwc, ...(body !== undefined ? { body } : {}) });
      expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 404, 'wallet_not_found']);
    }
    expect((await server.api('/sandbox/v1/wallets', { key: KEYS.nwc })).body.data.map((listed: WalletBody) => listed.id)).not.toContain(wallet.id);
    expect(await httpBalance(wallet.id)).toBe(500);
  });

  it('the 101st wallet of an account: 409 wallet_limit_reached; one deleted makes room', async () => {
    const account = await newAccount('custodial');
    const key = account.keys.secret;
    const ids: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const made = await Promise.all(Array.from({ length: 10 }, () => server.api('/sandbox/v1/wallets', { key, body: { balance: 1 } })));
      for (const res of made) {
        expect(res.status, res.text).toBe(201);
        ids.push(res.body.id);
      }
    }
    expect(new Set(ids).size).toBe(100);
    const refused = await server.api('/sandbox/v1/wallets', { key, body: { balance: 1 } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('wallet_limit_reached');
    expect((await server.api('/sandbox/v1/wallets', { key })).body.data).toHaveLength(100);
    // Another account is not held back by this one's wallets.
    expect((await server.api('/sandbox/v1/wallets', { key: KEYS.nwc, body: { balance: 1 } })).status).toBe(201);
    expect((await server.api(`/sandbox/v1/wallets/${ids[0]}`, { method: 'DELETE', key })).status).toBe(204);
    expect((await server.api('/sandbox/v1/wallets', { key, body: { balance: 1 } })).status).toBe(201);
  });
});

describe('persistence and resets', () => {
  it('with a data file: wallets, balances, transactions and connections survive a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lnpr-nwc-wallets-'));
    const dataFile = join(dir, 'sandbox.json');
    let first: RunningServer | undefined;
    let second: RunningServer | undefined;
    try {
      first = await startServer({ dataFile });
      const wallet = await testWallet(9_000, KEYS.custodial, first, 'kept');
      const request = await first.create({ amount: 2_000, description: 'before restart' });
      const { paid, pending } = await withSdk(wallet.nwcUrl, async (client) => {
        const paid = await client.payInvoice({ invoice: request.invoice });
        const pending = await client.makeInvoice({ amount: 4_000, description: 'still pending' });
        return { paid, pending };
      });
      expect(hashOf(paid.preimage)).toBe(request.paymentHash);
      const transactionsBefore = (await first.api(`/sandbox/v1/wallets/${wallet.id}/transactions`)).body.data;
      expect(transactionsBefore).toHaveLength(2);
      await first.close();
      first = undefined;

      second = await startServer({ dataFile });
      const listed = await second.api('/sandbox/v1/wallets');
      expect(listed.status).toBe(200);
      expect(listed.body.data).toHaveLength(1);
      const kept = listed.body.data[0] as WalletBody;
      expect(kept).toMatchObject({ id: wallet.id, name: 'kept', balance: 7_000, createdAt: wallet.createdAt });
      expect((await second.api(`/sandbox/v1/wallets/${wallet.id}/transactions`)).body.data).toEqual(transactionsBefore);
      // The same connection (wallet pubkey and secret), on the new server's relay.
      const before = parseNwcUrl(wallet.nwcUrl);
      const after = parseNwcUrl(kept.nwcUrl);
      expect(after.relay).toBe(`${second.url.replace(/^http/, 'ws')}/nostr`);
      expect([after.walletPubkey, after.secret]).toEqual([before.walletPubkey, before.secret]);

      const again = await second.create({ amount: 500, description: 'after restart' });
      await withSdk(kept.nwcUrl, async (client) => {
        expect((await client.getBalance()).balance).toBe(7_000_000);
        await expect(client.lookupInvoice({ payment_hash: pending.payment_hash })).resolves.toMatchObject({ state: 'pending', amount: 4_000 });
        await expect(client.lookupInvoice({ payment_hash: request.paymentHash })).resolves.toMatchObject({ type: 'outgoing', state: 'settled', preimage: paid.preimage });
        const paidAgain = await client.payInvoice({ invoice: again.invoice });
        expect(hashOf(paidAgain.preimage)).toBe(again.paymentHash);
        const all = (await client.listTransactions({ unpaid: true })).transactions;
        expect(all.map((transaction) => transaction.payment_hash)).toEqual([again.paymentHash, pending.payment_hash, request.paymentHash]);
      });
      expect(await httpBalance(wallet.id, KEYS.custodial, second)).toBe(6_500);
      expect((await second.api(`/api/v1/payment-requests/${again.id}`)).body.status).toBe('completed');
    } finally {
      await first?.close();
      await second?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("POST /sandbox/v1/reset deletes the account's test wallets (only its own); they pay nothing any more", async () => {
    const account = await newAccount('custodial');
    const key = account.keys.secret;
    const wallet = await testWallet(1_000, key);
    await testWallet(2_000, key);
    const other = await testWallet(3_000);
    await withSdk(wallet.nwcUrl, async (client) => {
      expect((await client.getBalance()).balance).toBe(1_000_000);
      const reset = await server.api('/sandbox/v1/reset', { method: 'POST', key });
      expect([reset.status, reset.text]).toEqual([204, '']);
      expect((await server.api('/sandbox/v1/wallets', { key })).body).toEqual({ data: [] });
      expect((await server.api(`/sandbox/v1/wallets/${wallet.id}`, { key })).status).toBe(404);
      const request = await server.create({ amount: 21 });
      const attempt = await quickRequest(client, 'pay_invoice', { invoice: request.invoice }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      expect(attempt).not.toHaveProperty('result');
      expect((await server.api(`/api/v1/payment-requests/${request.id}`)).body.status).toBe('pending');
    });
    expect(await httpBalance(other.id)).toBe(3_000);
  });

  // CONTRACT.md: a deleted wallet's "connection stops answering"; a reset (or the account's
  // deletion) deletes the account's test wallets too.
  it.each(['a reset', "the account's deletion"])('a wallet deleted by %s goes quiet like a deleted one: no invoice to pay into the void', async (how) => {
    const account = await newAccount('custodial');
    const key = account.keys.secret;
    const wallet = await testWallet(1_000, key);
    const payer = await testWallet(1_000);
    await withSdk(wallet.nwcUrl, async (client) => {
      expect((await client.getBalance()).balance).toBe(1_000_000);
      const gone =
        how === 'a reset'
          ? await server.api('/sandbox/v1/reset', { method: 'POST', key })
          : await server.api(`/sandbox/v1/accounts/${account.id}`, { method: 'DELETE', key: KEYS.admin });
      expect(gone.status).toBe(204);
      const made = await quickRequest(client, 'make_invoice', { amount: 5_000 }).catch((error: unknown) => error);
      if (!(made instanceof Error)) {
        // The ghost wallet made an invoice: paying it moves the payer's money to nobody.
        const paid = await withSdk(payer.nwcUrl, (payerClient) => payerClient.payInvoice({ invoice: (made as { invoice: string }).invoice }).catch((error: unknown) => error));
        expect({ made, paid, payerBalance: await httpBalance(payer.id) }).toEqual({ made: 'no answer', paid: 'refused', payerBalance: 1_000 });
      }
      expect(made).toBeInstanceOf(sdk.Nip47ReplyTimeoutError);
      expect(await quickRequest(client, 'get_info').catch((error: unknown) => error)).toBeInstanceOf(sdk.Nip47ReplyTimeoutError);
    });
  });

  it('wallet faults stay through a reset and go with {"scope":"all"}', async () => {
    const account = await newAccount('nwc');
    const key = account.keys.secret;
    const create = () => server.api('/api/v1/payment-requests', { key, body: { amount: 100, description: 'fault check', destinationWallet: 'merchant@example.com' } });
    expect((await create()).status).toBe(201);
    expect((await server.api('/sandbox/v1/wallet', { key })).body).toMatchObject({ online: true });
    const faults = await server.api('/sandbox/v1/wallet/faults', { method: 'PUT', key, body: { offline: true } });
    expect(faults).toMatchObject({ status: 200, body: { offline: true } });
    expect((await server.api('/sandbox/v1/wallet', { key })).body).toMatchObject({ online: false });
    const unavailable = await create();
    expect([unavailable.status, unavailable.body.error?.code]).toEqual([502, 'wallet_unavailable']);

    expect((await server.api('/sandbox/v1/reset', { method: 'POST', key })).status).toBe(204);
    expect((await create()).status).toBe(502);

    expect((await server.api('/sandbox/v1/reset', { method: 'POST', key, body: { scope: 'all' } })).status).toBe(204);
    expect((await server.api('/sandbox/v1/wallet', { key })).body).toMatchObject({ online: true });
    const created = await create();
    expect(created.status, created.text).toBe(201);
    expect(decode(created.body.invoice).tagsObject.payment_hash).toBe(created.body.paymentHash);
  });
});

describe('the world paying an NWC request: the pay page and POST /sandbox/v1/pay', () => {
  async function merchantLookup(paymentHash: string) {
    const connection = await server.api('/sandbox/v1/wallet', { key: KEYS.nwc });
    expect(connection.status).toBe(200);
    expect(connection.body.nwcUrl).toEqual(expect.stringMatching(/^nostr\+walletconnect:\/\//));
    expect(parseNwcUrl(connection.body.nwcUrl).relay).toBe(`${server.url.replace(/^http/, 'ws')}/nostr`);
    return withSdk(connection.body.nwcUrl, (client) => client.lookupInvoice({ payment_hash: paymentHash }));
  }

  it('"Pay with test wallet" completes it at once; the merchant wallet shows it settled', async () => {
    const request = await server.create({ amount: 777, description: 'pay page order' }, KEYS.nwc);
    const paid = await server.api(`/sandbox/v1/pay-page/${request.id}/pay`, { method: 'POST', key: null });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ id: request.id, status: 'completed' });
    const read = await server.api(`/api/v1/payment-requests/${request.id}`, { key: KEYS.nwc });
    expect(read.body.status).toBe('completed');
    expect(hashOf(read.body.preimage)).toBe(request.paymentHash);
    await expect(merchantLookup(request.paymentHash)).resolves.toMatchObject({
      type: 'incoming',
      state: 'settled',
      preimage: read.body.preimage,
      amount: 777_000,
      invoice: request.invoice,
    });
    // Paid: the page's button cannot pay it again.
    expect((await server.api(`/sandbox/v1/pay-page/${request.id}/pay`, { method: 'POST', key: null })).status).toBe(409);
  });

  it('POST /sandbox/v1/pay completes it at once; the merchant wallet shows it settled', async () => {
    const request = await server.create({ amount: 888, description: 'control pay' }, KEYS.nwc);
    const paid = await server.api('/sandbox/v1/pay', { key: KEYS.nwc, body: { invoice: request.invoice } });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ paymentRequestId: request.id, status: 'completed' });
    expect(hashOf(paid.body.preimage)).toBe(request.paymentHash);
    expect((await server.api(`/api/v1/payment-requests/${request.id}`, { key: KEYS.nwc })).body).toMatchObject({ status: 'completed', preimage: paid.body.preimage });
    await expect(merchantLookup(request.paymentHash)).resolves.toMatchObject({ state: 'settled', preimage: paid.body.preimage, amount: 888_000 });
    const again = await server.api('/sandbox/v1/pay', { key: KEYS.nwc, body: { invoice: request.invoice } });
    expect(again.status).toBe(409);
  });
});
