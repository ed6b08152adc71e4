/**
 * What the `--data FILE` store costs at scale (issue 8): how long the event loop stalls while the
 * journal is folded into a data file of 100,000 records (compaction), and how long a restart
 * takes after a crash left behind the fullest journal the compaction threshold lets build up.
 *
 * `npx tsx bench/storage.ts [RECORDS [ROUNDS]]` builds dist/ and prints a table; the full bench
 * calls `measureStorage` (after its own build). The compaction is measured in a child process
 * running the store in-process (this file again, as `compaction-probe`): the bench's own heap,
 * full of prefill garbage, must not add its collector pauses to the figure. Restarts are timed
 * as users see them: spawn of the compiled `lnpr serve --data FILE` to the first 200 on a record
 * that only the journal holds, so the figure includes the replay. Other work on the machine
 * stretches every figure here: the table shows how much of it there was.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { copyFile as copyFileInPageCache, mkdir, mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { newPaymentRequestId } from '../src/core/ids.js';
import type { PaymentRequestRecord } from '../src/core/store/payment-request.js';
import { cryptoRandom } from '../src/core/random.js';
import { formatJournalLine } from '../src/store/journal-entry.js';
import { compactionThreshold, openJsonFileStore, type JsonFileStore } from '../src/store/json-file-store.node.js';
import { otherLoadPercent, sampleCpu } from './machine-load.js';
import { writePrefilledDataFile } from './prefill.js';
import { REPO_ROOT } from './server-process.js';
import { startTimed } from './startup.js';

/** No single stall of the event loop during a compaction may be longer than this. */
export const COMPACTION_STALL_LIMIT_MS = 50;
/** Spawn to first 200 after a crash with a full journal, at 100,000 records. */
export const CRASH_RESTART_LIMIT_MS = 1500;

const AUTHORIZATION = 'Bearer sk_test_custodial';
const SERVE_FLAGS = ['--log-level', 'warn'];
/** Writers during a compaction, each awaiting its write before the next: like 10 connections. */
const STEADY_WRITERS = 10;
/** Writes issued at once while filling the journal up to the threshold (one group commit each). */
const FILL_BATCH = 1_000;
/** Compactions measured, and restarts of each kind timed (their median is reported). */
const DEFAULT_ROUNDS = 3;

/** One compaction, watched from inside the process that runs it. */
export interface CompactionRound {
  /** Records in the snapshot it wrote. */
  records: number;
  /** From the write that started it to its end (data file renamed, journals deleted). */
  durationMs: number;
  /** Longest event-loop delay from just before it started to its end (monitorEventLoopDelay). */
  maxEventLoopDelayMs: number;
  /** Slowest write (apply + journal append + fdatasync) issued meanwhile. */
  maxWriteLatencyMs: number;
  /** Writes acknowledged meanwhile. */
  writes: number;
  /** Share of the machine other processes took meanwhile (null: unknown): stalls grow with it. */
  otherLoadPercent: number | null;
}

/** A timed start of `lnpr serve --data FILE`, in ms from spawn. */
export interface StartFigures {
  /** Median over the rounds. */
  firstRecordMs: number;
  roundsMs: number[];
  /** CPU time of the server until its first 200, median (null: unknown). */
  cpuMs: number | null;
  /** The most other processes took of the machine in any round (null: unknown). */
  otherLoadPercent: number | null;
}

/** A figure against its target. */
export interface StorageCheck {
  name: string;
  value: number;
  atMost: number;
  pass: boolean;
}

/** What measureStorage reports. */
export interface StorageFigures {
  records: number;
  compaction: {
    /** Journal entries between two compactions at this size (the threshold). */
    entriesBetween: number;
    /** Worst over the rounds: the figure the target is about. */
    maxEventLoopDelayMs: number;
    maxWriteLatencyMs: number;
    /** Median over the rounds. */
    durationMs: number;
    rounds: CompactionRound[];
  };
  /** `records` in the snapshot and `journalEntries` new records in the journal, as a crash leaves them. */
  crashRestart: StartFigures & {
    journalEntries: number;
    journalBytes: number;
    dataFileBytes: number;
    /** openJsonFileStore on the same files in a fresh process, median: the store's share of the start. */
    openInProcessMs: number;
  };
  /** The same snapshot without a journal: what the replay adds to. */
  cleanStart: StartFigures;
  checks: StorageCheck[];
}

/** Options of measureStorage. */
export interface StorageOptions {
  /** Records in the data file (the targets are for 100,000). */
  records: number;
  /** A scratch directory; its files are left for the caller to delete. */
  dataDir: string;
  /** Compactions measured and restarts timed; 3 by default. */
  rounds?: number;
}

