import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { ReceiverLog, type IncomingDelivery } from './receiver-log.js';

const SECRET = `whsec_${btoa('0123456789abcdef0123456789abcdef')}`;

/** A delivery signed as the sandbox signs one, with `secret`. */
function signed(event: { id: string; type: string }, secret = SECRET): IncomingDelivery {
  const body = JSON.stringify(event);
  const now = new Date();
  return {
    headers: {
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(event.id, now, body),
    },
    body,
  };
}

const created = { id: 'evt_1', type: 'payment_request.created' };

describe('ReceiverLog', () => {
  it('answers each delivery with the next status, the last one repeating; 204 by default', () => {
    const log = new ReceiverLog([500, 500, 204]);
    expect([1, 2, 3, 4].map(() => log.record(signed(created)))).toEqual([500, 500, 204, 204]);
    expect(log.deliveries.map((d) => d.answered)).toEqual([500, 500, 204, 204]);
    expect(new ReceiverLog().record(signed(created))).toBe(204);
  });

  it('records the headers that matter and the parsed body, or its text when it is not JSON', () => {
    const log = new ReceiverLog();
    const incoming = signed(created);
    log.record(incoming);
    log.record({ headers: {}, body: 'not json' });
    expect(log.deliveries).toEqual([
      { webhookId: 'evt_1', timestamp: incoming.headers['webhook-timestamp'], verified: false, answered: 204, event: created },
      { webhookId: null, timestamp: null, verified: false, answered: 204, event: 'not json' },
    ]);
  });

  it('verifies with standardwebhooks once it knows the secret, deliveries that came before too', () => {
    const log = new ReceiverLog();
    log.record(signed(created));
    expect(log.deliveries[0]!.verified).toBe(false);
    log.setSecret(SECRET);
    expect(log.deliveries[0]!.verified).toBe(true);
    log.record(signed({ id: 'evt_2', type: 'payment_request.completed' }));
    expect(log.deliveries[1]!.verified).toBe(true);
  });

  it('does not verify a delivery signed with another secret, or altered after signing', () => {
    const log = new ReceiverLog();
    log.setSecret(SECRET);
    log.record(signed(created, `whsec_${btoa('another secret, another secret!!')}`));
    const altered = signed(created);
    log.record({ ...altered, body: altered.body.replace('created', 'completed') });
    expect(log.deliveries.map((d) => d.verified)).toEqual([false, false]);
  });

  it('waits for a number of deliveries, then a quiet moment in which more still count', async () => {
    const log = new ReceiverLog();
    setTimeout(() => log.record(signed(created)), 20);
    // The second comes during the quiet moment after the first: both are returned.
    setTimeout(() => log.record(signed(created)), 60);
    const got = await log.waitFor(1, { timeoutMs: 2_000, quietMs: 150 });
    expect(got).toHaveLength(2);
  });

  it('gives up after the timeout and returns what came', async () => {
    const log = new ReceiverLog();
    log.record(signed(created));
    const started = Date.now();
    expect(await log.waitFor(3, { timeoutMs: 100, quietMs: 0 })).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(await log.waitFor(0, { quietMs: 0 })).toHaveLength(1);
  });
});
