/**
 * BENCH_ONLY=replicas (issue 23, "Performance"), on the sources, on loopback, with a throwaway
 * PostgreSQL cluster of its own (test/support/postgres-cluster.ts). Each account is served by one
 * replica, its owner (the one through which it was first used); a request reaching another replica
 * is forwarded to the owner.
 *
 * (a) One account's transitions per second: rounds of N creates then the N completes of those
 *     (`POST /sandbox/v1/payment-requests/{id}/complete`, the one settlement path), on one account,
 *     in memory and on PostgreSQL (one replica), alternating; each round's creates/s, completes/s
 *     and the server's CPU per create and per complete (from /proc).
 * (b) Replicas' CPU per request: GET, GET status and POST at fixed rates (the same for every
 *     setup), each request for one of several accounts made through the accounts API (picked at
 *     random), through a balancer in its own process (not counted): 1 replica serving all the
 *     accounts (a key-hashing proxy in front of it); 2 replicas, each owning half the accounts,
 *     behind a key-hashing proxy (bench/key-hash-proxy.ts: every request reaches its account's
 *     owner, as each account was first used through it); the same 2 behind a round-robin proxy
 *     (half the requests forwarded); and, as a control, the lone replica at half the rate (what
 *     each of the 2 replicas by key gets: does a process's CPU per request grow as its rate
 *     falls?) and 2 lone replicas of 2 databases behind the key-hashing proxy (what 2 busy
 *     processes cost on this machine, with nothing shared).
 *     Alternating rounds; the replica processes' CPU time (/proc) per 2xx answer. Then requests
 *     for one replica's accounts only, sent to it or to the other replica only, alternating: the
 *     owner's CPU per request either way and the forwarding replica's (the extra cost of a
 *     request reaching a replica that must forward it).
 * (c) Failover: a request made with a short expiresIn on a running clock through its account's
 *     owner, that owner SIGKILLed just before it falls due; the time from the kill to the arrival
 *     of its `payment_request.expired` webhook, sent by the replica that took the account over
 *     (and from falling due to arrival).
 *
 * Every round is printed, with the medians. The "other load" column is the machine's CPU taken by
 * processes other than the measured servers (PostgreSQL's and the proxy's included), in percent of
 * both cores. BENCH_CPU_PROF=DIR profiles every replica of (b) (V8 CPU profiles written on
 * SIGTERM) and prints each setup's CPU per request by stage, per replica (bench/profile-summary.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import autocannon, { type Request } from 'autocannon';
import { startPostgresCluster, type PostgresCluster } from '../test/support/postgres-cluster.js';
import { freshDatabase } from '../test/support/postgres-database.js';
import { upstreamIndexOf } from './key-hash.js';
import { median } from './load.js';
import { otherLoadPercent, processCpuMs, sampleCpu } from './machine-load.js';
import { profileTable, summarizeProfiles, WINDOWS_FILE, type ProfileWindow } from './profile-summary.js';
import { REPO_ROOT } from './server-process.js';

const AUTH = 'Bearer sk_test_custodial';
const ADMIN = 'Bearer sk_test_admin';
const BODY = JSON.stringify({ amount: 1000, description: 'bench', destinationWallet: 'merchant@example.com' });
const COLLECTION = '/api/v1/payment-requests';
const CONNECTIONS = 16;
const ROUNDS = Math.round(Number(process.env.BENCH_ROUNDS ?? 5));
/** Creates (then completes) per round of (a). */
const TRANSITIONS = Number(process.env.BENCH_REPLICAS_TRANSITIONS ?? 2_000);
/** Seconds per round of (b): CPU time is counted in 10 ms ticks, so a round must hold a few hundred ms of it. */
const SECONDS = Number(process.env.BENCH_REPLICAS_SECONDS ?? 4);
/** Fixed request rates of (b), the same for every setup, so each process batches alike (closed loops at saturation measure contention). */
const RATES = { GET: Number(process.env.BENCH_REPLICAS_GET_RATE ?? 1_500), POST: Number(process.env.BENCH_REPLICAS_POST_RATE ?? 300) };
/** Accounts of (b) each of the 2 replicas owns (the lone replica serves twice as many). */
const ACCOUNTS_PER_REPLICA = 3;
/** Payment requests made on each account of (b) before the rounds, for its GETs to read. */
const SEEDED = 100;
/** Seconds the replicas of (b) are watched idle. */
const IDLE_SECONDS = 5;
const FAILOVERS = Math.round(Number(process.env.BENCH_FAILOVERS ?? 3));
/** expiresIn of the request that falls due across the kill, and how long before it is due its owner is killed. */
const EXPIRES_IN_SECONDS = 2;
const KILL_BEFORE_DUE_MS = 300;
const profileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
const windows: ProfileWindow[] = [];

