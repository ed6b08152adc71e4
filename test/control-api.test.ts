/** The sandbox control API through the real server: every control, every 409/404/400, per-account clocks. */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBody, KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ clock: 'frozen' });
});
afterAll(() => server.close());
beforeEach(async () => {
  for (const key of [KEYS.custodial, KEYS.nwc]) expect((await server.api('/sandbox/v1/reset', { method: 'POST', key })).status).toBe(204);
});

const create = (overrides: Record<string, unknown> = {}, key: string = KEYS.custodial) => server.create(overrides, key);
const control = (path: string, body?: unknown, key: string = KEYS.custodial) =>
  server.api(`/sandbox/v1${path}`, { method: 'POST', key, ...(body !== undefined ? { body } : {}) });
const read = (id: string, key: string = KEYS.custodial) => server.api(`/api/v1/payment-requests/${id}`, { key });
const statusOf = async (id: string, key: string = KEYS.custodial) => (await server.api(`/api/v1/payment-requests/${id}/status`, { key })).body.status;

describe('transitions', () => {
  it('complete: status completed, a preimage whose SHA-256 is the payment hash, updatedAt moves (even on a frozen clock)', async () => {
    const pr = await create();
    const res = await control(`/payment-requests/${pr.id}/complete`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    expect(bytesToHex(sha256(hexToBytes(res.body.preimage)))).toBe(pr.paymentHash);
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(pr.updatedAt));
    expect((await read(pr.id)).body).toEqual(res.body);
    expect(await statusOf(pr.id)).toBe('completed');
  });

  it.each([
    ['fail', 'failed'],
    ['expire', 'expired'],
  ])('%s: status %s, no preimage, updatedAt moves', async (action, status) => {
    const pr = await create();
    const res = await control(`/payment-requests/${pr.id}/${action}`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(status);
    expect(res.body).not.toHaveProperty('preimage');
    expect(res.body.updatedAt).not.toBe(pr.updatedAt);
    expect(await statusOf(pr.id)).toBe(status);
  });

  it.each(['complete', 'fail', 'expire'])('every transition out of every terminal state is 409 and changes nothing (%s first)', async (first) => {
    const pr = await create();
    const settled = (await control(`/payment-requests/${pr.id}/${first}`)).body;
    for (const next of ['complete', 'fail', 'expire']) {
      const res = await control(`/payment-requests/${pr.id}/${next}`);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('invalid_transition');
      expect(res.body.error.message).toContain(pr.id);
    }
    expect((await read(pr.id)).body).toEqual(settled);
  });

  it('answers 404 for unknown ids and for another account’s ids', async () => {
    const other = await create({}, KEYS.nwc);
    for (const id of ['pr_unknown', other.id]) {
      const res = await control(`/payment-requests/${id}/complete`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('payment_request_not_found');
    }
    expect(await statusOf(other.id, KEYS.nwc)).toBe('pending');
  });

  it('needs a valid key that may change things (401): the read-only key may not', async () => {
    const pr = await create();
    expect((await server.api(`/sandbox/v1/payment-requests/${pr.id}/fail`, { method: 'POST', key: null })).status).toBe(401);
    expect((await server.api(`/sandbox/v1/payment-requests/${pr.id}/fail`, { method: 'POST', key: 'sk_nope' })).status).toBe(401);
    const readOnly = await control(`/payment-requests/${pr.id}/fail`, undefined, KEYS.readonly);
    expect([readOnly.status, readOnly.body.error.code]).toEqual([401, 'insufficient_permission']);
    expect((await read(pr.id)).body.status).toBe('pending');
  });
});

describe('pay by invoice', () => {
  it('settles the request the invoice belongs to, as a wallet would', async () => {
    const pr = await create();
    const res = await control('/pay', { invoice: pr.invoice });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ paymentRequestId: pr.id, status: 'completed', preimage: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(bytesToHex(sha256(hexToBytes(res.body.preimage)))).toBe(pr.paymentHash);
    expect((await read(pr.id)).body.preimage).toBe(res.body.preimage);
  });

  it('accepts the invoice in upper case (BOLT11 allows it, QR codes use it)', async () => {
    const pr = await create();
    expect((await control('/pay', { invoice: pr.invoice.toUpperCase() })).status).toBe(200);
  });

  it('refuses a second payment, and payment of a failed or expired request, with 409', async () => {
    const paid = await create();
    await control('/pay', { invoice: paid.invoice });
    const failed = await create();
    await control(`/payment-requests/${failed.id}/fail`);
    const expired = await create({ expiresIn: 60 });
    await control('/clock/advance', { seconds: 60 });
    for (const [pr, phrase] of [
      [paid, 'already completed'],
      [failed, 'has failed'],
      [expired, 'has expired'],
    ] as const) {
      const res = await control('/pay', { invoice: pr.invoice });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('invalid_transition');
      expect(res.body.error.message).toContain(phrase);
    }
    // Paying the expired one persisted what reads had only derived.
    expect((await read(expired.id)).body.status).toBe('expired');
  });

  it('answers 404 for a valid invoice no request of this account has', async () => {
    const theirs = await create({}, KEYS.nwc);
    const res = await control('/pay', { invoice: theirs.invoice });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('invoice_not_found');
    expect(await statusOf(theirs.id, KEYS.nwc)).toBe('pending');
  });

  it.each([
    ['not BOLT11', { invoice: 'hello' }, 'invoice', 'invalid_invoice'],
    ['a bad checksum', { invoice: 'lnbcrt10u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaaaaaa' }, 'invoice', 'invalid_invoice'],
    ['no invoice', {}, 'invoice', 'missing_field'],
    ['a number', { invoice: 42 }, 'invoice', 'invalid_type'],
    ['an empty string', { invoice: '' }, 'invoice', 'too_short'],
  ])('answers 400 for %s', async (_title, body, field, code) => {
    const res = await control('/pay', body);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field, code })]);
  });
});