/** Measures compaction stalls and crash restarts; expects dist/ to be built (`npm run build`). */
export async function measureStorage(options: StorageOptions): Promise<StorageFigures> {
  const { records, dataDir } = options;
  const rounds = options.rounds ?? DEFAULT_ROUNDS;
  const snapshotFile = join(dataDir, 'storage-snapshot.json');
  const ids = await writePrefilledDataFile(snapshotFile, records);
  const idsFile = join(dataDir, 'storage-ids.json');
  await writeFile(idsFile, JSON.stringify(ids));

  const compactionDir = await freshDir(dataDir, 'compaction');
  await copyFile(snapshotFile, join(compactionDir, 'sandbox.json'));
  const compactionRounds = await runProbe<CompactionRound[]>([
    'compaction-probe',
    join(compactionDir, 'sandbox.json'),
    idsFile,
    String(rounds),
  ]);

  // The fullest journal the threshold allows: one entry more starts a compaction.
  const journalEntries = compactionThreshold(records);
  const crashSource = await freshDir(dataDir, 'crash-source');
  await copyFile(snapshotFile, join(crashSource, 'sandbox.json'));
  const journalRecord = await writeJournalOfCreates(join(crashSource, 'sandbox.json.journal'), snapshotFile, journalEntries);

  const cleanRuns: StartRun[] = [];
  const crashRuns: StartRun[] = [];
  const crashOpensMs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternated, so a burst of other work on the machine spoils one of each at most.
    const clean = await freshDir(dataDir, `clean-${round}`);
    await copyFile(snapshotFile, join(clean, 'sandbox.json'));
    cleanRuns.push(await timeStart(join(clean, 'sandbox.json'), ids.at(-1)!));
    const crashed = await freshDir(dataDir, `crash-${round}`);
    await copyFile(join(crashSource, 'sandbox.json'), join(crashed, 'sandbox.json'));
    await copyFile(join(crashSource, 'sandbox.json.journal'), join(crashed, 'sandbox.json.journal'));
    crashRuns.push(await timeStart(join(crashed, 'sandbox.json'), journalRecord));
    // Each start's shutdown wrote a data file of its own: only the time was wanted.
    await Promise.all([rm(clean, { recursive: true }), rm(crashed, { recursive: true })]);
    const opened = await freshDir(dataDir, `open-${round}`);
    await copyFile(join(crashSource, 'sandbox.json'), join(opened, 'sandbox.json'));
    await copyFile(join(crashSource, 'sandbox.json.journal'), join(opened, 'sandbox.json.journal'));
    crashOpensMs.push((await runProbe<{ openMs: number }>(['open-probe', join(opened, 'sandbox.json'), journalRecord])).openMs);
    await rm(opened, { recursive: true });
  }

  const maxEventLoopDelayMs = Math.max(...compactionRounds.map((r) => r.maxEventLoopDelayMs));
  const crashRestart = {
    ...startFigures(crashRuns),
    journalEntries,
    journalBytes: (await stat(join(crashSource, 'sandbox.json.journal'))).size,
    dataFileBytes: (await stat(snapshotFile)).size,
    openInProcessMs: median(crashOpensMs),
  };
  return {
    records,
    compaction: {
      entriesBetween: compactionThreshold(records),
      maxEventLoopDelayMs,
      maxWriteLatencyMs: Math.max(...compactionRounds.map((r) => r.maxWriteLatencyMs)),
      durationMs: median(compactionRounds.map((r) => r.durationMs)),
      rounds: compactionRounds,
    },
    crashRestart,
    cleanStart: startFigures(cleanRuns),
    checks: [
      check('longest event-loop stall during a compaction', maxEventLoopDelayMs, COMPACTION_STALL_LIMIT_MS),
      check('restart after a crash with a full journal (spawn to first 200)', crashRestart.firstRecordMs, CRASH_RESTART_LIMIT_MS),
    ],
  };
}

