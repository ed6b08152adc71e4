/**
 * A transition on a frozen clock that shows the create's very instant dates its `updatedAt` 1 ms
 * later (it must move); its delivery must still go out, not wait for that millisecond. Through
 * the real engine in process, on a wall clock standing on a whole second, as createdAt is.
 */
import { afterEach, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../src/sandbox.js';
import type { WebhookSender } from '../src/core/webhooks/webhook-sender.js';
import { callSandbox } from './support/in-process.js';
import { createBody } from './support/sandbox-server.js';

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

it.each(['complete', 'fail', 'expire'])('%s on a frozen clock at the create\'s instant: both events are delivered', async (transition) => {
  const sent: string[] = [];
  const sender: WebhookSender = {
    async send(webhook) {
      sent.push(JSON.parse(webhook.body).type as string);
      return { status: 200, durationMs: 0 };
    },
  };
  const wholeSecond = Date.UTC(2026, 10, 23, 12, 0, 0);
  sandbox = createSandbox({ webhookSender: sender, clock: 'frozen', wallClock: { now: () => wholeSecond } });
  const call = async (method: string, url: string, body?: unknown) => {
    const response = await callSandbox(sandbox!, method, url, body);
    return { status: response.status, body: response.body! };
  };
  expect((await call('POST', '/sandbox/v1/webhook-endpoints', { url: 'http://receiver.test/hooks' })).status).toBe(201);
  const created = await call('POST', '/api/v1/payment-requests', createBody());
  const changed = await call('POST', `/sandbox/v1/payment-requests/${created.body.id}/${transition}`);
  expect(changed.status).toBe(200);
  expect(Date.parse(changed.body.updatedAt)).toBe(wholeSecond + 1);
  await sandbox.events.settle();
  expect(sent).toEqual(['payment_request.created', `payment_request.${{ complete: 'completed', fail: 'failed', expire: 'expired' }[transition]}`]);
  const deliveries = (await call('GET', '/sandbox/v1/webhook-deliveries')).body.data as Array<{ status: string }>;
  expect(deliveries.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
});
