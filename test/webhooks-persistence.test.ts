/**
 * Webhooks with `--data`: endpoints, events and pending delivery attempts are in the same journal
 * and snapshot as payment requests, so they survive a clean restart and a SIGKILL, and an attempt
 * due before the stop is made after the start (an outbox). Real receivers verify every delivery.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCliServer } from './support/cli-process.js';
import { api, createBody, startServer } from './support/sandbox-server.js';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

let directory: string;
let dataFile: string;
let receiver: WebhookReceiver;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'lnpr-webhooks-'));
  dataFile = join(directory, 'sandbox.json');
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
  await rm(directory, { recursive: true, force: true });
});

describe('webhooks with a data file', () => {
  it('keep endpoints, events and a pending retry across a clean restart; the retry goes out after it', async () => {
    const first = await startServer({ dataFile, clock: 'frozen' });
    const endpoint = (await first.api('/sandbox/v1/webhook-endpoints', { body: { url: receiver.url, faults: { duplicate: 0 } } })).body;
    receiver.secret = endpoint.secret;
    receiver.answer = (_delivery, index) => (index === 0 ? 500 : 204);
    const pr = (await first.api('/api/v1/payment-requests', { body: createBody() })).body;
    await receiver.waitFor(1);
    await first.sandbox.events.settle();
    const before = {
      endpoints: (await first.api('/sandbox/v1/webhook-endpoints')).body,
      events: (await first.api('/sandbox/v1/events')).body,
      deliveries: (await first.api('/sandbox/v1/webhook-deliveries')).body,
    };
    expect(before.deliveries.data.map((d: { attempt: number; status: string }) => [d.attempt, d.status])).toEqual([[2, 'pending'], [1, 'failed']]);
    await first.close();

    const second = await startServer({ dataFile, clock: 'frozen' });
    try {
      expect((await second.api('/sandbox/v1/webhook-endpoints')).body).toEqual(before.endpoints);
      expect((await second.api('/sandbox/v1/events')).body).toEqual(before.events);
      expect((await second.api('/sandbox/v1/webhook-deliveries')).body).toEqual(before.deliveries);
      await second.api('/sandbox/v1/clock/advance', { body: { seconds: 5 } });
      const [, retried] = await receiver.waitFor(2);
      expect(retried).toMatchObject({ verified: true, event: { type: 'payment_request.created', data: { id: pr.id } } });
      await second.sandbox.events.settle();
      expect((await second.api('/sandbox/v1/webhook-deliveries')).body.data[0]).toMatchObject({ attempt: 2, status: 'succeeded', responseStatus: 204 });
    } finally {
      await second.close();
    }
  });

  it('survive a SIGKILL: an attempt in flight at the kill is made again after the start', async () => {
    const killed = await startCliServer(['--data', dataFile, '--clock', 'frozen']);
    try {
      const endpoint = (await api(killed.url, '/sandbox/v1/webhook-endpoints', { body: { url: receiver.url } })).body;
      receiver.secret = endpoint.secret;
      // The receiver holds the first attempt open, so it is still pending when the server dies.
      receiver.answer = (_delivery, index) => (index === 0 ? 'hang' : 204);
      const pr = (await api(killed.url, '/api/v1/payment-requests', { body: createBody() })).body;
      const [held] = await receiver.waitFor(1);
      killed.child.kill('SIGKILL');
      expect(await killed.exited).toBe('SIGKILL');

      const restarted = await startCliServer(['--data', dataFile, '--clock', 'frozen']);
      try {
        const [, again] = await receiver.waitFor(2);
        expect(again!.verified).toBe(true);
        expect(again!.headers['webhook-id']).toBe(held!.headers['webhook-id']);
        expect(again!.event).toMatchObject({ type: 'payment_request.created', data: { id: pr.id } });
        const deadline = Date.now() + 5_000;
        let log: Array<{ attempt: number; status: string }> = [];
        while (Date.now() < deadline) {
          log = (await api(restarted.url, '/sandbox/v1/webhook-deliveries')).body.data;
          if (log[0]?.status === 'succeeded') break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(log.map((d) => [d.attempt, d.status])).toEqual([[1, 'succeeded']]);
        expect((await api(restarted.url, `/api/v1/payment-requests/${pr.id}`)).status).toBe(200);
      } finally {
        restarted.child.kill('SIGTERM');
        await restarted.exited;
      }
    } finally {
      if (killed.child.exitCode === null && killed.child.signalCode === null) killed.child.kill('SIGKILL');
    }
  });
});