/** The figures as a table, for the console. */
export function storageTable(figures: StorageFigures): string {
  const { compaction, crashRestart, cleanStart } = figures;
  const n = (value: number) => Math.round(value).toLocaleString('en');
  const rows = [
    ['figure', 'measured', 'target'],
    ['---', '---', '---'],
    [
      `longest event-loop stall during a compaction of ${n(figures.records)} records`,
      `${n(compaction.maxEventLoopDelayMs)} ms (rounds: ${compaction.rounds.map((r) => n(r.maxEventLoopDelayMs)).join(', ')})`,
      `< ${COMPACTION_STALL_LIMIT_MS} ms`,
    ],
    ['slowest write acknowledged during it', `${n(compaction.maxWriteLatencyMs)} ms`, ''],
    ['compaction duration (median)', `${n(compaction.durationMs)} ms`, ''],
    ['journal entries between compactions', n(compaction.entriesBetween), ''],
    [
      `restart after a crash: ${n(figures.records)} records + a journal of ${n(crashRestart.journalEntries)} creates ` +
        `(${n(crashRestart.journalBytes / 1e6)} MB)`,
      `${n(crashRestart.firstRecordMs)} ms (rounds: ${crashRestart.roundsMs.map(n).join(', ')})`,
      `< ${n(CRASH_RESTART_LIMIT_MS)} ms`,
    ],
    [
      '  of which opening the store (openJsonFileStore in a fresh process, median)',
      `${n(crashRestart.openInProcessMs)} ms`,
      '',
    ],
    [
      `clean start: the same ${n(crashRestart.dataFileBytes / 1e6)} MB data file, no journal`,
      `${n(cleanStart.firstRecordMs)} ms (rounds: ${cleanStart.roundsMs.map(n).join(', ')})`,
      '',
    ],
  ];
  const loads = [
    `compactions ${compaction.rounds.map((r) => r.otherLoadPercent ?? '?').join(', ')}`,
    `restarts after a crash up to ${crashRestart.otherLoadPercent ?? '?'}`,
    `clean starts up to ${cleanStart.otherLoadPercent ?? '?'}`,
  ];
  rows.push(['other load on the machine meanwhile, %', loads.join('; '), '']);
  const verdicts = figures.checks.map((c) => `${c.pass ? 'met' : 'MISSED'}: ${c.name} ${n(c.value)} ms (target < ${n(c.atMost)} ms)`);
  return `${rows.map((row) => `| ${row.join(' | ')} |`).join('\n')}\n\n${verdicts.join('\n')}`;
}

function check(name: string, value: number, atMost: number): StorageCheck {
  return { name, value, atMost, pass: value < atMost };
}

/**
 * Copies a file and flushes the copy to the disk, as the files a crash leaves behind are (the
 * journal is fdatasynced): otherwise the server's first fsync (its lock file's) would pay for
 * writing out ~100 MB of copies and be timed as start-up.
 */
async function copyFile(from: string, to: string): Promise<void> {
  await copyFileInPageCache(from, to);
  const handle = await open(to, 'r');
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

async function freshDir(parent: string, name: string): Promise<string> {
  const path = join(parent, name);
  await rm(path, { recursive: true, force: true });
  await mkdir(path, { recursive: true });
  return path;
}

/** Starts the compiled server on `dataFile`, times it to the first 200 on `recordId`, stops it. */
async function timeStart(dataFile: string, recordId: string): Promise<StartRun> {
  const recordPath = `/api/v1/payment-requests/${recordId}`;
  const { server, startup } = await startTimed('storage', ['--data', dataFile, ...SERVE_FLAGS], {
    authorization: AUTHORIZATION,
    recordPath,
  });
  await server.stop();
  return { ms: startup.firstRecordMs!, cpuMs: startup.cpuMs, otherLoadPercent: startup.otherLoadPercent };
}

interface StartRun {
  ms: number;
  cpuMs: number | null;
  otherLoadPercent: number | null;
}

function startFigures(runs: StartRun[]): StartFigures {
  const cpu = runs.map((r) => r.cpuMs);
  const load = runs.map((r) => r.otherLoadPercent);
  return {
    firstRecordMs: median(runs.map((r) => r.ms)),
    roundsMs: runs.map((r) => r.ms),
    cpuMs: cpu.every((ms) => ms !== null) ? median(cpu as number[]) : null,
    otherLoadPercent: load.every((p) => p !== null) ? Math.max(...(load as number[])) : null,
  };
}

/**
 * Writes a journal of `count` creates following the prefilled snapshot (sequence 0), as a crash
 * leaves it: the records are new, unlike the snapshot's, and shaped like them. Returns the last
 * record's id, which only a replay can serve.
 */
async function writeJournalOfCreates(path: string, snapshotFile: string, count: number): Promise<string> {
  const template = (JSON.parse(await readFile(snapshotFile, 'utf8')) as { paymentRequests: PaymentRequestRecord[] })
    .paymentRequests[0]!;
  const handle = await open(path, 'w');
  let lastId = '';
  try {
    for (let start = 0; start < count; start += FILL_BATCH) {
      let chunk = '';
      for (let seq = start + 1; seq <= Math.min(count, start + FILL_BATCH); seq++) {
        const preimage = randomBytes(32);
        const record: PaymentRequestRecord = {
          ...template,
          id: newPaymentRequestId(cryptoRandom),
          metadata: { orderId: `journal-${seq}` },
          paymentHash: createHash('sha256').update(preimage).digest('hex'),
          preimage: preimage.toString('hex'),
        };
        chunk += formatJournalLine({ seq, op: 'put', record });
        lastId = record.id;
      }
      await handle.write(chunk);
    }
  } finally {
    await handle.close();
  }
  return lastId;
}

/** Runs this file as a probe (`compaction-probe` or `open-probe`) in a child process; resolves with what it prints. */
function runProbe<T>(args: string[]): Promise<T> {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code === 0 && /^[[{]/.test(last)) resolve(JSON.parse(last) as T);
      else reject(new Error(`${args[0]} exited ${code}:\n${stderr.slice(-4000)}`));
    });
  });
}

