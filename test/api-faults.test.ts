/**
 * API faults (`PUT /sandbox/v1/faults`) and the rate limit, through both transports: the real
 * server (Fastify, fetch over 127.0.0.1) and the MSW handlers (`setupServer`). Every case runs on
 * a fresh account of its own (`POST /sandbox/v1/accounts`), so counts never mix.
 *
 * A `resetAfterCommit` create's webhook is delivered through both: under MSW the engine's webhook
 * sender is fetch, which `setupServer` intercepts and (unhandled, to 127.0.0.1) lets through to the
 * real receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPECTED_MSW_MAJOR, loadedMswVersion } from './support/msw-under-test.js';
import { createBody } from './support/sandbox-server.js';
import { mswServer, nextSecond, twoTransports, withinOneSecond, type FreshAccount, type Transport } from './support/two-transports.js';
import { startReceiver } from './support/webhook-receiver.js';

const plain = twoTransports();
const limited = twoTransports({ settings: { rateLimit: 3 } });
const msw = mswServer(plain, limited);

beforeAll(async () => {
  await Promise.all([plain.start(), limited.start()]);
  msw.listen();
});
afterAll(async () => {
  msw.close();
  await Promise.all([plain.stop(), limited.stop()]);
});

it(`runs the MSW side on msw ${EXPECTED_MSW_MAJOR}`, async () => {
  expect(await loadedMswVersion()).toMatch(new RegExp(`^${EXPECTED_MSW_MAJOR}\\.`));
});

const TRANSPORTS = ['server', 'msw'] as const;
const CREATE = '/api/v1/payment-requests';
const statusPath = (id: string) => `/api/v1/payment-requests/${id}/status`;

/** A fresh account on a transport, with the calls the cases make. */
async function freshAccount(transport: Transport) {
  const account: FreshAccount = await transport.account();
  const key = account.secret;
  return {
    ...account,
    key,
    putFaults: (body: unknown) => transport.api('/sandbox/v1/faults', { method: 'PUT', key, body }),
    faults: async () => (await transport.api('/sandbox/v1/faults', { key })).body,
    stored: async () => (await transport.api('/sandbox/v1/payment-requests', { key })).body.data as Array<Record<string, any>>,
    create: (overrides: Record<string, unknown> = {}) => transport.api(CREATE, { key, body: createBody(overrides) }),
    rawCreate: (overrides: Record<string, unknown> = {}) => transport.raw(CREATE, { key, body: createBody(overrides) }),
    get: (path: string) => transport.api(path, { key }),
  };
}

/** Puts these faults, expecting a 200. */
async function armed(account: Awaited<ReturnType<typeof freshAccount>>, body: unknown) {
  const put = await account.putFaults(body);
  expect(put.status, put.text).toBe(200);
  return put.body;
}

/** How long `run` takes to settle, and how it settled. */
async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const start = performance.now();
  try {
    const value = await run();
    return { ms: performance.now() - start, value };
  } catch (error) {
    return { ms: performance.now() - start, error };
  }
}

