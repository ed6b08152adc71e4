/**
 * `npm run bench`: throughput and latency of GET, GET status and POST on our server (in memory,
 * and over a JSON file already holding 100,000 records) and on a bare-Fastify floor, all in one
 * run so their ratios are comparable on a noisy machine; plus start-up time at 100,000 records.
 * Our servers run as users run them, with the default flags: a log line per request (JSON, as
 * their stdout is a pipe, which the bench reads); one more in-memory server runs quiet
 * (`--log-level warn`), to show what the request log costs.
 * Prints the figures and the targets' verdicts, writes `bench/results.json`. A missed target
 * exits 0 (it is a figure to read); a server that fails to start, crashes or answers errors
 * exits 1, because then the figures measure the wrong thing.
 *
 * Every target is a ratio of two cases (ours over the floor's, mostly), measured in rounds that
 * alternate, the floor's first and last: floor, ours, floor, ours, ..., floor. Each of our rounds
 * gets a ratio, its req/s over the mean of the floor's rounds just before and just after it, so a
 * neighbour's load that grows or fades over those seconds cancels; the ratio reported is the
 * median of those, so a burst that hit one round drops out. The tables and `bench/results.json`
 * show every round's req/s and ratio beside the median. Each case first gets a warm-up
 * (BENCH_WARMUP_SECONDS, default 2); then BENCH_ROUNDS (default 5) rounds of ours per
 * comparison, each lasting BENCH_SECONDS / BENCH_ROUNDS (BENCH_SECONDS default 6).
 *
 * Nostr Wallet Connect (`bench/nwc.ts`), after the other comparisons and the webhook deliveries
 * (before the storage figures), each part on a server of its own so that one's leftovers
 * (pending NWC requests, which the server looks up every 2 s) do not load the next:
 * create on an NWC account against create on a custodial account, one server, alternating rounds
 * as above (target: at least 0.25); payments at a fixed rate (BENCH_NWC_RATE, default 100 a
 * second, for BENCH_NWC_SECONDS, default 10; open loop), each timed from `pay_invoice` sent to
 * its payment request read `completed` (target: p99 under 50 ms), split at the answer and at the
 * server's completion; and the relay's CPU time and latency per event.
 *
 * BENCH_ONLY=hot measures only the hot path, in about two minutes: GET, GET status and
 * POST of the floor and of our in-memory server with the default flags and quiet; no JSON file,
 * no webhooks, no storage figures, no start-up targets, no NWC.
 * BENCH_ONLY=nwc measures only Nostr Wallet Connect (about two minutes): the NWC create ratio,
 * the payments and the relay; no other server, no start-up targets, no storage figures.
 * BENCH_ONLY=postgres measures only the PostgreSQL store (bench/postgres.ts, about two minutes):
 * POST, GET, GET status against the JSON file, and PostgreSQL's CPU per acknowledged create.
 * BENCH_ONLY=replicas measures only replicas on PostgreSQL (bench/replicas.ts, about twelve minutes):
 * one account's transitions per second (create then complete; memory and PostgreSQL), replicas'
 * CPU per request at 1 replica and at 2 (each owning half the accounts) behind a key-hashing proxy
 * and a round-robin one, a forwarding replica's CPU per forwarded request, and the failover time
 * from SIGKILL of an account's owner to the first expiry by the replica that takes it over.
 * BENCH_ONLY=relay measures only "API under relay load" (`bench/relay-load.ts`, about a minute, on
 * the sources): GET p50/p99 quiet and during findings 3 and 4 of issue 21, and what the attacker
 * received; a full run measures it too (on the build), after NWC.
 * BENCH_ONLY=conformance measures only the conformance suite (`bench/conformance.ts`, about half a
 * minute): the full profile with --admin-key against our server, median of nine warm runs.
 * BENCH_CPU_PROF=DIR writes a V8 CPU profile of every server process into DIR on shutdown, and
 * the time window of every measured round into DIR/windows.json; the bench then prints each
 * case's CPU time per request by stage (`bench/profile-summary.ts`, which also reads DIR later).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import type { Request } from 'autocannon';
import { cpuUsPerRequestOf, creates, cycledGets, reqPerSecOf, runLoad, summarize, type CaseFigures, type LoadRun, type Target } from './load.js';
import { CUSTODIAL_KEY, measurePayments, measureRelay, NWC_KEY, nwcFailures, nwcTables, paymentTarget, type NwcFigures } from './nwc.js';
import { writePrefilledDataFile } from './prefill.js';
import { profileTable, summarizeProfiles, WINDOWS_FILE, type CaseProfile, type ProfileWindow } from './profile-summary.js';
import {
  caseTable,
  COMPARISONS,
  noiseWarning,
  NWC_CREATE_COMPARISON,
  ratioOf,
  ratioTable,
  startupChecks,
  startupTable,
  type Comparison,
  type ComparedRound,
  type RatioResult,
  type StartupCheck,
} from './report.js';
import { seedThroughApi } from './seed.js';
import { promisify } from 'node:util';
import { MAX_LIST_LIMIT } from '../src/schemas/list-limit.js';
import { REPO_ROOT, spawnServer, type ServerProcess } from './server-process.js';
import { COMPILED_CLI, startTimed, type StartupFigures } from './startup.js';
import { measureStorage, storageTable, type StorageFigures } from './storage.js';
import { measureRelayLoad, relayLoadTable, type RelayLoadPhase } from './relay-load.js';

const RECORDS = 100_000;
/** Records created through the API on the in-memory servers, for their GETs to read. */
const SEEDED = 1_000;
const AUTHORIZATION = 'Bearer sk_test_custodial';
const CREATE_BODY = JSON.stringify({
  amount: 1000,
  description: 'Coffee beans',
  destinationWallet: 'merchant@example.com',
  metadata: { orderId: 'A-1' },
});
/** What users run: `lnpr serve` with no logging flag logs every request. */
const DEFAULT_FLAGS: string[] = [];
/** No request log: the difference from the default is what logging costs. */
const QUIET_FLAGS = ['--log-level', 'warn'];
const RESULTS_FILE = join(REPO_ROOT, 'bench', 'results.json');
/** The shortest round of the NWC create comparison (see where it runs). */
const NWC_ROUND_SECONDS = 4;

