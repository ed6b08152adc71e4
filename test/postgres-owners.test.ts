/**
 * Accounts and their owners on a real PostgreSQL cluster, without the CLI: the replica through
 * which an account is first used owns it; another replica is told where it is served; once the
 * owner's lock is gone, the next replica to need the account takes it over, loads its rows and
 * marks the old owner fenced, whose store then refuses every write (and its lock, taken again, says
 * it was led over); an account a store makes is its replica's in the same transaction.
 */
import postgres, { type Sql } from 'postgres';
import { describe, expect, it } from 'vitest';
import { AccountOwners } from '../src/replicas/account-owners.js';
import { LeaderLease } from '../src/replicas/leader-lease.js';
import { replicaLock } from '../src/replicas/replica-lock.js';
import { ensureSchema } from '../src/store/postgres/schema.node.js';
import { FencedError, openPostgresStore } from '../src/store/postgres/postgres-store.node.js';
import type { PaymentRequestRecord } from '../src/core/store/payment-request.js';
import { postgresForFile, type PostgresCluster } from './support/postgres-cluster.js';
import { freshDatabase, query } from './support/postgres-database.js';
import { until } from './support/waiting.js';

let cluster: PostgresCluster;
const available = postgresForFile((started) => (cluster = started));

/** A replica's lock (its own connection) and owners, adopting into a list. */
async function replicaOn(url: string, name: string) {
  const clients: Sql[] = [];
  const connect = () => {
    const sql = postgres(url, { max: 1, idle_timeout: 0, max_lifetime: null, onnotice: () => {} });
    clients.push(sql);
    return sql;
  };
  const lost: string[] = [];
  const lease = new LeaderLease(connect, { advertiseUrl: `http://${name}`, lock: replicaLock(() => `http://${name}`), onAcquired: async () => {}, onLost: (why) => lost.push(why), checkMs: 200, pollMs: 50 });
  lease.start();
  await until(() => lease.token !== undefined, 5_000);
  const adopted: Array<[string, boolean]> = [];
  const ownersSql = connect();
  const owners = new AccountOwners(ownersSql, { replicaId: () => lease.token, adopt: async (id, first) => void adopted.push([id, first]), onError: () => {} });
  return {
    id: lease.token!,
    lease,
    owners,
    adopted,
    lost,
    /** Ends every connection: to PostgreSQL this replica is gone, as after a SIGKILL. */
    async die() {
      lease.stop();
      await Promise.all(clients.map((sql) => sql.end({ timeout: 0 })));
    },
  };
}

/** A fresh database with lnpr-sandbox's schema in place. */
async function databaseWithSchema(): Promise<string> {
  const url = await freshDatabase(cluster);
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await ensureSchema(admin);
  await admin.end();
  return url;
}

