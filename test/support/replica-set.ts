/**
 * Replicas of one sandbox behind a round-robin balancer, for replica tests: `lnpr serve
 * --database-url` child processes on loopback (their relay named by the balancer's URL, as a user
 * behind a load balancer sets `--public-url`), the balancer of round-robin-proxy.ts in front, and
 * which replica runs the relay (`lnpr_leader.url`) and which serves an account (`lnpr_owners`),
 * read from the database as the replicas do.
 */
import { startCliServer, type CliProcess } from './cli-process.js';
import { query } from './postgres-database.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.js';
import { until } from './waiting.js';

/** A replica: its process and its own URL. */
export type Replica = CliProcess & { url: string };

/** Replicas and their balancer. */
export interface ReplicaSet {
  readonly databaseUrl: string;
  readonly balancer: RoundRobinProxy;
  readonly replicas: Replica[];
  /** The replica running the relay, as `lnpr_leader.url` names it now (undefined if none of these). */
  relayReplica(): Promise<Replica | undefined>;
  /** The same (the relay's lease was the leader's before replicas served accounts of their own). */
  leader(): Promise<Replica | undefined>;
  /** The replica serving `accountId` as `lnpr_owners` says now (undefined if none of these, or no owner yet). */
  ownerOf(accountId: string): Promise<Replica | undefined>;
  /** SIGKILLs every replica still running and closes the balancer. */
  close(): Promise<void>;
}

/**
 * Starts `count` replicas on `databaseUrl` (the first one runs the relay: it is started, and takes the relay, before
 * the others start) and a balancer over all of them.
 */
export async function startReplicaSet(databaseUrl: string, count: number, args: string[] = []): Promise<ReplicaSet> {
  const balancer = await startRoundRobinProxy();
  const replicas: Replica[] = [];
  const close = async (): Promise<void> => {
    for (const replica of replicas) {
      if (replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill('SIGKILL');
      await replica.exited;
    }
    await balancer.close();
  };
  try {
    const start = async () => {
      const replica = await startCliServer(['--database-url', databaseUrl, '--public-url', balancer.url, ...args]);
      replicas.push(replica);
      return replica;
    };
    const first = await start();
    await until(() => first.output().stdout.includes('running the relay'), 15_000, () => first.output());
    await Promise.all(Array.from({ length: count - 1 }, start));
    balancer.targets = replicas.map((replica) => replica.url);
  } catch (error) {
    await close();
    throw error;
  }
  const relayReplica = async () => {
    const [row] = await query<Array<{ url: string }>>(databaseUrl, 'SELECT url FROM lnpr_leader WHERE id = 1');
    return replicas.find((replica) => replica.url === row?.url);
  };
  return {
    databaseUrl,
    balancer,
    replicas,
    relayReplica,
    leader: relayReplica,
    async ownerOf(accountId) {
      const [row] = await query<Array<{ url: string }>>(
        databaseUrl,
        'SELECT r.url FROM lnpr_owners o JOIN lnpr_replicas r ON r.id = o.replica_id WHERE o.account_id = $1',
        [accountId],
      );
      return replicas.find((replica) => replica.url === row?.url);
    },
    close,
  };
}