/** A measured case: the server it loads and the request it sends. */
type Case = [Target, Request];

const only = process.env.BENCH_ONLY;
if (only !== undefined && only !== 'hot' && only !== 'nwc' && only !== 'relay' && only !== 'postgres' && only !== 'replicas' && only !== 'conformance') {
  throw new Error(`BENCH_ONLY must be "hot", "nwc", "relay", "postgres", "replicas", "conformance" or unset (got "${only}")`);
}
if (only === 'conformance') {
  // Only the conformance suite's full profile against our server (issue 24: under 1 s warm).
  console.log(`lnpr-sandbox bench (BENCH_ONLY=conformance): node ${process.version}, ${cpus().length} CPUs, code ${codeVersion() ?? 'unknown'}; the server runs in a child process with the default flags`);
  const { benchConformance } = await import('./conformance.js');
  await benchConformance();
  process.exit(0);
}
if (only === 'replicas') {
  // Only replicas on PostgreSQL (issue 23): one account's transitions, replicas' CPU per request, failover.
  console.log(`lnpr-sandbox bench (BENCH_ONLY=replicas): node ${process.version}, ${cpus().length} CPUs, code ${codeVersion() ?? 'unknown'}; servers on the sources, --log-level silent`);
  const { benchReplicas } = await import('./replicas.js');
  await benchReplicas();
  process.exit(0);
}
if (only === 'postgres') {
  // Only the PostgreSQL store against the JSON file, on the sources, with a throwaway cluster of its own.
  console.log(`lnpr-sandbox bench (BENCH_ONLY=postgres): node ${process.version}, ${cpus().length} CPUs, code ${codeVersion() ?? 'unknown'}`);
  const { benchPostgres } = await import('./postgres.js');
  await benchPostgres();
  process.exit(0);
}
if (only === 'relay') {
  // Only "API under relay load", on the sources (no build): about a minute.
  console.log(`lnpr-sandbox bench (BENCH_ONLY=relay): node ${process.version}, ${cpus().length} CPUs, code ${codeVersion() ?? 'unknown'}; the server runs in a child process with the default flags`);
  const server = spawnServer('relay load', ['src/cli/main.ts', 'serve', '--port', '0', ...DEFAULT_FLAGS]);
  try {
    console.log(`\n${relayLoadTable(await measureRelayLoad(await server.url, AUTHORIZATION))}\n`);
  } finally {
    await server.stop();
  }
  process.exit(0);
}
const hotOnly = only === 'hot';
const nwcOnly = only === 'nwc';
/** The JSON file, webhooks, storage: a full run's. */
const full = only === undefined;
const nwcLoad = { rate: positiveFrom('BENCH_NWC_RATE', 100), seconds: positiveFrom('BENCH_NWC_SECONDS', 10) };
const load = {
  connections: 10,
  warmupSeconds: positiveFrom('BENCH_WARMUP_SECONDS', 2),
  seconds: positiveFrom('BENCH_SECONDS', 6),
  rounds: Math.round(positiveFrom('BENCH_ROUNDS', 5)),
};
const roundSeconds = load.seconds / load.rounds;
const profileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
const nodeFlags = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];

