/**
 * Webhooks through the real server, delivered to a real receiver that verifies every delivery with
 * the `standardwebhooks` library: each event type, order, the body and headers, retries driven by
 * clock advances, the delivery log, redelivery, filters, each fault, delete, isolation, bad input.
 * Clocks are frozen so that only the test moves time.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENDPOINT_CONCURRENCY } from '../src/core/webhooks/delivery-dispatcher.js';
import { eventFraction } from '../src/core/webhooks/fault-decisions.js';
import { RETRY_DELAYS_SECONDS } from '../src/core/due/retry-schedule.js';
import { DEFAULT_ACCOUNTS } from '../src/sandbox.js';
import { createBody, KEYS, startServer, type RunningServer } from './support/sandbox-server.js';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

let server: RunningServer;
let receiver: WebhookReceiver;
// A server per test: each starts without endpoints, events or deliveries, and with a fresh scheduler.
beforeEach(async () => {
  [server, receiver] = await Promise.all([startServer({ clock: 'frozen' }), startReceiver()]);
});
afterEach(async () => {
  await server.close();
  await receiver.close();
});

const create = (overrides: Record<string, unknown> = {}, key: string = KEYS.custodial) => server.create(overrides, key);
const control = (path: string, body?: unknown, key: string = KEYS.custodial) =>
  server.api(`/sandbox/v1${path}`, { method: 'POST', key, ...(body !== undefined ? { body } : {}) });
const advance = (seconds: number, key: string = KEYS.custodial) => control('/clock/advance', { seconds }, key);
const register = async (body: Record<string, unknown> = {}, key: string = KEYS.custodial) => {
  const res = await server.api('/sandbox/v1/webhook-endpoints', { key, body: { url: receiver.url, ...body } });
  expect(res.status).toBe(201);
  receiver.secret = res.body.secret;
  return res.body;
};
const deliveries = async (query = '', key: string = KEYS.custodial) => (await server.api(`/sandbox/v1/webhook-deliveries${query}`, { key })).body.data;
const events = async (query = '', key: string = KEYS.custodial) => (await server.api(`/sandbox/v1/events${query}`, { key })).body.data;
/** Waits until nothing is due and every delivery called for has been tried. */
const settled = () => server.sandbox.events.settle();

