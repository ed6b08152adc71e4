/**
 * The request journal (`GET /sandbox/v1/requests`), through both transports: the real server
 * (Fastify, fetch over 127.0.0.1) and the MSW handlers (`setupServer`). What a call left in it
 * (never its credentials), faulted calls, the filters, the order, the cap of 1,000 per account, the
 * accounts kept apart, DELETE and reset, and `sandbox.requests` in-process. Every case runs on a
 * fresh account of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEPT_REQUESTS_PER_ACCOUNT } from '../src/core/resilience/request-journal.js';
import { EXPECTED_MSW_MAJOR, loadedMswVersion } from './support/msw-under-test.js';
import { createBody } from './support/sandbox-server.js';
import { mswServer, sleep, twoTransports, type Transport } from './support/two-transports.js';

const both = twoTransports();
const msw = mswServer(both);

beforeAll(async () => {
  await both.start();
  msw.listen();
});
afterAll(async () => {
  msw.close();
  await both.stop();
});

it(`runs the MSW side on msw ${EXPECTED_MSW_MAJOR}`, async () => {
  expect(await loadedMswVersion()).toMatch(new RegExp(`^${EXPECTED_MSW_MAJOR}\\.`));
});

const TRANSPORTS = ['server', 'msw'] as const;
const CREATE = '/api/v1/payment-requests';
const STATUS_PATTERN = '/api/v1/payment-requests/{id}/status';
const statusPath = (id: string) => `/api/v1/payment-requests/${id}/status`;

/** A fresh account on a transport, with the calls the cases make. */
async function freshAccount(transport: Transport) {
  const account = await transport.account();
  const key = account.secret;
  return {
    ...account,
    key,
    /** `GET /sandbox/v1/requests` with this query; expects a 200 and returns `data`. */
    async journal(query: Record<string, string | number> = {}): Promise<Array<Record<string, any>>> {
      const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]));
      const answer = await transport.api(`/sandbox/v1/requests${search.size > 0 ? `?${search}` : ''}`, { key });
      expect(answer.status, answer.text).toBe(200);
      return answer.body.data;
    },
    create: (overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) => transport.api(CREATE, { key, body: createBody(overrides), headers }),
    get: (path: string, headers: Record<string, string> = {}) => transport.api(path, { key, headers }),
    putFaults: async (body: unknown) => {
      const put = await transport.api('/sandbox/v1/faults', { method: 'PUT', key, body });
      expect(put.status, put.text).toBe(200);
    },
  };
}

