/**
 * Every `/sandbox/v1` list answers at most `limit` items, newest first: 100 by default, at most
 * 1,000, and a larger `limit` is a 400 naming it. Through the engine in process, with a sender that
 * answers 204 to everything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookSender } from '../src/core/webhooks/webhook-sender.js';
import { createSandbox, type Sandbox } from '../src/sandbox.js';
import { callSandbox } from './support/in-process.js';
import { createBody } from './support/sandbox-server.js';

const CREATED = 120;
const sender: WebhookSender = { send: async () => ({ status: 204, durationMs: 1 }) };
let sandbox: Sandbox;
const call = (method: string, url: string, body?: unknown) => callSandbox(sandbox, method, url, body);
const ids: string[] = [];

beforeAll(async () => {
  sandbox = createSandbox({ webhookSender: sender, clock: 'frozen' });
  for (let i = 0; i < 3; i++) expect((await call('POST', '/sandbox/v1/webhook-endpoints', { url: `http://receiver.test/${i}` })).status).toBe(201);
  for (let i = 0; i < CREATED; i++) ids.push((await call('POST', '/api/v1/payment-requests', createBody({ description: `order ${i}` }))).body!.id);
  await sandbox.events.settle();
}, 60_000);
afterAll(() => sandbox.close());

const LISTS = [
  ['/sandbox/v1/payment-requests', CREATED],
  ['/sandbox/v1/events', CREATED],
  ['/sandbox/v1/webhook-deliveries', CREATED * 3],
  ['/sandbox/v1/webhook-endpoints', 3],
] as const;

describe.each(LISTS)('GET %s', (path, total) => {
  const list = async (query = '') => {
    const answer = await call('GET', `${path}${query}`);
    expect(answer.status).toBe(200);
    return answer.body!.data as Array<{ id: string }>;
  };

  it('answers 100 by default, `limit` of them, at most 1,000', async () => {
    expect(await list()).toHaveLength(Math.min(100, total));
    expect(await list('?limit=7')).toHaveLength(Math.min(7, total));
    expect(await list('?limit=1000')).toHaveLength(total);
    expect((await list('?limit=1000')).slice(0, 7)).toEqual(await list('?limit=7'));
  });

  it('refuses a limit above 1,000 (or below 1) with 400 naming limit', async () => {
    for (const [limit, code] of [
      ['1001', 'above_maximum'],
      ['100000', 'above_maximum'],
      ['0', 'below_minimum'],
    ]) {
      const answer = await call('GET', `${path}?limit=${limit}`);
      expect(answer.status, limit).toBe(400);
      expect(answer.body!.error.details, limit).toEqual([expect.objectContaining({ field: 'limit', code })]);
    }
  });
});

describe('newest first', () => {
  it('payment requests and events by creation, endpoints by registration', async () => {
    const requests = (await call('GET', '/sandbox/v1/payment-requests?limit=3')).body!.data as Array<{ id: string }>;
    expect(requests.map((r) => r.id)).toEqual(ids.slice(-3).reverse());
    const events = (await call('GET', '/sandbox/v1/events?limit=3')).body!.data as Array<{ id: string; data: { id: string } }>;
    expect(events.map((e) => e.data.id)).toEqual(ids.slice(-3).reverse());
    const endpoints = (await call('GET', '/sandbox/v1/webhook-endpoints')).body!.data as Array<{ url: string }>;
    expect(endpoints.map((e) => e.url)).toEqual(['http://receiver.test/2', 'http://receiver.test/1', 'http://receiver.test/0']);
    const deliveries = (await call('GET', '/sandbox/v1/webhook-deliveries?limit=3')).body!.data as Array<{ event: string }>;
    expect(new Set(deliveries.map((d) => d.event))).toEqual(new Set([events[0]!.id]));
  });
});