describe('endpoints', () => {
  it('registers with a whsec_ secret, every event type by default, and lists and deletes them', async () => {
    const endpoint = await register();
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^we_\w+$/),
      url: receiver.url,
      events: ['payment_request.created', 'payment_request.completed', 'payment_request.failed', 'payment_request.expired'],
      faults: {},
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
      createdAt: expect.stringMatching(/Z$/),
    });
    expect((await server.api('/sandbox/v1/webhook-endpoints')).body).toEqual({ data: [endpoint] });
    expect((await server.api(`/sandbox/v1/webhook-endpoints/${endpoint.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await server.api('/sandbox/v1/webhook-endpoints')).body).toEqual({ data: [] });
    expect((await server.api(`/sandbox/v1/webhook-endpoints/${endpoint.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it.each([
    ['not a URL', { url: 'not a url' }, 'invalid_url', 'url'],
    ['an ftp URL', { url: 'ftp://127.0.0.1/x' }, 'unsupported_scheme', 'url'],
    ['a javascript: URL', { url: 'javascript:alert(1)' }, 'unsupported_scheme', 'url'],
    ['no url', {}, 'missing_field', 'url'],
    ['an unknown event type', { url: 'http://127.0.0.1:1/x', events: ['payment_request.paid'] }, 'invalid_value', 'events.0'],
    ['an empty event list', { url: 'http://127.0.0.1:1/x', events: [] }, 'too_few_items', 'events'],
    ['a repeated event type', { url: 'http://127.0.0.1:1/x', events: ['payment_request.created', 'payment_request.created'] }, 'duplicate_items', 'events'],
    ['a duplicate probability above 1', { url: 'http://127.0.0.1:1/x', faults: { duplicate: 1.5 } }, 'above_maximum', 'faults.duplicate'],
    ['reorder that is not a boolean', { url: 'http://127.0.0.1:1/x', faults: { reorder: 'yes' } }, 'invalid_type', 'faults.reorder'],
    ['a negative delay', { url: 'http://127.0.0.1:1/x', faults: { delaySeconds: -1 } }, 'below_minimum', 'faults.delaySeconds'],
    ['an unknown fault', { url: 'http://127.0.0.1:1/x', faults: { drop: true } }, 'unknown_field', 'faults.drop'],
    ['an unknown field', { url: 'http://127.0.0.1:1/x', secret: 'whsec_AAAA' }, 'unknown_field', 'secret'],
  ])('refuses %s with 400 naming the field, and stores nothing', async (_name, body, code, field) => {
    const res = await server.api('/sandbox/v1/webhook-endpoints', { body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details).toContainEqual(expect.objectContaining({ field, code }));
    expect(res.body.error.message).toContain(field);
    expect((await server.api('/sandbox/v1/webhook-endpoints')).body.data).toEqual([]);
  });

  it('belong to their account: another key neither lists, deletes nor receives them', async () => {
    const endpoint = await register({}, KEYS.custodial);
    expect((await server.api('/sandbox/v1/webhook-endpoints', { key: KEYS.nwc })).body.data).toEqual([]);
    expect((await server.api(`/sandbox/v1/webhook-endpoints/${endpoint.id}`, { method: 'DELETE', key: KEYS.nwc })).status).toBe(404);
    await create({}, KEYS.nwc);
    await settled();
    expect(receiver.received).toEqual([]);
    expect(await events('', KEYS.custodial)).toEqual([]);
  });
});

describe('events and deliveries', () => {
  it('sends created, then completed, each verified, with the payment request as GET showed it', async () => {
    await register();
    const pr = await create();
    const [created] = await receiver.waitFor(1);
    const completed = (await control(`/payment-requests/${pr.id}/complete`)).body;
    const [, paid] = await receiver.waitFor(2);
    for (const delivery of [created!, paid!]) {
      expect(delivery.verified).toBe(true);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['webhook-id']).toBe(delivery.event.id);
      expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    }
    expect(created!.event).toEqual({ id: expect.stringMatching(/^evt_/), type: 'payment_request.created', timestamp: pr.createdAt, data: pr });
    expect(paid!.event).toEqual({ id: expect.stringMatching(/^evt_/), type: 'payment_request.completed', timestamp: completed.updatedAt, data: completed });
    // The body is the event exactly as the control API lists it.
    expect(await events()).toEqual([paid!.event, created!.event]);
    expect(JSON.parse(paid!.body)).toEqual((await server.api(`/sandbox/v1/events/${paid!.event.id}`)).body);
  });

  it.each([
    ['fail', 'payment_request.failed'],
    ['expire', 'payment_request.expired'],
  ])('%s by control sends %s', async (transition, type) => {
    await register();
    const pr = await create();
    await control(`/payment-requests/${pr.id}/${transition}`);
    const received = await receiver.waitFor(2);
    expect(received.map((d) => d.event.type)).toEqual(['payment_request.created', type]);
    expect(received[1]!.event.data).toEqual((await server.api(`/api/v1/payment-requests/${pr.id}`)).body);
  });

  it('sends expired when an advance passes expiresAt, dated expiresAt, before the advance answers', async () => {
    await register();
    const pr = await create({ expiresIn: 60 });
    await receiver.waitFor(1);
    await advance(59);
    await settled();
    expect(receiver.received).toHaveLength(1);
    await advance(1);
    // The event is recorded before the advance answers; its delivery follows.
    const [latest] = await events();
    expect(latest).toMatchObject({ type: 'payment_request.expired', timestamp: pr.expiresAt, data: { id: pr.id, status: 'expired', updatedAt: pr.expiresAt } });
    const [, expired] = await receiver.waitFor(2);
    expect(expired!.event).toEqual(latest);
  });

  it("sends a behaviour rule's outcome when it falls due", async () => {
    await register();
    expect((await server.api('/sandbox/v1/rules', { method: 'PUT', body: { rules: [{ name: 'pay-later', match: { amount: 4242 }, outcome: 'complete', after: 30 }] } })).status).toBe(200);
    const pr = await create({ amount: 4242 });
    await advance(30);
    const [, completed] = await receiver.waitFor(2);
    expect(completed!.event).toMatchObject({ type: 'payment_request.completed', data: { id: pr.id, status: 'completed' } });
    await server.api('/sandbox/v1/rules', { method: 'PUT', body: { rules: [] } });
  });

  it("emits a request's events in the order its states changed, and lists events newest first with filters", async () => {
    await register();
    const a = await create({ expiresIn: 10 });
    const b = await create({ expiresIn: 100 });
    await control(`/payment-requests/${b.id}/complete`);
    await advance(20);
    await receiver.waitFor(4);
    await settled();
    const forA = receiver.received.filter((d) => d.event.data.id === a.id).map((d) => d.event.type);
    expect(forA).toEqual(['payment_request.created', 'payment_request.expired']);
    const listed = await events();
    expect(listed.map((e: { type: string }) => e.type)).toEqual([
      'payment_request.expired',
      'payment_request.completed',
      'payment_request.created',
      'payment_request.created',
    ]);
    expect((await events(`?paymentRequest=${b.id}`)).map((e: { type: string }) => e.type)).toEqual(['payment_request.completed', 'payment_request.created']);
    expect((await events('?type=payment_request.created&limit=1'))[0].data.id).toBe(b.id);
    expect((await server.api('/sandbox/v1/events?type=paid')).status).toBe(400);
    expect((await server.api('/sandbox/v1/events?limit=0')).status).toBe(400);
    expect((await server.api('/sandbox/v1/events?colour=red')).status).toBe(400);
    expect((await server.api('/sandbox/v1/events/evt_unknown')).status).toBe(404);
  });

  it('only sends the types an endpoint asked for', async () => {
    await register({ events: ['payment_request.completed'] });
    const pr = await create();
    await control(`/payment-requests/${pr.id}/complete`);
    const [only] = await receiver.waitFor(1);
    await settled();
    expect(receiver.received).toHaveLength(1);
    expect(only!.event.type).toBe('payment_request.completed');
  });
});

describe('retries on the account clock', () => {
  it('retries a failing delivery only as the clock reaches 5 s, 30 s, 2 min …, logging each attempt', async () => {
    await register();
    receiver.answer = (_delivery, index) => (index < 3 ? 500 : 204);
    await create();
    await receiver.waitFor(1);
    await settled();
    // Nothing happens while the clock stands still.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(1);
    await advance(4);
    await settled();
    expect(receiver.received).toHaveLength(1);
    await advance(1);
    await receiver.waitFor(2);
    await advance(29);
    await settled();
    expect(receiver.received).toHaveLength(2);
    await advance(1);
    await receiver.waitFor(3);
    await advance(120);
    await receiver.waitFor(4);
    await settled();
    const log = await deliveries();
    expect(log.map((d: { attempt: number; status: string; responseStatus: number }) => [d.attempt, d.status, d.responseStatus])).toEqual([
      [4, 'succeeded', 204],
      [3, 'failed', 500],
      [2, 'failed', 500],
      [1, 'failed', 500],
    ]);
    const [first] = log.slice(-1);
    expect(new Set(log.map((d: { id: string }) => d.id)).size).toBe(1);
    // Each retry is due its gap after the previous attempt was due.
    const due = log.map((d: { scheduledAt: string }) => Date.parse(d.scheduledAt)).reverse();
    expect([due[1] - due[0], due[2] - due[1], due[3] - due[2]]).toEqual(RETRY_DELAYS_SECONDS.slice(0, 3).map((s) => s * 1000));
    expect(first).toMatchObject({ error: 'the receiver answered 500', attemptedAt: expect.any(String), durationMs: expect.any(Number) });
    // Every attempt carries the same webhook-id: a receiver can deduplicate.
    expect(new Set(receiver.received.map((d) => d.headers['webhook-id'])).size).toBe(1);
  });

  it('after the last retry the delivery has failed; advancing a day runs every retry due in it', async () => {
    await register();
    receiver.answer = () => 503;
    await create({ expiresIn: 31_536_000 });
    const [first] = await receiver.waitFor(1);
    await advance(86_400 + 21_600 + 3_600 + 600 + 120 + 30 + 5);
    await receiver.waitFor(8);
    await settled();
    const log = await deliveries(`?event=${first!.event.id}`);
    expect(log.map((d: { attempt: number; status: string }) => [d.attempt, d.status])).toEqual(
      [8, 7, 6, 5, 4, 3, 2, 1].map((attempt) => [attempt, 'failed']),
    );
    expect(log[0]).toMatchObject({ responseStatus: 503, error: 'the receiver answered 503' });
    await advance(10 * 86_400);
    await settled();
    expect(receiver.received).toHaveLength(8);
    expect((await server.api('/sandbox/v1/webhook-deliveries?event=evt_unknown')).status).toBe(404);
  });

  it('counts a redirect and a closed connection as failures, and reads only the start of a huge answer', async () => {
    await register();
    receiver.answer = (_d, index) => [{ status: 302, headers: { location: 'http://127.0.0.1:1/' } }, 'close' as const, 'huge' as const][index] ?? 204;
    await create();
    await receiver.waitFor(1);
    await settled();
    await advance(5);
    await receiver.waitFor(2);
    await settled();
    await advance(30);
    await receiver.waitFor(3);
    await settled();
    const log = await deliveries();
    expect(log.map((d: { status: string; responseStatus: number | null }) => [d.status, d.responseStatus])).toEqual([
      ['succeeded', 200],
      ['failed', null],
      ['failed', 302],
    ]);
    expect(log[1].error).toMatch(/closed|socket hang up|reach/);
  });

  it('a receiver that never answers holds up neither the API nor deliveries to other endpoints', async () => {
    const hanging = await register();
    receiver.answer = () => 'hang';
    const other = await startReceiver();
    try {
      const res = await server.api('/sandbox/v1/webhook-endpoints', { body: { url: other.url } });
      other.secret = res.body.secret;
      const started = performance.now();
      for (let i = 0; i < 20; i++) await create();
      const apiMs = performance.now() - started;
      await other.waitFor(20);
      await receiver.waitFor(ENDPOINT_CONCURRENCY);
      expect(other.received.every((d) => d.verified)).toBe(true);
      // 20 creates while the hanging endpoint holds all its slots: still quick.
      expect(apiMs).toBeLessThan(5_000);
      const log = await deliveries(`?endpoint=${hanging.id}`);
      expect(log.filter((d: { status: string }) => d.status === 'pending')).toHaveLength(20);
    } finally {
      await other.close();
    }
  });
});

describe('endpoints from the accounts file', () => {
  it('are registered at start with their secret and filter, once however often the sandbox starts', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const accounts = {
      ...DEFAULT_ACCOUNTS,
      accounts: DEFAULT_ACCOUNTS.accounts.map((account) =>
        account.id === 'acct_custodial' ? { ...account, webhooks: [{ url: receiver.url, secret, events: ['payment_request.created' as const] }] } : account,
      ),
    };
    const configured = await startServer({ accounts, clock: 'frozen' });
    try {
      receiver.secret = secret;
      const listed = (await configured.api('/sandbox/v1/webhook-endpoints')).body.data;
      expect(listed).toEqual([expect.objectContaining({ url: receiver.url, secret, events: ['payment_request.created'] })]);
      expect((await configured.api('/sandbox/v1/webhook-endpoints', { key: KEYS.nwc })).body.data).toEqual([]);
      const pr = (await configured.api('/api/v1/payment-requests', { body: createBody() })).body;
      await configured.api(`/sandbox/v1/payment-requests/${pr.id}/complete`, { method: 'POST' });
      const [delivery] = await receiver.waitFor(1);
      await configured.sandbox.events.settle();
      expect(receiver.received).toHaveLength(1);
      expect(delivery).toMatchObject({ verified: true, event: { type: 'payment_request.created', data: { id: pr.id } } });
      // The same configuration again over the same store: still one endpoint.
      await configured.sandbox.events.endpoints.ensure('acct_custodial', { url: receiver.url, secret });
      expect((await configured.api('/sandbox/v1/webhook-endpoints')).body.data).toHaveLength(1);
    } finally {
      await configured.close();
    }
  });
});

describe('on a running clock', () => {
  it('sends expired within a second of expiresAt, with no request to notice it', async () => {
    const running = await startServer();
    try {
      const res = await running.api('/sandbox/v1/webhook-endpoints', { body: { url: receiver.url, events: ['payment_request.expired'] } });
      receiver.secret = res.body.secret;
      const pr = (await running.api('/api/v1/payment-requests', { body: createBody({ expiresIn: 1 }) })).body;
      const [expired] = await receiver.waitFor(1, 4_000);
      const lateMs = Date.now() - Date.parse(pr.expiresAt);
      expect(expired!.event).toMatchObject({ type: 'payment_request.expired', timestamp: pr.expiresAt, data: { id: pr.id, status: 'expired' } });
      expect(expired!.verified).toBe(true);
      expect(lateMs).toBeLessThan(1_000);
    } finally {
      await running.close();
    }
  });
});

describe('redelivery', () => {
  it('sends a kept event again with the same webhook-id, answering 202', async () => {
    await register();
    await create();
    const [first] = await receiver.waitFor(1);
    const res = await control(`/events/${first!.event.id}/redeliver`);
    expect(res.status).toBe(202);
    expect(res.body.data).toHaveLength(1);
    const [, again] = await receiver.waitFor(2);
    expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(again!.body).toBe(first!.body);
    expect(again!.verified).toBe(true);
    expect((await control('/events/evt_nope/redeliver')).status).toBe(404);
    expect((await control(`/events/${first!.event.id}/redeliver`, undefined, KEYS.nwc)).status).toBe(404);
  });
});

describe('faults', () => {
  it('duplicate: 1 sends every event twice with the same webhook-id and body', async () => {
    await register({ faults: { duplicate: 1 } });
    await create();
    const [a, b] = await receiver.waitFor(2);
    expect(a!.headers['webhook-id']).toBe(b!.headers['webhook-id']);
    expect(a!.body).toBe(b!.body);
    const log = await deliveries();
    expect(new Set(log.map((d: { id: string }) => d.id)).size).toBe(2);
  });

  it('duplicate: p is decided from the event id', async () => {
    await register({ faults: { duplicate: 0.5 } });
    for (let i = 0; i < 6; i++) await create();
    await settled();
    const byEvent = new Map<string, number>();
    for (const d of receiver.received) byEvent.set(d.event.id, (byEvent.get(d.event.id) ?? 0) + 1);
    expect(byEvent.size).toBe(6);
    for (const [eventId, count] of byEvent) expect(count).toBe(eventFraction(eventId, 'duplicate') < 0.5 ? 2 : 1);
  });

  it("reorder: holds created until the request's next event, then sends the newer first", async () => {
    await register({ faults: { reorder: true } });
    const pr = await create();
    await settled();
    expect(receiver.received).toEqual([]);
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', scheduledAt: null });
    await control(`/payment-requests/${pr.id}/complete`);
    const received = await receiver.waitFor(2);
    expect(received.map((d) => d.event.type)).toEqual(['payment_request.completed', 'payment_request.created']);
    expect(received.every((d) => d.verified)).toBe(true);
  });

  it('duplicate and reorder together: the held created event is duplicated too, like every other', async () => {
    await register({ faults: { duplicate: 1, reorder: true } });
    const pr = await create();
    await settled();
    expect(receiver.received).toEqual([]);
    await control(`/payment-requests/${pr.id}/complete`);
    const received = await receiver.waitFor(4);
    const types = received.map((d) => d.event.type);
    expect(types.filter((type) => type === 'payment_request.created')).toHaveLength(2);
    expect(types.filter((type) => type === 'payment_request.completed')).toHaveLength(2);
    // Reordered still: the newer event's first copy goes before either copy of created.
    expect(types[0]).toBe('payment_request.completed');
    expect(received.every((d) => d.verified)).toBe(true);
  });

  it('delaySeconds: each first attempt waits that long on the account clock', async () => {
    await register({ faults: { delaySeconds: 30 } });
    await create();
    await settled();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toEqual([]);
    await advance(29);
    await settled();
    expect(receiver.received).toEqual([]);
    await advance(1);
    await receiver.waitFor(1);
  });
});

describe('delete', () => {
  it("stops the endpoint's pending deliveries and sends it nothing more", async () => {
    const endpoint = await register();
    receiver.answer = () => 500;
    await create();
    await receiver.waitFor(1);
    await settled();
    expect((await server.api(`/sandbox/v1/webhook-endpoints/${endpoint.id}`, { method: 'DELETE' })).status).toBe(204);
    const [stopped] = await deliveries();
    expect(stopped).toMatchObject({ attempt: 2, status: 'failed', error: 'the endpoint was deleted' });
    await advance(3600);
    await create();
    await settled();
    expect(receiver.received).toHaveLength(1);
  });
});
