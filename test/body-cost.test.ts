/**
 * What a request body may cost (issue 16, finding 9): a 1 MiB body nested 100,000 levels deep, or
 * holding 100,000 values, sent to every route that takes a body. Each is a 400 that names what is
 * wrong, and none holds the event loop: the server runs in this process, so its stalls are
 * measured here (monitorEventLoopDelay) while it answers. The target is 20 ms per request; the
 * assertions leave room for a loaded CI machine, and the figures are printed. Timings are the best
 * of a few rounds, so that a machine busy with other work does not pass for a slow engine (a real
 * regression, such as the 100-250 ms parse of a deep body, is slow in every round).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DETAILS } from '../src/core/pipeline/schema-check.js';
import { routeTable } from '../src/core/routes/route-table.js';
import { resolveSettings } from '../src/core/settings.js';
import { createSandbox, type Sandbox } from '../src/sandbox.js';
import { rawRequest } from './support/raw-http.js';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

/** The server's default body limit: every hostile body below is exactly this long. */
const LIMIT = 1024 * 1024;
/** Longest a request may hold the event loop in these tests (the target is 20 ms). */
const MAX_BLOCK_MS = 50;
/** Longest the server may take to answer one of these bodies, sending included. */
const MAX_ANSWER_MS = 1_000;
/** Rounds of each measurement; the best counts. */
const ROUNDS = 3;

/** Every route that takes a JSON body, with a key allowed to call it. */
const BODY_ROUTES = routeTable(resolveSettings())
  .filter((route) => route.body !== undefined)
  .map((route) => ({ method: route.method, path: route.path.replaceAll(/:\w+/g, 'x'), key: route.access === 'accounts' ? 'sk_test_admin' : KEYS.custodial }));

/** A JSON object of `members`, padded with a string member to exactly `LIMIT` bytes. */
function padded(members: string): string {
  const head = '{"padding":"';
  const tail = `",${members}}`;
  return head + 'x'.repeat(LIMIT - head.length - tail.length) + tail;
}

/** 100,000 levels of objects and lists, alternating. */
const DEEP = `${'[{"a":'.repeat(50_000)}1${'}]'.repeat(50_000)}`;
/** A list of zeros as long as fits in `LIMIT` with `wrap` around it (about 520,000 values), padded with spaces. */
function zeros(wrap: (list: string) => string): string {
  const text = wrap(`[${'0,'.repeat(Math.floor((LIMIT - wrap('[0]').length) / 2))}0]`);
  return text + ' '.repeat(LIMIT - text.length);
}
/** An object of 100,000 keys. */
const KEYS_100K = `{${Array.from({ length: 100_000 }, (_, i) => `"${i.toString(36)}":0`).join(',')}}`;
const CREATE_HEAD = '"amount":1000,"description":"d","destinationWallet":"a@example.com"';

interface HostileBody {
  name: string;
  body: string;
  /** The 400's code and its details as [field, code]. */
  code: 'invalid_request' | 'invalid_json';
  details?: string[][];
}

/** The hostile bodies of a route: the create route's own fields carry them there. */
function hostileBodies(path: string): HostileBody[] {
  const create = path === '/api/v1/payment-requests';
  return [
    create
      ? { name: 'metadata nested 100,000 deep', body: padded(`${CREATE_HEAD},"metadata":${DEEP}`), code: 'invalid_request', details: [['metadata', 'too_deep']] }
      : { name: 'a member nested 100,000 deep', body: padded(`"deep":${DEEP}`), code: 'invalid_request', details: [['deep', 'too_deep']] },
    { name: 'the body nested 100,000 deep', body: `${DEEP}${' '.repeat(LIMIT - DEEP.length)}`, code: 'invalid_request', details: [['body', 'too_deep']] },
    create
      ? { name: 'metadata [0,0,…]', body: zeros((list) => `{${CREATE_HEAD},"metadata":${list}}`), code: 'invalid_request', details: [['body', 'too_large']] }
      : { name: 'a list [0,0,…]', body: zeros((list) => `{"list":${list}}`), code: 'invalid_request', details: [['body', 'too_large']] },
    create
      ? { name: 'metadata of 100,000 keys', body: padded(`${CREATE_HEAD},"metadata":${KEYS_100K}`), code: 'invalid_request', details: [['body', 'too_large']] }
      : { name: 'an object of 100,000 keys', body: padded(`"object":${KEYS_100K}`), code: 'invalid_request', details: [['body', 'too_large']] },
    { name: '1 MiB of unclosed lists', body: '['.repeat(LIMIT), code: 'invalid_json' },
  ];
}

const CASES = BODY_ROUTES.flatMap((route) => hostileBodies(route.path).map((hostile) => ({ ...route, ...hostile })));

/** Each request's answer (status, code, [field, code] pairs) in one shape for both transports. */
function outcome(status: number, text: string) {
  const error = (JSON.parse(text) as { error?: { code: string; details?: Array<{ field: string; code: string }> } }).error;
  return { status, code: error?.code, details: error?.details?.map((d) => [d.field, d.code]) };
}

