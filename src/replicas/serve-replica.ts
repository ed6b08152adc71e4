/**
 * `lnpr serve --database-url`: one replica of a sandbox kept in PostgreSQL. Exactly one replica
 * at a time, the leader (it holds the lease, `leader-lease.ts`), holds the sandbox in memory as
 * a lone `lnpr serve` does, writing through to PostgreSQL; every other replica, a standby,
 * forwards every request to it (`forwarder.ts`). When the leader dies, a standby takes the lease,
 * loads the sandbox from PostgreSQL (its due expiries, rule outcomes and webhook attempts with
 * it, as after a restart) and serves on the same port; requests meanwhile wait, up to 10 s.
 *
 * A leader that cannot reach the database is suspended: every request gets 503
 * `storage_unavailable` (`/healthz` too) until it takes its lock again; if its epoch is unchanged
 * (nobody led meanwhile: the database went away and came back) it serves again by itself. A
 * leader that lost its lease (another replica led meanwhile, or a write was refused for a stale
 * epoch) exits with status 75 and a line saying why: it must not serve a sandbox another replica
 * now leads, and a supervisor (systemd, Kubernetes) starts it again, as a standby.
 */
import postgres from 'postgres';
import { relayUrl } from '../http/relay-transport.js';
import { clientAddresses } from '../http/client-address.js';
import type { NodeSandbox } from '../sandbox.node.js';
import { openPostgresStore, reconnectBackoff } from '../store/postgres/postgres-store.node.js';
import { ensureSchema } from '../store/postgres/schema.node.js';
import { closeSandbox, SERVE_TIME_LIMITS, startSandboxServer, type SandboxRecipe } from '../cli/sandbox-server.js';
import { UsageError } from '../cli/usage-error.js';
import { buildForwarder } from './forwarder.js';
import { FrontDoor } from './front-door.js';
import { LeaderDirectory } from './leader-directory.js';
import { LeaderLease } from './leader-lease.js';
import { redactedDatabaseUrl } from '../store/postgres/database-url.js';

/** The exit status of a leader that lost its lease (EX_TEMPFAIL: start it again). */
export const LOST_LEASE_EXIT = 75;

/** What `lnpr serve` hands a replica. */
export interface ReplicaOptions {
  recipe: SandboxRecipe;
  databaseUrl: string;
  host: string;
  port: number;
  /** How the other replicas reach this one; `http://HOST:PORT` by default. */
  advertiseUrl?: string;
  trustProxy: readonly string[];
  /** The banner a leader prints once it serves. */
  banner: (url: string, sandbox: NodeSandbox, webhookLines: string[]) => string;
}

