/**
 * The sandbox on PostgreSQL (`--database-url`'s store), through the real server: everything a
 * client made survives a restart, writes share commits (group commit, counted by PostgreSQL
 * itself), a fenced write is refused and leaves nothing behind, and the conformance suite passes.
 */
import { describe, expect, it } from 'vitest';
import { openPostgresStore, type FencedError, type PostgresStore } from '../src/store/postgres/postgres-store.node.js';
import { runCli } from './support/cli-process.js';
import { postgresForFile, type PostgresCluster } from './support/postgres-cluster.js';
import { committedTransactions, freshDatabase, query } from './support/postgres-database.js';
import { createBody, KEYS, startServer, type RunningServer } from './support/sandbox-server.js';
import { startReceiver } from './support/webhook-receiver.js';

let cluster: PostgresCluster;
const available = postgresForFile((started) => (cluster = started));

/** A server on a store of the database at `url`. */
async function serverOn(url: string, options: Parameters<typeof openPostgresStore>[0] = {}): Promise<{ server: RunningServer; store: PostgresStore }> {
  const store = await openPostgresStore({ url, ...options });
  return { server: await startServer({ store }), store };
}

describe.skipIf(!available.ok)('the sandbox on PostgreSQL', () => {
  it('keeps payment requests, transitions, clocks, webhook endpoints, events, wallets and accounts across a restart', { timeout: 60_000 }, async () => {
    const url = await freshDatabase(cluster);
    const receiver = await startReceiver();
    let { server } = await serverOn(url);
    const control = (path: string, body?: unknown, key: string = KEYS.custodial) => server.api(`/sandbox/v1${path}`, { method: 'POST', key, ...(body !== undefined ? { body } : {}) });
    expect((await server.api('/sandbox/v1/webhook-endpoints', { body: { url: receiver.url } })).status).toBe(201);
    const paid = await server.create();
    // Quotes, a backslash, an astral character and NUL (which jsonb would refuse) come back exactly.
    const open = await server.create({ amount: 2_000, description: 'a "quoted" \\ back\u0000slash ⚡𝄞' });
    expect(open.description).toBe('a "quoted" \\ back\u0000slash ⚡𝄞');
    expect((await control(`/payment-requests/${paid.id}/complete`)).status).toBe(200);
    expect((await control('/clock/advance', { seconds: 3_600 })).status).toBe(200);
    const wallet = (await server.api('/sandbox/v1/wallets', { body: { balance: 4_000, name: 'kept' } })).body;
    const account = (await server.api('/sandbox/v1/accounts', { key: KEYS.admin, body: { mode: 'custodial', name: 'made through the API' } })).body;
    const theirs = (await server.api('/api/v1/payment-requests', { key: account.keys.secret, body: createBody() })).body;
    const before = {
      paid: (await server.api(`/api/v1/payment-requests/${paid.id}`)).body,
      open: (await server.api(`/api/v1/payment-requests/${open.id}`)).body,
      clock: (await server.api('/sandbox/v1/clock')).body,
      endpoints: (await server.api('/sandbox/v1/webhook-endpoints')).body,
      events: (await server.api('/sandbox/v1/events')).body,
      wallet: (await server.api(`/sandbox/v1/wallets/${wallet.id}`)).body,
      accounts: (await server.api('/sandbox/v1/accounts', { key: KEYS.admin })).body,
      theirs: (await server.api(`/api/v1/payment-requests/${theirs.id}`, { key: account.keys.secret })).body,
    };
    expect(before.paid.status).toBe('completed');
    expect(before.events.data.length).toBeGreaterThanOrEqual(3);
    await server.close();

    ({ server } = await serverOn(url));
    try {
      expect((await server.api(`/api/v1/payment-requests/${paid.id}`)).body).toEqual(before.paid);
      expect((await server.api(`/api/v1/payment-requests/${open.id}`)).body).toEqual(before.open);
      // The clock runs on: an hour ahead still, give or take the restart.
      const clockNow = Date.parse((await server.api('/sandbox/v1/clock')).body.now);
      expect(clockNow - Date.parse(before.clock.now)).toBeGreaterThanOrEqual(0);
      expect(clockNow - Date.now()).toBeGreaterThan(3_500_000);
      expect((await server.api('/sandbox/v1/webhook-endpoints')).body).toEqual(before.endpoints);
      expect((await server.api('/sandbox/v1/events')).body).toEqual(before.events);
      // The same wallet and secret; the relay in its URL is the new server's.
      const withoutRelay = (body: { nwcUrl: string }) => ({ ...body, nwcUrl: body.nwcUrl.replace(/relay=[^&]*/, '') });
      expect(withoutRelay((await server.api(`/sandbox/v1/wallets/${wallet.id}`)).body)).toEqual(withoutRelay(before.wallet));
      expect((await server.api('/sandbox/v1/accounts', { key: KEYS.admin })).body).toEqual(before.accounts);
      expect((await server.api(`/api/v1/payment-requests/${theirs.id}`, { key: account.keys.secret })).body).toEqual(before.theirs);
      // Transitions stay refused where they were made: a completed request cannot fail.
      expect((await control(`/payment-requests/${paid.id}/fail`)).status).toBe(409);
      // A reset erases the account's activity in the database too.
      expect((await control('/reset')).status).toBe(204);
    } finally {
      await server.close();
      await receiver.close();
    }
    ({ server } = await serverOn(url));
    try {
      expect((await server.api(`/api/v1/payment-requests/${paid.id}`)).status).toBe(404);
      expect(server.sandbox.store.paymentRequestsOf('acct_custodial')).toEqual([]);
      expect((await server.api(`/api/v1/payment-requests/${theirs.id}`, { key: account.keys.secret })).body).toEqual(before.theirs);
    } finally {
      await server.close();
    }
  });

  it('group-commits: 400 creates from 32 clients take far fewer transactions than creates, and each is kept', { timeout: 60_000 }, async () => {
    const url = await freshDatabase(cluster);
    const { server, store } = await serverOn(url);
    const ids: string[] = [];
    try {
      await server.create();
      const before = await committedTransactions(url);
      const storeBefore = store.stats().transactions;
      let next = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < 400) {
            next += 1;
            ids.push((await server.create()).id);
          }
        }),
      );
      const transactions = (await committedTransactions(url)) - before;
      // The store's own count, and PostgreSQL's (which also counts the probe's and the counter's own reads).
      expect(store.stats().transactions - storeBefore).toBeLessThan(400 / 3);
      expect(transactions).toBeLessThan(400 / 2);
    } finally {
      await server.close();
    }
    const [row] = await query<Array<{ n: string }>>(url, 'SELECT count(*) AS n FROM lnpr_payment_requests');
    expect(Number(row!.n)).toBe(401);
    expect(ids.length).toBe(400);
  });

  it('refuses a fenced write with 503 storage_unavailable, keeps nothing of it, and says so once', { timeout: 30_000 }, async () => {
    const url = await freshDatabase(cluster);
    const { server, store } = await serverOn(url, { fenceEpoch: 1, onFenced: (error) => fenced.push(error) });
    const fenced: FencedError[] = [];
    try {
      // No leader row: no epoch is ours.
      expect((await server.api('/api/v1/payment-requests', { body: createBody() })).body.error.code).toBe('storage_unavailable');
      expect(fenced.map((error) => [error.ownEpoch, error.currentEpoch])).toEqual([[1, null]]);
      await query(url, 'INSERT INTO lnpr_leader (id, epoch, url) VALUES (1, 1, null)');
      store.setFenceEpoch(1);
      const kept = await server.create();
      await query(url, 'UPDATE lnpr_leader SET epoch = 2');
      const refused = await server.api('/api/v1/payment-requests', { body: createBody({ amount: 4_321 }) });
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('storage_unavailable');
      expect(fenced.map((error) => [error.ownEpoch, error.currentEpoch])).toEqual([[1, null], [1, 2]]);
      // Nothing of the refused write is visible, and every later write is refused too.
      expect(store.size()).toBe(1);
      expect(store.getPaymentRequest(kept.id)).toBeDefined();
      expect((await server.api(`/sandbox/v1/payment-requests/${kept.id}/complete`, { method: 'POST' })).status).toBe(503);
      expect((await server.api(`/api/v1/payment-requests/${kept.id}`)).body.status).toBe('pending');
      expect((await server.api('/healthz', { key: null })).status).toBe(503);
    } finally {
      await server.close();
    }
    const [row] = await query<Array<{ n: string }>>(url, "SELECT count(*) AS n FROM lnpr_payment_requests WHERE data->>'status' = 'pending'");
    expect(Number(row!.n)).toBe(1);
  });

  it('passes the conformance suite, profile full, in accounts of its own (--admin-key)', { timeout: 110_000 }, async () => {
    const url = await freshDatabase(cluster);
    const { server } = await serverOn(url);
    try {
      const cli = runCli(['conformance', '--base-url', server.url, '--admin-key', KEYS.admin, '--profile', 'full']);
      const code = await cli.exited;
      expect(code, cli.output().stdout + cli.output().stderr).toBe(0);
      expect(cli.output().stdout).toContain('in accounts of its own (--admin-key), deleted at the end');
    } finally {
      await server.close();
    }
  });
});
