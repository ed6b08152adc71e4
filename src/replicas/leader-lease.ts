/**
 * The leader lease: exactly one replica at a time holds the sandbox, the one holding a session
 * advisory lock on a dedicated PostgreSQL connection. PostgreSQL releases the lock when that
 * connection dies (a SIGKILL of the holder: 8-26 ms measured here), so a standby polling for it
 * (every ~200 ms, jittered) takes over within a fraction of a second. On taking it, the new
 * leader bumps `lnpr_leader.epoch` and writes its URL in one transaction: the epoch fences the
 * old leader's writes (the store refuses a stale epoch), the URL tells standbys where to forward.
 * The leader checks every second that its connection still holds the lock. When it cannot tell
 * (the connection dropped, the database away) it is *suspended*: it must not answer for the
 * sandbox, since another replica may be taking over, but it keeps trying to take the lock again.
 * If it does and the epoch is still its own, nobody led meanwhile: its sandbox in memory is still
 * the sandbox, and it *resumes* (a database that went away and came back). Otherwise another
 * replica led meanwhile, and it has lost the lease.
 */
import type { Sql } from 'postgres';

/** The advisory lock's key (any constant of this application's own: "lnpr" leader). */
export const LEADER_LOCK_KEY = 23_2301;

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
}

/** Polls for the lock; once held, keeps checking it. */
export class LeaderLease {
  readonly #sql: Sql;
  readonly #options: LeaderLeaseOptions;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #held = false;
  /** The epoch taken with the lock; kept while suspended, to tell whether anyone led meanwhile. */
  #epoch: number | undefined;
  #suspended = false;

  /** @param sql a client of its own, `max: 1` and no lifetime limit: the lock lives on its one connection */
  constructor(sql: Sql, options: LeaderLeaseOptions) {
    this.#sql = sql;
    this.#options = options;
  }

  /** Whether this replica holds the lease now. */
  get held(): boolean {
    return this.#held;
  }

  /** Starts polling for the lock. */
  start(): void {
    this.#schedule(0);
  }

  /** Stops polling and checking (the lock goes with the connection, when the caller ends it). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#tick(), ms);
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    if (!this.#held) {
      const epoch = await this.#tryAcquire().catch(() => undefined);
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
    const still = await withTimeout(this.#stillHeld(), 3_000).catch((error: unknown) => `the lock's connection failed: ${(error as Error).message}`);
    if (still === true) return this.#schedule(this.#options.checkMs ?? 1_000);
    this.#suspended = true;
    this.#options.onSuspended?.(typeof still === 'string' ? still : 'the lock is no longer held by this replica (its database connection was replaced)');
    this.#schedule(jitter(this.#options.pollMs ?? 200));
  }

  /** A suspended leader: the lock again with the same epoch resumes; another's epoch loses. */
  async #tryResume(): Promise<void> {
    const outcome = await withTimeout(this.#retake(), 3_000).catch(() => 'unreachable' as const);
    if (outcome === 'unreachable') return this.#schedule(jitter(this.#options.pollMs ?? 200));
    if (outcome === 'taken') return this.#lose('another replica holds the lease now');
    if (outcome === 'led') return this.#lose('another replica led the sandbox while this one could not reach the database');
    this.#suspended = false;
    this.#options.onResumed?.();
    this.#schedule(this.#options.checkMs ?? 1_000);
  }

  /** Takes the lock again (a new session): `resumed` if the epoch is still ours. */
  async #retake(): Promise<'resumed' | 'taken' | 'led'> {
    const [row] = await this.#sql`select pg_try_advisory_lock(${LEADER_LOCK_KEY}) as locked`;
    if (row?.locked !== true) return 'taken';
    const [leader] = await this.#sql`select epoch from lnpr_leader where id = 1`;
    return leader !== undefined && Number(leader.epoch) === this.#epoch ? 'resumed' : 'led';
  }

  #lose(reason: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#held = false;
    this.#options.onLost(reason);
  }

  /** The new epoch if the lock was free, else undefined. */
  async #tryAcquire(): Promise<number | undefined> {
    const [row] = await this.#sql`select pg_try_advisory_lock(${LEADER_LOCK_KEY}) as locked`;
    if (row?.locked !== true) return undefined;
    // One statement, so one transaction: the epoch and the URL change together.
    const [leader] = await this.#sql`insert into lnpr_leader (id, epoch, url, since) values (1, 1, ${this.#options.advertiseUrl}, now())
      on conflict (id) do update set epoch = lnpr_leader.epoch + 1, url = excluded.url, since = now()
      returning epoch`;
    return Number(leader!.epoch);
  }

  /** Whether this connection's session still holds the lock (a reconnected session would not). */
  async #stillHeld(): Promise<boolean> {
    const [row] = await this.#sql`select exists (
      select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and objid = ${LEADER_LOCK_KEY} and granted
    ) as held`;
    return row?.held === true;
  }
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