describe('hostile bodies of 1 MiB, in the engine', () => {
  let sandbox: Sandbox;
  const figures: string[] = [];
  beforeAll(async () => {
    sandbox = createSandbox({ clock: 'frozen' });
    // Compile each route's schema first (done once, on first use): not what is measured here.
    for (const route of BODY_ROUTES) await handle(route, '{}');
  });
  afterAll(() => {
    sandbox.close();
    console.log(`synchronous time per request, in the engine (limit ${MAX_BLOCK_MS} ms):\n${figures.join('\n')}`);
  });
  const handle = (route: { method: string; path: string; key: string }, body: string) =>
    sandbox.handle({ method: route.method, url: route.path, headers: { authorization: `Bearer ${route.key}`, 'content-type': 'application/json' }, body });

  it.each(CASES.map((c) => [`${c.method} ${c.path}: ${c.name}`, c] as const))('%s → 400, answered synchronously in under 50 ms', async (_title, c) => {
    expect(c.body.length).toBe(LIMIT);
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const start = performance.now();
      const pending = handle(c, c.body);
      times.push(performance.now() - start);
      const response = await pending;
      expect(outcome(response.status, response.body)).toEqual({ status: 400, code: c.code, details: c.details });
    }
    const best = Math.min(...times);
    figures.push(`  best ${best.toFixed(1).padStart(5)} ms, worst ${Math.max(...times).toFixed(1).padStart(5)} ms  ${c.method} ${c.path}: ${c.name}`);
    expect(best).toBeLessThan(MAX_BLOCK_MS);
  });
});

describe('hostile bodies of 1 MiB, through the server', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ clock: 'frozen' });
    for (const route of BODY_ROUTES) await send(route, '{}');
  });
  afterAll(async () => {
    await server.close();
  });
  const send = (route: { method: string; path: string; key: string }, body: string) =>
    rawRequest(server.url, { method: route.method, path: route.path, headers: { authorization: `Bearer ${route.key}`, 'content-type': 'application/json' }, body });

  it('answers each with a 400 naming the problem, in time, and the event loop never stalls', async () => {
    const answerMs = new Map<string, number>();
    const stalls: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      for (const c of CASES) {
        const name = `${c.method} ${c.path}: ${c.name}`;
        const start = performance.now();
        const res = await send(c, c.body);
        const took = performance.now() - start;
        answerMs.set(name, Math.min(took, answerMs.get(name) ?? Infinity));
        expect(outcome(res.status, res.text), name).toEqual({ status: 400, code: c.code, details: c.details });
      }
      delay.disable();
      stalls.push(delay.max / 1e6);
    }
    const slowest = Math.max(...answerMs.values());
    console.log(
      `${CASES.length} hostile 1 MiB bodies through the server, ${ROUNDS} rounds: slowest answer ${slowest.toFixed(0)} ms (best of ${ROUNDS}); ` +
        `longest event-loop stall per round ${stalls.map((ms) => `${ms.toFixed(1)} ms`).join(', ')}`,
    );
    expect([...answerMs].filter(([, ms]) => ms > MAX_ANSWER_MS)).toEqual([]);
    expect(Math.min(...stalls)).toBeLessThan(MAX_BLOCK_MS);
  });

  it('keeps /healthz quick while four clients send them at once', async () => {
    const probes: number[] = [];
    let sending = true;
    const clients = [0, 1, 2, 3].map(async (offset) => {
      for (let i = offset; i < CASES.length; i += 4) await send(CASES[i]!, CASES[i]!.body);
    });
    const probing = (async () => {
      while (sending) {
        const start = performance.now();
        expect((await server.api('/healthz', { key: null })).status).toBe(200);
        probes.push(performance.now() - start);
      }
    })();
    await Promise.all(clients);
    sending = false;
    await probing;
    probes.sort((a, b) => a - b);
    const p50 = probes[Math.floor(probes.length / 2)]!;
    console.log(`/healthz during 4 concurrent hostile clients: ${probes.length} probes, p50 ${p50.toFixed(1)} ms, max ${probes.at(-1)!.toFixed(1)} ms`);
    // The finding: 692 ms at p50. What remains is reading four 1 MiB uploads at once and scanning them.
    expect(p50).toBeLessThan(2 * MAX_BLOCK_MS);
  });
});

describe('a body of many wrong items', () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = createSandbox({ clock: 'frozen' });
  });
  afterAll(() => sandbox.close());

  it(`is answered with the first ${MAX_DETAILS} problems and a note that there are more, quickly`, async () => {
    // 2,000 rules of 4 values: within the body's bounds, each rule wrong, and 1,000 rules too many.
    const body = JSON.stringify({ rules: Array.from({ length: 2_000 }, () => ({ outcome: 'none', match: { amount: 'x' } })) });
    const headers = { authorization: `Bearer ${KEYS.custodial}`, 'content-type': 'application/json' };
    await sandbox.handle({ method: 'PUT', url: '/sandbox/v1/rules', headers, body: '{}' });
    const start = performance.now();
    const pending = sandbox.handle({ method: 'PUT', url: '/sandbox/v1/rules', headers, body });
    const sync = performance.now() - start;
    const response = await pending;
    const { error } = JSON.parse(response.body) as { error: { message: string; details: Array<{ field: string; code: string; message: string }> } };
    expect(response.status).toBe(400);
    expect(error.details).toHaveLength(MAX_DETAILS);
    expect(error.details.slice(0, 3).map((d) => [d.field, d.code])).toEqual([
      ['rules', 'too_many_items'],
      ['rules.0.match.amount', 'invalid_type'],
      ['rules.1.match.amount', 'invalid_type'],
    ]);
    expect(error.details.at(-1)!.message).toMatch(/\(and more problems, not listed: an answer lists at most 50\)$/);
    expect(error.message).toMatch(/\(and more problems, not listed: an answer lists at most 50\)\.$/);
    expect(sync).toBeLessThan(MAX_BLOCK_MS);
  });
});
