/**
 * The PostgreSQL store with two write transactions in flight, on a real cluster: the row ends with
 * the last acknowledged write, a batch that fails in the middle of the pipeline leaves the index
 * equal to the tables (before and after a reopen), and rows past the kept history (events, their
 * attempts, wallet transactions) are deleted while the store runs, through the real server too.
 */
import { describe, expect, it } from 'vitest';
import type { PaymentRequestRecord } from '../src/core/store/payment-request.js';
import { StorageUnavailableError } from '../src/core/store/sandbox-store.js';
import type { DeliveryRecord, EventRecord } from '../src/core/store/webhook-records.js';
import type { WalletTransactionRecord } from '../src/core/store/wallet-records.js';
import { KEPT_EVENTS_PER_ACCOUNT } from '../src/core/events/event-log.js';
import { KEPT_TRANSACTIONS_PER_WALLET } from '../src/core/wallets/wallet-limits.js';
import { MAX_IN_FLIGHT, openPostgresStore, PRUNE_AT, type PostgresStore } from '../src/store/postgres/postgres-store.node.js';
import { testPaymentRequest } from '../src/store/testing/payment-request.js';
import { postgresForFile, type PostgresCluster } from './support/postgres-cluster.js';
import { freshDatabase, query } from './support/postgres-database.js';
import { startServer } from './support/sandbox-server.js';

let cluster: PostgresCluster;
const available = postgresForFile((started) => (cluster = started));

const quiet = { onNotice: () => {} };
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The payment requests in the table, by id. */
async function rowsOf(url: string): Promise<Map<string, PaymentRequestRecord>> {
  const rows = await query<Array<{ data: PaymentRequestRecord }>>(url, 'SELECT data FROM lnpr_payment_requests');
  return new Map(rows.map((row) => [row.data.id, row.data]));
}

/** The store's payment requests, by id. */
function viewOf(store: PostgresStore, accountId: string): Map<string, PaymentRequestRecord> {
  return new Map(store.paymentRequestsOf(accountId).map((record) => [record.id, record]));
}

async function countOf(url: string, table: string): Promise<number> {
  const [row] = await query<Array<{ n: string }>>(url, `SELECT count(*) AS n FROM ${table}`);
  return Number(row!.n);
}

/**
 * A deferred trigger runs at COMMIT: records described `slow commit` make their transaction's
 * COMMIT take 400 ms (so the next batch runs while it commits), `brief pause` 20 ms, `fail at commit` make it fail
 * there; an immediate one makes the statement writing `fail now` fail at once.
 */
async function installFaults(url: string): Promise<void> {
  await query(
    url,
    `CREATE FUNCTION lnpr_test_fault() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.data->>'description' = 'slow commit' THEN PERFORM pg_sleep(0.4); END IF;
       IF NEW.data->>'description' = 'brief pause' THEN PERFORM pg_sleep(0.02); END IF;
       IF NEW.data->>'description' = 'fail at commit' THEN PERFORM pg_sleep(0.4); RAISE EXCEPTION 'refused at commit (test)'; END IF;
       RETURN NEW;
     END $$`,
  );
  await query(
    url,
    `CREATE FUNCTION lnpr_test_fail_now() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.data->>'description' = 'fail now' THEN RAISE EXCEPTION 'refused (test)'; END IF;
       RETURN NEW;
     END $$`,
  );
  await query(url, `CREATE CONSTRAINT TRIGGER lnpr_test_fault AFTER INSERT OR UPDATE ON lnpr_payment_requests DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION lnpr_test_fault()`);
  await query(url, `CREATE TRIGGER lnpr_test_fail_now BEFORE INSERT OR UPDATE ON lnpr_payment_requests FOR EACH ROW EXECUTE FUNCTION lnpr_test_fail_now()`);
}

/** Waits until the store takes writes again (its probe reached the database). */
async function untilWritable(store: PostgresStore): Promise<void> {
  for (let i = 0; i < 100 && store.health().status !== 'ok'; i++) await sleep(50);
  expect(store.health().status).toBe('ok');
}