/** Runs a replica until SIGINT/SIGTERM (or exits 75 when it loses the lead). */
export async function serveReplica({ recipe, databaseUrl, host, port, advertiseUrl, trustProxy, banner }: ReplicaOptions): Promise<void> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const door = new FrontDoor(SERVE_TIME_LIMITS);
  // One connection: the lock lives and dies with the lease's (no lifetime limit, never idle-closed).
  const oneConnection = (applicationName: string) =>
    postgres(databaseUrl, {
      max: 1,
      max_lifetime: null,
      idle_timeout: 0,
      connect_timeout: 5,
      backoff: reconnectBackoff,
      onnotice: () => {},
      connection: { application_name: applicationName },
    });
  // The schema, the shared token and the leader's URL: a client apart from the lease's, which is
  // ended and made again when its lock cannot be checked.
  const sharedSql = oneConnection('lnpr-sandbox-replica');
  let selfUrl: string | undefined;
  const leaders = new LeaderDirectory(sharedSql, () => selfUrl, () => door.active !== 'forwarder');
  try {
    await ensureSchema(sharedSql);
    await leaders.init();
  } catch (error) {
    await sharedSql.end({ timeout: 1 }).catch(() => {});
    throw new UsageError(`--database-url ${redactedDatabaseUrl(databaseUrl)}: ${(error as Error).message}`);
  }
  const addresses = clientAddresses({ trustProxy, replicaToken: () => leaders.token });
  const { publicUrl, hostNames = [], bodyLimit = 1024 * 1024 } = recipe.serverOptions;
  const forwarder = await door.face('forwarder', async (serverFactory) => {
    const app = await buildForwarder({
      serverFactory,
      leaders,
      clientAddresses: addresses,
      hostNames: [...hostNames, ...(publicUrl === undefined ? [] : [new URL(publicUrl).hostname])],
      bodyLimit,
    });
    await app.ready();
    return app;
  });

  let leading: { sandbox: NodeSandbox; close: () => Promise<void> } | undefined;
  let stopping = false;
  /** A takeover under way: a stop waits for it, so what it opened is closed too. */
  let takingOver: Promise<void> | undefined;
  const takeOver = (epoch: number): Promise<void> => (takingOver = loadAndLead(epoch).finally(() => (takingOver = undefined)));
  const loadAndLead = async (epoch: number): Promise<void> => {
    door.hold();
    const started = Date.now();
    const store = await openPostgresStore({
      url: databaseUrl,
      fenceEpoch: epoch,
      onFenced: (error) => stepDown(`a write was refused: ${error.message}`),
    });
    const { sandbox, app, webhookLines } = await door
      .face('sandbox', async (serverFactory) => {
        const built = await startSandboxServer(recipe, { store, clientAddresses: addresses, serverFactory, fixturesOnlyWhenEmpty: true });
        await built.app.ready();
        return built;
      })
      .catch(async (error: unknown) => {
        await store.close().catch(() => {});
        throw error;
      });
    // Its `onListen` never runs (the server listened before it existed): say where the relay is.
    sandbox.relay.url = relayUrl(publicUrl ?? selfUrl!);
    leading = {
      sandbox,
      close: async () => {
        await app.close();
        await closeSandbox(sandbox);
      },
    };
    door.open('sandbox');
    say(`lnpr replica: leading the sandbox (epoch ${epoch}, took ${Date.now() - started} ms to load ${sandbox.store.size()} payment requests)`);
    process.stdout.write(banner(selfUrl!, sandbox, webhookLines));
  };
  const stepDown = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`lnpr replica: lost the leader lease (${reason}); exiting with status ${LOST_LEASE_EXIT} so that a supervisor starts this replica again, as a standby\n`);
    // At once: another replica leads now, and this one must not answer for the sandbox any more.
    process.exit(LOST_LEASE_EXIT);
  };
  const lease = new LeaderLease(() => oneConnection('lnpr-sandbox-lease'), {
    get advertiseUrl() {
      return selfUrl!;
    },
    onAcquired: takeOver,
    onLost: stepDown,
    onSuspended: (reason) => {
      door.suspend();
      process.stderr.write(`lnpr replica: cannot reach the database (${reason}); answering 503 until it can again\n`);
    },
    onResumed: () => {
      door.open('sandbox');
      say('lnpr replica: the database is back, and this replica still leads: serving again');
    },
  });

  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      lease.stop();
      say(`lnpr replica: ${signal}: finishing in-flight requests, flushing storage, giving up the lead`);
      void (async () => {
        try {
          await takingOver?.catch(() => {});
          await leading?.close();
          await forwarder.close();
        } catch (error) {
          process.stderr.write(`lnpr replica: shutdown failed: ${(error as Error).message}\n`);
          process.exitCode = 1;
        }
        // Last: ending the lease's connection releases the lock, and a standby takes over.
        await lease.close(2);
        await sharedSql.end({ timeout: 0 }).catch(() => {});
        resolve();
      })();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  try {
    await forwarder.listen({ port, host });
  } catch (error) {
    await sharedSql.end({ timeout: 1 }).catch(() => {});
    throw new UsageError(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
  }
  selfUrl = advertiseUrl ?? forwarder.listeningOrigin;
  say(`lnpr-sandbox listening on ${forwarder.listeningOrigin}`);
  say(`  replica of ${redactedDatabaseUrl(databaseUrl)}, reached by the others at ${selfUrl}; a standby until it takes the lead`);
  lease.start();
  await stopped;
}

