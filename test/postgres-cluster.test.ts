/**
 * The throwaway cluster the PostgreSQL suites run on: it starts from the machine's binaries,
 * answers on its port, stops and starts again with its data, and leaves nothing behind.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPostgresBin, postgresAvailable, startPostgresCluster } from './support/postgres-cluster.js';

const available = postgresAvailable();
if (!available.ok) console.warn(`PostgreSQL suites skipped: ${available.why} (LNPR_REQUIRE_POSTGRES=1 makes this a failure)`);

/** psql's answer to one statement over TCP, or its error. */
function psql(port: number, sql: string): string {
  const found = findPostgresBin();
  if (!('bin' in found)) throw new Error(found.missing);
  const result = spawnSync(join(found.bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-tAc', sql], { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim() : `error: ${result.stderr.trim()}`;
}

describe.skipIf(!available.ok)('a throwaway PostgreSQL cluster', () => {
  it('starts, keeps its data across a stop and a start, and is removed', async () => {
    const cluster = await startPostgresCluster();
    try {
      expect(cluster.url).toBe(`postgres://postgres@127.0.0.1:${cluster.port}/postgres`);
      expect(psql(cluster.port, 'CREATE TABLE kept (n int); INSERT INTO kept VALUES (42); SELECT n FROM kept').split('\n').at(-1)).toBe('42');
      cluster.stop();
      expect(psql(cluster.port, 'SELECT 1')).toMatch(/^error: /);
      cluster.start();
      expect(psql(cluster.port, 'SELECT n FROM kept')).toBe('42');
      expect(psql(cluster.port, 'SHOW fsync')).toBe('on');
    } finally {
      cluster.destroy();
    }
    expect(psql(cluster.port, 'SELECT 1')).toMatch(/^error: /);
  }, 120_000);
});

it('says why PostgreSQL suites would skip, or that they run', () => {
  const found = findPostgresBin();
  if ('bin' in found) expect(existsSync(join(found.bin, 'pg_ctl'))).toBe(true);
  else expect(found.missing).toMatch(/initdb/);
});