describe.each(TRANSPORTS)('API faults through %s', (name) => {
  const transport = () => plain.get(name);

  it.each([429, 500, 502, 504] as const)('a status fault %i: that status, code simulated_fault, nothing stored', async (status) => {
    const account = await freshAccount(transport());
    await armed(account, { faults: [{ fault: { status } }] });
    const answer = await account.create();
    expect(answer.status).toBe(status);
    expect(answer.body.error.code).toBe('simulated_fault');
    expect(answer.headers.get('retry-after')).toBeNull();
    expect(await account.stored()).toEqual([]);
  });

  it('a 503 with retryAfter 2: Retry-After: 2, code simulated_fault, nothing stored', async () => {
    const account = await freshAccount(transport());
    await armed(account, { faults: [{ fault: { status: 503, retryAfter: 2 } }] });
    const answer = await account.create({ metadata: { orderId: 'S-1' } });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('2');
    expect(answer.body).toMatchObject({ error: { code: 'simulated_fault', message: expect.any(String) } });
    expect(await account.stored()).toEqual([]);
    expect(await account.faults()).toMatchObject({ faults: [{ matched: 1, fired: 1 }] });
  });

  it('reset: fetch rejects (no answer), nothing stored', async () => {
    const account = await freshAccount(transport());
    await armed(account, { faults: [{ fault: { reset: true } }] });
    await expect(account.rawCreate()).rejects.toThrow(TypeError);
    expect(await account.stored()).toEqual([]);
  });

  it('resetAfterCommit: fetch rejects, but the request is stored and its created webhook delivered', async () => {
    const receiver = await startReceiver();
    try {
      const account = await freshAccount(transport());
      const endpoint = await transport().api('/sandbox/v1/webhook-endpoints', { key: account.key, body: { url: receiver.url } });
      expect(endpoint.status, endpoint.text).toBe(201);
      receiver.secret = endpoint.body.secret;
      await armed(account, { faults: [{ match: { method: 'POST', path: CREATE }, fault: { resetAfterCommit: true } }] });
      await expect(account.rawCreate({ metadata: { orderId: 'RAC-1' } })).rejects.toThrow(TypeError);
      const stored = await account.stored();
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ metadata: { orderId: 'RAC-1' }, status: 'pending' });
      const [delivery] = await receiver.waitFor(1, 10_000);
      expect(delivery!.event).toMatchObject({ type: 'payment_request.created', data: { id: stored[0]!.id, metadata: { orderId: 'RAC-1' } } });
      expect(delivery!.verified).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('latencyMs: the real answer, at least n ms late', async () => {
    const account = await freshAccount(transport());
    await armed(account, { faults: [{ fault: { latencyMs: 300 } }] });
    const { ms, value } = await timed(() => account.create({ metadata: { orderId: 'L-1' } }));
    expect(value?.status).toBe(201);
    expect(value?.body).toMatchObject({ id: expect.stringMatching(/^pr_/), metadata: { orderId: 'L-1' } });
    // Timers may fire a hair early against performance.now(); 2 ms is far below any real answer.
    expect(ms).toBeGreaterThanOrEqual(298);
    expect((await account.stored()).map((request) => request.id)).toEqual([value?.body.id]);
  });

  it('hangMs: no answer for n ms, then the connection closes; nothing processed', async () => {
    const account = await freshAccount(transport());
    await armed(account, { faults: [{ fault: { hangMs: 400 } }] });
    const { ms, error } = await timed(() => account.rawCreate());
    expect(error).toBeInstanceOf(TypeError);
    expect(ms).toBeGreaterThanOrEqual(398);
    expect(ms).toBeLessThan(5_000);
    expect(await account.stored()).toEqual([]);
  });

  it('matches by method', async () => {
    const account = await freshAccount(transport());
    const made = await account.create();
    await armed(account, { faults: [{ match: { method: 'POST' }, fault: { status: 503 } }] });
    expect((await account.create()).status).toBe(503);
    expect((await account.get(`${CREATE}/${made.body.id}`)).status).toBe(200);
    expect((await account.get(statusPath(made.body.id))).status).toBe(200);
    expect(await account.faults()).toMatchObject({ faults: [{ matched: 1, fired: 1 }] });
  });

  it('matches by path pattern: /status reads only, not GET by id nor create', async () => {
    const account = await freshAccount(transport());
    const made = await account.create();
    await armed(account, { faults: [{ match: { path: '/api/v1/payment-requests/{id}/status' }, fault: { status: 502 } }] });
    expect((await account.get(statusPath(made.body.id))).status).toBe(502);
    expect((await account.get(statusPath('pr_other'))).status).toBe(502);
    expect((await account.get(`${CREATE}/${made.body.id}`)).status).toBe(200);
    expect((await account.create()).status).toBe(201);
    expect(await account.faults()).toMatchObject({ faults: [{ matched: 2, fired: 2 }] });
  });

  it('the first matching fault decides', async () => {
    const account = await freshAccount(transport());
    const made = await account.create();
    await armed(account, {
      faults: [
        { match: { method: 'GET', path: '/api/v1/payment-requests/{id}/status' }, fault: { status: 502 } },
        { fault: { status: 503 } },
      ],
    });
    expect((await account.get(statusPath(made.body.id))).status).toBe(502);
    expect((await account.get(`${CREATE}/${made.body.id}`)).status).toBe(503);
    expect((await account.create()).status).toBe(503);
    const { faults } = await account.faults();
    expect(faults.map(({ matched, fired }: { matched: number; fired: number }) => ({ matched, fired }))).toEqual([
      { matched: 1, fired: 1 },
      { matched: 2, fired: 2 },
    ]);
  });

  it('after 2, times 1: only the 3rd match fires, once; GET shows matched and fired', async () => {
    const account = await freshAccount(transport());
    const made = await account.create();
    await armed(account, { faults: [{ match: { method: 'GET' }, after: 2, times: 1, fault: { status: 500 } }] });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await account.get(statusPath(made.body.id))).status);
    expect(statuses).toEqual([200, 200, 500, 200, 200, 200]);
    const view = await account.faults();
    // Spent after firing once: the calls after it match it no more.
    expect(view).toEqual({ faults: [{ match: { method: 'GET' }, after: 2, times: 1, fault: { status: 500 }, matched: 3, fired: 1 }], seed: 0 });
  });

  /** Which of 20 status reads on a fresh account fail under probability 0.5 with this seed. */
  async function sequence(seed: number): Promise<boolean[]> {
    const account = await freshAccount(transport());
    const made = await account.create();
    await armed(account, { faults: [{ probability: 0.5, fault: { status: 503 } }], seed });
    const fired: boolean[] = [];
    for (let i = 0; i < 20; i++) fired.push((await account.get(statusPath(made.body.id))).status === 503);
    const view = await account.faults();
    expect(view.seed).toBe(seed);
    expect(view.faults[0]).toMatchObject({ matched: 20, fired: fired.filter(Boolean).length });
    return fired;
  }

  it('probability 0.5, seed 9: the same sequence on two fresh accounts, another with another seed', async () => {
    const first = await sequence(9);
    const second = await sequence(9);
    const other = await sequence(10);
    expect(second).toEqual(first);
    expect(other).not.toEqual(first);
    // Some fire and some do not: the probability is applied, not all or nothing.
    expect(first).toContain(true);
    expect(first).toContain(false);
  });

  it('never touch the control API: a reset matching everything still lets faults be read and cleared', async () => {
    const account = await freshAccount(transport());
    await armed(account, { faults: [{ fault: { reset: true } }] });
    await expect(account.rawCreate()).rejects.toThrow(TypeError);
    expect((await transport().api('/sandbox/v1/faults', { key: account.key })).status).toBe(200);
    expect((await transport().api('/sandbox/v1/payment-requests', { key: account.key })).status).toBe(200);
    expect((await transport().api('/sandbox/v1/clock', { key: account.key })).status).toBe(200);
    expect((await transport().api('/sandbox/v1/requests', { key: account.key })).status).toBe(200);
    const cleared = await account.putFaults({ faults: [] });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ faults: [], seed: 0 });
    expect((await account.create()).status).toBe(201);
  });

  it.each([
    ['a status outside 429/500/502/503/504', { faults: [{ fault: { status: 418 } }] }, 'faults.0.fault.status'],
    ['probability 2', { faults: [{ probability: 2, fault: { status: 503 } }] }, 'faults.0.probability'],
    ['two kinds at once', { faults: [{ fault: { status: 503, reset: true } }] }, 'faults.0.fault'],
    ['retryAfter without status', { faults: [{ fault: { latencyMs: 10, retryAfter: 2 } }] }, 'faults.0.fault.retryAfter'],
    ['an unknown field', { faults: [{ colour: 'red', fault: { status: 503 } }] }, 'faults.0.colour'],
    ['a path not under /api/v1', { faults: [{ match: { path: '/sandbox/v1/faults' }, fault: { status: 503 } }] }, 'faults.0.match.path'],
  ])('turns away %s: 400 naming the field, nothing armed', async (_what, body, field) => {
    const account = await freshAccount(transport());
    const answer = await account.putFaults(body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_request');
    expect(answer.body.error.details).toContainEqual(expect.objectContaining({ field }));
    expect(await account.faults()).toEqual({ faults: [], seed: 0 });
  });

  it('turns away a read-only key: 401, nothing armed', async () => {
    const account = await freshAccount(transport());
    const answer = await transport().api('/sandbox/v1/faults', { method: 'PUT', key: account.readOnly, body: { faults: [{ fault: { status: 503 } }] } });
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('insufficient_permission');
    // The read-only key may read them.
    expect((await transport().api('/sandbox/v1/faults', { key: account.readOnly })).body).toEqual({ faults: [], seed: 0 });
  });

  it('a plain reset keeps the faults; a reset of scope all clears them', async () => {
    const account = await freshAccount(transport());
    await armed(account, { faults: [{ match: { method: 'POST' }, fault: { status: 503 } }], seed: 4 });
    expect((await transport().api('/sandbox/v1/reset', { method: 'POST', key: account.key })).status).toBe(204);
    expect(await account.faults()).toMatchObject({ faults: [{ fault: { status: 503 } }], seed: 4 });
    expect((await account.create()).status).toBe(503);
    expect((await transport().api('/sandbox/v1/reset', { key: account.key, body: { scope: 'all' } })).status).toBe(204);
    expect(await account.faults()).toEqual({ faults: [], seed: 0 });
    expect((await account.create()).status).toBe(201);
  });

  it('a spent fault (fired `times` times) no longer matches: faults chain, "503 once, then 500"', async () => {
    const account = await freshAccount(transport());
    await armed(account, { faults: [{ times: 1, fault: { status: 503 } }, { times: 1, fault: { status: 500 } }] });
    expect((await account.create()).status).toBe(503);
    expect((await account.create()).status).toBe(500);
    expect((await account.create()).status).toBe(201);
    const { faults } = await account.faults();
    expect(faults.map(({ matched, fired }: { matched: number; fired: number }) => ({ matched, fired }))).toEqual([
      { matched: 1, fired: 1 },
      { matched: 1, fired: 1 },
    ]);
  });

  it("faults are the account's own: another account is not touched", async () => {
    const faulted = await freshAccount(transport());
    const other = await freshAccount(transport());
    await armed(faulted, { faults: [{ fault: { status: 503 } }] });
    expect((await faulted.create()).status).toBe(503);
    expect((await other.create()).status).toBe(201);
  });
});