describe.skipIf(!available.ok)('the PostgreSQL store with transactions in flight together', () => {
  it('ends every row with the last acknowledged write, in order, with two transactions in flight', { timeout: 60_000 }, async () => {
    const url = await freshDatabase(cluster);
    let store = await openPostgresStore({ url, ...quiet });
    await installFaults(url);
    // Each transaction's COMMIT takes 20 ms or more (the first record's trigger): the next batch runs meanwhile.
    const records = Array.from({ length: 8 }, (_, i) => testPaymentRequest(i === 0 ? { description: 'brief pause' } : {}));
    const acknowledged: string[] = [];
    const writes: Array<Promise<void>> = [];
    try {
      // 8 records rewritten 60 times each, a few writes per turn: every batch rewrites rows the one before wrote.
      for (let version = 1; version <= 60; version++) {
        for (const record of records) {
          const next = { ...record, amount: version, updatedAt: new Date(Date.UTC(2025, 0, 1, 0, 0, version)).toISOString() };
          const tag = `${record.id}@${version}`;
          writes.push(store.savePaymentRequest(next).then(() => void acknowledged.push(tag)));
        }
        // A few milliseconds every third version: many transactions, the next starting while one commits.
        if (version % 3 === 0) await sleep(10);
      }
      await Promise.all(writes);
      expect(store.stats().peakInFlight).toBe(MAX_IN_FLIGHT);
      expect(store.stats().transactions).toBeGreaterThan(5);
      // Acknowledged in the order written.
      expect(acknowledged).toEqual(Array.from({ length: 60 }, (_, i) => records.map((record) => `${record.id}@${i + 1}`)).flat());
      const view = viewOf(store, 'acct_test');
      expect([...view.values()].map((record) => record.amount)).toEqual(records.map(() => 60));
      expect(await rowsOf(url)).toEqual(view);
    } finally {
      await store.close();
    }
    store = await openPostgresStore({ url, ...quiet });
    try {
      expect(viewOf(store, 'acct_test')).toEqual(await rowsOf(url));
      expect([...viewOf(store, 'acct_test').values()].map((record) => record.amount)).toEqual(records.map(() => 60));
    } finally {
      await store.close();
    }
  });

  it('a batch failing while the one before commits: that one is kept, it and what follows are refused (503), index == tables', { timeout: 60_000 }, async () => {
    const url = await freshDatabase(cluster);
    const store = await openPostgresStore({ url, ...quiet, timing: { probeEveryMs: 100 } });
    await installFaults(url);
    try {
      const kept = testPaymentRequest({ description: 'slow commit' });
      const first = store.savePaymentRequest(kept);
      // The first batch's statements have run; its COMMIT takes 400 ms.
      await sleep(150);
      const failing = store.savePaymentRequest(testPaymentRequest({ description: 'fail now' }));
      await nextTurn();
      await nextTurn();
      // Queued behind the failing batch (two are in flight).
      const behind = store.savePaymentRequest(testPaymentRequest());
      await expect(failing).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(behind).rejects.toBeInstanceOf(StorageUnavailableError);
      await first;
      expect(store.stats().peakInFlight).toBe(2);
      expect([...viewOf(store, 'acct_test').keys()]).toEqual([kept.id]);
      expect(await rowsOf(url)).toEqual(viewOf(store, 'acct_test'));
      // Writes resume by themselves, and land.
      await untilWritable(store);
      const later = testPaymentRequest();
      await store.savePaymentRequest(later);
      expect(await rowsOf(url)).toEqual(viewOf(store, 'acct_test'));
      expect(viewOf(store, 'acct_test').size).toBe(2);
    } finally {
      await store.close();
    }
    const reopened = await openPostgresStore({ url, ...quiet });
    try {
      expect(viewOf(reopened, 'acct_test')).toEqual(await rowsOf(url));
      expect(viewOf(reopened, 'acct_test').size).toBe(2);
    } finally {
      await reopened.close();
    }
  });

  it('a batch failing at COMMIT rolls back the batch already run behind it: the tables hold a prefix of the writes, index == tables', { timeout: 60_000 }, async () => {
    const url = await freshDatabase(cluster);
    const store = await openPostgresStore({ url, ...quiet, timing: { probeEveryMs: 100 } });
    await installFaults(url);
    try {
      const before = testPaymentRequest();
      await store.savePaymentRequest(before);
      const doomed = store.savePaymentRequest(testPaymentRequest({ description: 'fail at commit' }));
      await sleep(150);
      // Runs its statements while the one before commits, and must not commit once that one failed.
      const next = store.savePaymentRequest({ ...before, amount: 4_242 });
      await expect(doomed).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(next).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(store.stats().peakInFlight).toBe(2);
      // Give the second transaction time to end (it rolls back), then compare.
      await untilWritable(store);
      expect([...viewOf(store, 'acct_test').values()]).toEqual([before]);
      expect(await rowsOf(url)).toEqual(viewOf(store, 'acct_test'));
    } finally {
      await store.close();
    }
  });

  it('a transaction given up on (503) that commits after all is taken back in: index == tables', { timeout: 60_000 }, async () => {
    const url = await freshDatabase(cluster);
    const notices: string[] = [];
    const store = await openPostgresStore({ url, onNotice: (notice) => void notices.push(notice.message), timing: { writeTimeoutMs: 150, probeEveryMs: 100 } });
    await installFaults(url);
    try {
      const late = testPaymentRequest({ description: 'slow commit' });
      // Its COMMIT takes 400 ms; it is answered 503 at 150 ms.
      await expect(store.savePaymentRequest(late)).rejects.toBeInstanceOf(StorageUnavailableError);
      expect(store.getPaymentRequest(late.id)).toBeUndefined();
      await untilWritable(store);
      expect(notices.some((message) => message.includes('committed after all'))).toBe(true);
      expect(store.getPaymentRequest(late.id)).toEqual(late);
      expect(await rowsOf(url)).toEqual(viewOf(store, 'acct_test'));
    } finally {
      await store.close();
    }
  });

  it('deletes the rows of events, their attempts and wallet transactions past the kept history while running', { timeout: 60_000 }, async () => {
    const url = await freshDatabase(cluster);
    const store = await openPostgresStore({ url, ...quiet, timing: { probeEveryMs: 200 } });
    // 3 × 400 pruned rows: more than PRUNE_AT, so some go with writes, the rest when they pause.
    const over = 400;
    try {
      const event = (i: number) => ({ id: `evt_${i}`, type: 'payment_request.created', timestamp: '2025-01-01T00:00:00.000Z', data: {}, accountId: 'acct_test' }) as unknown as EventRecord;
      const attempt = (i: number) =>
        ({ id: `dlv_${i}`, event: `evt_${i}`, endpoint: 'we_1', attempt: 1, status: 'succeeded', accountId: 'acct_test' }) as unknown as DeliveryRecord;
      const transaction = (i: number) =>
        ({ id: `wtx_${i}`, walletId: 'wal_1', accountId: 'acct_test', type: 'incoming', state: 'settled', invoice: 'lnbcrt1', paymentHash: `${i}`.padStart(64, '0'), amountMsats: 1, feesPaidMsats: 0, createdAt: i }) as WalletTransactionRecord;
      const writes: Array<Promise<void>> = [];
      for (let i = 0; i < KEPT_EVENTS_PER_ACCOUNT + over; i++) {
        writes.push(store.commit({ events: [event(i)], deliveries: [attempt(i)], walletTransactions: [transaction(i)] }));
        // Chunks of 50 acknowledged one after the other: many transactions.
        if (i % 50 === 49) await Promise.all(writes.splice(0));
      }
      await Promise.all(writes);
      expect(KEPT_TRANSACTIONS_PER_WALLET).toBe(KEPT_EVENTS_PER_ACCOUNT);
      // Deleted by the writes' own transactions already, not all left for the pause.
      expect(store.stats().prunedRows).toBeGreaterThanOrEqual(PRUNE_AT);
      // The last batches' prunes go with the next transaction, or within a probe period when none comes.
      for (let i = 0; i < 50 && (await countOf(url, 'lnpr_events')) > KEPT_EVENTS_PER_ACCOUNT; i++) await sleep(100);
      expect(await countOf(url, 'lnpr_events')).toBe(KEPT_EVENTS_PER_ACCOUNT);
      expect(await countOf(url, 'lnpr_deliveries')).toBe(KEPT_EVENTS_PER_ACCOUNT);
      expect(await countOf(url, 'lnpr_wallet_transactions')).toBe(KEPT_TRANSACTIONS_PER_WALLET);
      // The oldest went, the newest stayed; the index says the same.
      const [oldest] = await query<Array<{ id: string }>>(url, 'SELECT id FROM lnpr_events ORDER BY seq LIMIT 1');
      expect(oldest!.id).toBe(`evt_${over}`);
      expect(store.eventsOf('acct_test').length).toBe(KEPT_EVENTS_PER_ACCOUNT);
      expect(store.eventsOf('acct_test').at(-1)!.id).toBe(`evt_${over}`);
      expect(store.stats().prunedRows).toBe(3 * over);
    } finally {
      await store.close();
    }
  });

  it('keeps the row of a record let go and then written anew (a wallet transaction paid after it went)', { timeout: 60_000 }, async () => {
    const url = await freshDatabase(cluster);
    const store = await openPostgresStore({ url, ...quiet, timing: { probeEveryMs: 200 } });
    const transaction = (i: number, state = 'pending') =>
      ({ id: `wtx_${i}`, walletId: 'wal_1', accountId: 'acct_test', type: 'incoming', state, invoice: 'lnbcrt1', paymentHash: `${i}`.padStart(64, '0'), amountMsats: 1, feesPaidMsats: 0, createdAt: i }) as WalletTransactionRecord;
    try {
      const writes: Array<Promise<void>> = [];
      for (let i = 0; i <= KEPT_TRANSACTIONS_PER_WALLET; i++) writes.push(store.commit({ walletTransactions: [transaction(i)] }));
      await Promise.all(writes);
      // wtx_0 went; now it is paid: written anew, it is the newest and wtx_1 goes instead.
      await store.commit({ walletTransactions: [transaction(0, 'settled')] });
      expect(store.walletTransactionsOf('wal_1')[0]!.id).toBe('wtx_0');
      for (let i = 0; i < 50 && (await countOf(url, 'lnpr_wallet_transactions')) > KEPT_TRANSACTIONS_PER_WALLET; i++) await sleep(100);
      const ids = new Set((await query<Array<{ id: string }>>(url, 'SELECT id FROM lnpr_wallet_transactions')).map((row) => row.id));
      expect(ids.size).toBe(KEPT_TRANSACTIONS_PER_WALLET);
      expect(ids.has('wtx_0')).toBe(true);
      expect(ids.has('wtx_1')).toBe(false);
      expect(ids).toEqual(new Set(store.walletTransactionsOf('wal_1').map((row) => row.id)));
    } finally {
      await store.close();
    }
  });

  it('deletes rows left past the kept history by an earlier run, soon after an open', { timeout: 60_000 }, async () => {
    const url = await freshDatabase(cluster);
    const store = await openPostgresStore({ url, ...quiet });
    await store.close();
    // As an earlier version left them: 1,100 events of one account.
    await query(
      url,
      `INSERT INTO lnpr_events (id, account_id, data) SELECT 'evt_' || i, 'acct_test', json_build_object('id', 'evt_' || i, 'accountId', 'acct_test', 'type', 'payment_request.created', 'timestamp', '2025-01-01T00:00:00.000Z', 'data', '{}'::json) FROM generate_series(1, 1100) AS i`,
    );
    const reopened = await openPostgresStore({ url, ...quiet, timing: { probeEveryMs: 200 } });
    try {
      await reopened.savePaymentRequest(testPaymentRequest());
      for (let i = 0; i < 50 && (await countOf(url, 'lnpr_events')) > KEPT_EVENTS_PER_ACCOUNT; i++) await sleep(100);
      expect(await countOf(url, 'lnpr_events')).toBe(KEPT_EVENTS_PER_ACCOUNT);
    } finally {
      await reopened.close();
    }
  });

  it('through the server: 1,100 creates in one account leave 1,000 event rows, not 1,100', { timeout: 60_000 }, async () => {
    const url = await freshDatabase(cluster);
    const store = await openPostgresStore({ url, ...quiet, timing: { probeEveryMs: 200 } });
    const server = await startServer({ store });
    try {
      let made = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (made < KEPT_EVENTS_PER_ACCOUNT + 100) {
            made += 1;
            await server.create();
          }
        }),
      );
      const events = (await server.api('/sandbox/v1/events?limit=100')).body;
      expect(events.data.length).toBeGreaterThan(0);
      for (let i = 0; i < 50 && (await countOf(url, 'lnpr_events')) > KEPT_EVENTS_PER_ACCOUNT; i++) await sleep(100);
      expect(await countOf(url, 'lnpr_events')).toBe(KEPT_EVENTS_PER_ACCOUNT);
      expect(await countOf(url, 'lnpr_payment_requests')).toBe(KEPT_EVENTS_PER_ACCOUNT + 100);
    } finally {
      await server.close();
    }
  });
});
