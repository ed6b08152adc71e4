/**
 * BENCH_ONLY=replicas (issue 23, "Performance"), on the sources, on loopback, with a throwaway
 * PostgreSQL cluster of its own (test/support/postgres-cluster.ts):
 *
 * (a) One account's transitions per second: rounds of N creates then the N completes of those
 *     (`POST /sandbox/v1/payment-requests/{id}/complete`, the one settlement path), on one account,
 *     in memory and on PostgreSQL (one replica), alternating; each round's creates/s, completes/s
 *     and the server's CPU per create and per complete (from /proc).
 * (b) Replicas' CPU per request: GET and POST at a fixed rate (the same for every setup) through a round-robin proxy (bench/round-robin-proxy.ts,
 *     its own process, not counted) in front of 1 replica, and of 2 (a leader and a standby, which
 *     forwards to the leader), alternating rounds; the replica processes' CPU time (/proc) per 2xx
 *     answer. Then requests sent straight to a standby: the standby's CPU per forwarded request
 *     (the extra cost of a request reaching a replica that must forward it) and the leader's.
 * (c) Failover: a request made with a short expiresIn on a running clock, the leader SIGKILLed
 *     just before it falls due; the time from the kill to the arrival of its
 *     `payment_request.expired` webhook, sent by the new leader (and from falling due to arrival).
 *
 * Every round is printed, with the medians. The "other load" column is the machine's CPU taken by
 * processes other than the measured servers (PostgreSQL's included), in percent of both cores.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon, { type Request } from 'autocannon';
import { startPostgresCluster, type PostgresCluster } from '../test/support/postgres-cluster.js';
import { freshDatabase } from '../test/support/postgres-database.js';
import { median } from './load.js';
import { otherLoadPercent, processCpuMs, sampleCpu } from './machine-load.js';
import { REPO_ROOT } from './server-process.js';

const AUTH = 'Bearer sk_test_custodial';
const BODY = JSON.stringify({ amount: 1000, description: 'bench', destinationWallet: 'merchant@example.com' });
const COLLECTION = '/api/v1/payment-requests';
const CONNECTIONS = 16;
const ROUNDS = Math.round(Number(process.env.BENCH_ROUNDS ?? 5));
/** Creates (then completes) per round of (a). */
const TRANSITIONS = Number(process.env.BENCH_REPLICAS_TRANSITIONS ?? 2_000);
/** Seconds per round of (b). */
const SECONDS = Number(process.env.BENCH_REPLICAS_SECONDS ?? 3);
/** Fixed request rates of (b), the same for every setup, so each process batches alike (closed loops at saturation measure contention). */
const RATES = { GET: Number(process.env.BENCH_REPLICAS_GET_RATE ?? 1_500), POST: Number(process.env.BENCH_REPLICAS_POST_RATE ?? 300) };
const FAILOVERS = Math.round(Number(process.env.BENCH_FAILOVERS ?? 3));
/** expiresIn of the request that falls due across the kill, and how long before it is due the leader is killed. */
const EXPIRES_IN_SECONDS = 2;
const KILL_BEFORE_DUE_MS = 300;

/** A `lnpr serve` child process. */
interface Served {
  url: string;
  pid: number;
  child: ChildProcess;
  stdout(): string;
  exited: Promise<void>;
}

function serve(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--log-level', 'silent', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        child.stdout!.off('data', check);
        resolve({ url: match[1]!, pid: child.pid!, child, stdout: () => out, exited });
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => reject(new Error(`lnpr serve ${args.join(' ')} exited before listening: ${err}`)));
  });
}

function startProxy(upstreams: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/round-robin-proxy.ts', ...upstreams], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ url: match[1]!, child });
    });
    child.once('exit', (code) => reject(new Error(`the proxy exited ${code}`)));
  });
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const leads = (replica: Served) => replica.stdout().includes('leading the sandbox');

