/**
 * A database that hangs rather than refuses: `lnpr serve --database-url` reaching PostgreSQL through
 * a loopback TCP proxy (test/support/tcp-proxy.ts) switched to a black hole, which accepts and
 * never answers, as a network partition or a frozen database host does. A stopped local server
 * (postgres-outage.test.ts) refuses at once, so it cannot show a wait with no bound. The contract's
 * "database away" holds here too: `/healthz` 503 within 5 s, a write 503 `storage_unavailable`
 * within 30 s (never a 500, 502 or 504, never a hang), SIGTERM ends a leader and a standby within
 * seconds, and once the network passes again the replica serves by itself within 15 s.
 * Skipped, saying why, where no PostgreSQL binaries exist (never in CI: LNPR_REQUIRE_POSTGRES=1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliServer, type CliProcess } from './support/cli-process.js';
import { postgresAvailable, startPostgresCluster, type PostgresCluster } from './support/postgres-cluster.js';
import { freshDatabase } from './support/postgres-database.js';
import { createBody, KEYS } from './support/sandbox-server.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { sleep, until } from './support/waiting.js';

const available = postgresAvailable();
if (!available.ok) console.warn(`PostgreSQL suites skipped: ${available.why} (LNPR_REQUIRE_POSTGRES=1 makes this a failure)`);

/** An answer, or status 0 with the time it was given up on (a hang). */
interface Timed {
  status: number;
  id?: string;
  code?: string;
  ms: number;
}

