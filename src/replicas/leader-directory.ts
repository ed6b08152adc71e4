/**
 * Where a replica finds the relay's replica (the leader lock's holder): `lnpr_leader.url`, read
 * from the database (afresh for each upgrade, and again every ~200 ms until one is named or the
 * request's time is up). Also the replicas' shared token, a random secret kept in the database:
 * a request forwarded by a replica carries it, so the leader believes the client address and Host
 * that replica vouches for, and nobody outside the database can forge it.
 */
import { randomBytes } from 'node:crypto';
import type { Sql } from 'postgres';

/** Milliseconds between reads of the leader row while no leader is reachable. */
const RETRY_MS = 200;

/** The leader's URL as the database says, cached. */
export class LeaderDirectory {
  readonly #sql: Sql;
  readonly #selfUrl: () => string | undefined;
  readonly #selfServing: () => boolean;
  #url: string | undefined;
  #token: string | undefined;

  /**
   * @param selfUrl this replica's advertise URL
   * @param selfServing whether this replica runs the relay: its own URL is the relay's only then
   *   (a stale row naming it would otherwise send upgrades round in a loop)
   */
  constructor(sql: Sql, selfUrl: () => string | undefined, selfServing: () => boolean) {
    this.#sql = sql;
    this.#selfUrl = selfUrl;
    this.#selfServing = selfServing;
  }

  /** The shared token, once `init` has read it. */
  get token(): string | undefined {
    return this.#token;
  }

  /** Reads (or makes) the shared token; its table is the schema's (`ensureSchema` runs first). */
  async init(): Promise<void> {
    await this.#sql`insert into lnpr_replica_secret (id, token) values (1, ${randomBytes(24).toString('base64url')}) on conflict (id) do nothing`;
    const [row] = await this.#sql`select token from lnpr_replica_secret where id = 1`;
    this.#token = String(row!.token);
  }

  /**
   * The leader's URL, waiting (reading it again) until there is one or `deadline` (epoch ms) has
   * passed; never later, whatever the database does. `fresh`: read the row even if one is known
   * (a WebSocket upgrade, whose failure the forwarder does not see).
   */
  async find(deadline: number, fresh = false): Promise<string | undefined> {
    if (fresh) this.#url = undefined;
    for (;;) {
      if (this.#url === undefined) this.#url = await withDeadline(this.#read(), deadline).catch(() => undefined);
      if (this.#url !== undefined && (this.#url !== this.#selfUrl() || this.#selfServing())) return this.#url;
      this.#url = undefined;
      if (Date.now() + RETRY_MS > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  /** Forgets `url` (it did not answer): the next `find` reads the row again. */
  forget(url: string): void {
    if (this.#url === url) this.#url = undefined;
  }

  async #read(): Promise<string | undefined> {
    const [row] = await this.#sql`select url from lnpr_leader where id = 1`;
    return row === undefined ? undefined : String(row.url);
  }
}

/** `promise`, or a rejection once `deadline` (epoch ms) has passed. */
export function withDeadline<T>(promise: Promise<T>, deadline: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer from the database in time')), Math.max(0, deadline - Date.now()));
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error as Error)),
    );
  });
}
