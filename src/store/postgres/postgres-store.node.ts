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
 *
 * Pipelining: up to MAX_IN_FLIGHT write transactions are in flight at once, so the next batch's
 * statements run while the previous one commits. Three rules keep that as correct as one at a time:
 * - A batch starts only once every statement of the batch before it has executed, so that one
 *   already holds the row locks of all it wrote (a new row's key too: an insert of the same key
 *   waits for it). A later upsert of the same row therefore waits for the earlier transaction to
 *   end and then applies on top of it: the later write's value is what the row ends with.
 * - A batch sends COMMIT only once the batch before it has committed, and rolls back if that one
 *   failed. The database therefore always holds a prefix of the writes, in order, and a write is
 *   acknowledged only once it and everything before it committed.
 * - A delete sees only committed rows (a row another transaction inserted and has not committed
 *   yet is invisible to it, and would survive). So a batch with a delete from a write (a reset,
 *   an account's or endpoint's or wallet's removal) waits until nothing is in flight; and a pruned
 *   row (below) is deleted only once its insert committed, and not if a batch in flight or
 *   committed since writes it anew.
 * A failed batch is refused with every batch after it and every queued write (503), while those
 * before it may still commit; reads go back to what committed plus those before it. A batch given
 * up on (no answer within writeTimeoutMs) is refused and rolls back if it has not sent COMMIT yet;
 * if it had and commits after all, the index takes it back in, so it always equals what the
 * database holds. Writes resume only once every transaction started has ended.
 *
 * Pruning: the index lets go of events past the kept history (with their attempts), finished
 * delivery attempts and wallet transactions past theirs, and keeps no attempt of an event it let
 * go. The index of committed writes says which records it let go; once
 * PRUNE_AT are noted, the next transaction deletes them, and within a probe period (a second) when
 * writes pause; the rows left from before an open count too. So the tables hold at most about
 * PRUNE_AT rows more than the index.
 */
import postgres, { type Sql } from 'postgres';
import { StorageUnavailableError, type ClockState, type SandboxStore, type StorageHealth, type StoreChange } from '../../core/store/sandbox-store.js';
import type { PaymentRequestRecord } from '../../core/store/payment-request.js';
import { copyOf, indexOf, snapshotOf } from '../index-snapshot.js';
import { indexReads, type StoreReads } from '../index-reads.js';
import { applyJournalEntry, type JournalEntry } from '../journal-entry.js';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from '../snapshot-format.js';
import type { StoreIndex } from '../store-index.js';
import { printStoreNotice, type StoreNotice } from '../store-notice.js';
import type { PrunedRecord } from '../event-index.js';
import { PRUNED_TABLE, pruneStatements, statementsOf, type RecordTable, type Statement } from './change-statements.js';
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
  /** Write transactions in flight at once (default MAX_IN_FLIGHT; 1: one at a time), for measurements. */
  maxInFlight?: number;
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

/**
 * Write transactions in flight at once (each on its own connection): the next batch's statements
 * run while the previous commits. Two are enough to overlap the two; more only add waiting.
 */
export const MAX_IN_FLIGHT = 2;

/**
 * Pruned rows are deleted once this many are noted (or within a probe period when writes pause),
 * not by every transaction: one DELETE per few dozen transactions instead of one each. The tables
 * hold at most about this many rows more than the index.
 */
export const PRUNE_AT = 500;

const DEFAULT_TIMING: PostgresStoreTiming = { probeEveryMs: 1_000, probeTimeoutMs: 2_000, writeTimeoutMs: 10_000 };

/** Counters for tests and measurements. */
export interface PostgresStoreStats {
  /** Write transactions committed; each carries every write queued when it started. */
  transactions: number;
  /** Writes made durable. */
  writes: number;
  /** The most write transactions in flight at once so far (at most MAX_IN_FLIGHT). */
  peakInFlight: number;
  /** Keys of records the index let go of (pruned) whose rows committed transactions deleted. */
  prunedRows: number;
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
    // Rows the history bounds leave out of the index (left by a run before pruning, or past a bound lowered since) go in the first transaction.
    const pruned: PruneSet = new Map();
    const index = await loadIndex(sql, (record) => addPruned(pruned, record), options.replicaId === undefined ? undefined : null);
    return new PgStore(sql, ownsClient, index, pruned, options);
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
 * records (null: a replica before it owns any account). `onPruned` hears the rows the history
 * bounds leave out.
 */
async function loadIndex(sql: Sql, onPruned: (record: PrunedRecord) => void, accountId?: string | null): Promise<StoreIndex> {
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
  }, onPruned);
}

