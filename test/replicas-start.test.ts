/**
 * Replicas starting together on a new database, in process (without the CLI): each creates or
 * finds the schema and reads the shared token, and all read the same one. Before the token's table
 * was a migration, replicas made it themselves outside the migration lock, and one start in CI
 * failed with `type "lnpr_replica_secret" already exists`.
 */
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { LeaderDirectory } from '../src/replicas/leader-directory.js';
import { ensureSchema, SCHEMA_VERSION } from '../src/store/postgres/schema.node.js';
import { postgresForFile, type PostgresCluster } from './support/postgres-cluster.js';
import { freshDatabase, query } from './support/postgres-database.js';

let cluster: PostgresCluster;
const available = postgresForFile((started) => (cluster = started));

/** What `serveReplica` does first: the schema, then the token, on a connection of its own. */
async function startOn(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await ensureSchema(sql);
    const directory = new LeaderDirectory(sql, () => undefined, () => false);
    await directory.init();
    return directory.token!;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

describe.skipIf(!available.ok)('replicas starting together', () => {
  it('thirty starts on a new database at once: each succeeds, and all read one token', { timeout: 60_000 }, async () => {
    for (let round = 0; round < 5; round++) {
      const url = await freshDatabase(cluster);
      const tokens = await Promise.all(Array.from({ length: 30 }, () => startOn(url)));
      expect(new Set(tokens).size).toBe(1);
      expect(tokens[0]).toMatch(/^[A-Za-z0-9_-]{32}$/);
      const versions = await query<Array<{ version: number }>>(url, 'SELECT version FROM lnpr_schema ORDER BY version');
      expect(versions.map((row) => row.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    }
  });

  it('a token table an older replica made itself is kept, with its token', { timeout: 60_000 }, async () => {
    const url = await freshDatabase(cluster);
    // As replicas before schema version 3 did, outside the migrations.
    await query(url, 'CREATE TABLE lnpr_replica_secret (id int primary key, token text not null)');
    await query(url, "INSERT INTO lnpr_replica_secret VALUES (1, 'an-older-token')");
    expect(await startOn(url)).toBe('an-older-token');
  });
});
