/**
 * An NWC account whose connected wallet runs elsewhere: the accounts file names it by `nwcUrl`
 * (no walletNodeKey), and the wallet is @getalby/sdk 7.0.0's NWCWalletService on a relay of its
 * own (the test harness relay, on its own port), as a merchant's wallet on signet would be. Through
 * the real server: a create asks that wallet (make_invoice) and answers with its invoice; its
 * payment_received notification (published by the test as the wallet, since sdk 7 cannot) or a
 * lookup_invoice answer completes the request; a silent, unreachable or refusing wallet gets a 502
 * and nothing is stored; the sandbox cannot pay such an invoice itself.
 */
import bolt11 from 'bolt11';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';
import type { NWCWalletServiceRequestHandler, Nip47MakeInvoiceRequest, Nip47Transaction as SdkTransaction } from '@getalby/sdk/nwc';
import * as nip44 from 'nostr-tools/nip44';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import defaultAccounts from '../fixtures/accounts.json' with { type: 'json' };
import { webSocketRelaySession, type WebSocketRelaySession } from '../src/nostr/web-socket-relay-session.node.js';
import { freePort } from './support/free-port.js';
import { startNostrTestRelay, type NostrTestRelay } from './support/nostr-test-relay.js';
import { createBody, startServer, type RunningServer } from './support/sandbox-server.js';

// Node 20 has no global WebSocket; the sdk's bundled nostr-tools reads it when the sdk loads.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
type Sdk = typeof import('@getalby/sdk/nwc');

const seconds = () => Math.floor(Date.now() / 1000);
const REGTEST = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] };

/** An invoice the wallet made (its own node key, its own preimage), and whether it was paid. */
interface MadeInvoice {
  invoice: string;
  paymentHash: string;
  preimage: string;
  amountMsats: number;
  description: string | undefined;
  createdAt: number;
  expiry: number;
  settled: boolean;
}

/** A BOLT11 invoice as a wallet elsewhere makes it: the bolt11 package, signed by a random node key. */
function walletInvoice(request: Nip47MakeInvoiceRequest): MadeInvoice {
  const preimage = bytesToHex(randomBytes(32));
  const paymentHash = bytesToHex(sha256(Buffer.from(preimage, 'hex')));
  const createdAt = seconds();
  const expiry = request.expiry ?? 3600;
  const unsigned = bolt11.encode({
    network: REGTEST,
    millisatoshis: String(request.amount),
    timestamp: createdAt,
    tags: [
      { tagName: 'payment_hash', data: paymentHash },
      { tagName: 'payment_secret', data: bytesToHex(randomBytes(32)) },
      { tagName: 'description', data: request.description ?? '' },
      { tagName: 'expire_time', data: expiry },
    ],
  });
  const { paymentRequest } = bolt11.sign(unsigned, bytesToHex(randomBytes(32)));
  return { invoice: paymentRequest!, paymentHash, preimage, amountMsats: request.amount, description: request.description, createdAt, expiry, settled: false };
}

/** The NIP-47 transaction of a made invoice, as the wallet answers it. */
function transactionOf(made: MadeInvoice): SdkTransaction {
  return {
    type: 'incoming',
    state: made.settled ? 'settled' : 'pending',
    invoice: made.invoice,
    description: made.description ?? '',
    payment_hash: made.paymentHash,
    amount: made.amountMsats,
    fees_paid: 0,
    created_at: made.createdAt,
    expires_at: made.createdAt + made.expiry,
    ...(made.settled ? { preimage: made.preimage, settled_at: seconds() } : {}),
  } as SdkTransaction;
}

/** A wallet's keys and its NWC URL (relay + the client's secret). */
function walletKeys(relayUrl: string) {
  const walletSecretKey = generateSecretKey();
  const clientSecretKey = generateSecretKey();
  const walletPubkey = getPublicKey(walletSecretKey);
  const clientPubkey = getPublicKey(clientSecretKey);
  const nwcUrl = `nostr+walletconnect://${walletPubkey}?relay=${encodeURIComponent(relayUrl)}&secret=${bytesToHex(clientSecretKey)}`;
  return { walletSecretKey, clientSecretKey, walletPubkey, clientPubkey, nwcUrl, relayUrl };
}
type WalletKeys = ReturnType<typeof walletKeys>;