/** Keys of rows to delete because the index let go of them, by table. */
type PruneSet = Map<RecordTable, Set<string>>;

function addPruned(set: PruneSet, { kind, key }: PrunedRecord): void {
  const table = PRUNED_TABLE[kind];
  let keys = set.get(table);
  if (!keys) set.set(table, (keys = new Set()));
  keys.add(key);
}

/**
 * The SQL of a statement, and its parameters: keys as text arrays, and the records as one text,
 * their JSON joined by newlines (JSON.stringify escapes every control character, so none holds a
 * newline), split again in SQL. Not a text array of them: escaping every quote of every record for
 * the array literal cost more than the rest of the statement. Not one JSON document unpacked in
 * SQL: PostgreSQL's JSON functions refuse the escaped NUL character (`\u0000`), which a description
 * may hold and the API echoes; a cast of text to `json` only checks it.
 */
function statementSql(statement: Statement): { text: string; params: Array<string[] | string> } {
  const { table } = statement;
  switch (statement.kind) {
    case 'upsert': {
      const rows = Array.from(statement.rows.values());
      const wallet = table === 'lnpr_wallet_transactions';
      const params: Array<string[] | string> = [rows.map((row) => row.k), rows.map((row) => row.a), rows.map((row) => JSON.stringify(row.d)).join('\n')];
      if (wallet) params.push(rows.map((row) => row.w ?? ''));
      return {
        text:
          `INSERT INTO ${table} (id, account_id, data${wallet ? ', wallet_id' : ''}) ` +
          `SELECT k, a, d::json${wallet ? ', w' : ''} FROM unnest($1::text[], $2::text[], string_to_array($3::text, E'\\n')${wallet ? ', $4::text[]' : ''}) ` +
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

/** The writes of one transaction, from its start until the transaction has ended. */
interface Batch {
  readonly writes: QueuedWrite[];
  /** Its statements, the prunes first: what a later batch checks its deletes against. */
  readonly statements: Statement[];
  /** The pruned rows it deletes: to delete again if it does not commit. */
  readonly pruned: PruneSet;
  /** Every statement has executed: its row locks are held and only COMMIT remains. */
  executed: boolean;
  /** Answered already: committed, or refused (it failed, an earlier batch did, or it was given up on). */
  judged: boolean;
  /** Resolves once it committed and its writes are durable in the index; rejects once refused. */
  readonly verdict: Promise<void>;
  judge(error?: Error): void;
  /** Clears its time bound. */
  settle(): void;
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
  /** Writes made and not yet in a transaction. */
  #queue: QueuedWrite[] = [];
  #pumpQueued = false;
  /** Transactions started and not ended yet, oldest first (refused ones too, until they end). */
  #inFlight: Batch[] = [];
  /** Rows of records the committed index let go, to delete in the next transaction. */
  #pruned: PruneSet;
  /** Set by the idle probe: start a transaction for the pruned rows alone. */
  #flushPruned = false;
  #fenceEpoch: number | undefined;
  #fenced: FencedError | null = null;
  #outage: Outage | null = null;
  /** When the database last answered (a commit or a probe). */
  #lastAnswerAt = Date.now();
  #probeTimer: ReturnType<typeof setInterval>;
  #probing = false;
  #closing: Promise<void> | null = null;
  #transactions = 0;
  #writes = 0;
  #peakInFlight = 0;
  #prunedRows = 0;

  constructor(sql: Sql, ownsClient: boolean, index: StoreIndex, pruned: PruneSet, options: PostgresStoreOptions) {
    this.sql = sql;
    this.#ownsClient = ownsClient;
    this.#options = options;
    this.#timing = { ...DEFAULT_TIMING, ...options.timing };
    this.#onNotice = options.onNotice ?? printStoreNotice;
    this.#index = index;
    this.#pruned = pruned;
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

  async adoptAccount(accountId: string): Promise<void> {
    const slice = snapshotOf(await loadIndex(this.sql, (record) => addPruned(this.#pruned, record), accountId), 0);
    // Into both indexes: what reads see, and what a refused write rolls back to.
    for (const index of [this.#index, this.#durable]) {
      if (index === null) continue;
      for (const record of slice.paymentRequests) index.put(record);
      for (const [id, state] of Object.entries(slice.clocks)) index.setClock(id, state as ClockState);
      index.apply({ endpoints: slice.endpoints ?? [], events: slice.events ?? [], deliveries: slice.deliveries ?? [], wallets: slice.wallets ?? [], walletTransactions: slice.walletTransactions ?? [] });
    }
  }

  setFenceEpoch(epoch: number | undefined): void {
    this.#fenceEpoch = epoch;
    this.#fenced = null;
  }

  stats(): PostgresStoreStats {
    return { transactions: this.#transactions, writes: this.#writes, peakInFlight: this.#peakInFlight, prunedRows: this.#prunedRows };
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
    this.#ensureDurable();
    this.#sequence += 1;
    entry.seq = this.#sequence;
    applyJournalEntry(this.#index, entry);
    return new Promise((resolve, reject) => {
      this.#queue.push({ entry, resolve, reject });
      this.#schedulePump();
    });
  }

  /** Made at the first write (or the first deletes of pruned rows): a store only read keeps one index. */
  #ensureDurable(): void {
    if (this.#durable) return;
    this.#durable = copyOf(this.#index);
    this.#durable.onPruned((record) => addPruned(this.#pruned, record));
  }

  /** Pumps on the next turn, so the writes made in this turn of the event loop share a transaction. */
  #schedulePump(): void {
    if (this.#pumpQueued) return;
    this.#pumpQueued = true;
    setImmediate(() => {
      this.#pumpQueued = false;
      this.#pump();
    });
  }

  /** Starts transactions while there is something to write and room for it (the header's rules). */
  #pump(): void {
    while (this.#queue.length > 0 || (this.#flushPruned && this.#pruned.size > 0)) {
      if (this.#outage || this.#fenced) return;
      const last = this.#inFlight.at(-1);
      // Called again when the last batch has executed, or one ends.
      if (this.#inFlight.length >= (this.#options.maxInFlight ?? MAX_IN_FLIGHT) || (last !== undefined && !last.executed)) return;
      const entries = this.#queue.map((item) => item.entry);
      const written = statementsOf(entries);
      // A delete would miss rows a transaction in flight inserted: wait until none is (called again when the last ends).
      if (this.#inFlight.length > 0 && written.some((statement) => statement.kind !== 'upsert')) return;
      this.#ensureDurable();
      const pruned = this.#flushPruned || this.#prunedCount() >= PRUNE_AT ? this.#takePruned() : new Map<RecordTable, Set<string>>();
      this.#flushPruned = false;
      this.#start(this.#queue.splice(0), [...pruneStatements(pruned), ...written], pruned);
    }
  }

  #prunedCount(): number {
    let count = 0;
    for (const keys of this.#pruned.values()) count += keys.size;
    return count;
  }

  /**
   * The pruned rows to delete now: all noted, except those written anew since, by a transaction
   * committed (the index of committed writes holds it again) or in flight (the row is live again
   * after it). Were the index to let such a record go again, it says so again.
   */
  #takePruned(): PruneSet {
    const pruned = this.#pruned;
    this.#pruned = new Map();
    const durable = this.#durable!;
    for (const [table, keys] of pruned) {
      const kind = kindOf(table);
      for (const key of keys) if (durable.holds({ kind, key })) keys.delete(key);
    }
    for (const batch of this.#inFlight) {
      for (const statement of batch.statements) {
        if (statement.kind !== 'upsert') continue;
        const keys = pruned.get(statement.table);
        if (keys) for (const key of keys) if (statement.rows.has(key)) keys.delete(key);
      }
    }
    return pruned;
  }

  /** With `replicaId`: the accounts the writes make become this replica's, those they delete nobody's. */
  #ownership(writes: readonly QueuedWrite[]): Array<{ text: string; params: Array<string[] | number> }> {
    const replicaId = this.#options.replicaId;
    if (replicaId === undefined) return [];
    const made: string[] = [];
    const deleted: string[] = [];
    for (const { entry } of writes) {
      if (entry.op !== 'change') continue;
      for (const account of entry.change.accounts ?? []) made.push(account.id);
      for (const id of entry.change.deletedAccounts ?? []) deleted.push(id);
    }
    const out: Array<{ text: string; params: Array<string[] | number> }> = [];
    if (deleted.length > 0) out.push({ text: 'DELETE FROM lnpr_owners WHERE account_id = ANY($1::text[]) AND replica_id = $2', params: [deleted, replicaId] });
    if (made.length > 0) {
      out.push({
        text: 'INSERT INTO lnpr_owners (account_id, replica_id) SELECT unnest($1::text[]), $2 ON CONFLICT (account_id) DO UPDATE SET replica_id = EXCLUDED.replica_id',
        params: [made, replicaId],
      });
    }
    return out;
  }

  /** Starts one transaction for the writes; its outcome answers them (#committed, #refuse). */
  #start(writes: QueuedWrite[], statements: Statement[], pruned: PruneSet): void {
    const previous = this.#inFlight.at(-1);
    let judge!: (error?: Error) => void;
    const verdict = new Promise<void>((resolve, reject) => {
      judge = (error) => {
        if (batch.judged) return;
        batch.judged = true;
        if (error) reject(error);
        else resolve();
      };
    });
    verdict.catch(() => {});
    const timer = setTimeout(() => this.#refuse(batch, new Error(`no commit within ${this.#timing.writeTimeoutMs} ms`)), this.#timing.writeTimeoutMs);
    const batch: Batch = { writes, statements, pruned, executed: false, judged: false, verdict, judge, settle: () => clearTimeout(timer) };
    this.#inFlight.push(batch);
    this.#peakInFlight = Math.max(this.#peakInFlight, this.#inFlight.length);
    const queries = [...statements.map(statementSql), ...this.#ownership(writes)];
    const epoch = this.#fenceEpoch;
    const transaction = this.#transaction(queries, epoch, async () => {
      // Its row locks are held: the next batch may run its statements now (the header's first rule).
      batch.executed = true;
      this.#schedulePump();
      // COMMIT only after the batch before committed; its refusal rolls this one back (the second rule).
      if (previous) await previous.verdict;
      // Answered 503 already (given up on while it waited): it must not commit now.
      if (batch.judged) throw new Error('the write transaction was given up on before its COMMIT');
    });
    transaction.then(
      () => this.#committed(batch),
      (error: unknown) => this.#ended(batch, error),
    );
  }

  /**
   * One transaction on a connection of its own: BEGIN, the fence and every statement sent at once
   * (one round trip, not BEGIN's and then the statements'), then `beforeCommit`, then COMMIT; on
   * any failure, ROLLBACK and the error. (postgres.js's `begin` waits for BEGIN's answer first.)
   */
  async #transaction(queries: Array<{ text: string; params: Array<string[] | string | number> }>, epoch: number | undefined, beforeCommit: () => Promise<void>): Promise<void> {
    const connection = await this.sql.reserve();
    try {
      const steps = [connection.unsafe('BEGIN'), fenceCheck(connection, epoch, this.#options.replicaId), ...queries.map(({ text, params }) => connection.unsafe(text, params, { prepare: true }))];
      try {
        await Promise.all(steps);
        await beforeCommit();
      } catch (error) {
        for (const step of steps) step.catch(() => {});
        await connection.unsafe('ROLLBACK').catch(() => {});
        throw error;
      }
      await connection.unsafe('COMMIT');
    } finally {
      connection.release();
    }
  }

  /** The batch committed: its writes are durable (and, unless refused already, acknowledged). */
  #committed(batch: Batch): void {
    this.#remove(batch);
    const durable = this.#durable!;
    for (const item of batch.writes) applyJournalEntry(durable, item.entry);
    this.#transactions += 1;
    this.#writes += batch.writes.length;
    for (const keys of batch.pruned.values()) this.#prunedRows += keys.size;
    this.#lastAnswerAt = Date.now();
    if (batch.judged) {
      // Given up on (refused with 503), yet committed: the database holds it, so the index takes it back in.
      this.#useIndex(this.#committedIndex());
      this.#onNotice({ level: 'info', path: 'postgresql', message: `a write transaction given up on committed after all (${batch.writes.length} writes): they are kept` });
    } else {
      batch.judge();
      for (const item of batch.writes) item.resolve();
    }
    this.#pump();
  }

  /** The batch's transaction ended without committing. */
  #ended(batch: Batch, error: unknown): void {
    // Refused while still in flight, so that the batches after it are refused with it.
    this.#refuse(batch, error);
    this.#remove(batch);
    // Its deletes of pruned rows did not happen: the next transaction makes them.
    for (const [table, keys] of batch.pruned) for (const key of keys) addPruned(this.#pruned, { kind: kindOf(table), key });
    this.#pump();
  }

  #remove(batch: Batch): void {
    batch.settle();
    const at = this.#inFlight.indexOf(batch);
    if (at !== -1) this.#inFlight.splice(at, 1);
  }

  /**
   * A batch failed or was given up on: it, every batch after it and every write queued behind
   * them (made on top of it) are refused; reads go back to what committed plus the batches before
   * it, which may still commit; and writes stop until the database answers a probe.
   */
  #refuse(batch: Batch, error: unknown): void {
    if (batch.judged) return;
    const refusal = error instanceof FencedError ? error : new StorageUnavailableError(error);
    const from = this.#inFlight.indexOf(batch);
    const batches = from === -1 ? [batch] : [batch, ...this.#inFlight.slice(from + 1).filter((later) => later !== batch)];
    const refused: QueuedWrite[] = [];
    for (const each of batches) {
      if (each.judged) continue;
      each.judge(refusal);
      refused.push(...each.writes);
    }
    refused.push(...this.#queue.splice(0));
    this.#useIndex(this.#committedIndex());
    if (error instanceof FencedError) {
      this.#fenced = error;
      this.#onNotice({ level: 'error', path: 'postgresql', message: `${error.detail}: writes are refused from now on` });
      for (const item of refused) item.reject(error);
      this.#options.onFenced?.(error);
      return;
    }
    this.#startOutage(describe(error));
    for (const item of refused) item.reject(refusal);
  }

  /** What the database holds, or will once the batches in flight not refused commit: the index reads come from after a refusal. */
  #committedIndex(): StoreIndex {
    const index = copyOf(this.#durable!);
    for (const batch of this.#inFlight) if (!batch.judged) for (const item of batch.writes) applyJournalEntry(index, item.entry);
    return index;
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
    // Rows pruned by the last writes of a burst are deleted within a period, not at the next write.
    if (this.#pruned.size > 0 && this.#queue.length === 0 && this.#inFlight.length === 0 && !this.#outage && !this.#fenced) {
      this.#flushPruned = true;
      this.#pump();
    }
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
      // Writes resume only once every transaction started has ended (one given up on may still commit).
      if (this.#outage && this.#inFlight.length === 0) {
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
    const giveUp = setTimeout(() => {
      const error = new Error(`the store closed with no commit within ${CLOSE_GRACE_MS} ms`);
      for (const batch of [...this.#inFlight]) this.#refuse(batch, error);
    }, CLOSE_GRACE_MS);
    while (this.#queue.length > 0 || this.#pumpQueued || this.#inFlight.some((batch) => !batch.judged)) {
      await Promise.race([Promise.allSettled(this.#inFlight.map((batch) => batch.verdict)), new Promise((resolve) => setTimeout(resolve, 10))]);
    }
    clearTimeout(giveUp);
    if (this.#ownsClient) await this.sql.end({ timeout: this.#outage ? 0 : 5 });
  }
}

/**
 * The fence: the step of every write transaction that makes sure this process still may write.
 * A replica serving its own accounts (`replicaId`): its `lnpr_replicas` row must not be `fenced`.
 * Else: `lnpr_leader`'s epoch must be `epoch`. Read FOR SHARE (a takeover's update waits for the
 * transaction); rejects with FencedError, rolling the transaction back. Nothing without either.
 */
async function fenceCheck(tx: Sql, epoch: number | undefined, replicaId: number | undefined): Promise<void> {
  if (replicaId !== undefined) {
    const [row] = await tx<Array<{ fenced: boolean }>>`SELECT fenced FROM lnpr_replicas WHERE id = ${replicaId} FOR SHARE`;
    if (row === undefined || row.fenced) {
      throw new FencedError(replicaId, null, `replica ${replicaId} ${row === undefined ? 'is no longer registered' : 'was taken for gone'}: another replica serves its accounts now`);
    }
    return;
  }
  if (epoch === undefined) return;
  const rows = await tx<Array<{ epoch: string }>>`SELECT epoch FROM lnpr_leader WHERE id = 1 FOR SHARE`;
  const current = rows[0]?.epoch;
  if (current === undefined || Number(current) !== epoch) throw new FencedError(epoch, current === undefined ? null : Number(current));
}

/** The kind of record a pruned row of `table` holds. */
function kindOf(table: RecordTable): PrunedRecord['kind'] {
  return (Object.keys(PRUNED_TABLE) as Array<PrunedRecord['kind']>).find((kind) => PRUNED_TABLE[kind] === table)!;
}

/** An error as one line for logs. */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
