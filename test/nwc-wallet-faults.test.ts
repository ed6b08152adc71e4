/**
 * Wallet faults of an NWC account's sandbox-run connected wallet (`PUT /sandbox/v1/wallet/faults`),
 * through the real server and its relay: a test wallet of acct_custodial pays acct_nwc's requests
 * with @getalby/sdk 7.0.0's NWCClient, and the test listens on the relay, as acct_nwc's client, to
 * the payment_received notifications its wallet really sends. Dropped notifications are made up for
 * by lookup_invoice (every 2 s), duplicates complete once, an offline wallet gets 502
 * wallet_unavailable, delays hold completion back. Each timing test has a server of its own, so
 * the settlement watch starts its 2 s round at that test's create.
 */
import * as nip44 from 'nostr-tools/nip44';
import { hexToBytes } from '@noble/hashes/utils.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { NwcRequestRecord } from '../src/nostr/nwc/wallet-service.js';
import { webSocketRelaySession, type WebSocketRelaySession } from '../src/nostr/web-socket-relay-session.node.js';
import { startReceiver } from './support/webhook-receiver.js';
import { createBody, KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

// Node 20 has no global WebSocket; the sdk's bundled nostr-tools reads it when the sdk loads.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
const { NWCClient } = await import('@getalby/sdk/nwc');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server of its own (default accounts, 1 s NWC timeout), with the NIP-47 requests its wallets answered. */
async function freshServer(): Promise<{ server: RunningServer; nwcRequests: NwcRequestRecord[] }> {
  const nwcRequests: NwcRequestRecord[] = [];
  const server = await startServer({ settings: { nwcTimeoutSeconds: 1 }, onNwcRequest: (record) => nwcRequests.push(record) });
  return { server, nwcRequests };
}

/** A funded test wallet of acct_custodial and an sdk NWCClient of it. */
async function payerOn(server: RunningServer) {
  const made = await server.api('/sandbox/v1/wallets', { key: KEYS.custodial, body: { balance: 100_000 } });
  expect(made.status).toBe(201);
  return new NWCClient({ nostrWalletConnectUrl: made.body.nwcUrl });
}

/**
 * Listens on the sandbox's relay as acct_nwc's client (its nwcUrl, read with the create key): the
 * payment hashes of the payment_received notifications its wallet sends (NIP-44, kind 23197).
 * Resolves once the subscription is live (the wallet's stored info event has come back). Call it
 * after a create: the wallet is served from its first request on.
 */
async function listenToMerchant(server: RunningServer) {
  const connection = (await server.api('/sandbox/v1/wallet', { key: KEYS.nwc })).body as { walletPubkey: string; nwcUrl: string };
  const secret = new URLSearchParams(connection.nwcUrl.split('?')[1]).get('secret')!;
  const conversation = nip44.v2.utils.getConversationKey(hexToBytes(secret), connection.walletPubkey);
  const session: WebSocketRelaySession = webSocketRelaySession(`${server.url.replace('http', 'ws')}/nostr`);
  const received: string[] = [];
  let live!: () => void;
  const infoSeen = new Promise<void>((resolve) => (live = resolve));
  session.subscribe([{ kinds: [13194], authors: [connection.walletPubkey], limit: 1 }, { kinds: [23197], authors: [connection.walletPubkey] }], (event) => {
    if (event.kind === 13194) return live();
    const payload = JSON.parse(nip44.v2.decrypt(event.content, conversation)) as { notification_type: string; notification: { payment_hash: string } };
    if (payload.notification_type === 'payment_received') received.push(payload.notification.payment_hash);
  });
  await Promise.race([infoSeen, sleep(3_000).then(() => Promise.reject(new Error("the merchant wallet's info event never came back")))]);
  return { received, close: () => session.close() };
}

const faults = (server: RunningServer, body: unknown, key: string = KEYS.nwc) => server.api('/sandbox/v1/wallet/faults', { method: 'PUT', key, body });
const read = (server: RunningServer, id: string) => server.api(`/api/v1/payment-requests/${id}`, { key: KEYS.nwc });
const statusOf = async (server: RunningServer, id: string) => (await read(server, id)).body.status as string;

describe('wallet faults of the sandbox-run connected wallet, over NIP-47', () => {
  beforeAll(() => {
    for (const method of ['info', 'warn', 'error'] as const) vi.spyOn(console, method).mockImplementation(() => {});
  });
  afterAll(() => {
    vi.restoreAllMocks();
  });

  it('dropNotifications 1: no notification; lookup_invoice completes the request within 5 s', async () => {
    const { server, nwcRequests } = await freshServer();
    let payer: InstanceType<typeof NWCClient> | undefined;
    let listener: Awaited<ReturnType<typeof listenToMerchant>> | undefined;
    try {
      const set = await faults(server, { dropNotifications: 1 });
      expect(set.status).toBe(200);
      expect(set.body).toEqual({ dropNotifications: 1 });
      const request = await server.create({ amount: 500 }, KEYS.nwc);
      listener = await listenToMerchant(server);
      payer = await payerOn(server);
      const paid = await payer.payInvoice({ invoice: request.invoice });
      const paidAt = Date.now();
      // Read at once: the watch's first round is 2 s after the create.
      expect(await statusOf(server, request.id)).toBe('pending');
      await expect.poll(() => statusOf(server, request.id), { timeout: 5_000, interval: 100 }).toBe('completed');
      expect(Date.now() - paidAt).toBeLessThan(5_000);
      expect((await read(server, request.id)).body.preimage).toBe(paid.preimage);
      // The wallet answered a lookup_invoice, and sent no notification.
      expect(nwcRequests.some((record) => record.method === 'lookup_invoice' && record.outcome === 'result' && record.at >= paidAt)).toBe(true);
      await sleep(300);
      expect(listener.received).not.toContain(request.paymentHash);
    } finally {
      listener?.close();
      payer?.close();
      await server.close();
    }
  });

  it('duplicateNotifications 1: two notifications, one completion: one event, one webhook delivery', async () => {
    const { server } = await freshServer();
    const receiver = await startReceiver();
    let payer: InstanceType<typeof NWCClient> | undefined;
    let listener: Awaited<ReturnType<typeof listenToMerchant>> | undefined;
    try {
      expect((await faults(server, { duplicateNotifications: 1 })).body).toEqual({ duplicateNotifications: 1 });
      const endpoint = await server.api('/sandbox/v1/webhook-endpoints', { key: KEYS.nwc, body: { url: receiver.url, events: ['payment_request.completed'] } });
      expect(endpoint.status).toBe(201);
      const request = await server.create({ amount: 600 }, KEYS.nwc);
      listener = await listenToMerchant(server);
      payer = await payerOn(server);
      const paid = await payer.payInvoice({ invoice: request.invoice });
      await expect.poll(() => statusOf(server, request.id), { timeout: 5_000, interval: 50 }).toBe('completed');
      expect((await read(server, request.id)).body.preimage).toBe(paid.preimage);
      // The wallet really sent it twice.
      const received = listener.received;
      await expect.poll(() => received.filter((hash) => hash === request.paymentHash).length, { timeout: 3_000 }).toBe(2);
      await receiver.waitFor(1);
      await sleep(500);
      const events = await server.api(`/sandbox/v1/events?type=payment_request.completed&paymentRequest=${request.id}`, { key: KEYS.nwc });
      expect(events.body.data).toHaveLength(1);
      const all = await server.api('/sandbox/v1/events?type=payment_request.completed', { key: KEYS.nwc });
      expect(all.body.data).toHaveLength(1);
      expect(receiver.received.filter((delivery) => delivery.event.type === 'payment_request.completed' && delivery.event.data.id === request.id)).toHaveLength(1);
      expect(receiver.received).toHaveLength(1);
    } finally {
      listener?.close();
      payer?.close();
      await server.close();
      await receiver.close();
    }
  });

  it('offline: create gets 502 wallet_unavailable after ~1 s, online false, nothing stored; {} restores', async () => {
    const { server } = await freshServer();
    try {
      const before = (await server.api('/sandbox/v1/payment-requests', { key: KEYS.nwc })).body.data.length;
      expect((await faults(server, { offline: true })).body).toEqual({ offline: true });
      expect((await server.api('/sandbox/v1/wallet', { key: KEYS.nwc })).body).toMatchObject({ online: false });
      const started = Date.now();
      const refused = await server.api('/api/v1/payment-requests', { key: KEYS.nwc, body: createBody() });
      const elapsed = Date.now() - started;
      expect(refused.status).toBe(502);
      expect(refused.body.error.code).toBe('wallet_unavailable');
      // Timers may fire a millisecond early against Date.now().
      expect(elapsed).toBeGreaterThanOrEqual(995);
      expect(elapsed).toBeLessThan(2_500);
      expect((await server.api('/sandbox/v1/payment-requests', { key: KEYS.nwc })).body.data).toHaveLength(before);
      expect((await server.api('/sandbox/v1/events', { key: KEYS.nwc })).body.data).toHaveLength(0);
      const restored = await faults(server, {});
      expect(restored.status).toBe(200);
      expect(restored.body).toEqual({});
      expect((await server.api('/sandbox/v1/wallet', { key: KEYS.nwc })).body).toMatchObject({ online: true });
      const created = await server.api('/api/v1/payment-requests', { key: KEYS.nwc, body: createBody() });
      expect(created.status).toBe(201);
      expect((await server.api('/sandbox/v1/payment-requests', { key: KEYS.nwc })).body.data).toHaveLength(before + 1);
    } finally {
      await server.close();
    }
  });

  it('delaySeconds 1: not completed at 0.5 s after the payment, completed by 3 s', async () => {
    const { server } = await freshServer();
    let payer: InstanceType<typeof NWCClient> | undefined;
    try {
      expect((await faults(server, { delaySeconds: 1 })).body).toEqual({ delaySeconds: 1 });
      const request = await server.create({ amount: 700 }, KEYS.nwc);
      payer = await payerOn(server);
      const paid = await payer.payInvoice({ invoice: request.invoice });
      const paidAt = Date.now();
      await sleep(Math.max(0, paidAt + 500 - Date.now()));
      expect(await statusOf(server, request.id)).toBe('pending');
      await expect.poll(() => statusOf(server, request.id), { timeout: 2_500, interval: 50 }).toBe('completed');
      expect(Date.now() - paidAt).toBeLessThan(3_000);
      expect((await read(server, request.id)).body.preimage).toBe(paid.preimage);
    } finally {
      payer?.close();
      await server.close();
    }
  });

  describe('bad calls', () => {
    let server: RunningServer;
    beforeAll(async () => {
      ({ server } = await freshServer());
    });
    afterAll(async () => {
      await server?.close();
    });

    it('400 naming the field: a probability above 1, a negative delay, a wrong type, an unknown field, not an object', async () => {
      const cases: Array<[unknown, { field: string; code: string }]> = [
        [{ dropNotifications: 2 }, { field: 'dropNotifications', code: 'above_maximum' }],
        [{ duplicateNotifications: -0.5 }, { field: 'duplicateNotifications', code: 'below_minimum' }],
        [{ delaySeconds: -1 }, { field: 'delaySeconds', code: 'below_minimum' }],
        [{ offline: 'yes' }, { field: 'offline', code: 'invalid_type' }],
        [{ offline: true, latency: 3 }, { field: 'latency', code: 'unknown_field' }],
        [[], { field: 'body', code: 'invalid_type' }],
      ];
      for (const [body, detail] of cases) {
        const res = await faults(server, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        expect(res.body.error.details[0], JSON.stringify(body)).toMatchObject(detail);
      }
      // Nothing was set by the refused bodies: the wallet is online.
      expect((await server.api('/sandbox/v1/wallet', { key: KEYS.nwc })).body).toMatchObject({ online: true });
    });

    it('a custodial account has no wallet: 404 wallet_not_connected; a read-only key: 401; no key: 401', async () => {
      const custodial = await faults(server, { offline: true }, KEYS.custodial);
      expect([custodial.status, custodial.body.error.code]).toEqual([404, 'wallet_not_connected']);
      const readonly = await faults(server, { offline: true }, KEYS.readonly);
      expect([readonly.status, readonly.body.error.code]).toEqual([401, 'insufficient_permission']);
      const anonymous = await server.api('/sandbox/v1/wallet/faults', { method: 'PUT', key: null, body: { offline: true } });
      expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'unauthorized']);
    });
  });
});
