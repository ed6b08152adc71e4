/**
 * A read-only key is read-only everywhere (CONTRACT.md, "Default accounts"): walked from the route
 * table, every route that changes anything answers it 401 `insufficient_permission` and changes
 * nothing, every route that reads answers it as it answers the account's full key, and no answer
 * to it carries a webhook signing secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../src/sandbox.js';

const sandbox = createSandbox();
const FULL = 'Bearer sk_test_custodial';
const READ_ONLY = 'Bearer sk_test_readonly';
let paymentRequestId: string;
let endpointId: string;
let eventId: string;

async function call(method: string, url: string, authorization: string, body?: unknown) {
  const response = await sandbox.handle({
    method,
    url,
    headers: { authorization, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: response.body, body: response.body ? JSON.parse(response.body) : undefined };
}

beforeAll(async () => {
  const created = await call('POST', '/api/v1/payment-requests', FULL, { amount: 1000, description: 'x', destinationWallet: 'a@b.example' });
  paymentRequestId = created.body.id;
  endpointId = (await call('POST', '/sandbox/v1/webhook-endpoints', FULL, { url: 'http://127.0.0.1:9/hooks' })).body.id;
  eventId = (await call('GET', '/sandbox/v1/events', FULL)).body.data[0].id;
});
afterAll(() => sandbox.close());

const pathOf = (path: string) =>
  path.replace(/:(\w+)/g, (_, name: string) => (path.includes('webhook-endpoints') ? endpointId : path.includes('/events/') ? eventId : name === 'id' ? paymentRequestId : name));

/** A body the route would take from a full key, so the refusal is the permission's, not the body's. */
const BODIES: Record<string, unknown> = {
  createPaymentRequest: { amount: 1000, description: 'x', destinationWallet: 'a@b.example' },
  payInvoice: { invoice: 'lnbcrt1' },
  advanceClock: { seconds: 1 },
  putRules: { rules: [] },
  createWebhookEndpoint: { url: 'http://127.0.0.1:9/other' },
};

describe('the read-only key', () => {
  const changing = sandbox.routes.filter((route) => route.method !== 'GET');
  // The accounts API reads no account: the read-only key is refused it, as the full key is (test/accounts-api.test.ts).
  const reading = sandbox.routes.filter((route) => route.method === 'GET' && route.access === 'read');

  it('covers every change the API offers', () => {
    expect(changing.map((route) => route.name)).toEqual(
      expect.arrayContaining(['createPaymentRequest', 'completePaymentRequest', 'payInvoice', 'advanceClock', 'freezeClock', 'putRules', 'resetAccount', 'createWebhookEndpoint', 'deleteWebhookEndpoint', 'redeliverEvent']),
    );
  });

  it.each(changing.filter((route) => route.access !== 'public').map((route) => [route.name, route] as const))('gets 401 from %s, and nothing changes', async (name, route) => {
    const before = await call('GET', '/sandbox/v1/payment-requests', FULL);
    const clockBefore = (await call('GET', '/sandbox/v1/clock', FULL)).body;
    const answer = await call(route.method, pathOf(route.path), READ_ONLY, BODIES[name]);
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('insufficient_permission');
    expect((await call('GET', '/sandbox/v1/payment-requests', FULL)).body).toEqual(before.body);
    expect((await call('GET', '/sandbox/v1/clock', FULL)).body.frozen).toBe(clockBefore.frozen);
    expect((await call('GET', '/sandbox/v1/webhook-endpoints', FULL)).body.data.map((e: { id: string }) => e.id)).toEqual([endpointId]);
  });

  it.each(reading.map((route) => [route.name, route] as const))('reads with %s as the full key does, never a secret', async (_name, route) => {
    const answer = await call('GET', pathOf(route.path), READ_ONLY);
    const full = await call('GET', pathOf(route.path), FULL);
    expect(answer.status).toBe(full.status);
    expect(answer.status).not.toBe(401);
    expect(answer.text).not.toContain('whsec_');
  });

  it('sees endpoints without their secret, which the full key sees', async () => {
    const [readOnlyView] = (await call('GET', '/sandbox/v1/webhook-endpoints', READ_ONLY)).body.data;
    const [fullView] = (await call('GET', '/sandbox/v1/webhook-endpoints', FULL)).body.data;
    expect(fullView.secret).toMatch(/^whsec_/);
    expect(readOnlyView).toEqual({ ...fullView, secret: undefined });
    expect('secret' in readOnlyView).toBe(false);
  });
});