/** A load run's answers and the CPU of `pids` meanwhile. */
interface Measured {
  ok: number;
  other: number;
  seconds: number;
  cpuMs: Map<number, number>;
  other2xx: number;
}

async function measure(url: string, request: Request, pids: number[], limit: { amount: number } | { seconds: number }, rate?: number): Promise<Measured> {
  const before = sampleCpu(pids);
  const started = performance.now();
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    sampleInt: 100,
    requests: [request],
    ...('amount' in limit ? { amount: limit.amount } : { duration: limit.seconds }),
    ...(rate !== undefined ? { overallRate: rate } : {}),
  });
  const seconds = (performance.now() - started) / 1000;
  const after = sampleCpu(pids);
  for (const [code, count] of Object.entries(result.statusCodeStats)) if (!code.startsWith('2')) failureTally[code] = (failureTally[code] ?? 0) + count.count;
  if (result.errors + result.timeouts > 0) failureTally.errors = (failureTally.errors ?? 0) + result.errors + result.timeouts;
  const cpuMs = new Map(pids.map((pid) => [pid, processCpuMs(before, after, pid) ?? Number.NaN]));
  return { ok: result['2xx'], other: result.non2xx + result.errors + result.timeouts, seconds, cpuMs, other2xx: otherLoadPercent(before, after) ?? Number.NaN };
}

/** Non-2xx answers seen since the last `takeFailures()`, by status. */
let failureTally: Record<string, number> = {};
function takeFailures(): string {
  const text = Object.entries(failureTally).map(([code, count]) => `${count} × ${code}`).join(', ');
  failureTally = {};
  return text === '' ? '' : ` (not 2xx: ${text})`;
}

const sumOf = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);
const round = (value: number) => (Number.isFinite(value) ? Math.round(value) : '?');
const list = (values: number[]) => values.map((v) => round(v)).join(', ');

/** (a) One round: N creates on one account, then their N completes. */
async function transitionRound(target: Served): Promise<{ createsPerSec: number; completesPerSec: number; cpuPerCreate: number; cpuPerComplete: number; other: number; failed: number }> {
  const ids: string[] = [];
  const created = await measure(
    target.url,
    {
      method: 'POST',
      path: COLLECTION,
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      body: BODY,
      onResponse: (status, body) => {
        if (status === 201) ids.push((JSON.parse(body) as { id: string }).id);
      },
    },
    [target.pid],
    { amount: TRANSITIONS },
  );
  let next = 0;
  const completed = await measure(
    target.url,
    { method: 'POST', headers: { authorization: AUTH }, setupRequest: (request) => ({ ...request, path: `/sandbox/v1/payment-requests/${ids[next++ % ids.length]!}/complete` }) },
    [target.pid],
    { amount: ids.length },
  );
  return {
    createsPerSec: created.ok / created.seconds,
    completesPerSec: completed.ok / completed.seconds,
    cpuPerCreate: (created.cpuMs.get(target.pid)! * 1000) / created.ok,
    cpuPerComplete: (completed.cpuMs.get(target.pid)! * 1000) / completed.ok,
    other: (created.other2xx + completed.other2xx) / 2,
    failed: created.other + completed.other,
  };
}