describe.each(TRANSPORTS)('the request journal through %s', (name) => {
  const transport = () => both.get(name);

  it('keeps each call with the documented fields, never authorization or cookie', async () => {
    const account = await freshAccount(transport());
    const created = await account.create({ metadata: { orderId: 'J-1' } }, { cookie: 'session=secret', 'x-trace-id': 'trace-1' });
    expect(created.status).toBe(201);
    const read = await account.get(`${CREATE}/${created.body.id}?expand=all&page=2`, { cookie: 'session=secret' });
    expect(read.status).toBe(200);

    const [readEntry, createEntry] = await account.journal();
    expect(createEntry).toEqual({
      id: expect.stringMatching(/^req_\S+$/),
      method: 'POST',
      path: CREATE,
      query: {},
      headers: expect.objectContaining({ 'content-type': 'application/json', 'x-trace-id': 'trace-1' }),
      body: createBody({ metadata: { orderId: 'J-1' } }),
      status: 201,
      responseBody: created.body,
      fault: null,
      receivedAt: expect.any(String),
      durationMs: expect.any(Number),
    });
    expect(readEntry).toMatchObject({ method: 'GET', path: `${CREATE}/${created.body.id}`, query: { expand: 'all', page: '2' }, body: null, status: 200, responseBody: read.body, fault: null });
    for (const entry of [createEntry!, readEntry!]) {
      expect(Object.keys(entry).sort()).toEqual(['body', 'durationMs', 'fault', 'headers', 'id', 'method', 'path', 'query', 'receivedAt', 'responseBody', 'status']);
      expect(entry.headers).not.toHaveProperty('authorization');
      expect(entry.headers).not.toHaveProperty('cookie');
      expect(JSON.stringify(entry)).not.toContain('session=secret');
      expect(JSON.stringify(entry)).not.toContain(account.key);
      expect(new Date(entry.receivedAt).toISOString()).toBe(entry.receivedAt);
      expect(Math.abs(Date.parse(entry.receivedAt) - Date.now())).toBeLessThan(60_000);
      expect(entry.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(readEntry!.id).not.toBe(createEntry!.id);
  });

  it('keeps a body that is not JSON as its text', async () => {
    const account = await freshAccount(transport());
    const answer = await transport().api(CREATE, { key: account.key, rawBody: '{"amount": 1000,' });
    expect(answer.status).toBe(400);
    const [entry] = await account.journal();
    expect(entry).toMatchObject({ method: 'POST', body: '{"amount": 1000,', status: 400, responseBody: answer.body });
  });

  it('records the fault of a faulted call: its status, or null for a reset', async () => {
    const account = await freshAccount(transport());
    await account.putFaults({ faults: [{ match: { method: 'POST' }, fault: { status: 503, retryAfter: 2 } }] });
    const faulted = await account.create({ metadata: { orderId: 'F-1' } });
    expect(faulted.status).toBe(503);
    await account.putFaults({ faults: [{ match: { method: 'POST' }, fault: { reset: true } }] });
    await expect(transport().raw(CREATE, { key: account.key, body: createBody({ metadata: { orderId: 'F-2' } }) })).rejects.toThrow(TypeError);
    const [reset, status] = await account.journal();
    expect(status).toMatchObject({ method: 'POST', body: { metadata: { orderId: 'F-1' } }, status: 503, responseBody: faulted.body, fault: { status: 503, retryAfter: 2 } });
    expect(reset).toMatchObject({ method: 'POST', body: { metadata: { orderId: 'F-2' } }, status: null, responseBody: null, fault: { reset: true } });
  });

  it('records a hang and a resetAfterCommit as status null (the latter with the request made), a latency with its real answer', async () => {
    const account = await freshAccount(transport());
    await account.putFaults({ faults: [{ fault: { hangMs: 50 } }] });
    await expect(transport().raw(CREATE, { key: account.key, body: createBody() })).rejects.toThrow(TypeError);
    await account.putFaults({ faults: [{ fault: { resetAfterCommit: true } }] });
    await expect(transport().raw(CREATE, { key: account.key, body: createBody({ metadata: { orderId: 'RAC' } }) })).rejects.toThrow(TypeError);
    await account.putFaults({ faults: [{ fault: { latencyMs: 20 } }] });
    const late = await account.create({ metadata: { orderId: 'LATE' } });
    expect(late.status).toBe(201);
    const [delayed, committed, hung] = await account.journal();
    expect(hung).toMatchObject({ status: null, responseBody: null, fault: { hangMs: 50 } });
    expect(committed).toMatchObject({ status: null, responseBody: null, fault: { resetAfterCommit: true }, body: { metadata: { orderId: 'RAC' } } });
    expect(delayed).toMatchObject({ status: 201, responseBody: late.body, fault: { latencyMs: 20 } });
    const stored = (await transport().api('/sandbox/v1/payment-requests', { key: account.key })).body.data;
    expect(stored.map((request: { metadata: { orderId?: string } }) => request.metadata.orderId).sort()).toEqual(['LATE', 'RAC']);
  });

  it('filters by method, path pattern, status, since and limit; newest first', async () => {
    const account = await freshAccount(transport());
    const first = await account.create();
    const id = first.body.id as string;
    await account.get(statusPath(id));
    await account.get(`${CREATE}/${id}`);
    await account.get(statusPath('pr_missing'));
    // A new millisecond at least, so `since` splits the calls.
    await sleep(5);
    const middle = new Date().toISOString();
    await sleep(5);
    await account.create();
    await account.get(statusPath(id));
    await account.get(`${CREATE}/pr_missing`);

    const all = await account.journal();
    expect(all.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
      `GET ${CREATE}/pr_missing 404`,
      `GET ${statusPath(id)} 200`,
      `POST ${CREATE} 201`,
      `GET ${statusPath('pr_missing')} 404`,
      `GET ${CREATE}/${id} 200`,
      `GET ${statusPath(id)} 200`,
      `POST ${CREATE} 201`,
    ]);
    const times = all.map((entry) => Date.parse(entry.receivedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const paths = (entries: Array<Record<string, any>>) => entries.map((entry) => `${entry.method} ${entry.path}`);
    expect(paths(await account.journal({ method: 'POST' }))).toEqual([`POST ${CREATE}`, `POST ${CREATE}`]);
    expect(paths(await account.journal({ method: 'GET', path: STATUS_PATTERN }))).toEqual([`GET ${statusPath(id)}`, `GET ${statusPath('pr_missing')}`, `GET ${statusPath(id)}`]);
    expect(paths(await account.journal({ path: CREATE }))).toEqual([`POST ${CREATE}`, `POST ${CREATE}`]);
    expect(paths(await account.journal({ status: 404 }))).toEqual([`GET ${CREATE}/pr_missing`, `GET ${statusPath('pr_missing')}`]);
    expect(paths(await account.journal({ since: middle }))).toEqual(paths(all.slice(0, 3)));
    expect((await account.journal({ limit: 2 })).map((entry) => entry.id)).toEqual(all.slice(0, 2).map((entry) => entry.id));
    expect(paths(await account.journal({ path: STATUS_PATTERN, status: 200, limit: 1 }))).toEqual([`GET ${statusPath(id)}`]);
  });

  it('turns away bad filters with a 400 naming the field', async () => {
    const account = await freshAccount(transport());
    for (const [query, field] of [
      ['since=yesterday', 'since'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['status=99', 'status'],
      ['method=DELETE', 'method'],
    ] as const) {
      const answer = await transport().api(`/sandbox/v1/requests?${query}`, { key: account.key });
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.details, query).toContainEqual(expect.objectContaining({ field }));
    }
  });

  it(`keeps the last ${KEPT_REQUESTS_PER_ACCOUNT} calls of an account; another account sees none of them`, async () => {
    const account = await freshAccount(transport());
    const other = await freshAccount(transport());
    const id = (await account.create()).body.id as string;
    // The create and the first 5 reads are the 6 oldest of 1,006 calls: they go.
    for (let n = 0; n < 5; n++) await account.get(`${statusPath(id)}?n=${n}`);
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => account.get(`${statusPath(id)}?n=${5 + batch * 50 + i}`)));
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
    }
    const kept = await account.journal({ limit: 1000 });
    expect(kept).toHaveLength(KEPT_REQUESTS_PER_ACCOUNT);
    expect(kept.map((entry) => Number(entry.query.n)).sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => 5 + i));
    expect(kept.every((entry) => entry.method === 'GET' && entry.path === statusPath(id))).toBe(true);
    // Newest first: the last batch leads, the sequential reads are gone.
    expect(Number(kept[0]!.query.n)).toBeGreaterThanOrEqual(955);
    expect(Number(kept.at(-1)!.query.n)).toBeLessThan(55);

    // In-process, the same as GET.
    expect(transport().sandbox.requests(account.id, { limit: 1000 })).toEqual(kept);
    expect(transport().sandbox.requests(account.id, { path: STATUS_PATTERN, limit: 3 })).toEqual(await account.journal({ path: STATUS_PATTERN, limit: 3 }));
    expect(transport().sandbox.requests(account.id)).toHaveLength(100);

    expect(await other.journal({ limit: 1000 })).toEqual([]);
    expect(transport().sandbox.requests(other.id)).toEqual([]);
  }, 60_000);

  it('sandbox.requests(accountId, filter) in-process gives what GET gives', async () => {
    const account = await freshAccount(transport());
    const id = (await account.create({ metadata: { orderId: 'P-1' } })).body.id as string;
    await account.get(statusPath(id));
    await account.get(`${CREATE}/${id}?expand=all`);
    const filters: Array<Record<string, string | number>> = [{}, { method: 'POST' }, { path: STATUS_PATTERN }, { status: 200 }, { limit: 1 }, { since: new Date(Date.now() - 60_000).toISOString() }];
    for (const filter of filters) {
      expect(transport().sandbox.requests(account.id, filter), JSON.stringify(filter)).toEqual(await account.journal(filter));
    }
  });

  it('DELETE empties it (204); a read-only key may read it, not empty it', async () => {
    const account = await freshAccount(transport());
    await account.create();
    expect(await account.journal({ limit: 10 })).toHaveLength(1);
    const refused = await transport().api('/sandbox/v1/requests', { method: 'DELETE', key: account.readOnly });
    expect(refused.status).toBe(401);
    const readOnly = await transport().api('/sandbox/v1/requests', { key: account.readOnly });
    expect(readOnly.status).toBe(200);
    expect(readOnly.body.data).toHaveLength(1);
    const deleted = await transport().api('/sandbox/v1/requests', { method: 'DELETE', key: account.key });
    expect(deleted.status).toBe(204);
    expect(await account.journal()).toEqual([]);
    expect(transport().sandbox.requests(account.id)).toEqual([]);
    // It fills again from there.
    await account.create();
    expect(await account.journal()).toHaveLength(1);
  });

  it('a reset empties it', async () => {
    const account = await freshAccount(transport());
    await account.create();
    await account.get(statusPath('pr_missing'));
    expect(await account.journal()).toHaveLength(2);
    expect((await transport().api('/sandbox/v1/reset', { method: 'POST', key: account.key })).status).toBe(204);
    expect(await account.journal()).toEqual([]);
    await account.create();
    expect((await transport().api('/sandbox/v1/reset', { key: account.key, body: { scope: 'all' } })).status).toBe(204);
    expect(await account.journal()).toEqual([]);
  });

  it('keeps only /api/v1 calls: the control API and calls without a valid key are not journaled', async () => {
    const account = await freshAccount(transport());
    await transport().api('/sandbox/v1/clock', { key: account.key });
    await transport().api('/sandbox/v1/payment-requests', { key: account.key });
    await transport().api(CREATE, { key: null, body: createBody() });
    await transport().api(CREATE, { key: 'sk_test_nobody', body: createBody() });
    expect(await account.journal()).toEqual([]);
  });
});
