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
 * Each case gets a warm-up (BENCH_WARMUP_SECONDS, default 2), then BENCH_SECONDS (default 6)
 * measured, split into BENCH_ROUNDS (default 3) rounds interleaved with the other cases'.
 * BENCH_CPU_PROF=DIR writes a V8 CPU profile of every server process into DIR on shutdown.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import type { Request } from 'autocannon';
import { creates, cycledGets, runLoad, summarize, type CaseFigures, type LoadRun, type Target } from './load.js';
import { writePrefilledDataFile } from './prefill.js';
import { caseTable, noiseWarning, ratios, ratioTable, startupChecks, startupTable } from './report.js';
import { seedThroughApi } from './seed.js';
import { promisify } from 'node:util';
import { REPO_ROOT, spawnServer, type ServerProcess } from './server-process.js';
import { COMPILED_CLI, startTimed, type StartupFigures } from './startup.js';
import { measureStorage, storageTable } from './storage.js';

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

/** A measured case: its name, the server it loads and the request it sends. */
type Case = [string, Target, Request];

const load = {
  connections: 10,
  warmupSeconds: positiveFrom('BENCH_WARMUP_SECONDS', 2),
  seconds: positiveFrom('BENCH_SECONDS', 6),
  rounds: Math.round(positiveFrom('BENCH_ROUNDS', 3)),
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
    `lnpr-sandbox bench: node ${process.version}, ${cpus().length} CPUs, ${load.connections} connections, ` +
      `${load.warmupSeconds} s warm-up + ${load.seconds} s measured per case in ${load.rounds} rounds, code ${code ?? 'unknown'}`,
  );
  console.log(
    'servers run in child processes; memory and json-file 100k with the default flags (a JSON log line per request ' +
      `to a pipe), memory quiet with ${QUIET_FLAGS.join(' ')} (no request log)`,
  );
  if (profileDir) console.log(`CPU profiles of the servers go to ${profileDir} (profiling slows every server alike)`);

  await step('building dist/ (npm run build): servers run the compiled CLI, as installed users do', () =>
    promisify(execFile)(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT }),
  );
  const dataFile = join(dataDir, 'sandbox.json');
  const fileIds = await step(`writing ${RECORDS.toLocaleString('en')} records to ${dataFile}`, () =>
    writePrefilledDataFile(dataFile, RECORDS),
  );
  const startups: Record<string, StartupFigures> = {};
  const recordPath = `/api/v1/payment-requests/${fileIds.at(-1)!}`;
  const onFile = await step('starting json-file 100k (timed)', () =>
    startTimed('json-file 100k', ['--data', dataFile, ...DEFAULT_FLAGS], { authorization: AUTHORIZATION, recordPath }, nodeFlags),
  );
  servers.push(onFile.server);
  startups['json-file 100k'] = onFile.startup;
  // The same start-up in memory: what the CLI costs before any record is read.
  const inMemory = await step('starting memory (timed)', () =>
    startTimed('memory', DEFAULT_FLAGS, { authorization: AUTHORIZATION }, nodeFlags),
  );
  servers.push(inMemory.server);
  startups.memory = inMemory.startup;
  const quiet = spawnServer('memory quiet', [COMPILED_CLI, 'serve', '--port', '0', ...QUIET_FLAGS], nodeFlags, false);
  servers.push(quiet);
  // Deliveries cost the server sending them: one endpoint, a receiver in its own process answering 200.
  const receiver = spawnServer('webhook receiver', ['bench/webhook-receiver.ts']);
  servers.push(receiver);
  const receiverUrl = await guarded(receiver.url);
  const withWebhook = spawnServer('memory webhook', [COMPILED_CLI, 'serve', '--port', '0', '--webhook', receiverUrl, ...DEFAULT_FLAGS], nodeFlags, false);
  servers.push(withWebhook);
  const floor = spawnServer('floor', ['bench/floor-server.ts'], nodeFlags);
  servers.push(floor);
  const floorTarget: Target = { url: await guarded(floor.url), pid: floor.pid };
  const memoryTarget: Target = { url: inMemory.url, pid: inMemory.server.pid };
  const quietTarget: Target = { url: await guarded(quiet.url), pid: quiet.pid };
  const fileTarget: Target = { url: onFile.url, pid: onFile.server.pid };
  const webhookTarget: Target = { url: await guarded(withWebhook.url), pid: withWebhook.pid };

  const [floorIds, memoryIds, quietIds] = await step(`creating ${SEEDED} records through the API of floor, memory and memory quiet`, () =>
    guarded(
      Promise.all([
        seedThroughApi(floorTarget.url, AUTHORIZATION, CREATE_BODY, SEEDED, load.connections),
        seedThroughApi(memoryTarget.url, AUTHORIZATION, CREATE_BODY, SEEDED, load.connections),
        seedThroughApi(quietTarget.url, AUTHORIZATION, CREATE_BODY, SEEDED, load.connections),
      ]),
    ),
  );

  // Every case of a phase in turn, round after round, so the figures a ratio compares are
  // measured seconds apart and a burst of other work spoils one round of each at most. Reads
  // form one phase (a target compares GET status with the floor's GET); POSTs come last, as
  // they add records.
  const targets: Array<[string, Target, string[]]> = [
    ['floor', floorTarget, floorIds],
    ['memory', memoryTarget, memoryIds],
    ['memory quiet', quietTarget, quietIds],
    ['json-file 100k', fileTarget, fileIds],
  ];
  const phases: Array<[string, Case[]]> = [
    [
      'GET and GET status',
      [
        ...targets.map(([server, target, ids]): Case => [`${server} GET`, target, cycledGets(ids, AUTHORIZATION, '')]),
        ...targets.map(([server, target, ids]): Case => [`${server} GET status`, target, cycledGets(ids, AUTHORIZATION, '/status')]),
      ],
    ],
    [
      'POST',
      [...targets, ['memory webhook', webhookTarget, []] as const].map(
        ([server, target]): Case => [`${server} POST`, target, creates(AUTHORIZATION, CREATE_BODY)],
      ),
    ],
  ];
  const pids = servers.map((server) => server.pid);
  // Every create on the webhook server is an event its receiver must get, warm-up ones included.
  let webhookCreates = 0;
  const countCreates = (target: Target, run: LoadRun) => {
    if (target === webhookTarget) webhookCreates += run.statusCodes['201'] ?? 0;
  };
  const cases: Record<string, CaseFigures> = {};
  for (const [phase, group] of phases) {
    const runs = new Map<string, LoadRun[]>(group.map(([name]) => [name, []]));
    await step(`measuring ${phase} (warm-up, then ${load.rounds} rounds of each case)`, async () => {
      // Warm-up answers are dropped: the JIT and the connections settle first.
      for (const [, target, request] of group) countCreates(target, await guarded(runLoad(target, request, load.connections, load.warmupSeconds, pids)));
      for (let round = 0; round < load.rounds; round++) {
        for (const [name, target, request] of group) {
          const run = await guarded(runLoad(target, request, load.connections, roundSeconds, pids));
          countCreates(target, run);
          runs.get(name)!.push(run);
        }
      }
    });
    for (const [name, caseRuns] of runs) cases[name] = summarize(caseRuns);
  }

  const loadEndedAt = performance.now();
  const drain = await step('waiting for every delivery to reach the receiver', () => waitForDeliveries(receiverUrl, webhookCreates, loadEndedAt));
  const deliveries = await step('reading the webhook server\'s delivery log', () => deliveryOutcomes(webhookTarget.url));
  const storage = await step(`measuring storage at ${RECORDS.toLocaleString('en')} records (compaction stalls, crash restarts)`, () =>
    measureStorage({ records: RECORDS, dataDir }),
  );
  const measuredRatios = ratios(cases);
  const checks = startupChecks(onFile.startup);
  const warning = noiseWarning(cases, startups);
  console.log(`\n${caseTable(cases)}\n\n${ratioTable(measuredRatios)}\n\n${startupTable(startups, checks)}\n`);
  console.log(
    `webhook deliveries: ${drain.created} creates answered 201 to the load tool (the few in flight when a round stops make events too), ${drain.received} deliveries received, the last ${drain.secondsAfterLoad.toFixed(1)} s after the load ended; the newest kept attempts: ${JSON.stringify(deliveries)}\n`,
  );
  console.log(`${storageTable(storage)}\n`);
  if (warning) console.log(`${warning}\n`);

  const failing = Object.entries(cases).filter(([, c]) => c.non2xx + c.errors + c.timeouts > 0);
  for (const [name, c] of failing) {
    const codes = JSON.stringify(c.statusCodes);
    console.error(`${name}: ${c.non2xx} non-2xx, ${c.errors} errors, ${c.timeouts} timeouts; status codes ${codes}`);
  }
  if (drain.received < drain.created) console.error(`webhook deliveries: ${drain.created - drain.received} of ${drain.created} never reached the receiver`);
  answeredErrors = failing.length > 0 || drain.received < drain.created;

  await step('stopping servers', stopAll);
  const totalSeconds = Math.round((performance.now() - benchStart) / 100) / 10;
  await writeFile(
    RESULTS_FILE,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        code,
        node: process.version,
        cpus: cpus().length,
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
        startup: startups,
        startupTargets: checks,
        webhookDeliveries: { ...drain, newestKept: deliveries },
        storage,
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
  const response = await fetch(`${url}/sandbox/v1/webhook-deliveries`, { headers: { authorization: AUTHORIZATION } });
  const { data } = (await response.json()) as { data: Array<{ status: string }> };
  const counts: Record<string, number> = {};
  for (const { status } of data) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
