/**
 * Byte parity between the transports: one sequence of requests, sent to the Fastify server and to
 * the MSW handlers (`setupServer`), each over a sandbox with the same seeded randomness and a
 * fixed wall clock, gets the same statuses, the same headers and the same bodies byte for byte —
 * successes (ids, invoices, timestamps) as well as every error. Then what differs, by design.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../src/fixtures/seeded-random.js';
import { createHandlers } from '../src/msw/index.node.js';
import type { SandboxOptions } from '../src/sandbox.js';
import { EXPECTED_MSW_MAJOR, loadedMswVersion, unhandledRequestsFail } from './support/msw-under-test.js';
import { api, createBody, KEYS, startServer, type ApiInit, type ApiResult, type RunningServer } from './support/sandbox-server.js';

const MSW_URL = 'http://parity.msw.test';
const PREFIXED_URL = 'https://api.parity.test/pay';
const deterministic = (): SandboxOptions => ({ random: seededRandom(11, 'msw parity'), wallClock: { now: () => Date.UTC(2026, 10, 23, 10, 0, 0, 250) } });

let fastify: RunningServer;
const msw = setupServer(
  ...createHandlers({ baseUrl: MSW_URL, ...deterministic() }),
  ...createHandlers({ baseUrl: PREFIXED_URL, ...deterministic() }),
);

beforeAll(async () => {
  fastify = await startServer(deterministic());
  // The Fastify server is reached over the network; anything else unhandled is a mistake.
  msw.listen(unhandledRequestsFail((url) => url.startsWith(fastify.url)));
});
afterAll(async () => {
  msw.close();
  await fastify.close();
});

/** The answer to an earlier step, by its name. */
type Earlier = (step: string) => ApiResult;

/** A request of the sequence; `path` and `bodyFrom` may use earlier answers (e.g. the id just created). */
interface Step extends ApiInit {
  name: string;
  path: string | ((earlier: Earlier) => string);
  bodyFrom?: (earlier: Earlier) => unknown;
}

const idOf = (earlier: Earlier, step = 'create') => String(earlier(step).body.id);

const STEPS: Step[] = [
  { name: 'health', path: '/healthz', key: null },
  { name: 'no key', path: '/api/v1/payment-requests', key: null, body: createBody() },
  { name: 'unknown key', path: '/api/v1/payment-requests', key: 'sk_test_nobody', body: createBody() },
  { name: 'read-only key creating', path: '/api/v1/payment-requests', key: KEYS.readonly, body: createBody() },
  { name: 'not JSON media type', path: '/api/v1/payment-requests', rawBody: '{}', headers: { 'content-type': 'text/plain' } },
  { name: 'malformed JSON', path: '/api/v1/payment-requests', rawBody: '{"amount": 1000,' },
  { name: 'every field wrong', path: '/api/v1/payment-requests', body: { amount: 20, description: 7, destinationWallet: 'nope', expiresIn: 0, metadata: [] } },
  { name: 'create', path: '/api/v1/payment-requests', body: createBody({ metadata: { orderId: 'A-1' } }) },
  // Over 639 UTF-8 bytes: the invoice carries its SHA-256 (h) instead of the text.
  { name: 'create, NWC', path: '/api/v1/payment-requests', key: KEYS.nwc, body: createBody({ amount: 999, description: '☕'.repeat(250) }) },
  { name: 'read', path: (earlier) => `/api/v1/payment-requests/${idOf(earlier)}` },
  { name: 'read with a query', path: (earlier) => `/api/v1/payment-requests/${idOf(earlier)}?expand=all` },
  { name: 'status', path: (earlier) => `/api/v1/payment-requests/${idOf(earlier)}/status` },
  { name: 'HEAD', method: 'HEAD', path: (earlier) => `/api/v1/payment-requests/${idOf(earlier)}` },
  { name: 'another account', key: KEYS.nwc, path: (earlier) => `/api/v1/payment-requests/${idOf(earlier)}` },
  { name: 'unknown id, percent-encoded', path: '/api/v1/payment-requests/pr%20nope%2F..' },
  { name: 'wrong method', method: 'DELETE', path: '/api/v1/payment-requests' },
  { name: 'plain OPTIONS', method: 'OPTIONS', path: '/api/v1/payment-requests' },
  { name: 'no such route', path: '/api/v1/refunds' },
  { name: 'clock', path: '/sandbox/v1/clock' },
  { name: 'clock advance, bad body', path: '/sandbox/v1/clock/advance', body: { seconds: -1 } },
  { name: 'clock advance', path: '/sandbox/v1/clock/advance', body: { seconds: 90 } },
  { name: 'complete', method: 'POST', path: (earlier) => `/sandbox/v1/payment-requests/${idOf(earlier)}/complete` },
  { name: 'fail after complete', method: 'POST', path: (earlier) => `/sandbox/v1/payment-requests/${idOf(earlier)}/fail` },
  { name: 'pay, not an invoice', path: '/sandbox/v1/pay', body: { invoice: 'lnbc1nope' } },
  { name: 'pay the NWC invoice from its account', key: KEYS.nwc, path: '/sandbox/v1/pay', bodyFrom: (earlier) => ({ invoice: earlier('create, NWC').body.invoice }) },
  { name: 'rules', method: 'PUT', path: '/sandbox/v1/rules', body: { rules: [{ name: 'fails', match: { amount: 4040 }, outcome: 'fail' }] } },
  { name: 'create under a rule', path: '/api/v1/payment-requests', body: createBody({ amount: 4040 }) },
  { name: 'read after the rule', path: (earlier) => `/api/v1/payment-requests/${idOf(earlier, 'create under a rule')}/status` },
  { name: 'reset', method: 'POST', path: '/sandbox/v1/reset' },
  { name: 'read after reset', path: (earlier) => `/api/v1/payment-requests/${idOf(earlier)}` },
];

