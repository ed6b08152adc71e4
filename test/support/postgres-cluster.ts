/**
 * A throwaway PostgreSQL cluster for tests, from the machine's own binaries (`initdb`, `pg_ctl`,
 * `postgres` under /usr/lib/postgresql/<version>/bin or on PATH): initialised in a temporary
 * directory, started on a free loopback port with fsync on (durability is what is tested), and
 * stopped and removed afterwards. Never a mock, never Docker.
 *
 * As root, `initdb` refuses to run, so the cluster runs as the `postgres` user (its directory
 * owned by it). Where no binaries are found, `postgresAvailable()` says why, and suites skip,
 * unless `LNPR_REQUIRE_POSTGRES=1` (CI), which turns a missing PostgreSQL into a failure.
 */
import { afterAll, beforeAll } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** A running cluster: its connection URL (user `postgres`, database `postgres`, trust auth on loopback). */
export interface PostgresCluster {
  readonly url: string;
  readonly port: number;
  /** Stops the server (fast shutdown); the data stays, for `start`. */
  stop(): void;
  /** Starts it again on the same port (after `stop`; nothing if it runs): what "the database came back" looks like. */
  start(): void;
  /** Stops it and removes its directory. */
  destroy(): void;
}

/** Where the binaries are, or why there are none. */
export function findPostgresBin(): { bin: string } | { missing: string } {
  const roots = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of roots) {
    const bin = join('/usr/lib/postgresql', version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return { bin };
  }
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (onPath !== '') return { bin: onPath.replace(/\/initdb$/, '') };
  return { missing: 'no PostgreSQL binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin or on PATH' };
}

/**
 * Whether PostgreSQL tests can run here: `{ ok: true }`, or why not (the suite then skips and says
 * so). With `LNPR_REQUIRE_POSTGRES=1` a missing PostgreSQL throws instead: CI never skips them.
 */
export function postgresAvailable(): { ok: true } | { ok: false; why: string } {
  const found = findPostgresBin();
  if ('bin' in found) return { ok: true };
  if (process.env.LNPR_REQUIRE_POSTGRES === '1') throw new Error(`LNPR_REQUIRE_POSTGRES=1 but ${found.missing}`);
  return { ok: false, why: found.missing };
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a cluster binary, as the `postgres` user when we are root. */
function run(bin: string, tool: string, args: string[], mayFail = false): void {
  const command = join(bin, tool);
  const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0 && !mayFail) throw new Error(`${tool} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
}

/** Initialises and starts a fresh cluster. Call `destroy()` when done (e.g. in `afterAll`). */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const found = findPostgresBin();
  if ('missing' in found) throw new Error(found.missing);
  const { bin } = found;
  const root = mkdtempSync(join(tmpdir(), 'lnpr-pg-'));
  const data = join(root, 'data');
  const socketDir = join(root, 'socket');
  const logFile = join(root, 'server.log');
  if (isRoot) {
    // The postgres user must own its directory (initdb refuses root, and the server its data).
    chmodSync(root, 0o755);
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(root, uid, gid);
  }
  run(bin, 'initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync']);
  run(bin, 'pg_ctl', ['-D', data, 'status'], true);
  writeFileSync(join(root, 'README'), 'A throwaway cluster of lnpr-sandbox tests; removed when they end.\n');
  const port = await freePort();
  const options = [
    `-c listen_addresses=127.0.0.1`,
    `-c port=${port}`,
    `-c unix_socket_directories=${socketDir}`,
    // Durability is what is tested: fsync stays on, as in production.
    `-c fsync=on`,
    `-c max_connections=200`,
  ].join(' ');
  let running = false;
  const start = (): void => {
    if (running) return;
    if (!existsSync(socketDir)) mkdirAsOwner(socketDir);
    run(bin, 'pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '60', '-o', options, 'start']);
    running = true;
  };
  const stop = (): void => {
    if (!running) return;
    run(bin, 'pg_ctl', ['-D', data, '-w', '-t', '60', '-m', 'fast', 'stop']);
    running = false;
  };
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    destroy(): void {
      try {
        stop();
      } catch {
        // Already gone (a test killed it): the directory still goes.
        running = false;
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A directory the cluster's user can write (the socket directory). */
function mkdirAsOwner(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o755 });
  if (isRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(path, uid, gid);
  }
}

/**
 * For a PostgreSQL test file: whether the binaries are here (saying once why its suites skip if
 * not), and a cluster started before the file's tests (handed to `use`) and destroyed after them.
 */
export function postgresForFile(use: (cluster: PostgresCluster) => void): ReturnType<typeof postgresAvailable> {
  const available = postgresAvailable();
  if (!available.ok) console.warn(`PostgreSQL suites skipped: ${available.why} (LNPR_REQUIRE_POSTGRES=1 makes this a failure)`);
  let started: PostgresCluster | undefined;
  beforeAll(async () => {
    if (available.ok) use((started = await startPostgresCluster()));
  }, 120_000);
  afterAll(() => started?.destroy());
  return available;
}
