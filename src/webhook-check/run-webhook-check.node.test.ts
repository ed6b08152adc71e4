/**
 * `runWebhookCheck` against real receivers on 127.0.0.1: a correct one passes every case, and
 * each mistake fails exactly the cases that name it, whether made for every event type or for
 * one only. The deliveries themselves are checked against what the sandbox sends (headers,
 * signature, body, a real BOLT11 invoice).
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { decodeIndependently } from '../../test/support/bolt11-package.js';
import { freePort } from '../../test/support/free-port.js';
import { EVENT_TYPES, type EventType } from '../schemas/webhooks.js';
import { WEBHOOK_CASES } from './cases.js';
import { formatJson } from './reporters/json.js';
import { formatJunit } from './reporters/junit.js';
import { formatPretty } from './reporters/pretty.js';
import type { WebhookCheckResult } from './result.js';
import { ReceiverUnreachable, runWebhookCheck } from './run-webhook-check.js';
import { RESPONSE_EXCERPT_BYTES } from './send-delivery.js';
import {
  byType,
  carelessReceiver,
  duplicateRefusingReceiver,
  reserializing,
  reserializingReceiver,
  startReceiver,
  stringHeaders,
  timestampBlind,
  timestampBlindReceiver,
  typeTrustingReceiver,
  verifying,
  verifyingReceiver,
  type ReceivedRequest,
  type TestReceiver,
} from './testing/receivers.node.js';
import { InvalidWebhookSecret } from './webhook-secret.js';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const SECRET_KEY = SECRET.slice('whsec_'.length);

const receivers: TestReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function using(receiver: Promise<TestReceiver>): Promise<TestReceiver> {
  const started = await receiver;
  receivers.push(started);
  return started;
}

/** Runs the check; every report of the result must be free of the secret. */
async function check(receiver: TestReceiver, options: { timeoutMs?: number } = {}): Promise<WebhookCheckResult> {
  const result = await runWebhookCheck({ url: receiver.url, secret: SECRET, ...options });
  for (const report of [formatPretty(result), formatJson(result), formatJunit(result), JSON.stringify(result)]) {
    expect(report).not.toContain(SECRET_KEY);
  }
  return result;
}

function idsWith(result: WebhookCheckResult, outcome: string): string[] {
  return result.cases.filter((c) => c.outcome === outcome).map((c) => c.id);
}

const FORGED_STALE_ALTERED = ['forged.other-secret', 'forged.no-signature', 'forged.no-webhook-headers', 'stale.past', 'stale.future', 'altered.amount', 'altered.whitespace'];
/** Every case of deliveries to refuse, advisory ones included. */
const TO_REFUSE = WEBHOOK_CASES.filter((c) => c.expect === 'refuse').map((c) => c.id);

/** What the receiver received, by case: the requests are sent in order, so each case has the next deliveries.length of them. */
function receivedByCase(result: WebhookCheckResult, receiver: TestReceiver): Map<string, ReceivedRequest[]> {
  let next = 0;
  return new Map(result.cases.map((c) => [c.id, receiver.received.slice(next, (next += c.deliveries.length))]));
}

