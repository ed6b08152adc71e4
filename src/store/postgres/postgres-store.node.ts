/**
 * The `--database-url` store: the sandbox in PostgreSQL. Reads come from the in-memory index, as
 * in every store; each write is applied there at once and acknowledged once its transaction has
 * committed. Writes are group-committed: those made while a transaction is in flight (or in the
 * same turn of the event loop) share the next one, so one COMMIT serves many writes.
 *
 * Like the JSON file store, a write the database refuses leaves nothing behind: a second index,
 * fed only with what committed, replaces the one reads come from, the refused batch and every
 * write queued behind it are answered with StorageUnavailableError (503), and new writes are
 * refused at once until a probe (every second) reaches the database again. While idle, the same
 * probe runs every second, so `health()` turns unavailable within a few seconds of the database
 * going away, and back to ok by itself once it answers.
 *
 * Fencing: given `fenceEpoch`, every write transaction first reads `lnpr_leader`'s epoch (FOR
 * SHARE, so a takeover waits for it) and is refused with FencedError if another process has taken
 * the lease since; `onFenced` hears it, and the store refuses writes from then on.
 */
import postgres, { type Sql, type TransactionSql } from 'postgres';
import { StorageUnavailableError, type ClockState, type SandboxStore, type StorageHealth, type StoreChange } from '../../core/store/sandbox-store.js';
import type { PaymentRequestRecord } from '../../core/store/payment-request.js';
import { copyOf, indexOf, snapshotOf } from '../index-snapshot.js';
import { indexReads, type StoreReads } from '../index-reads.js';
import { applyJournalEntry, type JournalEntry } from '../journal-entry.js';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from '../snapshot-format.js';
import type { StoreIndex } from '../store-index.js';
import { printStoreNotice, type StoreNotice } from '../store-notice.js';
import { statementsOf, type Statement } from './change-statements.js';
import { FencedError } from './fenced-error.js';
import { ensureSchema } from './schema.node.js';

export { FencedError } from './fenced-error.js';
export { ensureSchema, SCHEMA_VERSION, SchemaTooNewError } from './schema.node.js';

/** How the store reaches PostgreSQL, and who hears what. */
export interface PostgresStoreOptions {
  /** `postgres://USER[:PASSWORD]@HOST:PORT/DB`; or give `sql`. */
  url?: string;
  /** A client to use instead of one made from `url`; the store does not end it on close. */
  sql?: Sql;
  /** Connections of the client made from `url` (default 4: writes use one at a time). */
  maxConnections?: number;
  /** Write only while `lnpr_leader.epoch` is this (see setFenceEpoch); absent: no fencing. */
  fenceEpoch?: number;
  /** Hears a write refused because another process holds the lease now. */
  onFenced?: (error: FencedError) => void;
  /**
   * This process is the replica with this id in `lnpr_replicas`, serving the accounts it owns
   * (`lnpr_owners`): the store opens with the accounts' records only and loads an account's rows
   * when `adoptAccount` is called; accounts it makes are owned by it in the same transaction; and
   * a write is refused (FencedError) once another replica has marked it `fenced` (it took some of
   * its accounts over, believing it gone).
   */
  replicaId?: number;
  /** Hears writes failing and taken again; default: a line on stderr. */
  onNotice?: (notice: StoreNotice) => void;
  /** Time bounds (ms), for tests: a probe's answer, a write transaction's, the probe's period. */
  timing?: Partial<PostgresStoreTiming>;
}

export interface PostgresStoreTiming {
  /** How often the database is probed while no write succeeded lately, and during an outage. */
  probeEveryMs: number;
  /** A probe not answered within this is a failure. */
  probeTimeoutMs: number;
  /** A write transaction not committed within this is refused (its outcome is then unknown). */
  writeTimeoutMs: number;
}

/** How long closing waits for a write the database has not answered yet. */
const CLOSE_GRACE_MS = 2_000;

const DEFAULT_TIMING: PostgresStoreTiming = { probeEveryMs: 1_000, probeTimeoutMs: 2_000, writeTimeoutMs: 10_000 };

/** Counters for tests and measurements. */
export interface PostgresStoreStats {
  /** Write transactions committed; each carries every write queued when it started. */
  transactions: number;
  /** Writes made durable. */
  writes: number;
}

