/**
 * The example deployment examples/shared-sandbox/ (start.sh: a throwaway PostgreSQL, three
 * `lnpr serve --database-url` replicas, nginx round-robin in front), used as a user would: every
 * request goes through the real load balancer. The conformance suite passes through it; webhooks
 * arrive once each (verified with `standardwebhooks`); a live stream sees changes; an NWC payment
 * through @getalby/sdk rides the relay behind nginx; a database outage gives only 503s and heals by
 * itself; a SIGKILL of the replica serving the account under load loses no acknowledged create.
 * Skipped, saying why, without nginx or PostgreSQL (never in CI: LNPR_REQUIRE_POSTGRES=1).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli-process.js';
import { freePort } from './support/free-port.js';
import { postgresAvailable } from './support/postgres-cluster.js';
import { query } from './support/postgres-database.js';
import { createBody, KEYS } from './support/sandbox-server.js';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { openStream, sleep, until } from './support/waiting.js';

(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
// Read once when the module loads: the global must be set before it is imported.
const { NWCClient } = await import('@getalby/sdk');

const EXAMPLE = fileURLToPath(new URL('../examples/shared-sandbox/', import.meta.url));

/** Whether this machine can run the example: PostgreSQL binaries and nginx. */
function exampleAvailable(): { ok: true } | { ok: false; why: string } {
  const postgres = postgresAvailable();
  if (!postgres.ok) return postgres;
  const nginx = existsSync('/usr/sbin/nginx') || spawnSync('sh', ['-c', 'command -v nginx']).status === 0;
  if (nginx) return { ok: true };
  if (process.env.LNPR_REQUIRE_POSTGRES === '1') throw new Error('LNPR_REQUIRE_POSTGRES=1 but no nginx (/usr/sbin/nginx or on PATH)');
  return { ok: false, why: 'no nginx (/usr/sbin/nginx or on PATH)' };
}
const available = exampleAvailable();
if (!available.ok) console.warn(`shared-sandbox example tests skipped: ${available.why}`);

interface Answer {
  status: number;
  body: any;
}

