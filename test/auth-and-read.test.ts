/** Authentication, account isolation, GET and GET status through the real server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBody, KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

let server: RunningServer;
let created: Record<string, any>;
beforeAll(async () => {
  server = await startServer({ clock: 'frozen' });
  created = (await server.api('/api/v1/payment-requests', { body: createBody({ metadata: { orderId: 'A-1' } }) })).body;
});
afterAll(() => server.close());

const paths = () => [
  ['POST', '/api/v1/payment-requests'],
  ['GET', `/api/v1/payment-requests/${created.id}`],
  ['GET', `/api/v1/payment-requests/${created.id}/status`],
];

describe('authentication', () => {
  it.each([
    ['no Authorization header', {}],
    ['an empty header', { authorization: '' }],
    ['a scheme but no key', { authorization: 'Bearer' }],
    ['another scheme', { authorization: `Basic ${KEYS.custodial}` }],
    ['two keys', { authorization: `Bearer ${KEYS.custodial} ${KEYS.nwc}` }],
    ['an unknown key', { authorization: 'Bearer sk_test_nobody' }],
    ['a key differing in one character', { authorization: 'Bearer sk_test_custodiaL' }],
    ['a prefix of a key', { authorization: 'Bearer sk_test_custodia' }],
    ['an 8 KiB key', { authorization: `Bearer ${'k'.repeat(8192)}` }],
  ])('%s → 401 on every endpoint', async (_title, headers) => {
    for (const [method, path] of paths()) {
      const res = await server.api(path!, { method, key: null, headers, ...(method === 'POST' ? { body: createBody() } : {}) });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('accepts the scheme in any case', async () => {
    const res = await server.api(`/api/v1/payment-requests/${created.id}`, { key: null, headers: { authorization: `bearer ${KEYS.custodial}` } });
    expect(res.status).toBe(200);
  });

  it('refuses creation to a read-only key with 401, and lets it read', async () => {
    const res = await server.api('/api/v1/payment-requests', { key: KEYS.readonly, body: createBody() });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('insufficient_permission');
    expect((await server.api(`/api/v1/payment-requests/${created.id}`, { key: KEYS.readonly })).status).toBe(200);
  });

  it('checks the key before the body: a bad key with a bad body is 401', async () => {
    const res = await server.api('/api/v1/payment-requests', { key: 'sk_wrong', rawBody: '{oops' });
    expect(res.status).toBe(401);
  });
});

describe('reading', () => {
  it('GET returns what create returned', async () => {
    const res = await server.api(`/api/v1/payment-requests/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
  });

  it('GET status returns exactly {"status"}', async () => {
    const res = await server.api(`/api/v1/payment-requests/${created.id}/status`);
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"status":"pending"}');
  });

  it.each(['pr_doesnotexist', 'nope', `pr_${'x'.repeat(10_000)}`, 'pr_%00', '..%2F..%2Fetc'])('answers 404 for the unknown id %s', async (id) => {
    for (const suffix of ['', '/status']) {
      const res = await server.api(`/api/v1/payment-requests/${id.slice(0, 10_050)}${suffix}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('payment_request_not_found');
    }
  });

  it("never shows one account's request to another (404, as if absent)", async () => {
    for (const suffix of ['', '/status']) {
      const res = await server.api(`/api/v1/payment-requests/${created.id}${suffix}`, { key: KEYS.nwc });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('payment_request_not_found');
    }
  });

  it("reads as expired once the account's clock passes expiresAt, from both endpoints", async () => {
    const short = (await server.api('/api/v1/payment-requests', { body: createBody({ expiresIn: 60 }) })).body;
    await server.sandbox.clocks.advance('acct_custodial', 59);
    expect((await server.api(`/api/v1/payment-requests/${short.id}/status`)).body.status).toBe('pending');
    await server.sandbox.clocks.advance('acct_custodial', 1);
    expect((await server.api(`/api/v1/payment-requests/${short.id}/status`)).body.status).toBe('expired');
    const read = (await server.api(`/api/v1/payment-requests/${short.id}`)).body;
    expect(read.status).toBe('expired');
    expect(read.updatedAt).toBe(short.expiresAt);
    // The other account's clock did not move.
    expect(server.sandbox.clocks.now('acct_nwc')).toBeLessThan(server.sandbox.clocks.now('acct_custodial'));
  });
});
