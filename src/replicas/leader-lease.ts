/**
 * A lease on a PostgreSQL session advisory lock, held on a dedicated connection: the relay's (one
 * replica at a time runs the relay: the leader lock, `leaderLock`) or a replica's own (alive while
 * held: `replica-lock.ts`). PostgreSQL releases the lock when that connection dies (a SIGKILL of
 * the holder: 8-26 ms measured here), so a replica polling for the relay's (every ~200 ms,
 * jittered) takes it over within a fraction of a second. Taking the leader lock bumps
 * `lnpr_leader.epoch` and writes the holder's URL, in one transaction. The holder checks every
 * second that its connection still holds the lock. When it cannot tell (the connection dropped,
 * the database away) it is *suspended*: it must not act on what the lock guards, since another
 * replica may be taking over, but it keeps trying to take the lock again. If it does and nobody
 * took over meanwhile (the epoch is still its own; the replica was not fenced), it *resumes* (a
 * database that went away and came back). Otherwise it has lost the lease.
 *
 * Each attempt of a suspended holder runs on a fresh client, and a client whose check failed is
 * ended at once: nothing stale stays queued behind a connection attempt, so the first attempt
 * after the database's return runs then, not after the queue (or postgres.js's reconnect backoff,
 * up to 20 s) drains. And after a database restart, others leave the leader lock alone for
 * RESTART_GRACE_MS while the row says someone held it before it: a suspended holder resumes in
 * well under a second.
 */
import type { Sql } from 'postgres';

/** The advisory lock's key (any constant of this application's own: "lnpr" leader). */
export const LEADER_LOCK_KEY = 23_2301;

/** How long after a database restart standbys let a leader from before it take its lock back. */
export const RESTART_GRACE_MS = 3_000;

/** How long one attempt of a suspended leader may take (a connection included). */
const RETAKE_TIMEOUT_MS = 2_000;

/**
 * What a lease locks: the leader's one lock (the default), or a replica's own (`replica-lock.ts`).
 * Each runs on the lease's connection; the lock is a session advisory lock on it.
 */
export interface LeaseLock {
  /** Takes the lock if free: its token (the leader's epoch, the replica's id), else undefined. */
  acquire(sql: Sql): Promise<number | undefined>;
  /** Whether this connection's session still holds the lock (a reconnected session would not). */
  held(sql: Sql, token: number): Promise<boolean>;
  /** Takes the lock again (a new session): `resumed` if nobody took over meanwhile. */
  retake(sql: Sql, token: number): Promise<'resumed' | 'taken' | 'led'>;
}

/** Options of a lease. */
export interface LeaderLeaseOptions {
  /** The URL the other replicas reach this one at (written to `lnpr_leader.url`). */
  advertiseUrl: string;
  /** Called once the lease is taken, with the new epoch; the lease is checked once it resolves. */
  onAcquired: (epoch: number) => Promise<void>;
  /** Called once when a held lease is lost (never again after). */
  onLost: (reason: string) => void;
  /** Called when the leader can no longer tell that it holds the lock (the database away). */
  onSuspended?: (reason: string) => void;
  /** Called when a suspended leader took the lock again with its epoch unchanged. */
  onResumed?: () => void;
  /** Milliseconds between attempts to take the lock; 200 by default (±25 % jitter). */
  pollMs?: number;
  /** Milliseconds between checks that the lock is still held; 1,000 by default. */
  checkMs?: number;
  /** The lock; the leader's by default. */
  lock?: LeaseLock;
}

/** Polls for the lock; once held, keeps checking it. */
export class LeaderLease {
  readonly #connect: () => Sql;
  /** The lock's client: the lock lives on its one connection (replaced after a failed check). */
  #sql: Sql | undefined;
  readonly #options: LeaderLeaseOptions;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #held = false;
  /** The epoch taken with the lock; kept while suspended, to tell whether anyone led meanwhile. */
  #epoch: number | undefined;
  #suspended = false;

  /** @param connect makes a client of the lease's own, `max: 1` and no lifetime limit: the lock lives on its one connection */
  readonly #lock: LeaseLock;

  constructor(connect: () => Sql, options: LeaderLeaseOptions) {
    this.#connect = connect;
    this.#options = options;
    this.#lock = options.lock ?? leaderLock(() => options.advertiseUrl);
  }

  /** The token taken with the lock (the leader's epoch, the replica's id); undefined before. */
  get token(): number | undefined {
    return this.#epoch;
  }

  /** Whether this replica holds the lease now. */
  get held(): boolean {
    return this.#held;
  }

  /** Starts polling for the lock. */
  start(): void {
    this.#schedule(0);
  }

