/**
 * The leader lease: exactly one replica at a time holds the sandbox, the one holding a session
 * advisory lock on a dedicated PostgreSQL connection. PostgreSQL releases the lock when that
 * connection dies (a SIGKILL of the holder: 8-26 ms measured here), so a standby polling for it
 * (every ~200 ms, jittered) takes over within a fraction of a second. On taking it, the new
 * leader bumps `lnpr_leader.epoch` and writes its URL in one transaction: the epoch fences the
 * old leader's writes (the store refuses a stale epoch), the URL tells standbys where to forward.
 * The leader checks every second that its connection still holds the lock; when it does not (the
 * connection dropped, the database away), it is told it lost the lease.
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
      try {
        await this.#options.onAcquired(epoch);
      } catch (error) {
        return this.#lose(`taking over failed: ${(error as Error).message}`);
      }
      return this.#schedule(this.#options.checkMs ?? 1_000);
    }
    const still = await withTimeout(this.#stillHeld(), 3_000).catch((error: unknown) => `the lock's connection failed: ${(error as Error).message}`);
    if (still === true) return this.#schedule(this.#options.checkMs ?? 1_000);
    this.#lose(typeof still === 'string' ? still : 'the lock is no longer held by this replica (its database connection was replaced)');
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