/** A SandboxStore in PostgreSQL, with its client. */
export interface PostgresStore extends SandboxStore {
  /** The client, for the lease and anything else that shares the database. */
  readonly sql: Sql;
  health(): StorageHealth;
  stats(): PostgresStoreStats;
  /** Writes from now on check this epoch (undefined: no fencing). */
  setFenceEpoch(epoch: number | undefined): void;
  /**
   * Loads the account's rows (with `replicaId`, once this replica owns it): its payment requests,
   * clock, events, endpoints, deliveries, wallets and their transactions join the index.
   */
  adoptAccount(accountId: string): Promise<void>;
  close(): Promise<void>;
}

/** The tables' contents loaded at open, and the order of their rows (first written first). */
const LOAD_QUERIES = {
  paymentRequests: 'SELECT data FROM lnpr_payment_requests ORDER BY seq',
  clocks: 'SELECT id, data FROM lnpr_clocks ORDER BY seq',
  endpoints: 'SELECT data FROM lnpr_endpoints ORDER BY seq',
  events: 'SELECT data FROM lnpr_events ORDER BY seq',
  deliveries: 'SELECT data FROM lnpr_deliveries ORDER BY seq',
  accounts: 'SELECT data FROM lnpr_accounts ORDER BY seq',
  wallets: 'SELECT data FROM lnpr_wallets ORDER BY seq',
  walletTransactions: 'SELECT data FROM lnpr_wallet_transactions ORDER BY seq',
} as const;

/**
 * Connects, creates or migrates the schema, and loads everything into the index. Rejects if the
 * database cannot be reached (within about 10 s) or its schema is newer than this code's.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const ownsClient = options.sql === undefined;
  const sql = options.sql ?? createClient(options);
  try {
    await ensureSchema(sql);
    const index = await loadIndex(sql, options.replicaId === undefined ? undefined : null);
    return new PgStore(sql, ownsClient, index, options);
  } catch (error) {
    if (ownsClient) await sql.end({ timeout: 1 }).catch(() => {});
    throw error;
  }
}

/**
 * Seconds before a client's next connection attempt after `retries` failed ones: postgres.js's own
 * grows to 20 s (3^retries / 100), so after a few seconds of outage a client would reach the
 * database again only seconds after its return. Capped at half a second (a refused connection is
 * cheap), jittered so replicas do not knock in step.
 */
export function reconnectBackoff(retries: number): number {
  return (0.5 + Math.random() / 2) * Math.min(0.05 * 2 ** retries, 0.5);
}

/** A client whose every wait is bounded: a request that must write is answered, never left hanging. */
export function createClient(options: Pick<PostgresStoreOptions, 'url' | 'maxConnections'>): Sql {
  if (options.url === undefined) throw new Error('openPostgresStore: give `url` or `sql`');
  return postgres(options.url, {
    max: options.maxConnections ?? 4,
    // Seconds: an unreachable database fails a query within this rather than queueing it.
    connect_timeout: 5,
    backoff: reconnectBackoff,
    idle_timeout: 0,
    onnotice: () => {},
    connection: {
      application_name: 'lnpr-sandbox',
      // The server ends a statement or an abandoned transaction itself, too.
      statement_timeout: 15_000,
      idle_in_transaction_session_timeout: 15_000,
    },
  });
}

/**
 * Everything in the tables, as an index; or one account's rows (`accountId`), or only the accounts'
 * records (null: a replica before it owns any account).
 */
async function loadIndex(sql: Sql, accountId?: string | null): Promise<StoreIndex> {
  const rows = async <T>(query: string): Promise<T[]> => {
    if (accountId === null) return [];
    if (accountId === undefined) return sql.unsafe<T[]>(query);
    return sql.unsafe<T[]>(query.replace(' ORDER BY seq', ' WHERE account_id = $1 ORDER BY seq'), [accountId]);
  };
  const data = async (query: string) => (await rows<{ data: never }>(query)).map((row) => row.data);
  const clocks = await rows<{ id: string; data: ClockState }>(LOAD_QUERIES.clocks);
  return indexOf({
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    sequence: 0,
    paymentRequests: await data(LOAD_QUERIES.paymentRequests),
    clocks: Object.fromEntries(clocks.map((row) => [row.id, row.data])),
    endpoints: await data(LOAD_QUERIES.endpoints),
    events: await data(LOAD_QUERIES.events),
    deliveries: await data(LOAD_QUERIES.deliveries),
    accounts: accountId === undefined || accountId === null ? (await sql.unsafe<Array<{ data: never }>>(LOAD_QUERIES.accounts)).map((row) => row.data) : [],
    wallets: await data(LOAD_QUERIES.wallets),
    walletTransactions: await data(LOAD_QUERIES.walletTransactions),
  });
}