/** A `lnpr serve` child process. */
interface Served {
  url: string;
  pid: number;
  child: ChildProcess;
  stdout(): string;
  exited: Promise<void>;
}

function serve(args: string[], nodeFlags: string[] = []): Promise<Served> {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--log-level', 'silent', ...args], {
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

/** A replica of `databaseUrl`, once it serves. */
async function replica(databaseUrl: string, flags: string[] = [], nodeFlags: string[] = []): Promise<Served> {
  const started = await serve(['--database-url', databaseUrl, ...flags], nodeFlags);
  await until(() => started.stdout().includes('lnpr replica: serving as replica'), 15_000, 'a replica to serve');
  return started;
}

/** Whether `replica` serves (or served) `accountId`: it says so when it adopts the account. */
const serves = (replica: Served, accountId: string) => replica.stdout().includes(`lnpr replica: serving account ${accountId}`);
/** How many times `replica` took `accountId` over from a replica that went away. */
const takeovers = (replica: Served, accountId: string) => replica.stdout().split(`lnpr replica: serving account ${accountId} (taken over)`).length - 1;

/** A balancer (`bench/SCRIPT`) in its own process in front of `upstreams`. */
function startProxy(script: 'round-robin-proxy.ts' | 'key-hash-proxy.ts', upstreams: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', `bench/${script}`, ...upstreams], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ url: match[1]!, child });
    });
    child.once('exit', (code) => reject(new Error(`the proxy ${script} exited ${code}`)));
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

/** A load run's answers and the CPU of `pids` meanwhile. */
interface Measured {
  ok: number;
  other: number;
  seconds: number;
  cpuMs: Map<number, number>;
  other2xx: number;
}

