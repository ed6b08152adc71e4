/**
 * The checkout against each fault the sandbox can inject: one order, one paid payment request,
 * whatever the API does. A real sandbox (the same server `lnpr serve` runs) on 127.0.0.1; the
 * checkout's webhook endpoint is a tiny HTTP server; each case on an account of its own, and the
 * request journal (`GET /sandbox/v1/requests`) shows what the checkout actually sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server.js';
import { createNodeSandbox } from '../../src/sandbox.node.js';
import { Checkout, type Order } from './checkout.js';

let sandboxUrl: string;
let closeSandbox: () => Promise<void>;
let receiver: Server;
let receiverUrl: string;
/** The checkout each webhook goes to, by the path of its endpoint. */
const checkouts = new Map<string, Checkout>();

beforeAll(async () => {
  const sandbox = await createNodeSandbox();
  const app = await buildServer({ handle: sandbox.handle, relay: sandbox.relay });
  await app.listen({ port: 0, host: '127.0.0.1' });
  sandboxUrl = app.listeningOrigin;
  closeSandbox = async () => {
    await app.close();
    sandbox.close();
  };
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        checkouts.get(request.url!)?.receiveWebhook(Buffer.concat(chunks).toString('utf8'), request.headers as Record<string, string>);
        response.writeHead(204).end();
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await closeSandbox?.();
  await new Promise((resolve) => receiver?.close(resolve));
});

async function api(path: string, key: string, init: { method?: string; body?: unknown } = {}) {
  const response = await fetch(sandboxUrl + path, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { authorization: `Bearer ${key}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: response.status, body: response.status === 204 ? undefined : await response.json() };
}

/** A fresh account with the faults given, a webhook endpoint, and a checkout for it. */
async function shopWith(faults: unknown[], options: { attemptTimeoutMs?: number } = {}) {
  const account = (await api('/sandbox/v1/accounts', 'sk_test_admin', { body: { mode: 'custodial', name: 'checkout example' } })).body;
  const key = account.keys.secret as string;
  const path = `/hooks/${account.id}`;
  const endpoint = (await api('/sandbox/v1/webhook-endpoints', key, { body: { url: receiverUrl + path } })).body;
  expect((await api('/sandbox/v1/faults', key, { method: 'PUT', body: { faults } })).status).toBe(200);
  const checkout = new Checkout({
    baseUrl: sandboxUrl,
    apiKey: key,
    webhookSecret: endpoint.secret,
    destinationWallet: 'shop@example.com',
    attemptTimeoutMs: options.attemptTimeoutMs ?? 1_000,
    backoffMs: 50,
    reconcileWaitMs: 1_000,
  });
  checkouts.set(path, checkout);
  return { key, checkout };
}

/** Pays the order's request as a customer would, then checks the one-order-one-paid-request rule. */
async function expectOnePaidRequest(key: string, checkout: Checkout, order: Order) {
  const request = await checkout.paymentRequestFor(order);
  expect((await api('/sandbox/v1/pay', key, { body: { invoice: request.invoice } })).status).toBe(200);
  const all = (await api('/sandbox/v1/payment-requests', key)).body.data as Array<{ status: string; metadata?: { orderId?: string } }>;
  const ofOrder = all.filter((each) => each.metadata?.orderId === order.id);
  expect(ofOrder).toHaveLength(1);
  expect(ofOrder[0]!.status).toBe('completed');
  // The completed webhook reaches the checkout too.
  for (let i = 0; i < 50 && checkout.paymentOf(order.id)?.status !== 'completed'; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(checkout.paymentOf(order.id)?.status).toBe('completed');
  expect(checkout.duplicates).toEqual([]);
}

/** The creates the checkout sent, oldest first, with the status each got (null: no answer). */
async function createsSent(key: string): Promise<Array<number | null>> {
  const journal = (await api('/sandbox/v1/requests?method=POST&path=/api/v1/payment-requests', key)).body.data as Array<{ status: number | null }>;
  return journal.map((entry) => entry.status).reverse();
}

const order = (id: string): Order => ({ id, amount: 2_100, description: `Order ${id}` });
const ON_CREATE = { method: 'POST', path: '/api/v1/payment-requests' };

describe('one order, one paid payment request, whatever the API does', () => {
  it('a healthy API: one create', async () => {
    const { key, checkout } = await shopWith([]);
    await expectOnePaidRequest(key, checkout, order('A-1'));
    expect(await createsSent(key)).toEqual([201]);
  });

  it('503 with Retry-After, twice: waits as told, then creates', async () => {
    const { key, checkout } = await shopWith([{ match: ON_CREATE, times: 2, fault: { status: 503, retryAfter: 1 } }]);
    const started = Date.now();
    await expectOnePaidRequest(key, checkout, order('A-2'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(await createsSent(key)).toEqual([503, 503, 201]);
  });

  it('429 without Retry-After: backs off, then creates', async () => {
    const { key, checkout } = await shopWith([{ match: ON_CREATE, times: 1, fault: { status: 429 } }]);
    await expectOnePaidRequest(key, checkout, order('A-3'));
    expect(await createsSent(key)).toEqual([429, 201]);
  });

  it('a slow answer (latency under the timeout): one create, answered late', async () => {
    const { key, checkout } = await shopWith([{ match: ON_CREATE, fault: { latencyMs: 400 } }]);
    const started = Date.now();
    await expectOnePaidRequest(key, checkout, order('A-4'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(await createsSent(key)).toEqual([201]);
  });

  it('a reset before processing: no webhook comes, so it creates again', async () => {
    const { key, checkout } = await shopWith([{ match: ON_CREATE, times: 1, fault: { reset: true } }]);
    await expectOnePaidRequest(key, checkout, order('A-5'));
    expect(await createsSent(key)).toEqual([null, 201]);
  });

  it('a reset after commit (the answer lost, the request made): adopted from its webhook, never made twice', async () => {
    const { key, checkout } = await shopWith([{ match: ON_CREATE, times: 1, fault: { resetAfterCommit: true } }]);
    await expectOnePaidRequest(key, checkout, order('A-6'));
    expect(await createsSent(key)).toEqual([null]);
  });

  it('a hang longer than the attempt timeout: given up, no webhook, created again', async () => {
    const { key, checkout } = await shopWith([{ match: ON_CREATE, times: 1, fault: { hangMs: 3_000 } }], { attemptTimeoutMs: 500 });
    await expectOnePaidRequest(key, checkout, order('A-7'));
    expect(await createsSent(key)).toEqual([null, 201]);
  });

  it('for contrast, a checkout that simply retries a lost answer: two payment requests for one order', async () => {
    const { key } = await shopWith([{ match: ON_CREATE, times: 1, fault: { resetAfterCommit: true } }]);
    const body = JSON.stringify({ amount: 2_100, description: 'Order B-1', destinationWallet: 'shop@example.com', metadata: { orderId: 'B-1' } });
    const naiveCreate = () => fetch(`${sandboxUrl}/api/v1/payment-requests`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    await naiveCreate().catch(() => naiveCreate());
    const all = (await api('/sandbox/v1/payment-requests', key)).body.data as Array<{ metadata?: { orderId?: string } }>;
    expect(all.filter((each) => each.metadata?.orderId === 'B-1')).toHaveLength(2);
  });

  it('a 400 is not retried: the order is refused with the code', async () => {
    const { checkout } = await shopWith([]);
    await expect(checkout.paymentRequestFor({ id: 'A-8', amount: 1, description: 'too small' })).rejects.toThrow(/400 invalid_request/);
  });
});
