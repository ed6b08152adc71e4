/**
 * Which replica serves each account. An account is served by exactly one replica at a time, its
 * owner (`lnpr_owners`): the replica through which it was made or first used, until that replica
 * goes away. A replica is alive while it holds its lock (`replica-lock.ts`); the first replica
 * that needs an account whose owner is gone (a request for it, or the sweep that runs every
 * second) takes it over in one transaction: it marks the old owner `fenced` (its store refuses
 * writes from then on, waiting for one in flight to end first, since each write holds that row FOR
 * SHARE), makes itself the owner, then loads the account's rows and runs what they have due
 * (`adopt`). Placements are cached: an owner changes only when one goes away, which the replica
 * forwarding to it learns when it cannot reach it (`forget`).
 *
 * For 3 s after a database restart, the accounts of a replica registered before it are left
 * alone: it lost its lock with the restart, but is likely alive and about to take it back.
 */
import type { Sql } from 'postgres';
import { withDeadline } from './leader-directory.js';
import { RESTART_GRACE_MS } from './leader-lease.js';
import { replicaAlive } from './replica-lock.js';

/** Where an account is served: here, or by the replica at `url`. */
export type Placement = { here: true } | { here: false; url: string };

/** Milliseconds between attempts while an account cannot be placed (the database away, a grace). */
const RETRY_MS = 200;

/** Options of the owners. */
export interface AccountOwnersOptions {
  /** This replica's id, once registered. */
  replicaId: () => number | undefined;
  /**
   * Loads the account's rows and takes it over (`firstServed`: no replica served it before);
   * rejects if it cannot, and is called again at the next attempt.
   */
  adopt: (accountId: string, firstServed: boolean) => Promise<void>;
  /** Hears what went wrong in the background (the sweep). */
  onError: (error: unknown) => void;
}

/** A claim's outcome: placed, or not yet (within the grace after a database restart). */
type Claim = { placement: Placement; adopt: 'first' | 'takeover' | false } | 'wait';

export class AccountOwners {
  readonly #sql: Sql;
  readonly #options: AccountOwnersOptions;
  readonly #placed = new Map<string, Placement>();
  readonly #placing = new Map<string, Promise<Placement | undefined>>();
  /** Accounts this replica owns whose rows are not loaded yet (an adoption that failed is tried again), and whether first served. */
  readonly #unadopted = new Map<string, boolean>();
  readonly #adopting = new Map<string, Promise<boolean>>();
  #sweeping = false;

  constructor(sql: Sql, options: AccountOwnersOptions) {
    this.#sql = sql;
    this.#options = options;
  }

  /** The account's placement if known here (no database round trip). */
  placed(accountId: string): Placement | undefined {
    return this.#placed.get(accountId);
  }

  /**
   * The account's placement, claiming it if nobody alive owns it; retried until `deadline` (epoch
   * ms) while the database cannot tell. Undefined when the time is up.
   */
  place(accountId: string, deadline: number): Promise<Placement | undefined> {
    const known = this.#placed.get(accountId);
    if (known !== undefined) return Promise.resolve(known);
    let placing = this.#placing.get(accountId);
    if (placing === undefined) {
      placing = this.#place(accountId, deadline).finally(() => this.#placing.delete(accountId));
      this.#placing.set(accountId, placing);
    }
    return placing;
  }

  /** The replica at `url` did not answer for the account (or passed it on): look again next time. */
  forget(accountId: string, url?: string): void {
    const known = this.#placed.get(accountId);
    if (known !== undefined && !known.here && (url === undefined || known.url === url)) this.#placed.delete(accountId);
  }

