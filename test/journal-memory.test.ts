/**
 * The request journal holds what it shows, not what it was sent (issue 21, finding 5): a body cut
 * to 8 KiB must not keep the whole body alive (in V8 a cut string can keep its parent), so the
 * journal's bound of 32 Mi characters is what memory shows. Through the real server: creates
 * with a ~1,000,000-byte body and a valid key, each answered 400; the heap after a full GC grows
 * by far less than the bodies would take. And headers, kept as given, count in full.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RequestJournal } from '../src/core/resilience/request-journal.js';
import { startServer, type RunningServer } from './support/sandbox-server.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const CALLS = 200;
const BODY_BYTES = 1_000_000;

/** A create whose body is ~1,000,000 bytes of JSON, refused (400) for its unknown field. */
function bigBody(n: number): string {
  const head = `{"amount":1000,"description":"big ${n}","pad":"`;
  return `${head}${'x'.repeat(BODY_BYTES - head.length - 2)}"}`;
}

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

it(`keeps ${CALLS} calls of ${BODY_BYTES.toLocaleString('en')} bytes in far less memory than their bodies`, async () => {
  const first = await server.api('/api/v1/payment-requests', { rawBody: bigBody(-1) });
  expect(first.status, first.text).toBe(400);
  const before = heapAfterGc();
  for (let n = 0; n < CALLS; n++) {
    const answer = await server.api('/api/v1/payment-requests', { rawBody: bigBody(n) });
    expect(answer.status).toBe(400);
  }
  const grown = heapAfterGc() - before;
  // What the journal shows: 8 KiB of each body and its short answer (~2 MB here). Whole bodies
  // would be CALLS × 1 MB; a tenth of that is the line (generous for a busy machine's heap).
  expect(grown, `heap grew by ${(grown / 1e6).toFixed(1)} MB`).toBeLessThan((CALLS * BODY_BYTES) / 10);
  // And the journal shows the calls, each body cut to 8 KiB.
  const listed = await server.api('/sandbox/v1/requests?limit=1');
  expect(listed.status).toBe(200);
  expect(listed.body.data[0].body).toHaveLength(8 * 1024);
}, 60_000);

it('counts the headers it keeps in its budget, whatever their size', () => {
  // The engine's journal with a budget of 1 Mi characters (~1 MB of these one-byte texts), fed
  // calls whose headers a client made 14,000 characters long: 1,000 of them would hold ~14 MB.
  const budgetChars = 1024 * 1024;
  const journal = new RequestJournal({ budgetChars });
  const before = heapAfterGc();
  for (let n = 0; n < 1_000; n++) {
    journal.record('acct_headers', {
      method: 'GET',
      url: `/api/v1/payment-requests/pr_${n}`,
      // Flat text of its own each (a repeat would share its parts).
      headers: { host: '127.0.0.1', 'x-pad': Buffer.alloc(14_000, `h${n}`).toString('latin1') },
      body: undefined,
      status: 404,
      responseBody: '{"error":{"code":"not_found"}}',
      fault: null,
      receivedAtMs: n,
      durationMs: 0,
    });
  }
  const grown = heapAfterGc() - before;
  expect(grown, `heap grew by ${(grown / 1e6).toFixed(1)} MB`).toBeLessThan(3 * budgetChars);
  // The newest calls are the ones kept, headers shown cut.
  const [newest] = journal.list('acct_headers', { limit: 1 });
  expect(newest).toMatchObject({ path: '/api/v1/payment-requests/pr_999', status: 404 });
  expect(newest!.headers['x-pad']).toHaveLength(512);
});
