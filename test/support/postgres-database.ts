/** A fresh database per test on a throwaway cluster (postgres-cluster.ts), and a few reads of its counters. */
import postgres from 'postgres';
import type { PostgresCluster } from './postgres-cluster.js';

let made = 0;

/** Creates an empty database on the cluster; resolves with its URL. */
export async function freshDatabase(cluster: PostgresCluster): Promise<string> {
  const name = `lnpr_test_${process.pid}_${++made}`;
  const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end({ timeout: 1 });
  }
  return cluster.url.replace(/\/postgres$/, `/${name}`);
}

/** Runs one query (with `$1`… `parameters`) on the database at `url` with a short-lived client. */
export async function query<T extends readonly object[] = Array<Record<string, unknown>>>(url: string, text: string, parameters: string[] = []): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return (await sql.unsafe(text, parameters)) as unknown as T;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Transactions committed in the database so far (pg_stat_database, flushed first). */
export async function committedTransactions(url: string): Promise<number> {
  const name = new URL(url).pathname.slice(1);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // Statistics reach pg_stat_database when a backend reports them (at most every second or at its end).
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await sql`SELECT pg_stat_clear_snapshot()`;
    const [row] = await sql<Array<{ n: string }>>`SELECT xact_commit AS n FROM pg_stat_database WHERE datname = ${name}`;
    return Number(row!.n);
  } finally {
    await sql.end({ timeout: 1 });
  }
}
