/** Behaviour rules through the real server: scripted outcomes on the account's clock, no controls called. */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rule } from '../src/schemas/rules.js';
import { createBody, KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

const FIXED_RULES: Rule[] = [
  { name: 'amount 4040 always fails', match: { amount: 4040 }, outcome: 'fail', after: 2 },
  { name: 'stays pending', match: { metadata: { hold: true } }, outcome: 'none' },
  { name: 'refunds expire', match: { description: '^refund' }, outcome: 'expire', after: 30 },
  { name: 'big ones complete slowly', match: { amount: { min: 1_000_000 } }, outcome: 'complete', after: 600 },
  { name: 'nwc pays at once', match: { accounts: ['acct_nwc'] }, outcome: 'complete' },
  { name: 'everything else is paid after 5 s', outcome: 'complete', after: 5 },
];

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ clock: 'frozen', rules: FIXED_RULES });
});
afterAll(() => server.close());

const create = async (overrides: Record<string, unknown> = {}, key: string = KEYS.custodial) =>
  (await server.api('/api/v1/payment-requests', { key, body: createBody(overrides) })).body;
const read = async (id: string, key: string = KEYS.custodial) => (await server.api(`/api/v1/payment-requests/${id}`, { key })).body;
const advance = (seconds: number, key: string = KEYS.custodial) =>
  server.api('/sandbox/v1/clock/advance', { method: 'POST', key, body: { seconds } });

describe('rules on a frozen clock, advanced past their delay', () => {
  it('shows the outcome on the first read after the delay, dated when it happened', async () => {
    const pr = await create({ amount: 2_000 });
    await advance(4);
    expect((await read(pr.id)).status).toBe('pending');
    await advance(1);
    const paid = await read(pr.id);
    expect(paid.status).toBe('completed');
    expect(bytesToHex(sha256(hexToBytes(paid.preimage)))).toBe(pr.paymentHash);
    expect(Date.parse(paid.updatedAt) - Date.parse(pr.createdAt)).toBe(5_000);
    expect((await server.api(`/api/v1/payment-requests/${pr.id}/status`)).body).toEqual({ status: 'completed' });
  });

  it('matches by amount, description pattern, metadata and account; first match wins', async () => {
    const fails = await create({ amount: 4040 });
    const held = await create({ amount: 4040 + 1, metadata: { hold: true } });
    const refund = await create({ description: 'Refund for order 7' });
    const big = await create({ amount: 2_000_000 });
    const nwc = await create({}, KEYS.nwc);
    expect((await read(nwc.id, KEYS.nwc)).status).toBe('completed');
    await advance(30);
    expect((await read(fails.id)).status).toBe('failed');
    expect((await read(held.id)).status).toBe('pending');
    expect((await read(refund.id)).status).toBe('expired');
    expect((await read(big.id)).status).toBe('pending');
    await advance(570);
    expect((await read(big.id)).status).toBe('completed');
    expect((await read(held.id)).status).toBe('pending');
  });

  it('lets expiry win when the request expires before its scheduled outcome', async () => {
    const pr = await create({ amount: 2_000_000, expiresIn: 60 });
    await advance(600);
    const read1 = await read(pr.id);
    expect(read1.status).toBe('expired');
    expect(read1.updatedAt).toBe(pr.expiresAt);
  });

  it('makes a control call on a rule-settled request a 409, and persists the settled state', async () => {
    const pr = await create({ amount: 4040 });
    await advance(2);
    const res = await server.api(`/sandbox/v1/payment-requests/${pr.id}/complete`, { method: 'POST' });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('has failed');
    expect(server.sandbox.store.getPaymentRequest(pr.id)!.status).toBe('failed');
  });
});

describe('rules on a running clock', () => {
  it('settle by themselves once the delay has passed in real time', async () => {
    const running = await startServer({ rules: [{ outcome: 'complete', after: 1 }] });
    try {
      const pr = (await running.api('/api/v1/payment-requests', { body: createBody() })).body;
      expect((await running.api(`/api/v1/payment-requests/${pr.id}/status`)).body.status).toBe('pending');
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await running.api(`/api/v1/payment-requests/${pr.id}/status`)).body.status).toBe('completed');
    } finally {
      await running.close();
    }
  });
});

describe('probability', () => {
  it('applies a rule to about its share of requests, the same way for the same id', async () => {
    const flaky = await startServer({ clock: 'frozen', rules: [{ name: 'late payer', outcome: 'complete', after: 600, probability: 0.3 }, { outcome: 'complete', after: 5 }] });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 200; i++) ids.push((await flaky.api('/api/v1/payment-requests', { body: createBody() })).body.id);
      await flaky.api('/sandbox/v1/clock/advance', { method: 'POST', body: { seconds: 5 } });
      const late = [];
      for (const id of ids) if ((await flaky.api(`/api/v1/payment-requests/${id}/status`)).body.status === 'pending') late.push(id);
      expect(late.length).toBeGreaterThan(30);
      expect(late.length).toBeLessThan(90);
      const rule = flaky.sandbox.rules;
      for (const id of ids.slice(0, 20)) {
        const subject = { id, accountId: 'acct_custodial', amount: 1000, description: 'd' };
        expect(rule.scheduleFor(subject, 0)).toEqual(rule.scheduleFor(subject, 0));
      }
    } finally {
      await flaky.close();
    }
  });
});

describe('account rules through the control API', () => {
  it('installs rules for the account only, ahead of the fixed ones; reset keeps them, PUT [] removes them', async () => {
    const put = await server.api('/sandbox/v1/rules', { method: 'PUT', body: { rules: [{ name: 'mine fail', outcome: 'fail', after: 1 }] } });
    expect(put.status).toBe(200);
    expect(put.body.rules).toEqual([{ name: 'mine fail', outcome: 'fail', after: 1 }]);
    expect(put.body.fixedRules).toHaveLength(FIXED_RULES.length);
    const mine = await create({ amount: 2_000 });
    await advance(1);
    expect((await read(mine.id)).status).toBe('failed');
    expect((await server.api('/sandbox/v1/rules', { key: KEYS.nwc })).body.rules).toEqual([]);
    await server.api('/sandbox/v1/reset', { method: 'POST' });
    expect((await server.api('/sandbox/v1/rules')).body.rules).toHaveLength(1);
    await server.api('/sandbox/v1/rules', { method: 'PUT', body: { rules: [] } });
    expect((await server.api('/sandbox/v1/rules')).body.rules).toEqual([]);
  });

  it.each([
    [{ rules: [{ outcome: 'explode' }] }, 'rules.0.outcome'],
    [{ rules: [{ outcome: 'fail', after: -1 }] }, 'rules.0.after'],
    [{ rules: [{ outcome: 'fail', match: { description: '([' } }] }, 'rules.0.match.description'],
    [{ rules: [{ outcome: 'fail', match: { amount: { min: 10, max: 5 } } }] }, 'rules.0.match.amount'],
    [{ rules: [{ outcome: 'fail', probability: 2 }] }, 'rules.0.probability'],
    [{ rules: 'all' }, 'rules'],
  ])('refuses invalid rules %j with 400 naming the rule', async (body, field) => {
    const res = await server.api('/sandbox/v1/rules', { method: 'PUT', body });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});
