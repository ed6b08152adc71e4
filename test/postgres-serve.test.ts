/**
 * `lnpr serve --database-url` as users run it, in child processes: nothing acknowledged is lost
 * to a SIGKILL, two processes migrating a new database at once both start, `--data` with it is a
 * usage error, and without it no module of the PostgreSQL client is loaded.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCliServer, type CliProcess } from './support/cli-process.js';
import { postgresAvailable, startPostgresCluster, type PostgresCluster } from './support/postgres-cluster.js';
import { freshDatabase, query } from './support/postgres-database.js';
import { createBody, KEYS } from './support/sandbox-server.js';

const available = postgresAvailable();
if (!available.ok) console.warn(`PostgreSQL suites skipped: ${available.why} (LNPR_REQUIRE_POSTGRES=1 makes this a failure)`);

const RECORDER = fileURLToPath(new URL('./support/record-postgres-loads.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'lnpr-pg-serve-'));
let cluster: PostgresCluster | undefined;
beforeAll(async () => {
  if (available.ok) cluster = await startPostgresCluster();
}, 120_000);
afterAll(() => {
  cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

async function post(url: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${KEYS.custodial}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function stop(cli: CliProcess): Promise<void> {
  cli.child.kill('SIGTERM');
  await cli.exited;
}

describe('lnpr serve without --database-url', () => {
  it('loads no module of the PostgreSQL client (and with it, does)', { timeout: 60_000 }, async () => {
    const without = join(dir, 'without.log');
    const cli = await startCliServer([], { NODE_OPTIONS: `--import ${RECORDER}`, LNPR_MODULE_LOG: without });
    expect((await post(cli.url, '/api/v1/payment-requests', createBody())).status).toBe(201);
    await stop(cli);
    expect(existsSync(without) ? readFileSync(without, 'utf8') : '').toBe('');
    if (!cluster) return;
    // The recorder sees the client when it is loaded: the check above can fail.
    const withIt = join(dir, 'with.log');
    const pg = await startCliServer(['--database-url', await freshDatabase(cluster)], { NODE_OPTIONS: `--import ${RECORDER}`, LNPR_MODULE_LOG: withIt });
    await stop(pg);
    expect(readFileSync(withIt, 'utf8')).toMatch(/node_modules\/postgres\//);
  });

  it('--data with --database-url (or their variables) exits 2 saying to give one', { timeout: 30_000 }, async () => {
    const both = runCli(['serve', '--port', '0', '--data', join(dir, 'x.json'), '--database-url', 'postgres://u@127.0.0.1:1/db']);
    expect(await both.exited).toBe(2);
    expect(both.output().stderr).toContain('--data and --database-url');
    const byEnv = runCli(['serve', '--port', '0'], { LNPR_DATA: join(dir, 'y.json'), LNPR_DATABASE_URL: 'postgres://u@127.0.0.1:1/db' });
    expect(await byEnv.exited).toBe(2);
    const notPostgres = runCli(['serve', '--port', '0', '--database-url', 'mysql://u@127.0.0.1/db']);
    expect(await notPostgres.exited).toBe(2);
    expect(notPostgres.output().stderr).toContain('--database-url must be postgres://');
  });
});

describe.skipIf(!available.ok)('lnpr serve --database-url', () => {
  it('loses no acknowledged create to a SIGKILL: 200 creates from 16 clients, kill -9, restart, all 200 readable', { timeout: 90_000 }, async () => {
    const url = await freshDatabase(cluster!);
    const first = await startCliServer(['--database-url', url]);
    const ids: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < 200) {
          next += 1;
          const res = await post(first.url, '/api/v1/payment-requests', createBody({ amount: 1_000 + next }));
          expect(res.status).toBe(201);
          ids.push(res.body.id);
        }
      }),
    );
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    const second = await startCliServer(['--database-url', url]);
    try {
      for (const id of ids) {
        const res = await fetch(`${second.url}/api/v1/payment-requests/${id}`, { headers: { authorization: `Bearer ${KEYS.custodial}` } });
        expect(res.status).toBe(200);
      }
      expect(ids.length).toBe(200);
      expect(second.output().stdout).toMatch(/storage: PostgreSQL postgres:\/\/postgres@127\.0\.0\.1:\d+\/lnpr_test_\d+_\d+ {3}payment requests: 200/);
    } finally {
      await stop(second);
    }
  });

  it('two processes creating the schema of a new database at once both start and serve', { timeout: 60_000 }, async () => {
    const url = await freshDatabase(cluster!);
    const [a, b] = await Promise.all([startCliServer(['--database-url', url]), startCliServer(['--database-url', url])]);
    try {
      expect((await post(a.url, '/api/v1/payment-requests', createBody())).status).toBe(201);
      expect((await post(b.url, '/api/v1/payment-requests', createBody())).status).toBe(201);
      const versions = await query<Array<{ version: number }>>(url, 'SELECT version FROM lnpr_schema ORDER BY version');
      expect(versions.map((row) => row.version)).toEqual([1, 2, 3]);
    } finally {
      await Promise.all([stop(a), stop(b)]);
    }
  });

  it('an unreachable database at start is a usage error (exit 2) naming the URL without its password', { timeout: 30_000 }, async () => {
    const cli = runCli(['serve', '--port', '0', '--database-url', 'postgres://u:hunter2@127.0.0.1:1/db']);
    expect(await cli.exited).toBe(2);
    expect(cli.output().stderr).toContain('postgres://u:***@127.0.0.1:1/db');
    expect(cli.output().stderr).not.toContain('hunter2');
  });
});