it('the same faults, seed and calls fire the same sequence through the server and through MSW', async () => {
  const run = async (transport: Transport) => {
    const account = await freshAccount(transport);
    await armed(account, { faults: [{ match: { method: 'GET' }, probability: 0.3, fault: { status: 502 } }], seed: 77 });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await account.get(statusPath('pr_nope'))).status);
    return statuses;
  };
  const [viaServer, viaMsw] = await Promise.all([run(plain.get('server')), run(plain.get('msw'))]);
  expect(viaMsw).toEqual(viaServer);
  expect(new Set(viaServer)).toEqual(new Set([404, 502]));
});

describe.each(TRANSPORTS)('the rate limit (rateLimit: 3) through %s', (name) => {
  const transport = () => limited.get(name);

  it('3 calls a second per key pass, the 4th is 429 rate_limited; another key is not held back; the next second passes; the control API is not limited', async () => {
    const path = statusPath('pr_nope');
    // All of it within one window, or the counts mean nothing.
    const {
      prepared: { a },
      result: { burst, other, control, controlWrite },
    } = await withinOneSecond(
      async () => ({ a: await freshAccount(transport()), b: await freshAccount(transport()) }),
      async ({ a, b }) => {
        const burst = [];
        for (let i = 0; i < 4; i++) burst.push(await a.get(path));
        const other = await b.get(path);
        const control = await transport().api('/sandbox/v1/faults', { key: a.key });
        const controlWrite = await a.putFaults({ faults: [] });
        return { burst, other, control, controlWrite };
      },
    );

    expect(burst.slice(0, 3).map((answer) => answer.status)).toEqual([404, 404, 404]);
    expect(burst.slice(0, 3).map((answer) => answer.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0']);
    for (const answer of burst.slice(0, 3)) {
      expect(answer.headers.get('ratelimit-limit')).toBe('3');
      expect(answer.headers.get('ratelimit-reset')).toBe('1');
      expect(answer.headers.get('retry-after')).toBeNull();
    }
    const over = burst[3]!;
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limited');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(over.headers.get('ratelimit-remaining')).toBe('0');
    expect(over.headers.get('ratelimit-limit')).toBe('3');

    expect(other.status).toBe(404);
    expect(other.headers.get('ratelimit-remaining')).toBe('2');

    expect(control.status).toBe(200);
    expect(control.headers.get('ratelimit-limit')).toBeNull();
    expect(controlWrite.status).toBe(200);

    await nextSecond();
    const next = await a.get(path);
    expect(next.status).toBe(404);
    expect(next.headers.get('ratelimit-remaining')).toBe('2');
  });

  // `bearer KEY`, `BEARER KEY`, `Bearer  KEY` are all the key KEY (AccountDirectory.identify): one window.
  it('counts per key, however the Authorization header spells it', async () => {
    const path = statusPath('pr_nope');
    const { result: statuses } = await withinOneSecond(
      () => freshAccount(transport()),
      async (a) => {
        const statuses: number[] = [];
        for (const scheme of ['Bearer ', 'Bearer ', 'Bearer ', 'bearer ', 'BEARER ', 'Bearer  ']) {
          statuses.push((await transport().api(path, { key: null, headers: { authorization: `${scheme}${a.key}` } })).status);
        }
        return statuses;
      },
    );
    expect(statuses).toEqual([404, 404, 404, 429, 429, 429]);
  });

  it('a call over the limit is not processed', async () => {
    const { prepared: a, result: answers } = await withinOneSecond(
      () => freshAccount(transport()),
      async (a) => {
        const answers = [];
        for (let i = 0; i < 4; i++) answers.push(await a.create({ metadata: { n: String(i) } }));
        return answers;
      },
    );
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 429]);
    expect((await a.stored()).map((request) => request.metadata.n).sort()).toEqual(['0', '1', '2']);
  });
});