/** A create with a key, bounded by `ms` (status 0 past it). */
async function createWithin(url: string, ms: number): Promise<Timed> {
  const started = Date.now();
  try {
    const res = await fetch(`${url}/api/v1/payment-requests`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.custodial}`, 'content-type': 'application/json' },
      body: JSON.stringify(createBody()),
      signal: AbortSignal.timeout(ms),
    });
    const body = (await res.json().catch(() => ({}))) as { id?: string; error?: { code?: string } };
    return { status: res.status, ...(body.id ? { id: body.id } : {}), ...(body.error?.code ? { code: body.error.code } : {}), ms: Date.now() - started };
  } catch {
    return { status: 0, ms: Date.now() - started };
  }
}

/** `/healthz`'s status, or 0 if it is not answered within `ms`. */
async function healthWithin(url: string, ms: number): Promise<number> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(ms) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** Polls `check` every 100 ms; resolves with the ms from `since` it first held, or rejects after `withinMs`. */
async function firstTime(since: number, withinMs: number, check: () => Promise<boolean>): Promise<number> {
  while (Date.now() - since < withinMs) {
    if (await check()) return Date.now() - since;
    await sleep(100);
  }
  throw new Error(`not within ${withinMs} ms`);
}

describe.skipIf(!available.ok)('the database hangs (a black hole between a replica and PostgreSQL)', () => {
  let cluster: PostgresCluster;
  const proxies: TcpProxy[] = [];
  const running: CliProcess[] = [];
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(async () => {
    for (const cli of running.splice(0)) {
      cli.child.kill('SIGKILL');
      await cli.exited;
    }
    for (const proxy of proxies.splice(0)) await proxy.close();
    cluster?.destroy();
  }, 60_000);

  /** A fresh database, reached through a new proxy; its URL through the proxy. */
  const proxiedDatabase = async (): Promise<{ proxy: TcpProxy; url: string }> => {
    const direct = await freshDatabase(cluster);
    const proxy = await startTcpProxy(cluster.port);
    proxies.push(proxy);
    return { proxy, url: direct.replace(`:${cluster.port}/`, `:${proxy.port}/`) };
  };
  const replica = async (databaseUrl: string): Promise<CliProcess & { url: string }> => {
    const cli = await startCliServer(['--database-url', databaseUrl]);
    running.push(cli);
    return cli;
  };

  it('healthz 503 within 5 s, writes 503 storage_unavailable within 30 s (in flight and new), serving again within 15 s of the network passing', { timeout: 120_000 }, async () => {
    const { proxy, url } = await proxiedDatabase();
    const cli = await replica(url);
    await until(() => cli.output().stdout.includes('leading the sandbox'), 15_000, () => cli.output());
    const kept = await createWithin(cli.url, 10_000);
    expect(kept.status).toBe(201);
    expect(await healthWithin(cli.url, 5_000)).toBe(200);

    proxy.mode = 'black-hole';
    const holeAt = Date.now();
    // A write sent as the network goes: it must be answered, never left hanging.
    const inFlight = createWithin(cli.url, 35_000);
    const healthStatuses: number[] = [];
    const healthAfter = await firstTime(holeAt, 15_000, async () => {
      healthStatuses.push(await healthWithin(cli.url, 5_000));
      return healthStatuses.at(-1) === 503;
    });
    const refused = await createWithin(cli.url, 35_000);
    const first = await inFlight;
    console.log(
      `black hole: healthz 503 after ${healthAfter} ms; the write in flight got ${first.status} ${first.code ?? ''} after ${first.ms} ms; ` +
        `a write once suspended got ${refused.status} ${refused.code ?? ''} after ${refused.ms} ms; ${proxy.accepted()} connections accepted by the proxy`,
    );
    expect(healthAfter).toBeLessThan(5_000 + 1_000);
    // Until it says 503, /healthz answers 200 promptly: never another 5xx, never a hang (0).
    expect(healthStatuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    for (const answer of [first, refused]) {
      expect(answer.ms).toBeLessThan(30_000);
      expect([answer.status, answer.code]).toEqual([503, 'storage_unavailable']);
    }

    // Still black-holed a while later: still 503, still prompt.
    await sleep(3_000);
    const later = await createWithin(cli.url, 35_000);
    expect([later.status, later.code]).toEqual([503, 'storage_unavailable']);
    expect(later.ms).toBeLessThan(30_000);

    proxy.mode = 'pass';
    const healedAt = Date.now();
    const back = await firstTime(healedAt, 15_000, async () => (await healthWithin(cli.url, 2_000)) === 200);
    const again = await createWithin(cli.url, 10_000);
    console.log(`black hole: serving again ${back} ms after the network passed; a create then: ${again.status} in ${again.ms} ms`);
    expect(again.status).toBe(201);
    // Nothing acknowledged was lost.
    const read = await fetch(`${cli.url}/api/v1/payment-requests/${kept.id}`, { headers: { authorization: `Bearer ${KEYS.custodial}` }, signal: AbortSignal.timeout(10_000) });
    expect(read.status).toBe(200);
  });

  // FAILS TODAY (a real bug, reported, not fixed here: src/ is being reworked). The standby's forward
  // to the dead leader is refused, so it forgets the leader's URL and reads `lnpr_leader` again
  // (leader-directory.ts `find`), and that read has no time bound: the forwarder's 10 s wait is
  // checked only between reads, so the request (and `/healthz`) hangs as long as the database does.
  it.fails('a standby whose leader dies while the database hangs: 503 within 30 s (healthz within 5 s), then it takes over within 15 s of the network passing', { timeout: 120_000 }, async () => {
    const { proxy, url } = await proxiedDatabase();
    const leader = await replica(url);
    await until(() => leader.output().stdout.includes('leading the sandbox'), 15_000, () => leader.output());
    const standby = await replica(url);
    // The standby has forwarded to the leader: it knows where the leader is.
    const kept = await createWithin(standby.url, 10_000);
    expect(kept.status).toBe(201);

    proxy.mode = 'black-hole';
    const holeAt = Date.now();
    const healthAfter = await firstTime(holeAt, 15_000, async () => (await healthWithin(standby.url, 5_000)) === 503);
    leader.child.kill('SIGKILL');
    await leader.exited;
    // The standby's forward fails: it must look for a leader in a database that does not answer.
    const [refused, health] = await Promise.all([createWithin(standby.url, 35_000), (async () => {
      const started = Date.now();
      return { status: await healthWithin(standby.url, 10_000), ms: Date.now() - started };
    })()]);

    // Measured first, asserted last: what the network's return does is worth knowing either way.
    proxy.mode = 'pass';
    const healedAt = Date.now();
    const back = await firstTime(healedAt, 15_000, async () => (await createWithin(standby.url, 3_000)).status === 201).catch(() => undefined);
    console.log(
      `black hole, leader killed: the standby's healthz 503 after ${healthAfter} ms of the hole; after the kill a write got ${refused.status} ${refused.code ?? ''} ` +
        `in ${refused.ms} ms, healthz ${health.status} in ${health.ms} ms; the standby serves ${back ?? 'not within 15 000'} ms after the network passed ` +
        `(${standby.output().stdout.includes('leading the sandbox') ? 'it leads now' : 'it does not lead'})`,
    );
    expect(healthAfter).toBeLessThan(5_000 + 1_000);
    expect([refused.status, refused.code]).toEqual([503, 'storage_unavailable']);
    expect(refused.ms).toBeLessThan(30_000);
    expect([health.status, health.ms < 5_000 + 1_000]).toEqual([503, true]);
    expect(back).toBeDefined();
    const read = await fetch(`${standby.url}/api/v1/payment-requests/${kept.id}`, { headers: { authorization: `Bearer ${KEYS.custodial}` }, signal: AbortSignal.timeout(10_000) });
    expect(read.status).toBe(200);
  });

  // FAILS TODAY (a real bug, reported, not fixed here: src/ is being reworked). Both replicas finish
  // their shutdown within ~3 s, but the process does not exit: postgres.js ends each connection
  // with `socket.end()` (a FIN after Terminate), and a peer that never answers never closes its
  // side, so the half-closed sockets keep Node's event loop alive (seen with
  // process._getActiveHandles(): only PostgreSQL sockets, readOnly). They exit at once when the
  // network passes again; against a real black hole that is when TCP gives up (minutes). A stopped
  // local server closes those sockets at once, which is why postgres-outage.test.ts passes.
  it.fails('SIGTERM while the database hangs: the leader and a standby exit within a few seconds', { timeout: 90_000 }, async () => {
    const { proxy, url } = await proxiedDatabase();
    const leader = await replica(url);
    await until(() => leader.output().stdout.includes('leading the sandbox'), 15_000, () => leader.output());
    expect((await createWithin(leader.url, 10_000)).status).toBe(201);
    const standby = await replica(url);
    expect((await createWithin(standby.url, 10_000)).status).toBe(201);

    proxy.mode = 'black-hole';
    // Writes in flight as the network goes, through the leader and the standby: neither may hold the exit up.
    const pending = [createWithin(leader.url, 20_000), createWithin(standby.url, 20_000)];
    await sleep(1_000);
    const started = Date.now();
    leader.child.kill('SIGTERM');
    standby.child.kill('SIGTERM');
    const bound = (exited: Promise<number | string>) => Promise.race([exited.then((code) => ({ code, ms: Date.now() - started })), sleep(20_000).then(() => ({ code: 'still running after 20 s', ms: 20_000 }))]);
    const [leaderExit, standbyExit] = await Promise.all([bound(leader.exited), bound(standby.exited)]);
    const answers = await Promise.all(pending);
    console.log(
      `SIGTERM while the database hangs: the leader exited (${leaderExit.code}) after ${leaderExit.ms} ms, the standby (${standbyExit.code}) after ${standbyExit.ms} ms; ` +
        `writes in flight got ${answers.map((answer) => `${answer.status} ${answer.code ?? ''} after ${answer.ms} ms`).join(', ')}`,
    );
    if (leaderExit.ms >= 8_000 || standbyExit.ms >= 8_000) for (const [name, cli] of [['leader', leader], ['standby', standby]] as const) console.log(`${name}'s output:\n${JSON.stringify(cli.output(), null, 1)}`);
    // A write cut short by the exit may lose its connection (status 0); none got a 500, 502 or 504.
    expect(answers.filter((answer) => answer.status !== 0 && answer.status !== 503)).toEqual([]);
    expect(leaderExit.ms).toBeLessThan(8_000);
    expect(standbyExit.ms).toBeLessThan(8_000);
  });
});