/** Runs the load; with BENCH_CPU_PROF, `window` names the run in each of `pids`' profiles. */
async function measure(url: string, request: Request, pids: number[], limit: { amount: number } | { seconds: number }, rate?: number, window?: (pid: number) => string): Promise<Measured> {
  const before = sampleCpu(pids);
  const started = performance.now();
  const startUs = monotonicUs();
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    sampleInt: 100,
    requests: [request],
    ...('amount' in limit ? { amount: limit.amount } : { duration: limit.seconds }),
    ...(rate !== undefined ? { overallRate: rate } : {}),
  });
  const endUs = monotonicUs();
  const seconds = (performance.now() - started) / 1000;
  const after = sampleCpu(pids);
  for (const [code, count] of Object.entries(result.statusCodeStats)) if (!code.startsWith('2')) failureTally[code] = (failureTally[code] ?? 0) + count.count;
  if (result.errors + result.timeouts > 0) failureTally.errors = (failureTally.errors ?? 0) + result.errors + result.timeouts;
  if (profileDir !== undefined && window !== undefined) for (const pid of pids) windows.push({ case: window(pid), pid, startUs, endUs, requests: result['2xx'] });
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
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

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
  const pg = await replica(await freshDatabase(cluster));
  started.push(pg);
  const targets: Array<[string, Served]> = [['memory', memory], ['PostgreSQL (1 replica)', pg]];
  // Warm-up: JIT and connections, not counted (and the replica adopts the account).
  for (const [, target] of targets) await transitionRound(target);
  takeFailures();
  const rounds = new Map(targets.map(([name]) => [name, [] as Awaited<ReturnType<typeof transitionRound>>[]]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, target] of r % 2 === 0 ? targets : [...targets].reverse()) rounds.get(name)!.push(await transitionRound(target));
  }
  console.log(`\n(a) One account's transitions: ${ROUNDS} rounds each (alternating) of ${TRANSITIONS} creates then their ${TRANSITIONS} completes, ${CONNECTIONS} connections, one account (custodial)`);
  console.log('| store | completes/s (median) | creates/s (median) | CPU µs per complete (median) | CPU µs per create (median) | rounds completes/s | rounds CPU µs per complete | rounds creates/s | other load % |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const [name] of targets) {
    const of = rounds.get(name)!;
    console.log(
      `| ${name} | ${round(median(of.map((o) => o.completesPerSec)))} | ${round(median(of.map((o) => o.createsPerSec)))} | ${round(median(of.map((o) => o.cpuPerComplete)))} | ` +
        `${round(median(of.map((o) => o.cpuPerCreate)))} | ${list(of.map((o) => o.completesPerSec))} | ${list(of.map((o) => o.cpuPerComplete))} | ${list(of.map((o) => o.createsPerSec))} | ${list(of.map((o) => o.other))} |`,
    );
  }
  const failures = takeFailures();
  if (failures !== '') console.log(`Answers that were not 2xx${failures.slice(1)}`);
  memory.child.kill('SIGTERM');
  pg.child.kill('SIGTERM');
  await Promise.all([memory.exited, pg.exited]);
}

/** An account made through the accounts API, its secret key and payment requests made on it. */
interface Account {
  id: string;
  authorization: string;
  ids: string[];
}