const KEY = { ext: 'sk_test_ext', refusing: 'sk_test_refusing', silent: 'sk_test_silent', ignoring: 'sk_test_ignoring', unreachable: 'sk_test_unreachable' };

/** An accounts file (the shape of fixtures/accounts.json): the custodial account and NWC accounts of wallets elsewhere. */
function accountsOf(wallets: Record<string, { id: string; nwcUrl: string }>) {
  return {
    serviceNodeKey: defaultAccounts.serviceNodeKey,
    accounts: [{ id: 'acct_custodial', mode: 'custodial' as const }, ...Object.values(wallets).map(({ id, nwcUrl }) => ({ id, mode: 'nwc' as const, nwcUrl }))],
    keys: [
      { key: 'sk_test_custodial', account: 'acct_custodial', permissions: ['create' as const, 'read' as const] },
      ...Object.entries(wallets).map(([key, { id }]) => ({ key, account: id, permissions: ['create' as const, 'read' as const] })),
    ],
  };
}

describe('an NWC account whose wallet runs elsewhere (nwcUrl): @getalby/sdk NWCWalletService on its own relay', () => {
  let sdk: Sdk;
  let relay: NostrTestRelay;
  /** The test's own session on the wallet's relay: it publishes notifications as the wallet would. */
  let publisher: WebSocketRelaySession;
  let server: RunningServer;
  let slowServer: RunningServer;
  let ext: WalletKeys;
  let refusing: WalletKeys;
  let silent: WalletKeys;
  let ignoring: WalletKeys;
  let unreachable: WalletKeys;
  const cleanups: Array<() => void> = [];
  /** What the external wallet (acct_ext's) was asked, and what it made. */
  const makeRequests: Nip47MakeInvoiceRequest[] = [];
  const lookups: string[] = [];
  const made = new Map<string, MadeInvoice>();

  /** Runs an sdk wallet service for `keys` with `handler`; resolves once it listens on the relay. */
  async function runWallet(keys: WalletKeys, handler: NWCWalletServiceRequestHandler): Promise<void> {
    const service = new sdk.NWCWalletService({ relayUrl: relay.url });
    cleanups.push(() => service.close());
    await service.publishWalletServiceInfoEvent(bytesToHex(keys.walletSecretKey), ['get_info', 'make_invoice', 'lookup_invoice'], ['payment_received']);
    const unsubscribe = await service.subscribe(new sdk.NWCWalletServiceKeyPair(bytesToHex(keys.walletSecretKey), keys.clientPubkey), handler);
    cleanups.push(unsubscribe);
    await relay.waitForSubscription((filters) => filters.some((filter) => filter.kinds?.includes(23194) && filter['#p']?.includes(keys.walletPubkey)));
  }

  beforeAll(async () => {
    for (const method of ['info', 'warn', 'error'] as const) vi.spyOn(console, method).mockImplementation(() => {});
    sdk = await import('@getalby/sdk/nwc');
    relay = await startNostrTestRelay();
    publisher = webSocketRelaySession(relay.url, { publishTimeoutMs: 3_000 });
    ext = walletKeys(relay.url);
    refusing = walletKeys(relay.url);
    silent = walletKeys(relay.url); // no service at all: no info event, no answers
    ignoring = walletKeys(relay.url); // a service that never answers make_invoice
    unreachable = walletKeys(`ws://127.0.0.1:${await freePort()}`); // a relay nobody runs
    await runWallet(ext, {
      makeInvoice: async (request) => {
        makeRequests.push(request);
        const invoice = walletInvoice(request);
        made.set(invoice.paymentHash, invoice);
        return { result: transactionOf(invoice), error: undefined };
      },
      lookupInvoice: async (request) => {
        lookups.push(request.payment_hash ?? '');
        const found = made.get(request.payment_hash ?? '');
        if (found === undefined) return { result: undefined, error: { code: 'NOT_FOUND', message: 'no such invoice' } };
        return { result: transactionOf(found), error: undefined };
      },
    });
    await runWallet(refusing, {
      makeInvoice: async () => ({ result: undefined, error: { code: 'INTERNAL', message: 'the node is down' } }),
    });
    await runWallet(ignoring, { makeInvoice: () => new Promise(() => {}) });
    server = await startServer({
      accounts: accountsOf({ [KEY.ext]: { id: 'acct_ext', nwcUrl: ext.nwcUrl }, [KEY.refusing]: { id: 'acct_refusing', nwcUrl: refusing.nwcUrl } }),
    });
    slowServer = await startServer({
      settings: { nwcTimeoutSeconds: 1 },
      accounts: accountsOf({
        [KEY.silent]: { id: 'acct_silent', nwcUrl: silent.nwcUrl },
        [KEY.ignoring]: { id: 'acct_ignoring', nwcUrl: ignoring.nwcUrl },
        [KEY.unreachable]: { id: 'acct_unreachable', nwcUrl: unreachable.nwcUrl },
      }),
    });
  });

  afterAll(async () => {
    await server?.close();
    await slowServer?.close();
    for (const cleanup of cleanups.reverse()) cleanup();
    publisher?.close();
    await relay?.close();
    vi.restoreAllMocks();
  });

  /** Publishes the wallet's payment_received notification of `invoice`, NIP-44 (kind 23197), to the client of its nwcUrl. */
  async function notifyReceived(keys: WalletKeys, invoice: MadeInvoice): Promise<void> {
    const paid = transactionOf({ ...invoice, settled: true });
    const content = nip44.v2.encrypt(
      JSON.stringify({ notification_type: 'payment_received', notification: paid }),
      nip44.v2.utils.getConversationKey(keys.walletSecretKey, keys.clientPubkey),
    );
    await publisher.publish(finalizeEvent({ kind: 23197, created_at: seconds(), tags: [['p', keys.clientPubkey]], content }, keys.walletSecretKey));
  }

  const read = (id: string, key = KEY.ext) => server.api(`/api/v1/payment-requests/${id}`, { key });

  it("a create sends make_invoice (msats, description, expiry) and answers with the wallet's invoice; nwcRelay is the wallet's relay", async () => {
    const before = makeRequests.length;
    const res = await server.api('/api/v1/payment-requests', { key: KEY.ext, body: createBody({ amount: 1_234, description: 'External order', expiresIn: 900 }) });
    expect(res.status).toBe(201);
    expect(makeRequests.slice(before)).toEqual([{ amount: 1_234_000, description: 'External order', expiry: 900 }]);
    const invoice = [...made.values()].at(-1)!;
    expect(res.body).toMatchObject({ status: 'pending', amount: 1_234, invoice: invoice.invoice, paymentHash: invoice.paymentHash, nwcRelay: relay.url });
    expect(res.body.preimage).toBeUndefined();
    // The invoice is passed on as the wallet made it.
    const decoded = bolt11.decode(res.body.invoice, REGTEST);
    expect(decoded.millisatoshis).toBe('1234000');
    expect(decoded.tagsObject).toMatchObject({ payment_hash: invoice.paymentHash, description: 'External order', expire_time: 900 });
    expect((await read(res.body.id)).body).toMatchObject({ status: 'pending', invoice: invoice.invoice, paymentHash: invoice.paymentHash, nwcRelay: relay.url });
    const connection = await server.api('/sandbox/v1/wallet', { key: KEY.ext });
    expect(connection.status).toBe(200);
    expect(connection.body).toEqual({ relay: relay.url, walletPubkey: ext.walletPubkey, nwcUrl: ext.nwcUrl, online: true, encryption: 'nip44_v2' });
  });

  it('its payment_received notification (NIP-44, kind 23197) completes the request with that preimage', async () => {
    const request = (await server.api('/api/v1/payment-requests', { key: KEY.ext, body: createBody({ amount: 700 }) })).body;
    const invoice = made.get(request.paymentHash)!;
    expect(invoice).toBeDefined();
    // The wallet's lookup_invoice still says pending: only the notification can complete it.
    await notifyReceived(ext, invoice);
    await expect.poll(async () => (await read(request.id)).body.status, { timeout: 3_000, interval: 50 }).toBe('completed');
    expect((await read(request.id)).body).toMatchObject({ status: 'completed', preimage: invoice.preimage });
    // Once more: nothing changes (a repeated notification must not complete it twice).
    await notifyReceived(ext, invoice);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const events = await server.api(`/sandbox/v1/events?type=payment_request.completed&paymentRequest=${request.id}`, { key: KEY.ext });
    expect(events.body.data).toHaveLength(1);
  });

  it('a missed notification: lookup_invoice answering settled completes the request within 5 s', async () => {
    const request = (await server.api('/api/v1/payment-requests', { key: KEY.ext, body: createBody({ amount: 800 }) })).body;
    const invoice = made.get(request.paymentHash)!;
    // Paid at the wallet; the notification never comes.
    invoice.settled = true;
    const paidAt = Date.now();
    expect((await read(request.id)).body.status).toBe('pending');
    await expect.poll(async () => (await read(request.id)).body.status, { timeout: 5_000, interval: 100 }).toBe('completed');
    expect(Date.now() - paidAt).toBeLessThan(5_000);
    expect((await read(request.id)).body.preimage).toBe(invoice.preimage);
    expect(lookups).toContain(invoice.paymentHash);
  });

  it.each([
    ['a wallet that is not there (no info event, no answer)', KEY.silent],
    ['a wallet that ignores make_invoice', KEY.ignoring],
    ["a wallet whose relay nobody runs", KEY.unreachable],
  ])('%s: 502 wallet_unavailable after nwcTimeoutSeconds (1 s), nothing stored', async (_what, key) => {
    const started = Date.now();
    const res = await slowServer.api('/api/v1/payment-requests', { key, body: createBody() });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('wallet_unavailable');
    // Timers may fire a millisecond early against Date.now().
    expect(elapsed).toBeGreaterThanOrEqual(995);
    expect(elapsed).toBeLessThan(3_000);
    expect((await slowServer.api('/sandbox/v1/payment-requests', { key })).body).toEqual({ data: [] });
    expect((await slowServer.api('/sandbox/v1/events', { key })).body).toEqual({ data: [] });
  });

  it('a wallet that answers make_invoice with an error: 502 wallet_error naming the wallet and its code, nothing stored', async () => {
    const res = await server.api('/api/v1/payment-requests', { key: KEY.refusing, body: createBody() });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('wallet_error');
    expect(res.body.error.details).toHaveLength(1);
    expect(res.body.error.details[0]).toMatchObject({ field: 'wallet', code: 'wallet_refused', message: expect.stringContaining('INTERNAL') });
    expect(res.body.error.details[0].message).toContain('the node is down');
    expect((await server.api('/sandbox/v1/payment-requests', { key: KEY.refusing })).body).toEqual({ data: [] });
    expect((await server.api('/sandbox/v1/events', { key: KEY.refusing })).body).toEqual({ data: [] });
  });

  it("wallet_error's detail says the wallet's code once: 'the wallet answered INTERNAL: the node is down'", async () => {
    const res = await server.api('/api/v1/payment-requests', { key: KEY.refusing, body: createBody() });
    expect(res.status).toBe(502);
    // As the in-process wallets say it, and as README's wallet_refused describes: the code, then the wallet's message.
    expect(res.body.error.details[0].message).toBe('the wallet answered INTERNAL: the node is down');
  });

  it('POST /sandbox/v1/pay of an invoice of a wallet elsewhere: 409, the request stays pending', async () => {
    const request = (await server.api('/api/v1/payment-requests', { key: KEY.ext, body: createBody({ amount: 900 }) })).body;
    const res = await server.api('/sandbox/v1/pay', { key: KEY.ext, body: { invoice: request.invoice } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_transition');
    const after = (await read(request.id)).body;
    expect(after.status).toBe('pending');
    expect(after.preimage).toBeUndefined();
  });
});