describe('runWebhookCheck', () => {
  it('a receiver that verifies with standardwebhooks passes every case, required and advisory', async () => {
    const receiver = await using(verifyingReceiver(SECRET));
    const result = await check(receiver);
    expect(result.passed).toBe(true);
    expect(result.cases.map((c) => c.id)).toEqual(WEBHOOK_CASES.map((c) => c.id));
    expect(result.counts).toEqual({ passed: WEBHOOK_CASES.length, failed: 0, warned: 0 });
    const verdicts = Object.fromEntries(result.cases.map((c) => [c.id, c.deliveries.map((d) => `${d.verdict} ${d.status}`)]));
    expect(verdicts['valid.created']).toEqual(['accepted 204']);
    expect(verdicts['order.completed-before-created']).toEqual(['accepted 200', 'accepted 204']);
    for (const id of TO_REFUSE) expect(verdicts[id]).toEqual(EVENT_TYPES.map(() => 'refused 401'));
    expect(TO_REFUSE).toEqual([...FORGED_STALE_ALTERED.slice(0, 3), 'forged.unknown-version', ...FORGED_STALE_ALTERED.slice(3)]);
    expect(receiver.received).toHaveLength(result.cases.reduce((sum, c) => sum + c.deliveries.length, 0));
  });

  it('sends deliveries exactly as the sandbox does: headers, signature, body, and a real payment request', async () => {
    const receiver = await using(verifyingReceiver(SECRET));
    const before = Math.floor(Date.now() / 1000);
    await check(receiver);
    const after = Math.floor(Date.now() / 1000);
    const webhook = new Webhook(SECRET);
    // The five genuine deliveries: created, completed, its duplicate, then the second request's completed and created.
    const genuine = receiver.received.slice(0, 5);
    for (const request of [...receiver.received]) {
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/webhooks/lnpr');
      expect(request.headers['content-type']).toBe('application/json');
    }
    const events = genuine.map((request) => {
      const timestamp = Number(request.headers['webhook-timestamp']);
      expect(timestamp).toBeGreaterThanOrEqual(before);
      expect(timestamp).toBeLessThanOrEqual(after);
      const event = JSON.parse(request.body);
      expect(request.headers['webhook-id']).toBe(event.id);
      expect(request.headers['webhook-signature']).toBe(webhook.sign(event.id, new Date(timestamp * 1000), request.body));
      expect(webhook.verify(request.body, stringHeaders(request.headers))).toEqual(event);
      expect(request.body).toBe(JSON.stringify(event));
      expect(Object.keys(event)).toEqual(['id', 'type', 'timestamp', 'data']);
      expect(event.id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
      expect(event.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      return event;
    });
    expect(events.map((event) => event.type)).toEqual([
      'payment_request.created',
      'payment_request.completed',
      'payment_request.completed',
      'payment_request.completed',
      'payment_request.created',
    ]);
    const [created, completed, duplicate, secondCompleted, secondCreated] = events;
    expect(completed.data.id).toBe(created.data.id);
    expect(secondCreated.data.id).toBe(secondCompleted.data.id);
    expect(secondCreated.data.id).not.toBe(created.data.id);
    // The duplicate: same webhook-id and body.
    expect(genuine[2]!.headers['webhook-id']).toBe(genuine[1]!.headers['webhook-id']);
    expect(genuine[2]!.body).toBe(genuine[1]!.body);
    expect(new Set(events.map((event) => event.id)).size).toBe(4);

    // `data` is a payment request as GET answers it, with a BOLT11 invoice any decoder accepts.
    const fields = ['id', 'status', 'amount', 'description', 'invoice', 'paymentHash', 'expiresAt', 'isNwc', 'feeAmount', 'feePercentage'];
    for (const event of events) {
      expect(Object.keys(event.data)).toEqual(expect.arrayContaining([...fields, 'createdAt', 'updatedAt']));
      expect(event.data.id).toMatch(/^pr_/);
      expect(event.data.status).toBe(event.type === 'payment_request.created' ? 'pending' : 'completed');
      const invoice = decodeIndependently(event.data.invoice);
      expect(invoice.prefix).toMatch(/^lnbcrt/);
      expect(invoice.satoshis).toBe(event.data.amount);
      expect(invoice.paymentHash).toBe(event.data.paymentHash);
      expect(event.timestamp).toBe(event.type === 'payment_request.created' ? event.data.createdAt : event.data.updatedAt);
      if (event.type === 'payment_request.completed') {
        expect(createHash('sha256').update(Buffer.from(event.data.preimage, 'hex')).digest('hex')).toBe(event.data.paymentHash);
      } else {
        expect(event.data).not.toHaveProperty('preimage');
      }
    }
    expect(duplicate).toEqual(completed);
  });

  it('the deliveries to refuse: one of every event type each, each a new event id; another secret, missing headers, v2, stale and future timestamps, altered bodies', async () => {
    const receiver = await using(verifyingReceiver(SECRET));
    const byCase = receivedByCase(await check(receiver), receiver);
    const genuine = WEBHOOK_CASES.filter((c) => c.expect === 'accept').flatMap((c) => byCase.get(c.id)!);
    const genuineIds = new Set(genuine.map((request) => JSON.parse(request.body).id));
    const genuineRequests = new Set(genuine.map((request) => JSON.parse(request.body).data.id));
    const refusedIds = new Set<string>();
    for (const id of TO_REFUSE) {
      const requests = byCase.get(id)!;
      const events = requests.map((request) => JSON.parse(request.body));
      expect(events.map((event) => event.type)).toEqual(EVENT_TYPES);
      for (const [index, event] of events.entries()) {
        expect(event.data.status).toBe(event.type === 'payment_request.created' ? 'pending' : event.type.split('.')[1]);
        expect(genuineRequests.has(event.data.id)).toBe(false);
        expect(genuineIds.has(event.id)).toBe(false);
        expect(refusedIds.has(event.id)).toBe(false);
        refusedIds.add(event.id);
        if (requests[index]!.headers['webhook-id'] !== undefined) expect(requests[index]!.headers['webhook-id']).toBe(event.id);
      }
    }
    const each = (id: string, assert: (request: ReceivedRequest) => void) => byCase.get(id)!.forEach(assert);
    const correctSignature = (request: ReceivedRequest) =>
      new Webhook(SECRET).sign(String(request.headers['webhook-id']), new Date(Number(request.headers['webhook-timestamp']) * 1000), request.body);

    each('forged.other-secret', (request) => {
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(request.headers['webhook-signature']).not.toBe(correctSignature(request));
    });
    each('forged.no-signature', (request) => {
      expect(request.headers).not.toHaveProperty('webhook-signature');
      expect(request.headers).toHaveProperty('webhook-id');
    });
    each('forged.no-webhook-headers', (request) => {
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) expect(request.headers).not.toHaveProperty(name);
    });
    each('forged.unknown-version', (request) => expect(request.headers['webhook-signature']).toBe(correctSignature(request).replace(/^v1,/, 'v2,')));

    const now = Math.floor(Date.now() / 1000);
    each('stale.past', (request) => {
      expect(now - Number(request.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(600);
      expect(now - Number(request.headers['webhook-timestamp'])).toBeLessThan(620);
    });
    each('stale.future', (request) => expect(now - Number(request.headers['webhook-timestamp'])).toBeLessThanOrEqual(-580));
    // Stale ones are correctly signed for the timestamp they carry: only the age is wrong.
    for (const id of ['stale.past', 'stale.future']) each(id, (request) => expect(request.headers['webhook-signature']).toBe(correctSignature(request)));

    const whitespace = byCase.get('altered.whitespace')!;
    for (const [index, amount] of byCase.get('altered.amount')!.entries()) {
      expect(JSON.parse(amount.body).data.amount).toBe(JSON.parse(whitespace[index]!.body).data.amount * 100);
    }
    each('altered.whitespace', (request) => {
      expect(request.body).toContain('\n  "id": "evt_');
      expect(JSON.stringify(JSON.parse(request.body))).not.toBe(request.body);
    });
  });

  it('a receiver that checks nothing fails the forged, stale and altered cases, each reported as accepted for every event type', async () => {
    const result = await check(await using(carelessReceiver()));
    expect(result.passed).toBe(false);
    expect(idsWith(result, 'failed')).toEqual(FORGED_STALE_ALTERED);
    expect(idsWith(result, 'warned')).toEqual(['forged.unknown-version']);
    for (const id of FORGED_STALE_ALTERED) {
      const failed = result.cases.find((c) => c.id === id)!;
      expect(failed.deliveries.map((d) => d.verdict)).toEqual(EVENT_TYPES.map(() => 'accepted'));
      expect(failed.message).toMatch(/^every event type \([^)]+\): accepted \(200\), expected a refusal \(4xx\)\n/);
      expect(failed.message).not.toContain('Refused for');
      expect(failed.deliveries[0]!.responseExcerpt).toBe('{"ok":true}');
    }
    expect(result.cases.find((c) => c.id === 'stale.past')!.message).toContain('does not check webhook-timestamp');
    expect(formatPretty(result)).toMatch(/Failed \(required\):\n {2}forged\.other-secret +accepted \(200\); must be refused\n/);
  });

  it('a receiver that checks signatures but not timestamps fails exactly the stale cases', async () => {
    const result = await check(await using(timestampBlindReceiver(SECRET)));
    expect(result.passed).toBe(false);
    expect(idsWith(result, 'failed')).toEqual(['stale.past', 'stale.future']);
    expect(idsWith(result, 'warned')).toEqual([]);
  });

  it('a receiver that verifies a re-serialization of the JSON fails exactly altered.whitespace', async () => {
    const result = await check(await using(reserializingReceiver(SECRET)));
    expect(idsWith(result, 'failed')).toEqual(['altered.whitespace']);
    expect(result.cases.find((c) => c.id === 'altered.whitespace')!.message).toContain('re-serialization');
  });

  describe('a receiver that makes a mistake for one event type only is caught on that type, by the same cases, and told so', () => {
    const others = (type: EventType) => EVENT_TYPES.filter((other) => other !== type);
    it.each(
      EVENT_TYPES.flatMap((type) => [
        { type, mistake: 'verifies nothing', start: () => typeTrustingReceiver(SECRET, [type]), failed: FORGED_STALE_ALTERED, warned: ['forged.unknown-version'] },
        { type, mistake: 'ignores the timestamp', start: () => startReceiver(byType([type], timestampBlind(SECRET), verifying(SECRET))), failed: ['stale.past', 'stale.future'], warned: [] },
        { type, mistake: 're-serializes the body', start: () => startReceiver(byType([type], reserializing(SECRET), verifying(SECRET))), failed: ['altered.whitespace'], warned: [] },
      ]),
    )('for $type it $mistake', async ({ type, start, failed, warned }) => {
      const result = await check(await using(start()));
      expect(result.passed).toBe(false);
      expect(idsWith(result, 'failed')).toEqual(failed);
      expect(idsWith(result, 'warned')).toEqual(warned);
      const summary = formatPretty(result);
      for (const id of [...failed, ...warned]) {
        const missed = result.cases.find((c) => c.id === id)!;
        // Only the delivery of that type got through: a check that sent one type (unless that one) would have passed it.
        expect(missed.deliveries.map((d) => `${d.eventType} ${d.verdict}`)).toEqual(EVENT_TYPES.map((t) => `${t} ${t === type ? 'accepted' : 'refused'}`));
        const lines = missed.message!.split('\n');
        expect(lines[0]!.startsWith(`${type} (`)).toBe(true);
        expect(lines[0]).toMatch(/\): accepted \(200\), expected a refusal \(4xx\)$/);
        expect(lines[1]).toBe(`Refused for ${others(type).join(', ')} only: the receiver treats event types differently. Verify every delivery the same way, before acting on its type.`);
        const listed = summary.split('\n').find((line) => line.startsWith(`  ${id} `))!;
        expect(listed.trimStart()).toMatch(new RegExp(`^\\S+ +accepted \\(200\\) for ${type}; (must|should) be refused$`));
      }
      expect(formatJunit(result)).toContain(`<failure message="${type} (`);
    });

    it('one that skips verification for payment_request.failed and payment_request.expired is named for both, in one line per case', async () => {
      const result = await check(await using(typeTrustingReceiver(SECRET, ['payment_request.failed', 'payment_request.expired'])));
      expect(idsWith(result, 'failed')).toEqual(FORGED_STALE_ALTERED);
      for (const id of FORGED_STALE_ALTERED) {
        const [first, second] = result.cases.find((c) => c.id === id)!.message!.split('\n');
        expect(first).toMatch(/^payment_request\.failed, payment_request\.expired \([^)]+\): accepted \(200\), expected a refusal \(4xx\)$/);
        expect(second).toMatch(/^Refused for payment_request\.created, payment_request\.completed only: /);
      }
      expect(formatPretty(result)).toMatch(
        /\n✗ forged\.other-secret {2}signed with another secret \(each event type\): refused → created 401, completed 401, failed 200, expired 200 \(\d+ ms\)\n/,
      );
    });
  });

  it('advisory cases only warn: refusing a duplicate leaves the run passed', async () => {
    const result = await check(await using(duplicateRefusingReceiver(SECRET)));
    expect(result.passed).toBe(true);
    expect(idsWith(result, 'warned')).toEqual(['duplicate.redelivered']);
    expect(result.counts).toEqual({ passed: WEBHOOK_CASES.length - 1, failed: 0, warned: 1 });
    expect(result.cases.find((c) => c.id === 'duplicate.redelivered')!.message).toMatch(/refused \(409\), expected a 2xx\nDeliveries come at least once/);
  });

  it('never follows a redirect: a 3xx refuses, and is reported as a redirect', async () => {
    const receiver = await using(startReceiver(() => ({ status: 302, headers: { location: '/login' }, body: 'Found' })));
    const result = await check(receiver);
    expect(receiver.received.every((request) => request.url === '/webhooks/lnpr')).toBe(true);
    const created = result.cases.find((c) => c.id === 'valid.created')!;
    expect(created.outcome).toBe('failed');
    expect(created.deliveries[0]).toMatchObject({ verdict: 'redirected', status: 302, location: '/login' });
    expect(created.message).toContain('redirected (302 to /login), expected a 2xx; deliveries do not follow redirects');
    for (const id of FORGED_STALE_ALTERED) expect(result.cases.find((c) => c.id === id)!.outcome).toBe('passed');
  });

  it('keeps the first 512 bytes of an answer, with the secret redacted if the receiver echoes it', async () => {
    const body = `bad signature for secret ${SECRET} (key ${SECRET_KEY}) ${'é'.repeat(3000)}`;
    const result = await check(await using(startReceiver(() => ({ status: 401, body }))));
    const excerpt = result.cases[0]!.deliveries[0]!.responseExcerpt!;
    expect(excerpt.startsWith('bad signature for secret [redacted] (key [redacted]) éé')).toBe(true);
    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(RESPONSE_EXCERPT_BYTES);
  });

  it('a delivery without an answer in time fails its case, whatever it expects', async () => {
    // Answers genuine deliveries; never answers the rest of one event type (all of them would take 32 timeouts).
    const webhook = new Webhook(SECRET);
    const hung = EVENT_TYPES.at(-1)!;
    const receiver = await using(
      startReceiver((request) => {
        try {
          webhook.verify(request.body, stringHeaders(request.headers));
          return { status: 200 };
        } catch {
          return JSON.parse(request.body).type === hung ? 'hang' : { status: 401 };
        }
      }),
    );
    const result = await check(receiver, { timeoutMs: 300 });
    expect(idsWith(result, 'failed')).toEqual(FORGED_STALE_ALTERED);
    const forged = result.cases.find((c) => c.id === 'forged.other-secret')!;
    expect(forged.deliveries.map((d) => d.verdict)).toEqual(EVENT_TYPES.map((type) => (type === hung ? 'no-answer' : 'refused')));
    expect(forged.deliveries.at(-1)).toMatchObject({ eventType: hung, verdict: 'no-answer', error: 'no answer within 0.3 s' });
    expect(forged.deliveries.at(-1)!.durationMs).toBeLessThan(3000);
    expect(forged.message).toContain(`${hung} (signed with another secret): no answer (no answer within 0.3 s), expected a refusal`);
  });

  it('no answer to the very first delivery: ReceiverUnreachable, not a run', async () => {
    const port = await freePort();
    await expect(runWebhookCheck({ url: `http://127.0.0.1:${port}/hooks`, secret: SECRET })).rejects.toThrow(ReceiverUnreachable);
    await expect(runWebhookCheck({ url: `http://127.0.0.1:${port}/hooks`, secret: SECRET })).rejects.toThrow(/ECONNREFUSED/);
    const silent = await using(startReceiver(() => 'hang'));
    await expect(runWebhookCheck({ url: silent.url, secret: SECRET, timeoutMs: 200 })).rejects.toThrow(/no answer within 0.2 s/);
    expect(silent.received).toHaveLength(1);
  });

  it('refuses a secret that is not whsec_ + base64 before sending anything', async () => {
    const receiver = await using(carelessReceiver());
    for (const secret of [SECRET_KEY, 'whsec_', 'whsec_not base64!', 'whsec_abc', 'whsec_YWJj\n']) {
      const error = await runWebhookCheck({ url: receiver.url, secret }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InvalidWebhookSecret);
      if (secret.length > 'whsec_'.length + 3) expect((error as Error).message).not.toContain(secret.slice('whsec_'.length));
    }
    expect(receiver.received).toEqual([]);
  });
});