/**
 * The child side: opens the store on `dataFile`, then `rounds` times fills the journal up to
 * just under the threshold (updates of existing records, so the count stays put), and watches
 * one compaction under a steady load of writes. Prints the rounds as one JSON line.
 */
async function compactionProbe(dataFile: string, idsFile: string, rounds: number): Promise<void> {
  const ids = JSON.parse(await readFile(idsFile, 'utf8')) as string[];
  const store = await openJsonFileStore(dataFile);
  let next = 0;
  const update = () => {
    const id = ids[next++ % ids.length]!;
    const record = store.getPaymentRequest(id)!;
    return store.savePaymentRequest({ ...record, updatedAt: new Date().toISOString() });
  };
  const results: CompactionRound[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const threshold = compactionThreshold(store.size());
      // Fill fast, in big group commits, to a little below the threshold; the steady writers
      // below cross it, as a server's requests would.
      while (store.stats().journalEntries < threshold - FILL_BATCH) {
        await Promise.all(Array.from({ length: FILL_BATCH }, update));
      }
      results.push(await watchCompaction(store, update));
    }
  } finally {
    await store.close();
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

/**
 * The other child: times openJsonFileStore on a crash's files, checks the journal's last record
 * is served, and exits without closing (a close would compact: not what is timed).
 */
async function openProbe(dataFile: string, recordId: string): Promise<void> {
  const start = performance.now();
  const store = await openJsonFileStore(dataFile);
  const openMs = Math.round(performance.now() - start);
  if (!store.getPaymentRequest(recordId)) throw new Error(`open-probe: ${recordId} was not replayed`);
  process.stdout.write(`${JSON.stringify({ openMs })}\n`, () => process.exit(0));
}

async function watchCompaction(store: JsonFileStore, update: () => Promise<void>): Promise<CompactionRound> {
  const compactionsBefore = store.stats().compactions;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const cpuBefore = sampleCpu([]);
  let startedAt = 0;
  let endedAt = 0;
  let maxWriteLatencyMs = 0;
  let writes = 0;
  const writer = async () => {
    while (endedAt === 0) {
      const begin = performance.now();
      await update();
      const end = performance.now();
      if (startedAt !== 0) {
        maxWriteLatencyMs = Math.max(maxWriteLatencyMs, end - begin);
        writes += 1;
      }
      const stats = store.stats();
      if (startedAt === 0 && (stats.compacting || stats.compactions > compactionsBefore)) startedAt = begin;
      if (startedAt !== 0 && endedAt === 0 && !stats.compacting) endedAt = end;
    }
  };
  await Promise.all(Array.from({ length: STEADY_WRITERS }, writer));
  delay.disable();
  const otherLoad = otherLoadPercent(cpuBefore, sampleCpu([]));
  return {
    records: store.size(),
    durationMs: Math.round(endedAt - startedAt),
    maxEventLoopDelayMs: round1(delay.max / 1e6),
    maxWriteLatencyMs: round1(maxWriteLatencyMs),
    writes,
    otherLoadPercent: otherLoad ?? null,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Standalone: build dist/, measure, print. */
async function main(args: string[]): Promise<void> {
  if (args[0] === 'compaction-probe') {
    const [, dataFile, idsFile, rounds] = args;
    return compactionProbe(dataFile!, idsFile!, Number(rounds));
  }
  if (args[0] === 'open-probe') return openProbe(args[1]!, args[2]!);
  const records = Number(args[0] ?? 100_000);
  const rounds = Number(args[1] ?? DEFAULT_ROUNDS);
  process.stdout.write('building dist/ (npm run build)... ');
  try {
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT });
    console.log('done');
  } catch (error) {
    // tsc still emits on type errors (another change in progress elsewhere); say so and go on.
    console.log(`type errors, emitted anyway:\n${(error as { stdout?: string }).stdout ?? (error as Error).message}`);
  }
  await mkdir(join(REPO_ROOT, 'bench', '.data'), { recursive: true });
  const dataDir = await mkdtemp(join(REPO_ROOT, 'bench', '.data', 'storage-'));
  try {
    console.log(`measuring storage at ${records.toLocaleString('en')} records in ${dataDir}...`);
    const figures = await measureStorage({ records, dataDir, rounds });
    console.log(`\n${storageTable(figures)}`);
    console.log(`\n${JSON.stringify(figures)}`);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`storage bench FAILED: ${(error as Error).stack ?? String(error)}`);
    process.exitCode = 1;
  });
}
