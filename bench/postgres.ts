/**
 * BENCH_ONLY=postgres: one `lnpr serve --database-url` against `lnpr serve --data` (both durable),
 * POST, GET and GET status in alternating rounds (medians, every round shown), and PostgreSQL's
 * CPU per acknowledged create: the utime+stime of the cluster's processes (from /proc) over 5,000
 * creates from 32 connections through one server. Starts its own throwaway cluster with the
 * tests' helper (test/support/postgres-cluster.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startPostgresCluster } from '../test/support/postgres-cluster.js';
import { creates, cycledGets, median, reqPerSecOf, runLoad, type Target } from './load.js';

const AUTH = 'Bearer sk_test_custodial';
const BODY = JSON.stringify({ amount: 1000, description: 'bench', destinationWallet: 'merchant@example.com' });
const ROUNDS = 5;
const SECONDS = 3;
const CONNECTIONS = 32;

async function startServer(args: string[]): Promise<Target & { child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--log-level', 'silent', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`lnpr serve exited ${code}`)));
  });
  return { url, pid: child.pid!, child };
}

/** Clock ticks of utime+stime of the postmaster listening on `port` and its children. */
function clusterTicks(port: number): number {
  const stats = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        return [{ pid: Number(pid), cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8'), stat: readFileSync(`/proc/${pid}/stat`, 'utf8') }];
      } catch {
        return [];
      }
    });
  const master = stats.find((p) => p.cmd.includes(`port=${port}`) && p.cmd.startsWith('/usr/lib/postgresql'));
  if (!master) throw new Error('no postmaster found');
  let ticks = 0;
  for (const p of stats) {
    const fields = p.stat.slice(p.stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    if (p.pid === master.pid || ppid === master.pid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks;
}

export async function benchPostgres(): Promise<void> {
  const cluster = await startPostgresCluster();
  const dir = mkdtempSync(join(tmpdir(), 'lnpr-bench-pg-'));
  const servers: Array<Target & { child: ChildProcess }> = [];
  try {
    const pg = await startServer(['--database-url', cluster.url]);
    const file = await startServer(['--data', join(dir, 'bench.json')]);
    servers.push(pg, file);
    const pids = servers.map((s) => s.pid);
    const idsOf = async (target: Target) => {
      const ids: string[] = [];
      for (let i = 0; i < 200; i++) {
        const res = await fetch(`${target.url}/api/v1/payment-requests`, { method: 'POST', headers: { authorization: AUTH, 'content-type': 'application/json' }, body: BODY });
        ids.push(((await res.json()) as { id: string }).id);
      }
      return ids;
    };
    const ids = new Map([[pg, await idsOf(pg)], [file, await idsOf(file)]]);
    const cases = {
      POST: (_t: Target) => creates(AUTH, BODY),
      GET: (t: Target) => cycledGets(ids.get(t as never)!, AUTH, ''),
      'GET status': (t: Target) => cycledGets(ids.get(t as never)!, AUTH, '/status'),
    } as const;
    console.log(`PostgreSQL against the JSON file (both durable): ${ROUNDS} alternating rounds of ${SECONDS} s, ${CONNECTIONS} connections`);
    console.log('| case | PostgreSQL req/s (median) | JSON file req/s (median) | ratio | rounds PostgreSQL | rounds JSON file | other load % |');
    console.log('| --- | --- | --- | --- | --- | --- | --- |');
    for (const [name, request] of Object.entries(cases)) {
      const rounds: { pg: number[]; file: number[]; other: Array<number | null> } = { pg: [], file: [], other: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const target of round % 2 === 0 ? [pg, file] : [file, pg]) {
          const run = await runLoad(target, request(target), CONNECTIONS, SECONDS, pids);
          (target === pg ? rounds.pg : rounds.file).push(reqPerSecOf(run));
          rounds.other.push(run.otherLoadPercent ?? null);
          if (run.non2xx > 0 || run.errors > 0) console.log(`  (${name} round ${round}: ${run.non2xx} non-2xx, ${run.errors} errors)`);
        }
      }
      const p = median(rounds.pg);
      const f = median(rounds.file);
      console.log(`| ${name} | ${Math.round(p)} | ${Math.round(f)} | ${(p / f).toFixed(2)}× | ${rounds.pg.join(', ')} | ${rounds.file.join(', ')} | ${rounds.other.map((o) => (o === null ? '?' : Math.round(o))).join(', ')} |`);
    }
    // PostgreSQL's CPU per acknowledged create.
    const hz = 100;
    const before = clusterTicks(cluster.port);
    const started = Date.now();
    // `amount` (a total of requests) is autocannon's, missing from its types here.
    const result = await autocannon({ url: pg.url, connections: CONNECTIONS, amount: 5_000, requests: [creates(AUTH, BODY)] } as Parameters<typeof autocannon>[0]);
    const seconds = (Date.now() - started) / 1000;
    const after = clusterTicks(cluster.port);
    const cpuUs = ((after - before) / hz) * 1e6;
    console.log(
      `PostgreSQL CPU per acknowledged create: ${Math.round(cpuUs / result['2xx'])} µs (${result['2xx']} creates answered 201 of 5,000, ` +
        `${CONNECTIONS} connections, ${Math.round(result['2xx'] / seconds)} creates/s, cluster CPU ${((after - before) / hz).toFixed(2)} s)`,
    );
  } finally {
    for (const server of servers) server.child.kill('SIGTERM');
    cluster.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}
