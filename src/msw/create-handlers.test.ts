/**
 * `createHandlers` options, in Node through MSW's `getResponse` (no interception needed): which
 * requests it takes, the sandbox behind it, fixtures loaded before the first answer, storage.
 * The behaviour itself is the engine's and is covered by the conformance and parity tests.
 */
import { getResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import sampleFixtures from '../../fixtures/sample-fixtures.json' with { type: 'json' };
import { DEFAULT_ACCOUNTS } from '../sandbox.js';
import { createMemoryStore } from '../store/memory-store.js';
import { testPaymentRequest } from '../store/testing/payment-request.js';
import { createHandlers, type SandboxHandlers } from './create-handlers.js';

const KEY = 'sk_test_custodial';
const CREATE = { amount: 1000, description: 'Coffee beans', destinationWallet: 'merchant@example.com' };

/** Sends one request through the handlers; undefined when none takes it. */
async function send(handlers: SandboxHandlers, url: string, init: { method?: string; key?: string; body?: unknown } = {}): Promise<Response | undefined> {
  const headers: Record<string, string> = { authorization: `Bearer ${init.key ?? KEY}` };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const request = new Request(url, {
    method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return getResponse(handlers, request);
}

async function json(response: Response | undefined): Promise<any> {
  expect(response).toBeDefined();
  return response!.json();
}

describe('createHandlers', () => {
  it('answers the API on any origin by default and leaves other requests alone', async () => {
    const handlers = createHandlers();
    expect(handlers).toHaveLength(1);
    expect((await send(handlers, 'http://localhost:5173/healthz'))?.status).toBe(200);
    expect((await send(handlers, 'https://example.test/api/v1/payment-requests', { body: CREATE }))?.status).toBe(201);
    expect(await send(handlers, 'http://localhost:5173/index.html')).toBeUndefined();
  });

  it('answers under its base URL only, prefix stripped', async () => {
    const handlers = createHandlers({ baseUrl: 'https://api.example.com/pay' });
    const created = await json(await send(handlers, 'https://api.example.com/pay/api/v1/payment-requests', { body: CREATE }));
    expect(created.status).toBe('pending');
    expect((await send(handlers, `https://api.example.com/pay/api/v1/payment-requests/${created.id}`))?.status).toBe(200);
    expect(await send(handlers, 'https://api.example.com/api/v1/payment-requests', { body: CREATE })).toBeUndefined();
    expect(await send(handlers, 'https://other.example.com/pay/api/v1/payment-requests', { body: CREATE })).toBeUndefined();
  });

  it('refuses a base URL it cannot read', () => {
    expect(() => createHandlers({ baseUrl: 'api.example.com' })).toThrow(TypeError);
  });

  it('exposes the sandbox behind the handlers: its store and clocks are the ones requests see', async () => {
    const handlers = createHandlers();
    const created = await json(await send(handlers, 'http://x.test/api/v1/payment-requests', { body: CREATE }));
    expect(handlers.sandbox.store.getPaymentRequest(created.id)?.invoice).toBe(created.invoice);
    await handlers.sandbox.clocks.advance('acct_custodial', 2 * 3600);
    expect(await json(await send(handlers, `http://x.test/api/v1/payment-requests/${created.id}/status`))).toEqual({ status: 'expired' });
  });

  it('tells onEvent of every change, in order, with the payment request as the API shows it', async () => {
    const seen: Array<{ type: string; data: { id: string; status: string } }> = [];
    const handlers = createHandlers({ clock: 'frozen', onEvent: (event) => seen.push(event) });
    const created = await json(await send(handlers, 'http://x.test/api/v1/payment-requests', { body: { ...CREATE, expiresIn: 60 } }));
    expect(seen).toEqual([expect.objectContaining({ type: 'payment_request.created', data: created })]);
    await send(handlers, 'http://x.test/sandbox/v1/clock/advance', { body: { seconds: 60 } });
    expect(seen.map((event) => [event.type, event.data.status])).toEqual([
      ['payment_request.created', 'pending'],
      ['payment_request.expired', 'expired'],
    ]);
    const listed = await json(await send(handlers, 'http://x.test/sandbox/v1/events'));
    expect(listed.data).toEqual([...seen].reverse());
  });

  it('passes the sandbox options on: network, settings, clock, rules, accounts', async () => {
    const handlers = createHandlers({
      network: 'signet',
      settings: { minAmount: 1 },
      clock: 'frozen',
      rules: [{ name: 'declined', match: { amount: 4040 }, outcome: 'fail' }],
      accounts: { ...DEFAULT_ACCOUNTS, keys: [{ key: 'sk_test_mine', account: 'acct_custodial', permissions: ['create', 'read'] }] },
    });
    expect((await send(handlers, 'http://x.test/api/v1/payment-requests', { body: CREATE }))?.status).toBe(401);
    const tiny = await json(await send(handlers, 'http://x.test/api/v1/payment-requests', { key: 'sk_test_mine', body: { ...CREATE, amount: 1 } }));
    expect(tiny.invoice).toMatch(/^lntbs10n1/);
    expect(await json(await send(handlers, 'http://x.test/sandbox/v1/clock', { key: 'sk_test_mine' }))).toMatchObject({ frozen: true });
    const declined = await json(await send(handlers, 'http://x.test/api/v1/payment-requests', { key: 'sk_test_mine', body: { ...CREATE, amount: 4040 } }));
    expect(await json(await send(handlers, `http://x.test/api/v1/payment-requests/${declined.id}/status`, { key: 'sk_test_mine' }))).toEqual({ status: 'failed' });
  });

  it('loads fixtures before answering the first request, without being awaited', async () => {
    const handlers = createHandlers({ fixtures: sampleFixtures });
    const first = sampleFixtures.paymentRequests.find((record) => record.accountId === 'acct_custodial')!;
    const read = await json(await send(handlers, `http://x.test/api/v1/payment-requests/${first.id}`));
    expect(read).toMatchObject({ id: first.id, invoice: first.invoice, status: first.status });
    await handlers.ready;
    expect(handlers.sandbox.store.size()).toBe(sampleFixtures.paymentRequests.length);
  });

  it('rejects `ready` with the fixtures problem, and fails requests rather than answer without them', async () => {
    const handlers = createHandlers({ fixtures: { ...sampleFixtures, network: 'mainnet' } });
    await expect(handlers.ready).rejects.toThrow(/its invoices are for mainnet, but the sandbox serves regtest/);
    // The resolver throws it; MSW's interceptors turn that into a 500 naming the error.
    await expect(send(handlers, 'http://x.test/healthz')).rejects.toThrow(/its invoices are for mainnet/);
  });

  it('takes any SandboxStore as storage', async () => {
    const record = testPaymentRequest({ accountId: 'acct_custodial' });
    const handlers = createHandlers({ storage: createMemoryStore({ paymentRequests: [record] }) });
    expect((await send(handlers, `http://x.test/api/v1/payment-requests/${record.id}`))?.status).toBe(200);
  });
});

describe("createHandlers with storage: 'localStorage'", () => {
  const items = new Map<string, string>();
  const storage = { getItem: (key: string) => items.get(key) ?? null, setItem: (key: string, value: string) => void items.set(key, value) };

  afterEach(() => {
    delete (globalThis as { localStorage?: unknown }).localStorage;
    items.clear();
  });

  it('keeps payment requests and clocks across a reload (new handlers on the same key)', async () => {
    Object.defineProperty(globalThis, 'localStorage', { value: storage, configurable: true });
    const before = createHandlers({ storage: 'localStorage', storageKey: 'shop' });
    const created = await json(await send(before, 'http://x.test/api/v1/payment-requests', { body: CREATE }));
    await json(await send(before, `http://x.test/sandbox/v1/payment-requests/${created.id}/complete`, { method: 'POST' }));
    await json(await send(before, 'http://x.test/sandbox/v1/clock/advance', { body: { seconds: 60 } }));
    expect([...items.keys()]).toEqual(['shop']);

    const after = createHandlers({ storage: 'localStorage', storageKey: 'shop' });
    expect(await json(await send(after, `http://x.test/api/v1/payment-requests/${created.id}`))).toMatchObject({ id: created.id, status: 'completed' });
    expect(after.sandbox.store.getClock('acct_custodial')?.offsetMs).toBe(60_000);
    expect(createHandlers({ storage: 'localStorage' }).sandbox.store.size()).toBe(0);
  });

  it('loads fixtures once: a reload keeps the records and the clocks moved since', async () => {
    Object.defineProperty(globalThis, 'localStorage', { value: storage, configurable: true });
    const before = createHandlers({ storage: 'localStorage', fixtures: sampleFixtures });
    await before.ready;
    await json(await send(before, 'http://x.test/sandbox/v1/clock/advance', { body: { seconds: 60 } }));
    const clock = before.sandbox.store.getClock('acct_custodial');

    const after = createHandlers({ storage: 'localStorage', fixtures: sampleFixtures });
    await after.ready;
    expect(after.sandbox.store.size()).toBe(sampleFixtures.paymentRequests.length);
    expect(after.sandbox.store.getClock('acct_custodial')).toEqual(clock);
  });
});