async function call(url: string, method: 'GET' | 'POST' | 'DELETE', path: string, authorization: string, body?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** A custodial account made through `url`, which owns it (a replica owns the accounts made through it). */
async function makeAccount(url: string, name: string): Promise<Account> {
  const made = await call(url, 'POST', '/sandbox/v1/accounts', ADMIN, JSON.stringify({ mode: 'custodial', name }));
  if (made.status !== 201) throw new Error(`making an account answered ${made.status}: ${JSON.stringify(made.body)}`);
  return { id: made.body.id as string, authorization: `Bearer ${(made.body.keys as { secret: string }).secret}`, ids: [] };
}

/** `count` payment requests on `account` through `url` (its owner), for GETs to read. */
async function seed(url: string, account: Account, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const made = await call(url, 'POST', COLLECTION, account.authorization, BODY);
    if (made.status !== 201) throw new Error(`a create on ${account.id} answered ${made.status}: ${JSON.stringify(made.body)}`);
    account.ids.push(made.body.id as string);
  }
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
/** GETs of a random payment request of a random account (random: a cycle could fall in step with a round-robin balancer). */
function gets(accounts: readonly Account[], suffix: '' | '/status'): Request {
  return {
    method: 'GET',
    setupRequest: (request) => {
      const account = pick(accounts);
      return { ...request, path: `${COLLECTION}/${pick(account.ids)}${suffix}`, headers: { authorization: account.authorization } };
    },
  };
}
/** Creates on a random account. */
function posts(accounts: readonly Account[]): Request {
  return {
    method: 'POST',
    path: COLLECTION,
    body: BODY,
    setupRequest: (request) => ({ ...request, headers: { authorization: pick(accounts).authorization, 'content-type': 'application/json' } }),
  };
}
const CASES = [
  ['GET', (accounts: readonly Account[]) => gets(accounts, ''), RATES.GET],
  ['GET status', (accounts: readonly Account[]) => gets(accounts, '/status'), RATES.GET],
  ['POST', (accounts: readonly Account[]) => posts(accounts), RATES.POST],
] as const;

/**
 * `ACCOUNTS_PER_REPLICA` accounts on each of `servers`, with SEEDED payment requests each: an
 * account is owned by the replica that made it, so each is made on the one its key hashes to (one
 * whose key hashes to another is deleted again).
 */
async function accountsByKey(servers: Served[], label: string): Promise<Map<Served, Account[]>> {
  const owned = new Map<Served, Account[]>(servers.map((server) => [server, []]));
  for (const [index, owner] of servers.entries()) {
    for (let n = 0; owned.get(owner)!.length < ACCOUNTS_PER_REPLICA; n++) {
      if (n >= 20 * ACCOUNTS_PER_REPLICA) throw new Error(`after ${n} accounts made on ${label} replica ${index + 1}, too few keys hash to it`);
      const account = await makeAccount(owner.url, `bench ${label} ${index + 1}.${n}`);
      if (upstreamIndexOf(account.authorization, servers.length) === index) owned.get(owner)!.push(account);
      else if ((await call(owner.url, 'DELETE', `/sandbox/v1/accounts/${account.id}`, ADMIN)).status >= 300) throw new Error(`deleting ${account.id} failed`);
    }
    for (const account of owned.get(owner)!) await seed(owner.url, account, SEEDED);
  }
  return owned;
}

/**
 * (b) Replicas' CPU per request: 1 replica; 2 replicas behind a key-hashing proxy (every request
 * reaches its account's owner) and behind a round-robin one (half forwarded); then requests sent
 * to the replica that does not own their account only.
 */
async function benchReplicaCpu(cluster: PostgresCluster, started: Served[], proxies: ChildProcess[]): Promise<void> {
  const nodeFlags = profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir];
  if (profileDir !== undefined) await mkdir(profileDir, { recursive: true });
  const lone = await replica(await freshDatabase(cluster), [], nodeFlags);
  started.push(lone);
  // The second control: a lone replica of a database of its own, beside the first (2 sandboxes that share nothing).
  const twin = await replica(await freshDatabase(cluster), [], nodeFlags);
  started.push(twin);
  const pairDb = await freshDatabase(cluster);
  const first = await replica(pairDb, [], nodeFlags);
  started.push(first);
  const second = await replica(pairDb, [], nodeFlags);
  started.push(second);
  const toLone = await startProxy('key-hash-proxy.ts', [lone.url]);
  const independent = await startProxy('key-hash-proxy.ts', [lone.url, twin.url]);
  const byKey = await startProxy('key-hash-proxy.ts', [first.url, second.url]);
  const roundRobin = await startProxy('round-robin-proxy.ts', [first.url, second.url]);
  // Every request to one replica: the first (the owner of the accounts sent), or the second (which forwards them).
  const toFirst = await startProxy('round-robin-proxy.ts', [first.url]);
  const toSecond = await startProxy('round-robin-proxy.ts', [second.url]);
  proxies.push(toLone.child, independent.child, byKey.child, roundRobin.child, toFirst.child, toSecond.child);

  const owned = await accountsByKey([first, second], 'pair');
  const pairAccounts = [...owned.values()].flat();
  const independentAccounts = [...(await accountsByKey([lone, twin], 'independent')).values()].flat();
  const loneAccounts: Account[] = [];
  for (let n = 0; n < 2 * ACCOUNTS_PER_REPLICA; n++) {
    const account = await makeAccount(lone.url, `bench lone ${n}`);
    await seed(lone.url, account, SEEDED);
    loneAccounts.push(account);
  }

  // What each replica spends with no request at all (leases, the owners' sweep, the relay's
  // timers): part of every setup's CPU per request, twice over with 2 replicas.
  const idleBefore = sampleCpu([lone.pid, twin.pid, first.pid, second.pid]);
  await sleep(IDLE_SECONDS * 1000);
  const idleAfter = sampleCpu([lone.pid, twin.pid, first.pid, second.pid]);
  const idle = (pid: number) => round((processCpuMs(idleBefore, idleAfter, pid) ?? Number.NaN) / IDLE_SECONDS);
  console.log(`\nIdle CPU over ${IDLE_SECONDS} s, ms per second: lone replica ${idle(lone.pid)}, its twin ${idle(twin.pid)}, replica 1 ${idle(first.pid)}, replica 2 ${idle(second.pid)}`);

  const setups = {
    '1 replica': { url: toLone.url, pids: [lone.pid], accounts: loneAccounts, share: 1 },
    '2 replicas, by key': { url: byKey.url, pids: [first.pid, second.pid], accounts: pairAccounts, share: 1 },
    '2 replicas, round robin': { url: roundRobin.url, pids: [first.pid, second.pid], accounts: pairAccounts, share: 1 },
    // The control: what each of 2 replicas by key gets, on the lone replica (rounds twice as long, the same answers).
    '1 replica, half the rate': { url: toLone.url, pids: [lone.pid], accounts: loneAccounts, share: 0.5 },
    // The second: 2 lone replicas of 2 databases behind the key-hashing proxy, each with half the
    // accounts: what 2 busy processes cost on this machine, with nothing shared.
    '2 independent sandboxes': { url: independent.url, pids: [lone.pid, twin.pid], accounts: independentAccounts, share: 1 },
  };
  type SetupName = keyof typeof setups;
  const names = Object.keys(setups) as SetupName[];
  const role = (pid: number) => (pid === lone.pid ? 'lone replica' : pid === twin.pid ? 'its twin' : pid === first.pid ? 'replica 1' : 'replica 2');
  console.log(
    `\n(b) Replicas' CPU per request (their processes' CPU time from /proc per 2xx answer), ${pairAccounts.length} accounts made through the accounts API ` +
      `(the 2 replicas own ${ACCOUNTS_PER_REPLICA} each), each request for a random one, through a balancer (its own process, not counted): ` +
      `key-hashing (every request reaches its account's owner) or round-robin (half forwarded); ${ROUNDS} rounds of ${SECONDS} s per setup, ` +
      `the order rotating, ${CONNECTIONS} connections at a fixed rate (GET ${RATES.GET}/s, POST ${RATES.POST}/s; the controls: the lone replica at half of it, as each of 2 replicas by key gets; 2 lone replicas of 2 databases behind the key-hashing proxy)`,
  );
  console.log(
    '| case | 1 replica: CPU µs/req (median) | 2 by key: CPU µs/req (median) | ratio 2 by key / 1 | 2 round robin: CPU µs/req (median) | ratio round robin / 1 | ' +
      'control, 1 replica at half the rate: CPU µs/req (median) | ratio / 1 | control, 2 independent sandboxes: CPU µs/req (median) | ratio / 1 | ratio 2 by key / 2 independent | ' +
      'rounds 1 replica | rounds 2 by key | rounds 2 round robin | rounds half rate | rounds 2 independent | req/s (medians: 1, by key, round robin, half rate, independent) | other load % |',
  );
  console.log(`|${' --- |'.repeat(18)}`);
  for (const [caseName, request, rate] of CASES) {
    // Warm-up of every setup.
    for (const setup of Object.values(setups)) await measure(setup.url, request(setup.accounts), setup.pids, { seconds: 3 }, rate * setup.share);
    takeFailures();
    const cpu = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<SetupName, number[]>;
    const rps = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<SetupName, number[]>;
    const other: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(r + i) % names.length]!;
        const setup = setups[name];
        const run = await measure(setup.url, request(setup.accounts), setup.pids, { seconds: SECONDS / setup.share }, rate * setup.share, (pid) => `${caseName}, ${name} (${role(pid)})`);
        cpu[name].push((sumOf(run.cpuMs.values()) * 1000) / run.ok);
        rps[name].push(run.ok / run.seconds);
        other.push(run.other2xx);
      }
    }
    const [one, key, rr, control, twins] = names.map((name) => median(cpu[name])) as [number, number, number, number, number];
    console.log(
      `| ${caseName} | ${round(one)} | ${round(key)} | ${ratio(key, one)} | ${round(rr)} | ${ratio(rr, one)} | ${round(control)} | ${ratio(control, one)} | ${round(twins)} | ${ratio(twins, one)} | ${ratio(key, twins)} | ` +
        `${list(cpu['1 replica'])} | ${list(cpu['2 replicas, by key'])} | ${list(cpu['2 replicas, round robin'])} | ${list(cpu['1 replica, half the rate'])} | ${list(cpu['2 independent sandboxes'])} | ${names.map((name) => round(median(rps[name]))).join(', ')} | ${list(other)} |` +
        takeFailures(),
    );
  }

  const firstAccounts = owned.get(first)!;
  console.log(
    `\nRequests for replica 1's ${firstAccounts.length} accounts only, sent to replica 1 (their owner) or to replica 2 (which forwards each to replica 1), ` +
      `${ROUNDS} alternating rounds of ${SECONDS} s each, ${CONNECTIONS} connections at the same rates; the extra cost of a forward is forwarder + owner (forwarded) − owner (direct)`,
  );
  console.log(
    '| case | direct: owner CPU µs/req (median) | direct: replica 2 meanwhile µs/req | forwarded: forwarder CPU µs/req (median) | forwarded: owner CPU µs/req (median) | ' +
      'extra per forwarded request (µs) | rounds direct owner | rounds direct replica 2 | rounds forwarder | rounds forwarded owner | req/s (medians: direct, forwarded) | other load % |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const [caseName, request, rate] of CASES) {
    const routes = [
      ['direct', toFirst.url],
      ['forwarded', toSecond.url],
    ] as const;
    for (const [, url] of routes) await measure(url, request(firstAccounts), [second.pid, first.pid], { seconds: 2 }, rate);
    takeFailures();
    const owner = { direct: [] as number[], forwarded: [] as number[] };
    const peer = { direct: [] as number[], forwarded: [] as number[] };
    const rps = { direct: [] as number[], forwarded: [] as number[] };
    const other: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const [route, url] of r % 2 === 0 ? routes : [...routes].reverse()) {
        const run = await measure(url, request(firstAccounts), [second.pid, first.pid], { seconds: SECONDS }, rate, (pid) => `${caseName}, ${route} (${pid === first.pid ? 'owner' : 'replica 2'})`);
        owner[route].push((run.cpuMs.get(first.pid)! * 1000) / run.ok);
        peer[route].push((run.cpuMs.get(second.pid)! * 1000) / run.ok);
        rps[route].push(run.ok / run.seconds);
        other.push(run.other2xx);
      }
    }
    const [direct, idlePeer, forwarder, forwardedOwner] = [owner.direct, peer.direct, peer.forwarded, owner.forwarded].map(median) as [number, number, number, number];
    console.log(
      `| ${caseName} | ${round(direct)} | ${round(idlePeer)} | ${round(forwarder)} | ${round(forwardedOwner)} | ${round(forwarder + forwardedOwner - direct)} | ` +
        `${list(owner.direct)} | ${list(peer.direct)} | ${list(peer.forwarded)} | ${list(owner.forwarded)} | ${round(median(rps.direct))}, ${round(median(rps.forwarded))} | ${list(other)} |` +
        takeFailures(),
    );
  }
  for (const served of [lone, twin, first, second]) served.child.kill('SIGTERM');
  for (const proxy of [toLone, independent, byKey, roundRobin, toFirst, toSecond]) proxy.child.kill('SIGTERM');
  await Promise.all([lone.exited, twin.exited, first.exited, second.exited]);
  if (profileDir !== undefined) {
    await writeFile(join(profileDir, WINDOWS_FILE), `${JSON.stringify(windows, null, 2)}\n`);
    console.log(`\n${profileTable(await summarizeProfiles(profileDir))}\n(top functions: npx tsx bench/profile-summary.ts ${profileDir})`);
  }
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