  /** Takes over the accounts of replicas that are gone; run every second. */
  async sweep(): Promise<void> {
    const self = this.#options.replicaId();
    if (self === undefined || this.#sweeping) return;
    this.#sweeping = true;
    try {
      const orphans = await this.#sql.unsafe<Array<{ account_id: string }>>(
        `select o.account_id from lnpr_owners o left join lnpr_replicas r on r.id = o.replica_id
         where o.replica_id <> $1 and (r.id is null or (not ${replicaAlive('r.id')} and ${gracePassed('r')}))
         limit 200`,
        [self],
      );
      for (const { account_id: accountId } of orphans) {
        this.forget(accountId);
        await this.place(accountId, Date.now() + 5_000);
      }
      // Replicas gone for a minute that own nothing any more: their rows are no longer needed.
      await this.#sql.unsafe(
        `delete from lnpr_replicas r where r.started < now() - interval '1 minute' and not ${replicaAlive('r.id')}
         and not exists (select 1 from lnpr_owners o where o.replica_id = r.id)`,
      );
    } catch (error) {
      this.#options.onError(error);
    } finally {
      this.#sweeping = false;
    }
  }

  async #place(accountId: string, deadline: number): Promise<Placement | undefined> {
    for (;;) {
      const self = this.#options.replicaId();
      const claim = self === undefined ? 'wait' : await withDeadline(this.#claim(accountId, self), deadline).catch(() => 'wait' as const);
      if (claim !== 'wait') {
        if (!this.#unadopted.has(accountId) || (await withDeadline(this.#adopt(accountId), deadline).catch(() => false))) {
          this.#placed.set(accountId, claim.placement);
          return claim.placement;
        }
      }
      if (Date.now() + RETRY_MS > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  /** Loads the account once: a load that outlives one request's wait is joined by the next, not run again. */
  #adopt(accountId: string): Promise<boolean> {
    let adopting = this.#adopting.get(accountId);
    if (adopting === undefined) {
      adopting = this.#options
        .adopt(accountId, this.#unadopted.get(accountId) === true)
        .then(
          () => {
            this.#unadopted.delete(accountId);
            return true;
          },
          (error: unknown) => {
            this.#options.onError(error);
            return false;
          },
        )
        .finally(() => this.#adopting.delete(accountId));
      this.#adopting.set(accountId, adopting);
    }
    return adopting;
  }

  /**
   * One transaction: the owner as it stands, or this replica if there is none or it is gone. What
   * it takes is marked unadopted as it commits, even when its caller gave up waiting (a database
   * that hung answers later): the next claim finds this replica the owner already, and must still
   * load the account's rows before serving it.
   */
  async #claim(accountId: string, self: number): Promise<Claim> {
    const claim = await this.#takeOrRead(accountId, self);
    if (claim !== 'wait' && claim.adopt) this.#unadopted.set(accountId, claim.adopt === 'first' || this.#unadopted.get(accountId) === true);
    return claim;
  }

  async #takeOrRead(accountId: string, self: number): Promise<Claim> {
    return this.#sql.begin(async (tx): Promise<Claim> => {
      const [fresh] = await tx`insert into lnpr_owners (account_id, replica_id) values (${accountId}, ${self})
        on conflict (account_id) do nothing returning replica_id`;
      if (fresh !== undefined) return { placement: { here: true }, adopt: 'first' };
      // The row locked first, on its own: a locking read that waited for another claim rereads the
      // owner's row but not the rows joined to it (PostgreSQL's EvalPlanQual), so a joined read
      // would see the new owner without its URL and take it for gone. The next statement's
      // snapshot holds every claim committed before it.
      const [locked] = await tx`select replica_id from lnpr_owners where account_id = ${accountId} for update`;
      if (locked === undefined) return 'wait'; // deleted meanwhile: look again
      const [owner] = await tx.unsafe<Array<{ replica_id: string; url: string | null; alive: boolean; grace_passed: boolean }>>(
        `select o.replica_id, r.url, ${replicaAlive('o.replica_id')} as alive, (r.id is null or ${gracePassed('r')}) as grace_passed
         from lnpr_owners o left join lnpr_replicas r on r.id = o.replica_id where o.account_id = $1`,
        [accountId],
      );
      if (owner === undefined) return 'wait';
      const ownerId = Number(owner.replica_id);
      // Ours already: an account this replica made (its rows are in memory) or took over.
      if (ownerId === self) return { placement: { here: true }, adopt: false };
      if (owner.alive && owner.url !== null) return { placement: { here: false, url: owner.url }, adopt: false };
      if (!owner.grace_passed) return 'wait';
      await tx`update lnpr_replicas set fenced = true where id = ${ownerId}`;
      await tx`update lnpr_owners set replica_id = ${self} where account_id = ${accountId}`;
      return { placement: { here: true }, adopt: 'takeover' };
    });
  }
}

/** SQL: the replica row `alias` registered after the database's last start, or that start is RESTART_GRACE_MS old. */
function gracePassed(alias: string): string {
  return `(${alias}.started >= pg_postmaster_start_time() or now() - pg_postmaster_start_time() >= interval '${RESTART_GRACE_MS} milliseconds')`;
}