const code = codeVersion();
const benchStart = performance.now();
const servers: ServerProcess[] = [];
await mkdir(join(REPO_ROOT, 'bench', '.data'), { recursive: true });
const dataDir = await mkdtemp(join(REPO_ROOT, 'bench', '.data', 'run-'));
let answeredErrors = false;
try {
  console.log(
    `lnpr-sandbox bench${only ? ` (BENCH_ONLY=${only})` : ''}: node ${process.version}, ${cpus().length} CPUs, ${load.connections} connections, ` +
      `${load.warmupSeconds} s warm-up per case, then per comparison ${load.rounds} rounds of ${roundSeconds.toFixed(1)} s alternating with ${load.rounds + 1} of the case compared with, code ${code ?? 'unknown'}`,
  );
  console.log(
    nwcOnly
      ? 'servers run in child processes with the default flags (a JSON log line per request to a pipe)'
      : `servers run in child processes; memory${hotOnly ? '' : ', json-file 100k and the NWC servers'} with the default flags (a JSON log line per request ` +
          `to a pipe), memory quiet with ${QUIET_FLAGS.join(' ')} (no request log)`,
  );
  if (profileDir) console.log(`CPU profiles of the servers go to ${profileDir} (profiling slows every server alike)`);

  await step('building dist/ (npm run build): servers run the compiled CLI, as installed users do', () =>
    promisify(execFile)(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT }),
  );
  const startups: Record<string, StartupFigures> = {};
  let checks: StartupCheck[] = [];
  /** Each server: its target and the ids its GETs read (none: it serves POSTs only). */
  const targets: Array<[string, Target, string[]]> = [];
  if (!nwcOnly) {
    const floor = spawnServer('floor', ['bench/floor-server.ts'], nodeFlags);
    servers.push(floor);
    targets.push(['floor', { url: await guarded(floor.url), pid: floor.pid }, []]);
    // The start-up in memory: what the CLI costs before any record is read.
    const inMemory = await step('starting memory (timed)', () =>
      startTimed('memory', DEFAULT_FLAGS, { authorization: AUTHORIZATION }, nodeFlags),
    );
    servers.push(inMemory.server);
    startups.memory = inMemory.startup;
    targets.push(['memory', { url: inMemory.url, pid: inMemory.server.pid }, []]);
    const quiet = spawnServer('memory quiet', [COMPILED_CLI, 'serve', '--port', '0', ...QUIET_FLAGS], nodeFlags, false);
    servers.push(quiet);
    targets.push(['memory quiet', { url: await guarded(quiet.url), pid: quiet.pid }, []]);
  }
  let webhook: { target: Target; receiverUrl: string } | undefined;
  if (full) {
    const dataFile = join(dataDir, 'sandbox.json');
    const fileIds = await step(`writing ${RECORDS.toLocaleString('en')} records to ${dataFile}`, () =>
      writePrefilledDataFile(dataFile, RECORDS),
    );
    const recordPath = `/api/v1/payment-requests/${fileIds.at(-1)!}`;
    const onFile = await step('starting json-file 100k (timed)', () =>
      startTimed('json-file 100k', ['--data', dataFile, ...DEFAULT_FLAGS], { authorization: AUTHORIZATION, recordPath }, nodeFlags),
    );
    servers.push(onFile.server);
    startups['json-file 100k'] = onFile.startup;
    checks = startupChecks(onFile.startup);
    targets.push(['json-file 100k', { url: onFile.url, pid: onFile.server.pid }, fileIds]);
    // Deliveries cost the server sending them: one endpoint, a receiver in its own process answering 200.
    const receiver = spawnServer('webhook receiver', ['bench/webhook-receiver.ts']);
    servers.push(receiver);
    const receiverUrl = await guarded(receiver.url);
    const withWebhook = spawnServer('memory webhook', [COMPILED_CLI, 'serve', '--port', '0', '--webhook', receiverUrl, ...DEFAULT_FLAGS], nodeFlags, false);
    servers.push(withWebhook);
    webhook = { target: { url: await guarded(withWebhook.url), pid: withWebhook.pid }, receiverUrl };
  }

  const seeded = targets.filter(([server]) => server !== 'json-file 100k');
  if (seeded.length > 0) {
    const seededIds = await step(`creating ${SEEDED} records through the API of ${seeded.map(([server]) => server).join(', ')}`, () =>
      guarded(Promise.all(seeded.map(([, target]) => seedThroughApi(target.url, AUTHORIZATION, CREATE_BODY, SEEDED, load.connections)))),
    );
    seeded.forEach(([, , ids], i) => ids.push(...seededIds[i]!));
  }

  const caseOf = new Map<string, Case>();
  for (const [server, target, ids] of targets) {
    caseOf.set(`${server} GET`, [target, cycledGets(ids, AUTHORIZATION, '')]);
    caseOf.set(`${server} GET status`, [target, cycledGets(ids, AUTHORIZATION, '/status')]);
    caseOf.set(`${server} POST`, [target, creates(AUTHORIZATION, CREATE_BODY)]);
  }
  if (webhook) caseOf.set('memory webhook POST', [webhook.target, creates(AUTHORIZATION, CREATE_BODY)]);
  // The NWC comparison's cases, on a server started when its turn comes.
  const nwcCases = [NWC_CREATE_COMPARISON.over, NWC_CREATE_COMPARISON.of];
  const comparisons = COMPARISONS.filter((c) => (c === NWC_CREATE_COMPARISON ? !hotOnly : caseOf.has(c.of) && caseOf.has(c.over)));
  // Reads form one phase; POSTs come after, as they add records; NWC after both, on servers of its own.
  const phases: Array<[string, Comparison[]]> = [
    ['GET and GET status', comparisons.filter((c) => !c.of.endsWith(' POST'))],
    ['POST', comparisons.filter((c) => c.of.endsWith(' POST') && c !== NWC_CREATE_COMPARISON)],
  ];
  // Every create on the webhook server is an event its receiver must get, warm-up ones included.
  let webhookCreates = 0;
  const runCase = async (name: string, seconds: number): Promise<LoadRun> => {
    const [target, request] = caseOf.get(name)!;
    // Servers started later (NWC) count as ours too, not as other load.
    const pids = servers.map((server) => server.pid);
    const run = await guarded(runLoad(target, request, load.connections, seconds, pids));
    if (target === webhook?.target) webhookCreates += run.statusCodes['201'] ?? 0;
    return run;
  };
  const runs = new Map<string, LoadRun[]>();
  const compared = new Map<Comparison, ComparedRound[]>();
  const windows: ProfileWindow[] = [];
  const measured = async (name: string, seconds: number): Promise<LoadRun> => {
    const run = await runCase(name, seconds);
    if (!runs.has(name)) runs.set(name, []);
    runs.get(name)!.push(run);
    windows.push({ case: name, pid: caseOf.get(name)![0].pid, startUs: run.startUs, endUs: run.endUs, requests: run.ok });
    return run;
  };
  const runPhase = async (phase: string, group: Comparison[], seconds = roundSeconds): Promise<void> => {
    if (group.length === 0) return;
    const names = [...new Set(group.flatMap((c) => [c.over, c.of]))];
    await step(`measuring ${phase} (a warm-up of each case, then each comparison's alternating rounds)`, async () => {
      // Warm-up answers are dropped: the JIT and the connections settle first.
      for (const name of names) await runCase(name, load.warmupSeconds);
      for (const comparison of group) {
        const rounds: ComparedRound[] = [];
        let before = await measured(comparison.over, seconds);
        for (let round = 0; round < load.rounds; round++) {
          const of = await measured(comparison.of, seconds);
          const after = await measured(comparison.over, seconds);
          rounds.push(comparedRound(of, before, after));
          before = after;
        }
        compared.set(comparison, rounds);
      }
    });
  };
  for (const [phase, group] of phases) await runPhase(phase, group);

  let drain: Awaited<ReturnType<typeof waitForDeliveries>> | undefined;
  let deliveries: Record<string, number> | undefined;
  let storage: StorageFigures | undefined;
  if (webhook) {
    const { target, receiverUrl } = webhook;
    const loadEndedAt = performance.now();
    drain = await step('waiting for every delivery to reach the receiver', () => waitForDeliveries(receiverUrl, webhookCreates, loadEndedAt));
    deliveries = await step('reading the webhook server\'s delivery log', () => deliveryOutcomes(target.url));
  }
  // After the deliveries: they would otherwise go out during the NWC rounds.
  let nwc: NwcFigures | undefined;
  if (!hotOnly) {
    const started = async (name: string): Promise<[ServerProcess, Target]> => {
      const server = spawnServer(name, [COMPILED_CLI, 'serve', '--port', '0', ...DEFAULT_FLAGS], nodeFlags, false);
      servers.push(server);
      return [server, { url: await guarded(server.url), pid: server.pid }];
    };
    const [createsServer, createsTarget] = await started('nwc');
    caseOf.set(nwcCases[0]!, [createsTarget, creates(CUSTODIAL_KEY, CREATE_BODY)]);
    caseOf.set(nwcCases[1]!, [createsTarget, creates(NWC_KEY, CREATE_BODY)]);
    // Rounds of at least 4 s: the server looks its pending NWC requests up every 2 s, 100 at once,
    // a burst of CPU that can fill a 1.2 s round.
    const nwcRoundSeconds = Math.max(roundSeconds, NWC_ROUND_SECONDS);
    await runPhase(`NWC create: POST on an NWC account and on a custodial one, one server, rounds of ${nwcRoundSeconds} s`, [NWC_CREATE_COMPARISON], nwcRoundSeconds);
    // Its thousands of pending NWC requests are looked up every 2 s: that load must not stay.
    await stopServer(createsServer);
    const [paymentServer, paymentsTarget] = await started('nwc payments');
    const payments = await step(
      `measuring NWC payments (a warm-up, 5/s for 8 s, then ${nwcLoad.rate}/s for ${nwcLoad.seconds} s; pay_invoice → completed)`,
      () => guarded(measurePayments(paymentsTarget, nwcLoad, windows, (label) => `nwc payments ${label}`)),
    );
    await stopServer(paymentServer);
    const [relayServer, relayTarget] = await started('nwc relay');
    const relay = await step('measuring the relay (kind 23194 events to one subscriber)', () =>
      guarded(measureRelay(relayTarget, windows, 'relay events')),
    );
    await stopServer(relayServer);
    nwc = { payments, target: paymentTarget(payments, nwcLoad.rate), relay };
  }
  let relayLoad: RelayLoadPhase[] | undefined;
  if (full) {
    const server = spawnServer('relay load', [COMPILED_CLI, 'serve', '--port', '0', ...DEFAULT_FLAGS], nodeFlags, false);
    servers.push(server);
    relayLoad = await step('measuring the API under relay load (findings 3 and 4 of issue 21)', async () =>
      guarded(measureRelayLoad(await guarded(server.url), AUTHORIZATION)),
    );
    await stopServer(server);
  }
  const cases: Record<string, CaseFigures> = {};
  for (const [name, caseRuns] of runs) cases[name] = summarize(caseRuns);
  const measuredRatios: RatioResult[] = comparisons.map((c) => ratioOf(c, compared.get(c)!));
  if (full) {
    storage = await step(`measuring storage at ${RECORDS.toLocaleString('en')} records (compaction stalls, crash restarts)`, () =>
      measureStorage({ records: RECORDS, dataDir }),
    );
  }
  const warning = noiseWarning(cases, startups);
  console.log(`\n${caseTable(cases)}\n\n${ratioTable(measuredRatios)}\n`);
  if (Object.keys(startups).length > 0) console.log(`${startupTable(startups, checks)}\n`);
  if (nwc) console.log(`${nwcTables(nwc)}\n`);
  if (relayLoad) console.log(`${relayLoadTable(relayLoad)}\n`);
  if (drain) {
    console.log(
      `webhook deliveries: ${drain.created} creates answered 201 to the load tool (the few in flight when a round stops make events too), ${drain.received} deliveries received, the last ${drain.secondsAfterLoad.toFixed(1)} s after the load ended; the newest kept attempts: ${JSON.stringify(deliveries)}\n`,
    );
  }
  if (storage) console.log(`${storageTable(storage)}\n`);
  if (warning) console.log(`${warning}\n`);

  const failing = Object.entries(cases).filter(([, c]) => c.non2xx + c.errors + c.timeouts > 0);
  for (const [name, c] of failing) {
    const codes = JSON.stringify(c.statusCodes);
    console.error(`${name}: ${c.non2xx} non-2xx, ${c.errors} errors, ${c.timeouts} timeouts; status codes ${codes}`);
  }
  if (drain && drain.received < drain.created) console.error(`webhook deliveries: ${drain.created - drain.received} of ${drain.created} never reached the receiver`);
  const nwcFailed = nwc ? nwcFailures(nwc) : [];
  for (const failure of nwcFailed) console.error(failure);
  answeredErrors = failing.length > 0 || (drain !== undefined && drain.received < drain.created) || nwcFailed.length > 0;

  await step('stopping servers', stopAll);
  let profile: CaseProfile[] | undefined;
  if (profileDir) {
    await writeFile(join(profileDir, WINDOWS_FILE), `${JSON.stringify(windows, null, 2)}\n`);
    profile = await step(`reading the CPU profiles in ${profileDir}`, () => summarizeProfiles(profileDir));
    console.log(`\n${profileTable(profile)}\n(top functions: npx tsx bench/profile-summary.ts ${profileDir})\n`);
  }
  const totalSeconds = Math.round((performance.now() - benchStart) / 100) / 10;
  await writeFile(
    RESULTS_FILE,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        code,
        node: process.version,
        cpus: cpus().length,
        only: only ?? null,
        connections: load.connections,
        warmupSeconds: load.warmupSeconds,
        seconds: load.seconds,
        rounds: load.rounds,
        records: RECORDS,
        seededRecords: SEEDED,
        serveFlags: { default: DEFAULT_FLAGS, quiet: QUIET_FLAGS },
        cpuProfile: profileDir !== undefined,
        cases,
        ratios: measuredRatios,
        ...(relayLoad ? { relayLoad } : {}),
        startup: startups,
        startupTargets: checks,
        webhookDeliveries: drain ? { ...drain, newestKept: deliveries } : null,
        storage: storage ?? null,
        nwc: nwc ?? null,
        profile: profile ?? null,
        warning: warning ?? null,
        totalSeconds,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`bench took ${totalSeconds} s; figures in ${RESULTS_FILE}`);
  if (answeredErrors) console.error('FAILED: some answers were not 2xx, so these figures do not measure the API');
} catch (error) {
  console.error(`bench FAILED: ${(error as Error).message}`);
  process.exitCode = 1;
  await stopAll().catch((stopError: unknown) => console.error((stopError as Error).message));
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
if (answeredErrors) process.exitCode = 1;
// Start-up pollers of a failed run may still be waiting on a dead port.
process.exit();

/** A round of `of` between the rounds of the case it is compared with just before and after it. */
function comparedRound(of: LoadRun, before: LoadRun, after: LoadRun): ComparedRound {
  const ofCpu = cpuUsPerRequestOf(of);
  const beforeCpu = cpuUsPerRequestOf(before);
  const afterCpu = cpuUsPerRequestOf(after);
  const ofReqPerSec = reqPerSecOf(of);
  const overBeforeReqPerSec = reqPerSecOf(before);
  const overAfterReqPerSec = reqPerSecOf(after);
  const round3 = (value: number) => Math.round(value * 1000) / 1000;
  return {
    ofReqPerSec,
    overBeforeReqPerSec,
    overAfterReqPerSec,
    ratio: round3(ofReqPerSec / ((overBeforeReqPerSec + overAfterReqPerSec) / 2)),
    cpuCostRatio: ofCpu && beforeCpu && afterCpu ? round3((beforeCpu + afterCpu) / 2 / ofCpu) : null,
  };
}

/** Stops one server and forgets it; rejects if it did not exit cleanly. */
async function stopServer(server: ServerProcess): Promise<void> {
  servers.splice(servers.indexOf(server), 1);
  await server.stop();
}

/** Stops every server started so far; rejects if any did not exit cleanly. */
async function stopAll(): Promise<void> {
  const results = await Promise.allSettled(servers.splice(0).map((server) => server.stop()));
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
  if (failures.length > 0) throw new Error(failures.join('\n'));
}

/** `work`, abandoned as soon as any server process dies. */
function guarded<T>(work: Promise<T>): Promise<T> {
  return Promise.race([work, ...servers.map((server) => server.crashed)]);
}

async function step<T>(what: string, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  process.stdout.write(`${what}... `);
  const result = await work();
  console.log(`${((performance.now() - start) / 1000).toFixed(1)} s`);
  return result;
}

/** The checkout's commit, `-dirty` with uncommitted changes: figures belong to a version of the code. */
function codeVersion(): string | undefined {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

function positiveFrom(variable: string, fallback: number): number {
  const text = process.env[variable];
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${variable} must be a positive number (got "${text}")`);
  return value;
}

/**
 * Waits until the receiver has got one delivery per created event (deliveries give way to a busy
 * API, so some go out after the load): how many, and how long after the load the last one came.
 */
async function waitForDeliveries(receiverUrl: string, created: number, loadEndedAt: number): Promise<{ created: number; received: number; secondsAfterLoad: number }> {
  const read = async () => ((await (await fetch(receiverUrl)).json()) as { received: number }).received;
  let received = await read();
  while (received < created && performance.now() - loadEndedAt < 120_000) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    received = await read();
  }
  return { created, received, secondsAfterLoad: (performance.now() - loadEndedAt) / 1000 };
}

/** How the webhook server's kept delivery attempts went: they must have gone out and succeeded. */
async function deliveryOutcomes(url: string): Promise<Record<string, number>> {
  const response = await fetch(`${url}/sandbox/v1/webhook-deliveries?limit=${MAX_LIST_LIMIT}`, { headers: { authorization: AUTHORIZATION } });
  const { data } = (await response.json()) as { data: Array<{ status: string }> };
  const counts: Record<string, number> = {};
  for (const { status } of data) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
