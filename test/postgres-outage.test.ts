/**
 * The database away, as `lnpr serve --database-url` answers it: within 5 s `/healthz` is 503, a
 * create (and a read: another replica may lead by then) gets 503 `storage_unavailable` within 30 s
 * (never a 500, 502 or 504, never a hang), and
 * within 15 s of the database's return the process serves again by itself, with nothing
 * acknowledged lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliServer } from './support/cli-process.js';
import { postgresAvailable, startPostgresCluster, type PostgresCluster } from './support/postgres-cluster.js';
import { createBody, KEYS } from './support/sandbox-server.js';

const available = postgresAvailable();
if (!available.ok) console.warn(`PostgreSQL suites skipped: ${available.why} (LNPR_REQUIRE_POSTGRES=1 makes this a failure)`);

let cluster: PostgresCluster | undefined;
beforeAll(async () => {
  if (available.ok) cluster = await startPostgresCluster();
}, 120_000);
afterAll(() => cluster?.destroy());

const create = async (url: string) => {
  const res = await fetch(`${url}/api/v1/payment-requests`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.custodial}`, 'content-type': 'application/json' },
    body: JSON.stringify(createBody()),
    signal: AbortSignal.timeout(35_000),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const health = async (url: string) => (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) })).status;

/** Polls until `check` holds; resolves with the ms it took, or rejects after `withinMs`. */
async function within(withinMs: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < withinMs) {
    if (await check()) return Date.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not within ${withinMs} ms`);
}

describe.skipIf(!available.ok)('the database away', () => {
  it('healthz 503 within 5 s, creates 503 storage_unavailable within 30 s, serving again within 15 s of its return', { timeout: 110_000 }, async () => {
    const cli = await startCliServer(['--database-url', cluster!.url]);
    try {
      const kept = await create(cli.url);
      expect(kept.status).toBe(201);
      expect(await health(cli.url)).toBe(200);

      cluster!.stop();
      const tookHealth = await within(5_000, async () => (await health(cli.url)) === 503);
      const started = Date.now();
      const refused = await create(cli.url);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('storage_unavailable');
      // Reads too: a replica that cannot reach the database cannot tell whether another one leads now.
      const read = await fetch(`${cli.url}/api/v1/payment-requests/${kept.body.id}`, { headers: { authorization: `Bearer ${KEYS.custodial}` } });
      expect(read.status).toBe(503);
      expect(((await read.json()) as any).error.code).toBe('storage_unavailable');

      cluster!.start();
      const tookBack = await within(15_000, async () => (await health(cli.url)) === 200);
      const again = await create(cli.url);
      expect(again.status).toBe(201);
      // Nothing acknowledged was lost, and the same process serves it.
      const before = await fetch(`${cli.url}/api/v1/payment-requests/${kept.body.id}`, { headers: { authorization: `Bearer ${KEYS.custodial}` } });
      expect(before.status).toBe(200);
      console.log(`healthz 503 after ${tookHealth} ms; serving again ${tookBack} ms after the database's return`);
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  });

  it('a create made in the first moments of the outage is answered 503, not 500 (the write itself finds the database gone)', { timeout: 60_000 }, async () => {
    const cli = await startCliServer(['--database-url', cluster!.url]);
    try {
      expect((await create(cli.url)).status).toBe(201);
      cluster!.stop();
      const first = await create(cli.url);
      expect(first.status).toBe(503);
      expect(first.body.error.code).toBe('storage_unavailable');
      cluster!.start();
      await within(15_000, async () => (await health(cli.url)) === 200);
      expect((await create(cli.url)).status).toBe(201);
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  });
});