const record = (id: string, accountId: string): PaymentRequestRecord =>
  ({ id, accountId, status: 'pending', amount: 1000, description: 'x', invoice: 'lnbcrt1', paymentHash: id.padEnd(64, '0'), expiresAt: '2030-01-01T00:00:00.000Z', isNwc: false, feeAmount: 5, feePercentage: 0.5, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' }) as PaymentRequestRecord;

describe.skipIf(!available.ok)('account owners (lnpr_owners)', () => {
  it('first use owns, others are told where; a dead owner is taken over and fenced; its writes are refused from then on', { timeout: 60_000 }, async () => {
    const url = await databaseWithSchema();
    const a = await replicaOn(url, 'a:1');
    const b = await replicaOn(url, 'b:2');
    const soon = () => Date.now() + 5_000;

    expect(await a.owners.place('acct_x', soon())).toEqual({ here: true });
    expect(a.adopted).toEqual([['acct_x', true]]);
    expect(await b.owners.place('acct_x', soon())).toEqual({ here: false, url: 'http://a:1' });
    expect(b.adopted).toEqual([]);

    // A's store writes for its account; then A dies (its lock goes with its connections).
    const storeA = await openPostgresStore({ url, replicaId: a.id });
    await storeA.savePaymentRequest(record('pr_a1', 'acct_x'));
    await a.die();

    // B, told to look again, takes the account over: it loads it (not first served), A is fenced.
    b.owners.forget('acct_x');
    expect(await b.owners.place('acct_x', soon())).toEqual({ here: true });
    expect(b.adopted).toEqual([['acct_x', false]]);
    expect(await query(url, `SELECT fenced FROM lnpr_replicas WHERE id = ${a.id}`)).toEqual([{ fenced: true }]);
    // B's store, adopting the account, sees what A wrote.
    const storeB = await openPostgresStore({ url, replicaId: b.id });
    expect(storeB.getPaymentRequest('pr_a1')).toBeUndefined();
    await storeB.adoptAccount('acct_x');
    expect(storeB.getPaymentRequest('pr_a1')?.accountId).toBe('acct_x');

    // A's store (a zombie that lost its connection for a while) may not write any more.
    const refused = await storeA.savePaymentRequest(record('pr_a2', 'acct_x')).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(FencedError);
    expect((await query(url, "SELECT id FROM lnpr_payment_requests WHERE id = 'pr_a2'")).length).toBe(0);
    // B writes on.
    await storeB.savePaymentRequest(record('pr_b1', 'acct_x'));

    // An account B's store makes is B's in the same transaction.
    await storeB.commit({ accounts: [{ id: 'acct_made', mode: 'custodial', keys: [], createdAt: '2026-01-01T00:00:00.000Z' } as never] });
    expect(await query(url, `SELECT replica_id FROM lnpr_owners WHERE account_id = 'acct_made'`)).toEqual([{ replica_id: String(b.id) }]);

    await Promise.all([storeA.close(), storeB.close()]);
    await b.die();
  });

  it("two replicas taking over a dead owner's accounts at once: one takes each, the other is told where, nobody live is fenced", { timeout: 60_000 }, async () => {
    const url = await databaseWithSchema();
    const a = await replicaOn(url, 'a:1');
    const b = await replicaOn(url, 'b:2');
    const c = await replicaOn(url, 'c:3');
    const accounts = Array.from({ length: 20 }, (_, index) => `acct_race_${index}`);
    for (const id of accounts) await a.owners.place(id, Date.now() + 5_000);
    await a.die();
    // Each account claimed by both at the same moment: one waits on the other's row lock.
    const placements = await Promise.all(accounts.map((id) => Promise.all([b.owners.place(id, Date.now() + 10_000), c.owners.place(id, Date.now() + 10_000)])));
    placements.forEach(([fromB, fromC], index) => {
      const taken = [fromB?.here, fromC?.here].filter(Boolean).length;
      expect([accounts[index], taken]).toEqual([accounts[index], 1]);
      // The one that did not take it is sent to the one that did.
      expect(fromB?.here ? fromC : fromB).toEqual({ here: false, url: fromB?.here ? 'http://b:2' : 'http://c:3' });
    });
    expect(await query(url, `SELECT id, fenced FROM lnpr_replicas WHERE id IN (${b.id}, ${c.id}) ORDER BY id`)).toEqual([
      { id: String(b.id), fenced: false },
      { id: String(c.id), fenced: false },
    ]);
    expect([b.lost, c.lost]).toEqual([[], []]);
    await Promise.all([b.die(), c.die()]);
  });

  it('the sweep takes over the accounts of a replica that is gone, without any request for them', { timeout: 60_000 }, async () => {
    const url = await databaseWithSchema();
    const a = await replicaOn(url, 'a:1');
    const b = await replicaOn(url, 'b:2');
    for (const id of ['acct_1', 'acct_2', 'acct_3']) await a.owners.place(id, Date.now() + 5_000);
    await a.die();
    await b.owners.sweep();
    expect(b.adopted.map(([id]) => id).sort()).toEqual(['acct_1', 'acct_2', 'acct_3']);
    expect((await query<Array<{ n: string }>>(url, `SELECT count(*) AS n FROM lnpr_owners WHERE replica_id = ${b.id}`))[0]!.n).toBe('3');
    await b.die();
  });
});
