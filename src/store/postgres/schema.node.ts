/**
 * The PostgreSQL schema and its migrations. `lnpr_schema` records which versions are applied;
 * every start runs the missing ones in one transaction under a transaction-scoped advisory lock,
 * so replicas starting together queue behind the first and then find nothing left to do.
 * Records are JSON (`json`, not `jsonb`: jsonb refuses the NUL character, which a description may
 * hold and the API echoes exactly) keyed by the index's key, with the account (and wallet) as columns for the
 * deletes a reset or an account's removal makes, and `seq` to load them in the order first written.
 */
import type { Sql } from 'postgres';
import { RECORD_TABLES } from './change-statements.js';

/** The advisory lock key of migrations ('lnpr' as a 32-bit number): one migration at a time per database. */
export const MIGRATION_LOCK_KEY = 0x6c6e7072;

/** Each version's statements, in order; a new version is appended, never edited. */
const MIGRATIONS: ReadonlyArray<readonly string[]> = [
  [
    ...RECORD_TABLES.map(
      (table) =>
        `CREATE TABLE ${table} (id text PRIMARY KEY, account_id text NOT NULL, seq bigserial NOT NULL, data json NOT NULL` +
        (table === 'lnpr_wallet_transactions' ? ', wallet_id text NOT NULL' : '') +
        ')',
    ),
    ...RECORD_TABLES.filter((table) => table !== 'lnpr_clocks' && table !== 'lnpr_accounts').map(
      (table) => `CREATE INDEX ${table}_account ON ${table} (account_id)`,
    ),
    'CREATE INDEX lnpr_wallet_transactions_wallet ON lnpr_wallet_transactions (wallet_id)',
    // The leader's lease and fencing epoch: one row, id 1.
    'CREATE TABLE lnpr_leader (id int PRIMARY KEY DEFAULT 1 CHECK (id = 1), epoch bigint NOT NULL, url text, since timestamptz NOT NULL DEFAULT now())',
  ],
  [
    // Replicas serving accounts of their own: each registered replica (alive while it holds the
    // advisory lock (REPLICA_LOCK_SPACE, id)), and the owner of each account served so far.
    'CREATE TABLE lnpr_replicas (id bigserial PRIMARY KEY, url text NOT NULL, started timestamptz NOT NULL DEFAULT now(), fenced boolean NOT NULL DEFAULT false)',
    'CREATE TABLE lnpr_owners (account_id text PRIMARY KEY, replica_id bigint NOT NULL)',
    'CREATE INDEX lnpr_owners_replica ON lnpr_owners (replica_id)',
  ],
  [
    // The replicas' shared token (one row, id 1). IF NOT EXISTS: replicas before this version made
    // the table themselves, outside the migration lock (and could race each other doing it).
    'CREATE TABLE IF NOT EXISTS lnpr_replica_secret (id int PRIMARY KEY, token text NOT NULL)',
  ],
];

/** The schema version this code reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Thrown when the database was migrated by a newer lnpr-sandbox than this one. */
export class SchemaTooNewError extends Error {
  constructor(found: number) {
    super(`the database's lnpr-sandbox schema is version ${found}, newer than this lnpr-sandbox's (${SCHEMA_VERSION}): upgrade lnpr-sandbox`);
    this.name = 'SchemaTooNewError';
  }
}

/** Creates or migrates the schema; safe to call from many processes at once. Resolves to the version now in place. */
export async function ensureSchema(sql: Sql): Promise<number> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
    await tx.unsafe('CREATE TABLE IF NOT EXISTS lnpr_schema (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const [row] = await tx<Array<{ version: number | null }>>`SELECT max(version) AS version FROM lnpr_schema`;
    const current = row?.version ?? 0;
    if (current > SCHEMA_VERSION) throw new SchemaTooNewError(current);
    for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
      for (const statement of MIGRATIONS[version - 1]!) await tx.unsafe(statement);
      await tx`INSERT INTO lnpr_schema (version) VALUES (${version})`;
    }
    return SCHEMA_VERSION;
  });
}