  /** Stops polling and checking (the lock goes with the connection, when `close` ends it). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** Stops, and ends the lock's connection (releasing the lock), waiting up to `timeoutS` for its queries. */
  async close(timeoutS: number): Promise<void> {
    this.stop();
    const sql = this.#sql;
    this.#sql = undefined;
    await sql?.end({ timeout: this.#suspended ? 0 : timeoutS }).catch(() => {});
  }

  #client(): Sql {
    return (this.#sql ??= this.#connect());
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#tick(), ms);
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    if (!this.#held) {
      const epoch = await this.#lock.acquire(this.#client()).catch(() => undefined);
      if (epoch === undefined) return this.#schedule(jitter(this.#options.pollMs ?? 200));
      this.#held = true;
      this.#epoch = epoch;
      try {
        await this.#options.onAcquired(epoch);
      } catch (error) {
        return this.#lose(`taking over failed: ${(error as Error).message}`);
      }
      return this.#schedule(this.#options.checkMs ?? 1_000);
    }
    if (this.#suspended) return this.#tryResume();
    const still = await withTimeout(this.#lock.held(this.#client(), this.#epoch!), 3_000).catch((error: unknown) => `the lock's connection failed: ${(error as Error).message}`);
    if (still === true) return this.#schedule(this.#options.checkMs ?? 1_000);
    this.#suspended = true;
    // Ended now, so nothing it queued runs late; each attempt to take the lock again has a fresh one.
    void this.#sql?.end({ timeout: 0 }).catch(() => {});
    this.#sql = undefined;
    this.#options.onSuspended?.(typeof still === 'string' ? still : 'the lock is no longer held by this replica (its database connection was replaced)');
    this.#schedule(jitter(this.#options.pollMs ?? 200));
  }

  /** A suspended leader: the lock again with the same epoch resumes; another's epoch loses. */
  async #tryResume(): Promise<void> {
    const sql = this.#connect();
    const outcome = await withTimeout(this.#lock.retake(sql, this.#epoch!), RETAKE_TIMEOUT_MS).catch(() => 'unreachable' as const);
    if (outcome !== 'resumed') void sql.end({ timeout: 0 }).catch(() => {});
    if (this.#stopped) return;
    if (outcome === 'unreachable') return this.#schedule(jitter(this.#options.pollMs ?? 200));
    if (outcome === 'taken') return this.#lose('another replica holds the lease now');
    if (outcome === 'led') return this.#lose('another replica led the sandbox while this one could not reach the database');
    this.#sql = sql;
    this.#suspended = false;
    this.#options.onResumed?.();
    this.#schedule(this.#options.checkMs ?? 1_000);
  }

  #lose(reason: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#held = false;
    this.#options.onLost(reason);
  }

}

/**
 * The leader's lock. Taking it bumps `lnpr_leader.epoch` and writes the advertise URL, in one
 * statement. Not taken within RESTART_GRACE_MS of a database restart while the row names a leader
 * from before it: that one may be suspended, and resuming is far quicker than a takeover (the
 * grace ends the wait if it is gone).
 */
export function leaderLock(advertiseUrl: () => string): LeaseLock {
  return {
    async acquire(sql) {
      const [row] = await sql.unsafe(
        `select case when now() - pg_postmaster_start_time() < interval '${RESTART_GRACE_MS} milliseconds'
           and exists (select 1 from lnpr_leader where id = 1 and since < pg_postmaster_start_time())
         then false else pg_try_advisory_lock(${LEADER_LOCK_KEY}) end as locked`,
      );
      if (row?.locked !== true) return undefined;
      // One statement, so one transaction: the epoch and the URL change together.
      const [leader] = await sql`insert into lnpr_leader (id, epoch, url, since) values (1, 1, ${advertiseUrl()}, now())
        on conflict (id) do update set epoch = lnpr_leader.epoch + 1, url = excluded.url, since = now()
        returning epoch`;
      return Number(leader!.epoch);
    },
    async held(sql) {
      const [row] = await sql`select exists (
        select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and objid = ${LEADER_LOCK_KEY} and objsubid = 1 and granted
      ) as held`;
      return row?.held === true;
    },
    async retake(sql, epoch) {
      const [row] = await sql`select pg_try_advisory_lock(${LEADER_LOCK_KEY}) as locked`;
      if (row?.locked !== true) return 'taken';
      const [leader] = await sql`select epoch from lnpr_leader where id = 1`;
      return leader !== undefined && Number(leader.epoch) === epoch ? 'resumed' : 'led';
    },
  };
}

/** `ms` ± 25 %, so standbys do not poll in step. */
function jitter(ms: number): number {
  return Math.round(ms * (0.75 + Math.random() * 0.5));
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error as Error)),
    );
  });
}
