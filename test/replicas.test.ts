/**
 * Replicas on PostgreSQL, through the real CLI (`lnpr serve --database-url` child processes on
 * loopback, a real throwaway PostgreSQL cluster): each account is served by the replica through
 * which it was first used, the others forward to it; reads, transitions, clocks and live streams
 * agree whichever replica a request reaches; a SIGKILL of an account's replica loses no
 * acknowledged create, requests meanwhile wait and are answered, and its due expiry (and webhook,
 * verified with `standardwebhooks`) is done by the replica that took the account over.
 * Skipped, saying why, where no PostgreSQL binaries exist (never in CI: LNPR_REQUIRE_POSTGRES=1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCliServer, type CliProcess } from './support/cli-process.js';
import { postgresAvailable, startPostgresCluster, type PostgresCluster } from './support/postgres-cluster.js';
import { freshDatabase } from './support/postgres-database.js';
import { api, createBody, KEYS } from './support/sandbox-server.js';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { openStream, sleep, until } from './support/waiting.js';

const SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const available = postgresAvailable();
if (!available.ok) console.warn(`replicas tests skipped: ${available.why}`);

type Replica = CliProcess & { url: string };

describe.skipIf(!available.ok)('replicas on PostgreSQL (lnpr serve --database-url)', () => {
  let cluster: PostgresCluster;
  let receiver: WebhookReceiver;
  const running: Replica[] = [];
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    receiver = await startReceiver();
    receiver.secret = SECRET;
  }, 120_000);
  afterAll(async () => {
    for (const replica of running.splice(0)) {
      replica.child.kill('SIGKILL');
      await replica.exited;
    }
    await receiver?.close();
    cluster?.destroy();
  }, 60_000);

  const replica = async (databaseUrl: string): Promise<Replica> => {
    const started = await startCliServer(['--database-url', databaseUrl, '--webhook', receiver.url, '--webhook-secret', SECRET]);
    running.push(started);
    await until(() => started.output().stdout.includes('serving as replica'), 15_000, () => started.output());
    return started;
  };
  const serves = (replica: Replica, accountId: string) => replica.output().stdout.includes(`serving account ${accountId}`);

  it('serves one sandbox through three replicas, and a SIGKILL of an account\'s replica loses nothing acknowledged', async () => {
    const databaseUrl = await freshDatabase(cluster);
    const [first, second, third] = await Promise.all([replica(databaseUrl), replica(databaseUrl), replica(databaseUrl)]);

    // Accounts are served where first used: acct_nwc through the third, acct_custodial through the second.
    const nwc = await api(third.url, '/api/v1/payment-requests', { key: KEYS.nwc, body: createBody() });
    expect(nwc.status).toBe(201);
    expect(serves(third, 'acct_nwc')).toBe(true);

    // Read-your-writes: made through one, read through the others.
    const created = await api(second.url, '/api/v1/payment-requests', { body: createBody() });
    expect(created.status).toBe(201);
    expect([first, second, third].map((replica) => serves(replica, 'acct_custodial'))).toEqual([false, true, false]);
    expect((await api(first.url, `/api/v1/payment-requests/${nwc.body.id}`, { key: KEYS.nwc })).status).toBe(200);
    for (const { url } of [first, third]) {
      const read = await api(url, `/api/v1/payment-requests/${created.body.id}`);
      expect([read.status, read.body.id]).toEqual([200, created.body.id]);
    }
    // A live stream through a replica that does not serve the account sees a change made through another.
    const stream = await openStream(`${third.url}/sandbox/v1/stream`, KEYS.custodial);

    // The replicas' shared token never reaches what a client can read (the request journal keeps headers).
    const journal = await api(third.url, '/sandbox/v1/requests?method=POST');
    expect(journal.status).toBe(200);
    expect(journal.body.data.length).toBeGreaterThan(0);
    for (const entry of journal.body.data) expect(Object.keys(entry.headers)).not.toContain('x-lnpr-replica');

    // One transition wins, wherever the second one lands.
    const completed = await api(first.url, `/sandbox/v1/payment-requests/${created.body.id}/complete`, { method: 'POST' });
    expect([completed.status, completed.body.status]).toEqual([200, 'completed']);
    await until(() => stream.text().includes('payment_request.completed') && stream.text().includes(created.body.id), 5_000, () => stream.text());
    const again = await api(third.url, `/sandbox/v1/payment-requests/${created.body.id}/fail`, { method: 'POST' });
    expect(again.status).toBe(409);

    // One clock per account: advanced through one replica, read through another.
    const before = Date.parse((await api(first.url, '/sandbox/v1/clock')).body.now);
    expect((await api(second.url, '/sandbox/v1/clock/advance', { body: { seconds: 3600 } })).status).toBe(200);
    const after = Date.parse((await api(third.url, '/sandbox/v1/clock')).body.now);
    expect(after - before).toBeGreaterThanOrEqual(3_600_000);
    stream.close();

    // A pending request whose expiry falls due after the kill: the replica taking the account over expires it.
    const expiring = await api(second.url, '/api/v1/payment-requests', { body: createBody({ expiresIn: 3 }) });
    expect(expiring.status).toBe(201);
    const dueAt = Date.now() + 3_000;

    // Creates at modest concurrency through the others, with the account's replica killed in the middle.
    const results: Array<{ started: number; ended: number; status: number; id?: string }> = [];
    let killedAt = Infinity;
    let going = true;
    const worker = async (index: number) => {
      for (let n = 0; going; n += 1) {
        const target = [first, third][(index + n) % 2]!;
        const started = Date.now();
        const answer = await api(target.url, '/api/v1/payment-requests', { body: createBody() }).catch(() => ({ status: 0, body: {} as { id?: string } }));
        results.push({ started, ended: Date.now(), status: answer.status, ...(answer.body?.id ? { id: answer.body.id } : {}) });
      }
    };
    const workers = [0, 1, 2, 3].map(worker);
    await sleep(500);
    second.child.kill('SIGKILL');
    killedAt = Date.now();
    await second.exited;
    // Requests sent from here on found the replica gone; those sent before may have been cut short in it.
    const diedAt = Date.now();
    await sleep(3_000);
    going = false;
    await Promise.all(workers);

    // Requests sent after the kill waited for the takeover and got their 201, within 10 s.
    const afterKill = results.filter((result) => result.started >= diedAt);
    expect(afterKill.length).toBeGreaterThan(0);
    expect(afterKill.filter((result) => result.status !== 201)).toEqual([]);
    expect(Math.max(...afterKill.map((result) => result.ended)) - killedAt).toBeLessThan(10_000 + 1_000);
    // None ever got a 5xx other than the 503 of one cut short at the killed replica (maybe applied):
    // the one each worker had in flight at the kill, and one it sent before the process was gone on a
    // connection the dying replica had closed (a forwarder cannot tell it was not applied).
    const refused = results.filter((result) => result.status === 503);
    console.info(`replicas: SIGKILL under 4 clients: ${results.length} creates, ${refused.length} answered 503 (ms from the kill, start to end: ${refused.map((r) => `${r.started - killedAt}..${r.ended - killedAt}`).join(', ')}); the process was gone ${diedAt - killedAt} ms after the kill`);
    expect(results.filter((result) => result.status >= 500 && result.status !== 503)).toEqual([]);
    expect(refused.filter((result) => result.started >= diedAt)).toEqual([]);
    expect(refused.length).toBeLessThanOrEqual(8);

    // Every acknowledged create is there, through either survivor.
    const acknowledged = results.filter((result) => result.status === 201).map((result) => result.id!);
    expect(acknowledged.length).toBeGreaterThan(10);
    expect([first, third].filter((candidate) => candidate.output().stdout.includes('serving account acct_custodial (taken over)')).length).toBe(1);
    for (const id of acknowledged) {
      const read = await api(third.url, `/api/v1/payment-requests/${id}`);
      expect([id, read.status]).toEqual([id, 200]);
    }

    // The expiry due after the kill: done by the replica that took the account over, its webhook delivered once, verified.
    await until(() => receiver.received.some((d) => d.event.type === 'payment_request.expired' && d.event.data.id === expiring.body.id), dueAt + 5_000 - Date.now() + 1_000);
    const expiredAt = Date.now();
    expect(expiredAt - dueAt).toBeLessThan(5_000 + 1_000);
    await sleep(1_000);
    const deliveries = receiver.received.filter((d) => d.event.type === 'payment_request.expired' && d.event.data.id === expiring.body.id);
    expect(deliveries.length).toBe(1);
    expect(deliveries[0]!.verified).toBe(true);
    expect((await api(first.url, `/api/v1/payment-requests/${expiring.body.id}`)).body.status).toBe('expired');
    // The account that was not on the killed replica stayed where it was.
    expect(first.output().stdout).not.toContain('serving account acct_nwc');
  }, 90_000);

  it('exits 2 when --host is a wildcard and no --advertise-url says how to reach it', async () => {
    const cli = runCli(['serve', '--database-url', cluster.url, '--host', '0.0.0.0', '--port', '0']);
    expect(await cli.exited).toBe(2);
    expect(cli.output().stderr).toContain('--advertise-url');
  }, 20_000);
});