/**
 * The SQL of a statement, and its parameters: columns as text arrays, each record as its JSON
 * text. Not one JSON document unpacked in SQL: PostgreSQL's JSON functions refuse the escaped NUL
 * character (`\u0000`), which a description may hold and the API echoes; a cast of text to `json`
 * only checks it.
 */
function statementSql(statement: Statement): { text: string; params: string[][] } {
  const { table } = statement;
  switch (statement.kind) {
    case 'upsert': {
      const rows = Array.from(statement.rows.values());
      const wallet = table === 'lnpr_wallet_transactions';
      const params = [rows.map((row) => row.k), rows.map((row) => row.a), rows.map((row) => JSON.stringify(row.d))];
      if (wallet) params.push(rows.map((row) => row.w ?? ''));
      return {
        text:
          `INSERT INTO ${table} (id, account_id, data${wallet ? ', wallet_id' : ''}) ` +
          `SELECT k, a, d::json${wallet ? ', w' : ''} FROM unnest($1::text[], $2::text[], $3::text[]${wallet ? ', $4::text[]' : ''}) ` +
          `WITH ORDINALITY AS t(k, a, d${wallet ? ', w' : ''}, n) ORDER BY n ` +
          `ON CONFLICT (id) DO UPDATE SET account_id = EXCLUDED.account_id, data = EXCLUDED.data${wallet ? ', wallet_id = EXCLUDED.wallet_id' : ''}`,
        params,
      };
    }
    case 'deleteById':
    case 'deleteByAccount':
    case 'deleteByWallet': {
      const column = { deleteById: 'id', deleteByAccount: 'account_id', deleteByWallet: 'wallet_id' }[statement.kind];
      return { text: `DELETE FROM ${table} WHERE ${column} = ANY($1::text[])`, params: [Array.from(statement.ids)] };
    }
  }
}

interface QueuedWrite {
  entry: JournalEntry;
  resolve(): void;
  reject(error: Error): void;
}

/** A time writes are refused: since when and why. */
interface Outage {
  since: number;
  cause: string;
}

// The reads are the index's, as in every store: assigned in the constructor (and on a rollback).
interface PgStore extends StoreReads {}

class PgStore implements PostgresStore {
  readonly sql: Sql;
  readonly #ownsClient: boolean;
  readonly #options: PostgresStoreOptions;
  readonly #timing: PostgresStoreTiming;
  readonly #onNotice: (notice: StoreNotice) => void;
  /** What reads see: every write made, committed or not yet. */
  #index: StoreIndex;
  /** What the database holds: only committed writes; what a refused write rolls back to (made at the first write). */
  #durable: StoreIndex | null = null;
  #sequence = 0;
  #queue: QueuedWrite[] = [];
  #draining: Promise<void> | null = null;
  #fenceEpoch: number | undefined;
  #fenced: FencedError | null = null;
  #outage: Outage | null = null;
  /** When the database last answered (a commit or a probe). */
  #lastAnswerAt = Date.now();
  #probeTimer: ReturnType<typeof setInterval>;
  #probing = false;
  #closing: Promise<void> | null = null;
  /** Refuses the write transaction in flight (set while one is). */
  #abandon: ((error: Error) => void) | undefined;
  #transactions = 0;
  #writes = 0;

  constructor(sql: Sql, ownsClient: boolean, index: StoreIndex, options: PostgresStoreOptions) {
    this.sql = sql;
    this.#ownsClient = ownsClient;
    this.#options = options;
    this.#timing = { ...DEFAULT_TIMING, ...options.timing };
    this.#onNotice = options.onNotice ?? printStoreNotice;
    this.#index = index;
    this.#fenceEpoch = options.fenceEpoch;
    Object.assign(this, indexReads(index));
    this.#probeTimer = setInterval(() => void this.#probeIfDue(), this.#timing.probeEveryMs);
    this.#probeTimer.unref();
  }

  savePaymentRequest(record: PaymentRequestRecord): Promise<void> {
    return this.#write({ seq: 0, op: 'put', record });
  }

  deletePaymentRequestsOf(accountId: string): Promise<void> {
    return this.#write({ seq: 0, op: 'deleteAccount', accountId });
  }

  commit(change: StoreChange): Promise<void> {
    return this.#write({ seq: 0, op: 'change', change });
  }

  saveClock(accountId: string, state: ClockState): Promise<void> {
    return this.#write({ seq: 0, op: 'clock', accountId, state: { offsetMs: state.offsetMs, frozenAtMs: state.frozenAtMs } });
  }