describe('clocks', () => {
  it('reads, advances, freezes and unfreezes the account clock', async () => {
    const start = (await server.api('/sandbox/v1/clock')).body;
    expect(start.frozen).toBe(true);
    const advanced = (await control('/clock/advance', { seconds: 3600 })).body;
    expect(Date.parse(advanced.now) - Date.parse(start.now)).toBe(3_600_000);
    const running = (await control('/clock/unfreeze')).body;
    expect(running.frozen).toBe(false);
    expect(Date.parse(running.now)).toBeGreaterThanOrEqual(Date.parse(advanced.now));
    const frozen = (await control('/clock/freeze')).body;
    expect(frozen.frozen).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await server.api('/sandbox/v1/clock')).body.now).toBe(frozen.now);
  });

  it('moves one account’s clock without touching another’s; expiry follows each account’s own clock', async () => {
    const mine = await create({ expiresIn: 120 });
    const theirs = await create({ expiresIn: 120 }, KEYS.nwc);
    const theirClock = (await server.api('/sandbox/v1/clock', { key: KEYS.nwc })).body;
    await control('/clock/advance', { seconds: 120 });
    expect(await statusOf(mine.id)).toBe('expired');
    expect(await statusOf(theirs.id, KEYS.nwc)).toBe('pending');
    expect((await server.api('/sandbox/v1/clock', { key: KEYS.nwc })).body).toEqual(theirClock);
  });

  it('creates requests at the account’s time', async () => {
    await control('/clock/advance', { seconds: 86_400 });
    const clock = (await server.api('/sandbox/v1/clock')).body;
    const pr = await create();
    expect(pr.createdAt).toBe(new Date(Math.floor(Date.parse(clock.now) / 1000) * 1000).toISOString());
  });

  it.each([
    [{ seconds: -1 }, 'below_minimum'],
    [{ seconds: 1.5 }, 'invalid_type'],
    [{ seconds: '60' }, 'invalid_type'],
    [{ seconds: 315_360_001 }, 'above_maximum'],
    [{ seconds: 1e308 }, 'above_maximum'],
    [{}, 'missing_field'],
  ])('refuses a bad advance %j with 400', async (body, code) => {
    const res = await control('/clock/advance', body);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'seconds', code })]);
  });

  it('refuses to move the clock past the year 3000, whatever the steps, so invoices stay encodable', async () => {
    let res;
    for (let i = 0; i < 200 && (res = await control('/clock/advance', { seconds: 315_360_000 })).status === 200; i++);
    expect(res!.status).toBe(400);
    expect(Date.parse((await server.api('/sandbox/v1/clock')).body.now)).toBeLessThanOrEqual(Date.UTC(3000, 0, 1));
    expect((await create()).status).toBe('pending');
  });
});

describe('reset', () => {
  it('deletes the account’s requests and resets its clock, and nothing of other accounts', async () => {
    const mine = await create();
    const theirs = await create({}, KEYS.nwc);
    await control('/clock/advance', { seconds: 500 });
    const res = await control('/reset');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await read(mine.id)).status).toBe(404);
    expect((await read(theirs.id, KEYS.nwc)).status).toBe(200);
    const clock = (await server.api('/sandbox/v1/clock')).body;
    expect(Math.abs(Date.parse(clock.now) - server.sandbox.clocks.now('acct_nwc'))).toBeLessThan(1000);
  });
});

describe('--no-controls', () => {
  it('removes the whole /sandbox/v1 surface (404), and leaves v1 alone', async () => {
    const plain = await startServer({ settings: { controls: false } });
    try {
      for (const [method, path] of [
        ['POST', '/sandbox/v1/pay'],
        ['GET', '/sandbox/v1/clock'],
        ['POST', '/sandbox/v1/reset'],
        ['POST', '/sandbox/v1/payment-requests/pr_x/complete'],
      ]) {
        const res = await plain.api(path!, { method });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('route_not_found');
      }
      expect((await plain.api('/api/v1/payment-requests', { body: createBody() })).status).toBe(201);
    } finally {
      await plain.close();
    }
  });
});