describe.skipIf(!available.ok)('examples/shared-sandbox: nginx in front of three replicas on PostgreSQL', () => {
  let runDir: string;
  let balancer: string;
  let script: ChildProcess;
  let scriptOutput = '';
  let scriptExited: Promise<unknown>;

  beforeAll(async () => {
    runDir = mkdtempSync(join(tmpdir(), 'lnpr-shared-sandbox-'));
    const port = await freePort();
    script = spawn('bash', [join(EXAMPLE, 'start.sh')], {
      env: { ...process.env, RUN_DIR: runDir, BALANCER_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    scriptExited = new Promise((resolve) => script.on('exit', resolve));
    script.stdout!.on('data', (chunk: Buffer) => (scriptOutput += chunk.toString()));
    script.stderr!.on('data', (chunk: Buffer) => (scriptOutput += chunk.toString()));
    await until(() => /^ready$/m.test(scriptOutput), 90_000, () => scriptOutput);
    balancer = /balancer: (http:\/\/\S+)/.exec(scriptOutput)![1]!;
    expect(balancer).toBe(`http://127.0.0.1:${port}`);
  }, 120_000);

  afterAll(async () => {
    if (script) {
      script.kill('SIGTERM');
      await Promise.race([scriptExited, sleep(30_000)]);
    }
    if (runDir) {
      // Whatever start.sh left (it should leave nothing running): the database goes too.
      // KEEP_RUN_DIR=<dir>: a copy of the run's logs (the replicas', nginx's, PostgreSQL's) for a failure to be read later.
      if (process.env.KEEP_RUN_DIR) spawnSync('cp', ['-r', runDir, process.env.KEEP_RUN_DIR]);
      spawnSync(join(EXAMPLE, 'pg.sh'), ['destroy', runDir]);
      rmSync(runDir, { recursive: true, force: true });
    }
  }, 60_000);

  /** A request through the balancer, bounded in time (a hang fails as status 0). */
  const call = async (path: string, options: { method?: string; body?: unknown; key?: string } = {}): Promise<Answer> => {
    const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
    try {
      const response = await fetch(`${balancer}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${options.key ?? KEYS.custodial}`,
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(40_000),
      });
      const text = await response.text();
      // nginx's own error pages are HTML: keep the status, the text as it is.
      return { status: response.status, body: /^\s*[{[]/.test(text) ? JSON.parse(text) : text };
    } catch {
      return { status: 0, body: undefined };
    }
  };
  /** What the replicas said about the lease (who led, who exited), for the report. */
  const replicaEvents = (): string =>
    [1, 2, 3]
      .map((n) => `replica ${n}: ` + readFileSync(join(runDir, `replica-${n}.log`), 'utf8').split('\n').filter((line) => /serving account|taken over|cannot reach|exited \(/.test(line)).map((line) => line.slice(0, 120)).join(' | '))
      .join('; ');
  const databaseUrl = (): string => `postgres://postgres@127.0.0.1:${readFileSync(join(runDir, 'postgres', 'port'), 'utf8').trim()}/postgres`;

  it('the conformance suite, profile full, every check run (its own accounts, an NWC payer), passes through the balancer', async () => {
    const file = join(runDir, 'conformance.json');
    // A funded test wallet (its relay: the balancer's) pays the invoices, so no check is skipped.
    const payer = await call('/sandbox/v1/wallets', { body: { balance: 100_000 } });
    expect(payer.status).toBe(201);
    const cli = runCli([
      'conformance', '--base-url', balancer, '--admin-key', 'sk_test_admin', '--payer-nwc-url', payer.body.nwcUrl,
      '--profile', 'full', '--reporter', 'json', '--output', file,
    ]);
    const code = await cli.exited;
    const report = JSON.parse(readFileSync(file, 'utf8'));
    const failed = report.checks.filter((check: { outcome: string }) => check.outcome === 'failed');
    const skipped = report.checks.filter((check: { outcome: string }) => check.outcome === 'skipped');
    expect([code, failed, skipped]).toEqual([0, [], []]);
    expect(report).toMatchObject({ passed: true, profile: 'full', baseUrl: balancer });
    console.info(`shared-sandbox: conformance through nginx: ${report.checks.length} checks, ${count(report.checks.map((check: { outcome: string }) => check.outcome))}`);
  }, 150_000);

  it('webhooks arrive once each and verify; a live stream sees changes; an NWC payment rides the relay behind nginx', async () => {
    const receiver: WebhookReceiver = await startReceiver();
    const account = await call('/sandbox/v1/accounts', { key: 'sk_test_admin', body: { mode: 'custodial', name: 'shared-sandbox test' } });
    expect(account.status).toBe(201);
    const key: string = account.body.keys.secret;
    try {
      const endpoint = await call('/sandbox/v1/webhook-endpoints', { key, body: { url: receiver.url } });
      expect(endpoint.status).toBe(201);
      receiver.secret = endpoint.body.secret;
      const stream = await openStream(`${balancer}/sandbox/v1/stream`, key);

      // Changes through the balancer, so they land on every replica in turn.
      const ids: string[] = [];
      for (let n = 0; n < 6; n += 1) {
        const created = await call('/api/v1/payment-requests', { key, body: createBody() });
        expect(created.status).toBe(201);
        ids.push(created.body.id);
      }
      for (const id of ids.slice(0, 3)) expect((await call(`/sandbox/v1/payment-requests/${id}/complete`, { key, method: 'POST' })).status).toBe(200);

      // An NWC payment: the test wallet's nwcUrl names the balancer's relay; @getalby/sdk pays through it.
      const wallet = await call('/sandbox/v1/wallets', { key, body: { balance: 10_000 } });
      expect(wallet.status).toBe(201);
      expect(new URL(wallet.body.nwcUrl.replace(/^nostr\+walletconnect:/, 'http:')).searchParams.get('relay')).toBe(`${balancer.replace(/^http/, 'ws')}/nostr`);
      const request = await call('/api/v1/payment-requests', { key, body: createBody({ amount: 2_100 }) });
      expect(request.status).toBe(201);
      ids.push(request.body.id);
      const client = new NWCClient({ nostrWalletConnectUrl: wallet.body.nwcUrl });
      try {
        const paid = await client.payInvoice({ invoice: request.body.invoice });
        expect(bytesToHex(sha256(hexToBytes(paid.preimage)))).toBe(request.body.paymentHash);
        expect((await call(`/api/v1/payment-requests/${request.body.id}`, { key })).body).toMatchObject({ status: 'completed', preimage: paid.preimage });
        expect((await client.getBalance()).balance).toBe((10_000 - 2_100) * 1000);
      } finally {
        client.close();
      }

      // 7 created + 4 completed, each delivered once (one replica sends), each verified.
      await receiver.waitFor(11, 15_000);
      await sleep(2_000);
      const kinds = receiver.received.map((delivery) => `${delivery.event.type} ${delivery.event.data.id}`).sort();
      const expected = [...ids.map((id) => `payment_request.created ${id}`), ...[...ids.slice(0, 3), request.body.id].map((id) => `payment_request.completed ${id}`)].sort();
      expect(kinds).toEqual(expected);
      expect(new Set(receiver.received.map((delivery) => delivery.headers['webhook-id'])).size).toBe(11);
      expect(receiver.received.every((delivery) => delivery.verified)).toBe(true);

      // The stream, opened through the balancer, saw every change.
      await until(() => ids.every((id) => stream.text().includes(id)), 5_000, () => stream.text().slice(-2_000));
      stream.close();
    } finally {
      await receiver.close();
      await call(`/sandbox/v1/accounts/${account.body.id}`, { key: 'sk_test_admin', method: 'DELETE' });
    }
  }, 60_000);

  it('the database stopped and started: only 503s meanwhile, then it serves again by itself within 15 s', async () => {
    expect((await call('/api/v1/payment-requests', { body: createBody() })).status).toBe(201);
    const statuses: number[] = [];
    let going = true;
    const poll = async () => {
      while (going) {
        const [created, health] = await Promise.all([call('/api/v1/payment-requests', { body: createBody() }), call('/healthz')]);
        statuses.push(created.status, health.status);
        await sleep(100);
      }
    };
    expect(spawnSync(join(EXAMPLE, 'pg.sh'), ['stop', runDir]).status).toBe(0);
    const pollers = [poll(), poll()];
    await until(() => statuses.includes(503), 30_000);
    await sleep(3_000);
    expect(spawnSync(join(EXAMPLE, 'pg.sh'), ['start', runDir]).status).toBe(0);
    const back = Date.now();
    let recovered = 0;
    while (Date.now() - back < 20_000) {
      const [created, health] = await Promise.all([call('/api/v1/payment-requests', { body: createBody() }), call('/healthz')]);
      statuses.push(created.status, health.status);
      if (created.status === 201 && health.status === 200) {
        recovered = Date.now() - back;
        break;
      }
      await sleep(100);
    }
    going = false;
    await Promise.all(pollers);
    console.info(`shared-sandbox: database outage: ${statuses.length} answers (${count(statuses)}), recovered ${recovered} ms after the database's return; ${replicaEvents()}`);
    expect(recovered).toBeGreaterThan(0);
    expect(recovered).toBeLessThan(15_000);
    expect(statuses.filter((status) => ![200, 201, 503].includes(status))).toEqual([]);
  }, 90_000);

  it('a SIGKILL of the replica serving an account, under a create load on it through the balancer, loses no acknowledged create', async () => {
    expect((await call('/api/v1/payment-requests', { body: createBody() })).status).toBe(201);
    const [owner] = await query<Array<{ url: string }>>(
      databaseUrl(),
      "SELECT r.url FROM lnpr_owners o JOIN lnpr_replicas r ON r.id = o.replica_id WHERE o.account_id = 'acct_custodial'",
    );
    const index = [1, 2, 3].find((n) => owner!.url === `http://127.0.0.1:${readFileSync(join(runDir, `replica-${n}.port`), 'utf8').trim()}`);
    expect(index).toBeDefined();
    const ownerPid = Number(readFileSync(join(runDir, `replica-${index}.pid`), 'utf8'));

    const results: Array<{ started: number; ended: number; status: number; id?: string }> = [];
    let going = true;
    const worker = async () => {
      while (going) {
        const started = Date.now();
        const answer = await call('/api/v1/payment-requests', { body: createBody() });
        results.push({ started, ended: Date.now(), status: answer.status, ...(answer.body?.id ? { id: answer.body.id } : {}) });
      }
    };
    const workers = [0, 1, 2, 3].map(worker);
    await sleep(1_000);
    process.kill(ownerPid, 'SIGKILL');
    const killedAt = Date.now();
    // Gone once its supervisor has reaped it: requests sent from then on found it dead.
    await until(() => !alive(ownerPid), 5_000);
    const diedAt = Date.now();
    await sleep(4_000);
    going = false;
    await Promise.all(workers);

    const before = results.filter((result) => result.ended < killedAt).length;
    const across = results.filter((result) => result.started <= diedAt && result.ended >= killedAt);
    const after = results.filter((result) => result.started > diedAt);
    const slowest = Math.max(...after.map((result) => result.ended - result.started));
    console.info(
      `shared-sandbox: SIGKILL of the account's replica under 4 clients: ${results.length} creates (${count(results.map((r) => r.status))}); ` +
        `${before} before, ${across.length} across the kill (${count(across.map((r) => r.status))}), ${after.length} after; slowest after the kill ${slowest} ms; ` +
        `died ${diedAt - killedAt} ms after the kill; refused (ms from the kill, start to end): ${results.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.started - killedAt}..${r.ended - killedAt}`).join(', ')}`,
    );
    // Every acknowledged create is there.
    const acknowledged = results.filter((result) => result.status === 201).map((result) => result.id!);
    expect(acknowledged.length).toBeGreaterThan(10);
    for (const id of acknowledged) expect([id, (await call(`/api/v1/payment-requests/${id}`)).status]).toEqual([id, 200]);
    // Requests sent after the kill waited for the takeover (or went to a live replica) and got their 201.
    expect(after.filter((result) => result.status !== 201)).toEqual([]);
    // Only the few in flight at the kill may fail: 502 from nginx (cut short in the dying replica) or
    // 503 from another (forwarded, cut short: maybe applied, so not re-sent).
    expect(results.filter((result) => ![201, 502, 503].includes(result.status))).toEqual([]);
    expect(results.filter((result) => result.status !== 201).length).toBeLessThanOrEqual(8);
  }, 60_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Statuses counted: "201×40, 503×2". */
function count(statuses: number[]): string {
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${status}×${n}`).join(', ');
}