/** (c) Failover: SIGKILL of an account's owner just before a request of it falls due; time to its expired webhook from the replica that takes the account over. */
async function benchFailover(cluster: PostgresCluster, started: Served[]): Promise<void> {
  const receiver = await startExpiryReceiver();
  const db = await freshDatabase(cluster);
  const flags = ['--webhook', receiver.url];
  const ACCOUNT = 'acct_custodial';
  try {
    // The first round's owner is the replica that does not run the relay (the account is first
    // used through it); from then on, the one that takes the account over takes the relay too.
    let other = await replica(db, flags);
    started.push(other);
    let owner = await replica(db, flags);
    started.push(owner);
    const rows: Array<{ killToExpired: number; killToTakenOver: number; dueToExpired: number; relay: boolean }> = [];
    for (let r = 0; r < FAILOVERS; r++) {
      // Through the owner (the first round: the account's first use, which makes it the owner).
      const res = await fetch(`${owner.url}${COLLECTION}`, {
        method: 'POST',
        headers: { authorization: AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 1000, description: 'failover', destinationWallet: 'merchant@example.com', expiresIn: EXPIRES_IN_SECONDS }),
      });
      if (res.status !== 201) throw new Error(`failover create answered ${res.status}: ${await res.text()}`);
      if (!serves(owner, ACCOUNT)) throw new Error(`round ${r + 1}: the replica the request was made through does not serve ${ACCOUNT}`);
      const made = (await res.json()) as { id: string; expiresAt: string };
      const dueMs = Date.parse(made.expiresAt);
      const takenBefore = takeovers(other, ACCOUNT);
      const ranRelay = owner.stdout().includes('lnpr replica: running the relay');
      await sleep(Math.max(0, dueMs - KILL_BEFORE_DUE_MS - Date.now()));
      owner.child.kill('SIGKILL');
      const killedAt = Date.now();
      // When the survivor says it took the account over (its rows loaded, what was due run), to 20 ms.
      const survivor = other;
      const takenOver = until(() => takeovers(survivor, ACCOUNT) > takenBefore, 30_000, `the other replica to say it took ${ACCOUNT} over`).then(() => Date.now());
      await until(() => receiver.expiredAt.has(made.id), 30_000, `the expired webhook of round ${r + 1}`);
      const arrived = receiver.expiredAt.get(made.id)!;
      rows.push({ killToExpired: arrived - killedAt, killToTakenOver: (await takenOver) - killedAt, dueToExpired: arrived - dueMs, relay: ranRelay });
      await owner.exited;
      // The killed replica comes back; the next round kills the account's new owner.
      const back = await replica(db, flags);
      started.push(back);
      owner = other;
      other = back;
      await sleep(500);
    }
    console.log(`\n(c) Failover: a request with expiresIn ${EXPIRES_IN_SECONDS} s (running clock) made through its account's owner (2 replicas), that owner SIGKILLed ${KILL_BEFORE_DUE_MS} ms before it falls due; ${FAILOVERS} rounds`);
    console.log('| round | SIGKILL → expired webhook from the replica that took the account over (ms) | SIGKILL → its "taken over" line (ms) | due → expired webhook (ms) | the killed replica also ran the relay |');
    console.log('| --- | --- | --- | --- | --- |');
    rows.forEach((row, i) => console.log(`| ${i + 1} | ${row.killToExpired} | ${row.killToTakenOver} | ${row.dueToExpired} | ${row.relay ? 'yes' : 'no'} |`));
    console.log(`| median | ${round(median(rows.map((r) => r.killToExpired)))} | ${round(median(rows.map((r) => r.killToTakenOver)))} | ${round(median(rows.map((r) => r.dueToExpired)))} | |`);
    for (const served of [owner, other]) served.child.kill('SIGTERM');
    await Promise.all([owner.exited, other.exited]);
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