async function benchTransitions(cluster: PostgresCluster, started: Served[]): Promise<void> {
  const memory = await serve([]);
  started.push(memory);
  const pg = await serve(['--database-url', await freshDatabase(cluster)]);
  started.push(pg);
  await until(() => leads(pg), 15_000, 'the PostgreSQL replica to lead');
  const targets: Array<[string, Served]> = [['memory', memory], ['PostgreSQL (1 replica)', pg]];
  // Warm-up: JIT and connections, not counted.
  for (const [, target] of targets) await transitionRound(target);
  takeFailures();
  const rounds = new Map(targets.map(([name]) => [name, [] as Awaited<ReturnType<typeof transitionRound>>[]]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, target] of r % 2 === 0 ? targets : [...targets].reverse()) rounds.get(name)!.push(await transitionRound(target));
  }
  console.log(`\n(a) One account's transitions: ${ROUNDS} rounds each (alternating) of ${TRANSITIONS} creates then their ${TRANSITIONS} completes, ${CONNECTIONS} connections, one account (custodial)`);
  console.log('| store | completes/s (median) | creates/s (median) | CPU µs per complete (median) | CPU µs per create (median) | rounds completes/s | rounds CPU µs per complete | other load % |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const [name] of targets) {
    const of = rounds.get(name)!;
    console.log(
      `| ${name} | ${round(median(of.map((o) => o.completesPerSec)))} | ${round(median(of.map((o) => o.createsPerSec)))} | ${round(median(of.map((o) => o.cpuPerComplete)))} | ` +
        `${round(median(of.map((o) => o.cpuPerCreate)))} | ${list(of.map((o) => o.completesPerSec))} | ${list(of.map((o) => o.cpuPerComplete))} | ${list(of.map((o) => o.other))} |`,
    );
  }
  const failures = takeFailures();
  if (failures !== '') console.log(`Answers that were not 2xx${failures.slice(1)}`);
  memory.child.kill('SIGTERM');
  pg.child.kill('SIGTERM');
  await Promise.all([memory.exited, pg.exited]);
}