  setFenceEpoch(epoch: number | undefined): void {
    this.#fenceEpoch = epoch;
    this.#fenced = null;
  }

  async adoptAccount(accountId: string): Promise<void> {
    const slice = snapshotOf(await loadIndex(this.sql, accountId), 0);
    // Into both indexes: what reads see, and what a refused write rolls back to.
    for (const index of [this.#index, this.#durable]) {
      if (index === null) continue;
      for (const record of slice.paymentRequests) index.put(record);
      for (const [id, state] of Object.entries(slice.clocks)) index.setClock(id, state);
      index.apply({ endpoints: slice.endpoints ?? [], events: slice.events ?? [], deliveries: slice.deliveries ?? [], wallets: slice.wallets ?? [], walletTransactions: slice.walletTransactions ?? [] });
    }
  }

  stats(): PostgresStoreStats {
    return { transactions: this.#transactions, writes: this.#writes };
  }

  health(): StorageHealth {
    if (this.#fenced) return { status: 'unavailable', since: this.#lastAnswerAt, cause: this.#fenced.message };
    const outage = this.#outage;
    return outage ? { status: 'unavailable', since: outage.since, cause: outage.cause } : { status: 'ok' };
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  #write(entry: JournalEntry): Promise<void> {
    if (this.#closing) return Promise.reject(new Error('the PostgreSQL store is closed'));
    // Refused before it is applied: while the database refuses writes, none may become visible.
    if (this.#fenced) return Promise.reject(this.#fenced);
    if (this.#outage) return Promise.reject(new StorageUnavailableError(new Error(this.#outage.cause)));
    this.#durable ??= copyOf(this.#index);
    this.#sequence += 1;
    entry.seq = this.#sequence;
    applyJournalEntry(this.#index, entry);
    return new Promise((resolve, reject) => {
      this.#queue.push({ entry, resolve, reject });
      this.#draining ??= this.#drain();
    });
  }

  async #drain(): Promise<void> {
    // Let the writes made in this turn of the event loop join the first transaction.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0);
      try {
        await this.#commitBatch(batch.map((item) => item.entry));
      } catch (error) {
        this.#failed(error, batch);
        continue;
      }
      for (const item of batch) applyJournalEntry(this.#durable!, item.entry);
      this.#transactions += 1;
      this.#writes += batch.length;
      this.#lastAnswerAt = Date.now();
      for (const item of batch) item.resolve();
    }
    this.#draining = null;
  }

  /** One transaction: the fence check and every statement, pipelined; bounded in time. */
  async #commitBatch(entries: JournalEntry[]): Promise<void> {
    const statements = statementsOf(entries).map(statementSql);
    const epoch = this.#fenceEpoch;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no commit within ${this.#timing.writeTimeoutMs} ms`)), this.#timing.writeTimeoutMs);
      this.#abandon = reject;
    });
    const owned = this.#ownership(entries);
    const transaction = this.sql.begin(async (tx) => {
      const fence = this.#fence(tx, epoch);
      const writes = statements.map(({ text, params }) => tx.unsafe(text, params, { prepare: true }));
      await Promise.all([fence, ...writes, ...owned.map(({ text, params }) => tx.unsafe(text, params as never, { prepare: true }))]);
    });
    try {
      await Promise.race([transaction, timeout]);
    } finally {
      clearTimeout(timer);
      this.#abandon = undefined;
      // A transaction given up on may still end later; its outcome is not waited for.
      transaction.catch(() => {});
    }
  }

  /**
   * The transaction's first step: refused (FencedError) if another process took over meanwhile.
   * FOR SHARE, so a takeover (which updates the row) waits for this transaction to end.
   */
  async #fence(tx: TransactionSql, epoch: number | undefined): Promise<void> {
    const replicaId = this.#options.replicaId;
    if (replicaId !== undefined) {
      const [row] = await tx<Array<{ fenced: boolean }>>`SELECT fenced FROM lnpr_replicas WHERE id = ${replicaId} FOR SHARE`;
      if (row === undefined || row.fenced) {
        throw new FencedError(replicaId, null, `replica ${replicaId} ${row === undefined ? 'is no longer registered' : 'was taken for gone'}: another replica serves its accounts now`);
      }
      return;
    }
    if (epoch === undefined) return;
    const [row] = await tx<Array<{ epoch: string }>>`SELECT epoch FROM lnpr_leader WHERE id = 1 FOR SHARE`;
    const current = row?.epoch;
    if (current === undefined || Number(current) !== epoch) throw new FencedError(epoch, current === undefined ? null : Number(current));
  }

  /** With `replicaId`: the accounts the batch makes become this replica's, those it deletes nobody's. */
  #ownership(entries: readonly JournalEntry[]): Array<{ text: string; params: unknown[] }> {
    const replicaId = this.#options.replicaId;
    if (replicaId === undefined) return [];
    const made: string[] = [];
    const deleted: string[] = [];
    for (const entry of entries) {
      if (entry.op !== 'change') continue;
      for (const account of entry.change.accounts ?? []) made.push(account.id);
      for (const id of entry.change.deletedAccounts ?? []) deleted.push(id);
    }
    const out: Array<{ text: string; params: unknown[] }> = [];
    if (deleted.length > 0) out.push({ text: 'DELETE FROM lnpr_owners WHERE account_id = ANY($1::text[]) AND replica_id = $2', params: [deleted, replicaId] });
    if (made.length > 0) {
      out.push({
        text: 'INSERT INTO lnpr_owners (account_id, replica_id) SELECT unnest($1::text[]), $2 ON CONFLICT (account_id) DO UPDATE SET replica_id = EXCLUDED.replica_id',
        params: [made, replicaId],
      });
    }
    return out;
  }

  /**
   * A transaction failed: it and every write queued behind it (made on top of it) are refused,
   * reads go back to what committed, and writes stop until the database answers a probe.
   */
  #failed(error: unknown, batch: QueuedWrite[]): void {
    const refused = [...batch, ...this.#queue.splice(0)];
    if (this.#durable) this.#useIndex(copyOf(this.#durable));
    if (error instanceof FencedError) {
      this.#fenced = error;
      this.#onNotice({ level: 'error', path: 'postgresql', message: `${error.detail}: writes are refused from now on` });
      for (const item of refused) item.reject(error);
      this.#options.onFenced?.(error);
      return;
    }
    const cause = describe(error);
    this.#startOutage(cause);
    const refusal = new StorageUnavailableError(error);
    for (const item of refused) item.reject(refusal);
  }

  #startOutage(cause: string): void {
    if (this.#outage) {
      this.#outage.cause = cause;
      return;
    }
    this.#outage = { since: Date.now(), cause };
    this.#onNotice({
      level: 'error',
      path: 'postgresql',
      message:
        `PostgreSQL refused a write or cannot be reached (${cause}); ` +
        'writes are refused (503 storage_unavailable, /healthz 503) and nothing refused is kept; trying again every second',
    });
  }

  #useIndex(index: StoreIndex): void {
    this.#index = index;
    Object.assign(this, indexReads(index));
  }

  /** Probes while no write succeeded in the last period, and during an outage. */
  async #probeIfDue(): Promise<void> {
    if (this.#probing || this.#closing) return;
    if (!this.#outage && Date.now() - this.#lastAnswerAt < this.#timing.probeEveryMs) return;
    this.#probing = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const probe = this.sql`SELECT 1`;
      probe.catch(() => {});
      await Promise.race([
        probe,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${this.#timing.probeTimeoutMs} ms`)), this.#timing.probeTimeoutMs);
        }),
      ]);
      this.#lastAnswerAt = Date.now();
      // Writes resume only once nothing of the failed batch is still in flight.
      if (this.#outage && !this.#draining) {
        const outage = this.#outage;
        this.#outage = null;
        this.#onNotice({
          level: 'info',
          path: 'postgresql',
          message: `PostgreSQL answers again: writes are taken again after ${((Date.now() - outage.since) / 1000).toFixed(1)} s refused; nothing acknowledged was lost`,
        });
      }
    } catch (error) {
      this.#startOutage(describe(error));
    } finally {
      clearTimeout(timer);
      this.#probing = false;
    }
  }

  /**
   * Waits for the writes in flight, but not for one the database does not answer: past
   * CLOSE_GRACE_MS it is refused (503, its outcome unknown) and the client ended at once, so a
   * shutdown during an outage takes seconds, not the write's full 10 s bound.
   */
  async #close(): Promise<void> {
    clearInterval(this.#probeTimer);
    const giveUp = setTimeout(() => this.#abandon?.(new Error(`the store closed with no commit within ${CLOSE_GRACE_MS} ms`)), CLOSE_GRACE_MS);
    await this.#draining;
    clearTimeout(giveUp);
    if (this.#ownsClient) await this.sql.end({ timeout: this.#outage ? 0 : 5 });
  }
}

/** An error as one line for logs. */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
