/**
 * Deliveries give way to a busy API, and a burst of writes loses none of them: through the real
 * engine (in process, memory store) with a WebhookSender that records what it is handed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../src/store/memory-store.js';
import { createSandbox, type Sandbox } from '../src/sandbox.js';
import type { WebhookSender } from '../src/core/webhooks/webhook-sender.js';
import { callSandbox } from './support/in-process.js';
import { createBody } from './support/sandbox-server.js';

/** A sender that answers `status` after `delayMs`, recording the event id of every attempt. */
function recordingSender(status = 200, delayMs = 0): WebhookSender & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    async send(webhook) {
      sent.push(webhook.headers['webhook-id']!);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { status, durationMs: delayMs };
    },
  };
}

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

const call = (method: string, url: string, body?: unknown) => callSandbox(sandbox!, method, url, body);

async function addEndpoint(): Promise<void> {
  expect((await call('POST', '/sandbox/v1/webhook-endpoints', { url: 'http://receiver.test/hooks' })).status).toBe(201);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('deliveries under load', () => {
  it('wait while the API answers 1,000 requests a second or more (one trickles out every 100 ms), then all go out', async () => {
    const sender = recordingSender();
    sandbox = createSandbox({ webhookSender: sender });
    await addEndpoint();
    const startedAt = performance.now();
    let created = 0;
    // Busy for ~0.5 s: batches of requests, with a turn for timers (the scheduler's, the
    // trickle's) between batches, as a server under a load test has.
    while (performance.now() - startedAt < 500 || created < 30) {
      for (let i = 0; i < 150; i++) expect((await call('GET', '/healthz')).status).toBe(200);
      if (created < 30) {
        expect((await call('POST', '/api/v1/payment-requests', createBody())).status).toBe(201);
        created += 1;
      }
      await sleep(0);
    }
    const busyMs = performance.now() - startedAt;
    expect(created).toBe(30);
    // About one every 100 ms while busy: some went out, far from all 30.
    expect(sender.sent.length).toBeGreaterThan(0);
    expect(sender.sent.length).toBeLessThanOrEqual(Math.ceil(busyMs / 100) + 1);
    // The load has passed: the rest go out, each event once.
    for (let waited = 0; sender.sent.length < 30 && waited < 2_000; waited += 20) await sleep(20);
    expect(new Set(sender.sent).size).toBe(30);
    await sandbox.events.settle();
    const deliveries = (await call('GET', '/sandbox/v1/webhook-deliveries?limit=100')).body!.data as Array<{ status: string }>;
    expect(deliveries.map((d) => d.status)).toEqual(Array(30).fill('succeeded'));
  });

  it('go out at once when the API is not busy', async () => {
    const sender = recordingSender();
    sandbox = createSandbox({ webhookSender: sender });
    await addEndpoint();
    await call('POST', '/api/v1/payment-requests', createBody());
    const startedAt = performance.now();
    while (sender.sent.length === 0 && performance.now() - startedAt < 1_000) await sleep(1);
    expect(sender.sent).toHaveLength(1);
    // Within a few ms of the answer, well before a turn of the trickle (100 ms): not held back.
    expect(performance.now() - startedAt).toBeLessThan(80);
  });
});

describe('the event history bound and pending deliveries', () => {
  it('keeps an event past the bound until its attempts end, then lets it go', async () => {
    const sender = recordingSender(200, 30);
    sandbox = createSandbox({ webhookSender: sender, store: createMemoryStore({ eventHistory: 3 }) });
    await addEndpoint();
    const ids: string[] = [];
    // Six events while their attempts are in flight (each takes 30 ms to answer).
    for (let i = 0; i < 6; i++) ids.push((await call('POST', '/api/v1/payment-requests', createBody())).body!.id);
    const listed = (await call('GET', '/sandbox/v1/events?limit=100')).body!.data as Array<{ id: string; data: { id: string } }>;
    expect(listed.map((e) => e.data.id)).toEqual(ids.slice(3).reverse());
    await sandbox.events.settle();
    // Every event was delivered, the three past the bound too.
    expect(sender.sent).toHaveLength(6);
    const deliveries = (await call('GET', '/sandbox/v1/webhook-deliveries?limit=100')).body!.data as Array<{ status: string; error: string | null }>;
    expect(deliveries.filter((d) => d.status !== 'succeeded')).toEqual([]);
    // Delivered, the three oldest are let go: only the newest three are kept.
    expect(deliveries).toHaveLength(3);
    expect((await call('GET', `/sandbox/v1/events/${sender.sent[0]}`)).status).toBe(404);
    expect((await call('GET', `/sandbox/v1/events/${sender.sent[5]}`)).status).toBe(200);
  });
});
