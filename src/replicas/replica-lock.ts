/**
 * A replica's own lock: the sign that it is alive. Each replica registers once in `lnpr_replicas`
 * (a new id per start) and holds the session advisory lock (REPLICA_LOCK_SPACE, id) on its lease's
 * connection for as long as it lives. Another replica takes its accounts over only once that lock
 * is gone (`account-owners.ts`), and marks it `fenced` as it does, so that a replica which merely
 * lost its connection for a while finds out, when it takes its lock again, that it must not serve
 * its accounts any more (`retake` answers `led`), and its store refuses its writes from then on.
 */
import type { LeaseLock } from './leader-lease.js';

/** The first key of every replica's lock (the second is its id): "lnpr" replicas. */
export const REPLICA_LOCK_SPACE = 232_302;

/**
 * SQL: whether the replica `column` names holds its lock now. In this database only: pg_locks
 * shows the whole server's locks, and a replica of another sandbox on the same server has the
 * same ids (they are numbered per database), so its lock would make a dead replica here look alive.
 */
export function replicaAlive(column: string): string {
  return `exists (select 1 from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database()) and classid = ${REPLICA_LOCK_SPACE}::oid and objid::bigint = ${column} and objsubid = 2 and granted)`;
}

/** The lock of a replica registering with `advertiseUrl`. */
export function replicaLock(advertiseUrl: () => string): LeaseLock {
  return {
    async acquire(sql) {
      const [row] = await sql`insert into lnpr_replicas (url) values (${advertiseUrl()}) returning id`;
      const id = Number(row!.id);
      const [locked] = await sql`select pg_try_advisory_lock(${REPLICA_LOCK_SPACE}, ${id}::int) as locked`;
      return locked?.locked === true ? id : undefined;
    },
    async held(sql, id) {
      const [row] = await sql`select exists (
        select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()
          and classid = ${REPLICA_LOCK_SPACE}::oid and objid = ${id}::oid and objsubid = 2 and granted
      ) as held`;
      return row?.held === true;
    },
    async retake(sql, id) {
      const [row] = await sql`select pg_try_advisory_lock(${REPLICA_LOCK_SPACE}, ${id}::int) as locked`;
      if (row?.locked !== true) return 'taken';
      const [replica] = await sql`select fenced from lnpr_replicas where id = ${id}`;
      return replica !== undefined && replica.fenced !== true ? 'resumed' : 'led';
    },
  };
}
