/**
 * The database away, as `lnpr serve --database-url` answers it: within 5 s `/healthz` is 503, a
 * create (and a read: another replica may lead by then) gets 503 `storage_unavailable` within 30 s
 * (never a 500, 502 or 504, never a hang), and
 * within 15 s of the database's return the process serves again by itself, with nothing
 * acknowledged lost. With two replicas, a database stopped 5 s and started again: the sandbox
 * answers through either replica within 8 s of its return (the old leader resumes, or exits 75 if
 * the other took the lead), and a replica given SIGTERM during an outage exits within 8 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliServer } from './support/cli-process.js';
import { postgresAvailable, startPostgresCluster, type PostgresCluster } from './support/postgres-cluster.js';
import { freshDatabase } from './support/postgres-database.js';
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

  it('two replicas: within 8 s of the database\'s return the sandbox answers through either replica, the other a standby or exited 75', { timeout: 90_000 }, async () => {
    const databaseUrl = await freshDatabase(cluster!);
    const first = await startCliServer(['--database-url', databaseUrl]);
    const second = await startCliServer(['--database-url', databaseUrl]);
    const replicas = [first, second];
    const exits: Array<number | string | undefined> = [undefined, undefined];
    replicas.forEach((replica, n) => void replica.exited.then((code) => (exits[n] = code)));
    try {
      await within(15_000, async () => (await create(first.url).catch(() => ({ status: 0 }))).status === 201);
      expect((await create(second.url)).status).toBe(201);

      // Long enough for postgres.js's own reconnect backoff to have grown past several seconds.
      cluster!.stop();
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      cluster!.start();
      const tookBack = await within(8_000, async () => {
        for (const [n, replica] of replicas.entries()) {
          if (exits[n] !== undefined) continue;
          const answer = await createWithin(replica.url, 2_000);
          if (answer === 201) return true;
        }
        return false;
      });
      // Whichever leads, the other forwards to it (a standby) or has exited 75 to start again as one.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const living = replicas.filter((_, n) => exits[n] === undefined);
      expect(living.length).toBeGreaterThan(0);
      for (const [n, code] of exits.entries()) if (code !== undefined) expect([n, code]).toEqual([n, 75]);
      for (const replica of living) expect(await createWithin(replica.url, 10_000)).toBe(201);
      console.log(`two replicas: answering ${tookBack} ms after the database's return; exits ${JSON.stringify(exits)}`);
    } finally {
      cluster!.start();
      for (const replica of replicas) replica.child.kill('SIGTERM');
      await Promise.all(replicas.map((replica) => replica.exited));
    }
  });

  it('SIGTERM during an outage: the leader and a standby exit within 8 s', { timeout: 60_000 }, async () => {
    const databaseUrl = await freshDatabase(cluster!);
    const leader = await startCliServer(['--database-url', databaseUrl]);
    await within(15_000, async () => (await create(leader.url).catch(() => ({ status: 0 }))).status === 201);
    const standby = await startCliServer(['--database-url', databaseUrl]);
    expect((await create(standby.url)).status).toBe(201);
    try {
      cluster!.stop();
      // Writes in flight as the database goes, and a suspended leader: neither may hold the exit up.
      void createWithin(leader.url, 20_000);
      await within(5_000, async () => (await health(leader.url)) === 503);
      void createWithin(leader.url, 20_000);
      const started = Date.now();
      leader.child.kill('SIGTERM');
      standby.child.kill('SIGTERM');
      const [leaderExit, standbyExit] = await Promise.all([leader.exited, standby.exited].map((exited) => exited.then(() => Date.now() - started)));
      console.log(`SIGTERM during an outage: the leader exited after ${leaderExit} ms, the standby after ${standbyExit} ms`);
      expect(leaderExit).toBeLessThan(8_000);
      expect(standbyExit).toBeLessThan(8_000);
    } finally {
      cluster!.start();
      leader.child.kill('SIGKILL');
      standby.child.kill('SIGKILL');
    }
  });
});

/** A create's status, or 0 if it is not answered within `ms`. */
async function createWithin(url: string, ms: number): Promise<number> {
  try {
    const res = await fetch(`${url}/api/v1/payment-requests`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.custodial}`, 'content-type': 'application/json' },
      body: JSON.stringify(createBody()),
      signal: AbortSignal.timeout(ms),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}