/** Headers a transport adds on its own (framing, dates): not part of the engine's answer. */
const TRANSPORT_HEADERS = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * What must be identical: status, the engine's headers, the body's bytes; but for where the NWC
 * accounts' wallets are (`nwcRelay`): the server's relay, and in MSW `ws://localhost/nostr`, as
 * the wallets run in-process there (checked apart, below).
 */
function comparable(answer: ApiResult): { status: number; headers: Record<string, string>; text: string } {
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!TRANSPORT_HEADERS.has(name)) headers[name] = value;
  });
  return { status: answer.status, headers, text: answer.text.replace(`"nwcRelay":${JSON.stringify(`${fastify.url.replace('http', 'ws')}/nostr`)}`, '"nwcRelay":"ws://localhost/nostr"') };
}

async function runSteps(baseUrl: string): Promise<ApiResult[]> {
  const answers: ApiResult[] = [];
  for (const step of STEPS) {
    const { name: _name, path, bodyFrom, ...init } = step;
    const earlier: Earlier = (name) => answers[STEPS.findIndex((other) => other.name === name)]!;
    const resolved = typeof path === 'function' ? path(earlier) : path;
    answers.push(await api(baseUrl, resolved, { ...init, ...(bodyFrom ? { body: bodyFrom(earlier) } : {}) }));
  }
  return answers;
}

describe('Fastify and MSW, byte for byte', () => {
  it(`runs on msw ${EXPECTED_MSW_MAJOR} (npm test: msw 2, and msw 3 on Node >= 22.12)`, async () => {
    expect(await loadedMswVersion()).toMatch(new RegExp(`^${EXPECTED_MSW_MAJOR}\\.`));
  });

  it('answer the same sequence with the same statuses, headers and bodies', async () => {
    const [viaFastify, viaMsw, viaPrefix] = await Promise.all([runSteps(fastify.url), runSteps(MSW_URL), runSteps(PREFIXED_URL)]);
    for (const [index, step] of STEPS.entries()) {
      expect({ step: step.name, ...comparable(viaMsw[index]!) }).toEqual({ step: step.name, ...comparable(viaFastify[index]!) });
      expect({ step: step.name, ...comparable(viaPrefix[index]!) }).toEqual({ step: step.name, ...comparable(viaFastify[index]!) });
    }
    // The sequence does reach what it means to: a success, each error status, the controls.
    expect(viaMsw.map((answer) => answer.status)).toEqual([
      200, 401, 401, 401, 415, 400, 400, 201, 201, 200, 200, 200, 200, 404, 404, 405, 405, 404, 200, 400, 200, 200, 409, 400, 200, 200, 201, 200, 204, 404,
    ]);
    const answer = (name: string) => viaMsw[STEPS.findIndex((step) => step.name === name)]!;
    expect(answer('read after the rule').body).toEqual({ status: 'failed' });
    expect(answer('create').headers.get('location')).toBe(`/api/v1/payment-requests/${idOf(answer)}`);
  });
});

describe('what the transports do differently, by design', () => {
  it('MSW has no body limit: a body over 1 MiB reaches the engine (Fastify answers 413)', async () => {
    const huge = JSON.stringify(createBody({ metadata: { blob: 'x'.repeat(1024 * 1024) } }));
    const [viaFastify, viaMsw] = await Promise.all([api(fastify.url, '/api/v1/payment-requests', { rawBody: huge }), api(MSW_URL, '/api/v1/payment-requests', { rawBody: huge })]);
    expect(viaFastify.status).toBe(413);
    expect(viaFastify.body.error.code).toBe('payload_too_large');
    // The engine's own metadata limit (16 KiB) still turns it away.
    expect(viaMsw.status).toBe(400);
    expect(viaMsw.body.error.details).toContainEqual(expect.objectContaining({ field: 'metadata', code: 'too_large' }));
  });

  it("an NWC request's nwcRelay is the server's own relay; MSW, with no relay, names ws://localhost/nostr", async () => {
    const [viaFastify, viaMsw] = await Promise.all([
      api(fastify.url, '/api/v1/payment-requests', { key: KEYS.nwc, body: createBody() }),
      api(MSW_URL, '/api/v1/payment-requests', { key: KEYS.nwc, body: createBody() }),
    ]);
    expect(viaFastify.body.nwcRelay).toBe(`${fastify.url.replace('http', 'ws')}/nostr`);
    expect(viaMsw.body.nwcRelay).toBe('ws://localhost/nostr');
  });

  it('MSW adds no CORS headers: a service worker answers the page itself, so the browser needs none', async () => {
    const viaMsw = await api(MSW_URL, '/api/v1/payment-requests', { body: createBody(), headers: { origin: 'http://app.test' } });
    expect(viaMsw.status).toBe(201);
    expect(viaMsw.headers.get('access-control-allow-origin')).toBeNull();
  });
});