/** (b) Replicas' CPU per request, 1 replica against 2, behind the proxy; then straight to a standby. */
async function benchReplicaCpu(cluster: PostgresCluster, started: Served[], proxies: ChildProcess[]): Promise<void> {
  const lone = await serve(['--database-url', await freshDatabase(cluster)]);
  started.push(lone);
  await until(() => leads(lone), 15_000, 'the lone replica to lead');
  const pairDb = await freshDatabase(cluster);
  const leader = await serve(['--database-url', pairDb]);
  started.push(leader);
  await until(() => leads(leader), 15_000, 'the leader to lead');
  const standby = await serve(['--database-url', pairDb]);
  started.push(standby);
  const one = await startProxy([lone.url]);
  const two = await startProxy([leader.url, standby.url]);
  const toStandby = await startProxy([standby.url]);
  proxies.push(one.child, two.child, toStandby.child);

  const idsOf = async (url: string) => {
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${url}${COLLECTION}`, { method: 'POST', headers: { authorization: AUTH, 'content-type': 'application/json' }, body: BODY });
      ids.push(((await res.json()) as { id: string }).id);
    }
    return ids;
  };
  const gets = (ids: string[]): Request => {
    let next = 0;
    return { method: 'GET', headers: { authorization: AUTH }, setupRequest: (request) => ({ ...request, path: `${COLLECTION}/${ids[next++ % ids.length]!}` }) };
  };
  const post: Request = { method: 'POST', path: COLLECTION, headers: { authorization: AUTH, 'content-type': 'application/json' }, body: BODY };
  const loneIds = await idsOf(lone.url);
  const pairIds = await idsOf(leader.url);
  const setups = {
    '1 replica': { url: one.url, pids: [lone.pid], ids: loneIds },
    '2 replicas': { url: two.url, pids: [leader.pid, standby.pid], ids: pairIds },
  };
  console.log(`\n(b) Replicas' CPU per request (their processes' CPU time from /proc per 2xx answer), behind a round-robin proxy (its own process, not counted); ${ROUNDS} alternating rounds of ${SECONDS} s, ${CONNECTIONS} connections at a fixed rate (GET ${RATES.GET}/s, POST ${RATES.POST}/s)`);
  console.log('| case | 1 replica: CPU µs/req (median) | 2 replicas: CPU µs/req (median) | ratio 2/1 | 2 replicas: leader + standby µs/req (medians) | rounds 1 replica | rounds 2 replicas | req/s 1 replica (median) | req/s 2 replicas (median) | other load % |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const [name, request] of [['GET', (ids: string[]) => gets(ids)], ['POST', () => post]] as const) {
    // Warm-up of both setups.
    for (const setup of Object.values(setups)) await measure(setup.url, request(setup.ids), setup.pids, { seconds: 3 }, RATES[name]);
    const cpu: Record<string, number[]> = { '1 replica': [], '2 replicas': [] };
    const rps: Record<string, number[]> = { '1 replica': [], '2 replicas': [] };
    takeFailures();
    const other: number[] = [];
    const split: number[][] = [[], []];
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (['1 replica', '2 replicas'] as const) : (['2 replicas', '1 replica'] as const);
      for (const key of order) {
        const setup = setups[key];
        const run = await measure(setup.url, request(setup.ids), setup.pids, { seconds: SECONDS }, RATES[name]);
        cpu[key]!.push((sumOf(run.cpuMs.values()) * 1000) / run.ok);
        if (key === '2 replicas') setup.pids.forEach((pid, i) => split[i]!.push((run.cpuMs.get(pid)! * 1000) / run.ok));
        rps[key]!.push(run.ok / run.seconds);
        other.push(run.other2xx);
      }
    }
    const a = median(cpu['1 replica']!);
    const b = median(cpu['2 replicas']!);
    console.log(
      `| ${name} | ${round(a)} | ${round(b)} | ${(b / a).toFixed(2)}× | ${round(median(split[0]!))} + ${round(median(split[1]!))} | ${list(cpu['1 replica']!)} | ${list(cpu['2 replicas']!)} | ${round(median(rps['1 replica']!))} | ${round(median(rps['2 replicas']!))} | ${list(other)} |` +
        takeFailures(),
    );
  }

  console.log(`\nRequests sent straight to the standby (each forwarded to the leader): ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections at the same rates`);
  console.log('| case | standby CPU µs per forwarded request (median) | leader CPU µs/req (median) | req/s (median) | rounds standby µs/req | rounds leader µs/req | other load % |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const [name, request, url] of [['GET', gets(pairIds), standby.url], ['POST', post, standby.url], ['GET, through the proxy', gets(pairIds), toStandby.url], ['POST, through the proxy', post, toStandby.url]] as const) {
    const rate = RATES[name.startsWith('GET') ? 'GET' : 'POST'];
    await measure(url, request, [standby.pid, leader.pid], { seconds: 2 }, rate);
    takeFailures();
    const standbyCpu: number[] = [];
    const leaderCpu: number[] = [];
    const rps: number[] = [];
    const other: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const run = await measure(url, request, [standby.pid, leader.pid], { seconds: SECONDS }, rate);
      standbyCpu.push((run.cpuMs.get(standby.pid)! * 1000) / run.ok);
      leaderCpu.push((run.cpuMs.get(leader.pid)! * 1000) / run.ok);
      rps.push(run.ok / run.seconds);
      other.push(run.other2xx);
    }
    console.log(
      `| ${name} | ${round(median(standbyCpu))} | ${round(median(leaderCpu))} | ${round(median(rps))} | ${list(standbyCpu)} | ${list(leaderCpu)} | ${list(other)} |` +
        takeFailures(),
    );
  }
  for (const replica of [lone, leader, standby]) replica.child.kill('SIGTERM');
  for (const proxy of [one, two, toStandby]) proxy.child.kill('SIGTERM');
  await Promise.all([lone.exited, leader.exited, standby.exited]);
}

/** A webhook receiver in the bench's process, noting when each expired event arrives. */
async function startExpiryReceiver(): Promise<{ url: string; server: Server; expiredAt: Map<string, number> }> {
  const expiredAt = new Map<string, number>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const now = Date.now();
      try {
        const event = JSON.parse(body) as { type?: string; data?: { id?: string } };
        if (event.type === 'payment_request.expired' && event.data?.id && !expiredAt.has(event.data.id)) expiredAt.set(event.data.id, now);
      } catch {
        // Not an event: ignored.
      }
      response.writeHead(200, { 'content-length': '0' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, server, expiredAt };
}

/** (c) Failover: SIGKILL of the leader just before a request falls due; time to its expired webhook from the new leader. */
async function benchFailover(cluster: PostgresCluster, started: Served[]): Promise<void> {
  const receiver = await startExpiryReceiver();
  const db = await freshDatabase(cluster);
  const flags = ['--database-url', db, '--webhook', receiver.url];
  try {
    let leader = await serve(flags);
    started.push(leader);
    await until(() => leads(leader), 15_000, 'the first leader');
    let standby = await serve(flags);
    started.push(standby);
    const rows: Array<{ killToExpired: number; dueToExpired: number; load: string }> = [];
    for (let r = 0; r < FAILOVERS; r++) {
      // Made through the standby, so the answer proves the leader has it durably.
      const res = await fetch(`${standby.url}${COLLECTION}`, {
        method: 'POST',
        headers: { authorization: AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 1000, description: 'failover', destinationWallet: 'merchant@example.com', expiresIn: EXPIRES_IN_SECONDS }),
      });
      if (res.status !== 201) throw new Error(`failover create answered ${res.status}: ${await res.text()}`);
      const made = (await res.json()) as { id: string; expiresAt: string };
      const dueMs = Date.parse(made.expiresAt);
      await sleep(Math.max(0, dueMs - KILL_BEFORE_DUE_MS - Date.now()));
      leader.child.kill('SIGKILL');
      const killedAt = Date.now();
      await until(() => receiver.expiredAt.has(made.id), 30_000, `the expired webhook of round ${r + 1}`);
      const arrived = receiver.expiredAt.get(made.id)!;
      await until(() => leads(standby), 5_000, 'the standby to report leading');
      const load = /took (\d+) ms to load/.exec(standby.stdout().split('leading the sandbox').at(-1)!)?.[1] ?? '?';
      rows.push({ killToExpired: arrived - killedAt, dueToExpired: arrived - dueMs, load });
      await leader.exited;
      // The killed replica comes back as a standby; the next round kills the new leader.
      const back = await serve(flags);
      started.push(back);
      leader = standby;
      standby = back;
      await sleep(500);
    }
    console.log(`\n(c) Failover: a request with expiresIn ${EXPIRES_IN_SECONDS} s (running clock) made through the standby, the leader SIGKILLed ${KILL_BEFORE_DUE_MS} ms before it falls due; ${FAILOVERS} rounds`);
    console.log('| round | SIGKILL → expired webhook from the new leader (ms) | due → expired webhook (ms) | new leader loaded the sandbox in (ms) |');
    console.log('| --- | --- | --- | --- |');
    rows.forEach((row, i) => console.log(`| ${i + 1} | ${row.killToExpired} | ${row.dueToExpired} | ${row.load} |`));
    console.log(`| median | ${round(median(rows.map((r) => r.killToExpired)))} | ${round(median(rows.map((r) => r.dueToExpired)))} | |`);
    for (const replica of [leader, standby]) replica.child.kill('SIGTERM');
    await Promise.all([leader.exited, standby.exited]);
  } finally {
    receiver.server.close();
    receiver.server.closeAllConnections();
  }
}

export async function benchReplicas(): Promise<void> {
  const cluster = await startPostgresCluster();
  const started: Served[] = [];
  const proxies: ChildProcess[] = [];
  try {
    const parts = process.env.BENCH_REPLICAS_PARTS ?? 'abc';
    if (parts.includes('a')) await benchTransitions(cluster, started);
    if (parts.includes('b')) await benchReplicaCpu(cluster, started, proxies);
    if (parts.includes('c')) await benchFailover(cluster, started);
  } finally {
    for (const child of [...started.map((s) => s.child), ...proxies]) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    cluster.destroy();
  }
}
