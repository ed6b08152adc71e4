/**
 * `lnpr serve --database-url`: one replica of a sandbox kept in PostgreSQL. Every replica serves
 * some of the accounts: each account has one owner at a time (`account-owners.ts`), the replica
 * through which it was made or first used, which holds it in memory as a lone `lnpr serve` does
 * and writes through to PostgreSQL. A request for an account served elsewhere is forwarded there
 * (`forwarder.ts`), decided per request (`request-placement.ts`), so a balancer that hashes on the
 * key forwards almost nothing and a round-robin one still works. One replica at a time also runs
 * the relay (the leader lease, `leader-lease.ts`); the others forward `/nostr` to it, and every
 * replica's wallets speak NIP-47 over a socket to it (through their own door), publishing their
 * info events again whenever the relay moves.
 *
 * A replica that cannot reach the database is suspended: every request gets 503
 * `storage_unavailable` (`/healthz` too) until it takes its lock again; if no other replica took
 * its accounts over meanwhile, it serves again by itself. A replica whose accounts were taken over
 * (or whose relay lease was) exits with status 75 and a line saying why: it must not serve them
 * any more, and a supervisor (systemd, Kubernetes) starts it again.
 */
import postgres from 'postgres';
import type { AccountRecord } from '../core/store/account-record.js';
import { relayUrl } from '../http/relay-transport.js';
import { clientAddresses, REPLICA_TOKEN_HEADER } from '../http/client-address.js';
import type { NodeSandbox } from '../sandbox.node.js';
import { webSocketRelaySession } from '../nostr/web-socket-relay-session.node.js';
import type { RelaySession } from '../nostr/relay-session.js';
import { openPostgresStore, reconnectBackoff, type PostgresStore } from '../store/postgres/postgres-store.node.js';
import { ensureSchema } from '../store/postgres/schema.node.js';
import { adoptInto, closeSandbox, SERVE_TIME_LIMITS, startSandboxServer, type SandboxRecipe } from '../cli/sandbox-server.js';
import { UsageError } from '../cli/usage-error.js';
import { AccountOwners } from './account-owners.js';
import { buildForwarder } from './forwarder.js';
import { FrontDoor } from './front-door.js';
import { LeaderDirectory } from './leader-directory.js';
import { LeaderLease } from './leader-lease.js';
import { replicaAlive, replicaLock } from './replica-lock.js';
import { registerReplicaPayeeRoutes, replicaPayees } from './replica-payees.js';
import { RequestPlacement } from './request-placement.js';
import { mergeStoredAccounts } from './stored-accounts.js';
import { redactedDatabaseUrl } from '../store/postgres/database-url.js';

/** The exit status of a replica whose accounts or relay another replica took over (EX_TEMPFAIL: start it again). */
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
  /** The banner a replica prints once it serves, with the number of payment requests the database holds. */
  banner: (url: string, sandbox: NodeSandbox, webhookLines: string[], paymentRequests: number) => string;
}

/** Runs a replica until SIGINT/SIGTERM (or exits 75 when another replica took over its work). */
export async function serveReplica({ recipe, databaseUrl, host, port, advertiseUrl, trustProxy, banner }: ReplicaOptions): Promise<void> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const complain = (line: string) => process.stderr.write(`lnpr replica: ${line}\n`);
  const door = new FrontDoor(SERVE_TIME_LIMITS);
  const client = (applicationName: string, max: number) =>
    postgres(databaseUrl, {
      max,
      // One connection per lock: a lock lives and dies with its connection (no lifetime limit, never idle-closed).
      max_lifetime: null,
      idle_timeout: 0,
      connect_timeout: 5,
      backoff: reconnectBackoff,
      onnotice: () => {},
      connection: { application_name: applicationName, statement_timeout: 15_000 },
    });
  // The schema, the shared token and the relay's URL; and apart, the owners' claims and lookups.
  const sharedSql = client('lnpr-sandbox-replica', 1);
  const ownersSql = client('lnpr-sandbox-owners', 2);
  const endClients = () => Promise.all([sharedSql.end({ timeout: 0 }).catch(() => {}), ownersSql.end({ timeout: 0 }).catch(() => {})]);
  let selfUrl: string | undefined;
  let relayHere = false;
  const leaders = new LeaderDirectory(sharedSql, () => selfUrl, () => relayHere);
  try {
    await ensureSchema(sharedSql);
    await leaders.init();
  } catch (error) {
    await endClients();
    throw new UsageError(`--database-url ${redactedDatabaseUrl(databaseUrl)}: ${(error as Error).message}`);
  }
  const addresses = clientAddresses({ trustProxy, replicaToken: () => leaders.token });
  const { publicUrl, hostNames = [], bodyLimit = 1024 * 1024 } = recipe.serverOptions;

  let serving: { sandbox: NodeSandbox; store: PostgresStore; close: () => Promise<void> } | undefined;
  let stopping = false;
  const stepDown = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    complain(`${reason}; exiting with status ${LOST_LEASE_EXIT} so that a supervisor starts this replica again`);
    // At once: another replica serves this one's accounts now, and this one must not answer for them.
    process.exit(LOST_LEASE_EXIT);
  };

  /** The accounts made through the accounts API, as the database holds them, into the directory. */
  const refreshAccounts = async (): Promise<void> => {
    const directory = serving?.sandbox.directory;
    if (directory === undefined) return;
    const records = (await ownersSql<Array<{ data: AccountRecord }>>`select data from lnpr_accounts order by seq`).map((row) => row.data);
    mergeStoredAccounts(directory, records, (accountId) => owners.placed(accountId)?.here === true);
  };
  const owners = new AccountOwners(ownersSql, {
    replicaId: () => replicaLease.token,
    adopt: async (accountId, firstServed) => {
      const { sandbox, store } = serving!;
      await store.adoptAccount(accountId);
      await refreshAccounts();
      sandbox.adopt(accountId);
      await adoptInto(recipe, sandbox, accountId, firstServed).catch((error: unknown) => complain(`setting up account ${accountId}: ${(error as Error).message}`));
      say(`lnpr replica: serving account ${accountId}${firstServed ? '' : ' (taken over)'}`);
    },
    onError: (error) => complain(`placing accounts: ${(error as Error).message}`),
  });
  const placement = new RequestPlacement({
    owners,
    directory: () => serving!.sandbox.directory,
    refreshAccounts,
    localAccountOf: (id) => serving?.store.getPaymentRequest(id)?.accountId,
    storedAccountOf: async (id) => {
      const [row] = await ownersSql<Array<{ account_id: string }>>`select account_id from lnpr_payment_requests where id = ${id}`;
      return row?.account_id;
    },
    relayReplica: async (deadline, fresh) => {
      if (relayHere) return { here: true };
      const url = await leaders.find(deadline, fresh);
      return relayHere ? { here: true } : url === undefined ? undefined : { here: false, url };
    },
    forgetRelay: (url) => leaders.forget(url),
    fromReplica: (request) => addresses.fromReplica(request),
  });
  const forwarder = await door.face('forwarder', async (serverFactory) => {
    const app = await buildForwarder({
      serverFactory,
      targets: {
        find: (request, deadline) => placement.target(request, deadline),
        forget: (request, url) => placement.forget(request, url),
        get token() {
          return leaders.token;
        },
      },
      clientAddresses: addresses,
      hostNames: [...hostNames, ...(publicUrl === undefined ? [] : [new URL(publicUrl).hostname])],
      bodyLimit,
    });
    await app.ready();
    return app;
  });

  const startServing = async (replicaId: number): Promise<void> => {
    const started = Date.now();
    const store = await openPostgresStore({
      url: databaseUrl,
      replicaId,
      onFenced: (error) => stepDown(`a write was refused: ${error.detail}`),
    });
    const { sandbox, app, webhookLines } = await door
      .face('sandbox', async (serverFactory) => {
        const built = await startSandboxServer(recipe, {
          store,
          clientAddresses: addresses,
          serverFactory,
          replica: {
            // Through this replica's own door, which sends it on to the relay's replica.
            walletRelaySession: () =>
              (walletSession = webSocketRelaySession(relayUrl(selfUrl!)!, {
                headers: () => ({ [REPLICA_TOKEN_HEADER]: leaders.token ?? '' }),
                onError: (error) => complain(`wallets' relay session: ${(error as Error).message}`),
              })),
            remotePayees: replicaPayees({
              otherReplicas: async () =>
                (await ownersSql.unsafe<Array<{ url: string }>>(`select url from lnpr_replicas r where r.id <> $1 and ${replicaAlive('r.id')}`, [replicaId])).map((row) => row.url),
              token: () => leaders.token,
            }),
          },
        });
        registerReplicaPayeeRoutes(built.app, built.sandbox, (request) => addresses.fromReplica(request));
        await built.app.ready();
        return built;
      })
      .catch(async (error: unknown) => {
        await store.close().catch(() => {});
        throw error;
      });
    // Its `onListen` never runs (the server listened before it existed): say where the relay is.
    sandbox.relay.url = relayUrl(publicUrl ?? selfUrl!);
    serving = {
      sandbox,
      store,
      close: async () => {
        // First: a socket to this very server, which would keep it from closing (and reconnect).
        walletSession?.close();
        await app.close();
        await closeSandbox(sandbox);
      },
    };
    door.routeBy((request, upgrade) => {
      const decision = placement.decide(request, upgrade);
      return decision instanceof Promise ? decision.then((made) => made.face) : decision.face;
    });
    door.open('sandbox');
    sweeper = setInterval(() => void owners.sweep(), 1_000);
    sweeper.unref();
    relayLease.start();
    say(`lnpr replica: serving as replica ${replicaId} (ready in ${Date.now() - started} ms); accounts are served by the replica that first serves them`);
    const [count] = await ownersSql<Array<{ n: string }>>`select count(*) as n from lnpr_payment_requests`.catch(() => [{ n: '?' }]);
    process.stdout.write(banner(selfUrl!, sandbox, webhookLines, Number(count?.n ?? 0)));
  };
  let sweeper: ReturnType<typeof setInterval> | undefined;
  let walletSession: RelaySession | undefined;

  const replicaLease = new LeaderLease(() => client('lnpr-sandbox-replica-lock', 1), {
    get advertiseUrl() {
      return selfUrl!;
    },
    lock: replicaLock(() => selfUrl!),
    onAcquired: startServing,
    onLost: (reason) => stepDown(`its accounts were taken over (${reason})`),
    onSuspended: (reason) => {
      door.suspend();
      complain(`cannot reach the database (${reason}); answering 503 until it can again`);
    },
    onResumed: () => {
      door.open('sandbox');
      say('lnpr replica: the database is back, and no other replica took this one\'s accounts: serving again');
    },
  });
  const relayLease = new LeaderLease(() => client('lnpr-sandbox-relay-lock', 1), {
    get advertiseUrl() {
      return selfUrl!;
    },
    onAcquired: async (epoch) => {
      relayHere = true;
      say(`lnpr replica: running the relay (epoch ${epoch})`);
    },
    onLost: (reason) => stepDown(`another replica runs the relay now (${reason})`),
  });

  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      replicaLease.stop();
      relayLease.stop();
      clearInterval(sweeper);
      say(`lnpr replica: ${signal}: finishing in-flight requests, flushing storage, handing its accounts over`);
      void (async () => {
        try {
          await serving?.close();
          await forwarder.close();
        } catch (error) {
          complain(`shutdown failed: ${(error as Error).message}`);
          process.exitCode = 1;
        }
        // Last: ending the locks' connections tells the others this replica is gone; they take
        // its accounts and the relay over within a second.
        await Promise.all([replicaLease.close(2), relayLease.close(2)]);
        await endClients();
        resolve();
      })();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  // Requests wait (up to 10 s) until the sandbox is up.
  door.hold();
  try {
    await forwarder.listen({ port, host });
  } catch (error) {
    await endClients();
    throw new UsageError(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
  }
  selfUrl = advertiseUrl ?? forwarder.listeningOrigin;
  placement.selfUrl = selfUrl;
  say(`lnpr-sandbox listening on ${forwarder.listeningOrigin}`);
  say(`  replica of ${redactedDatabaseUrl(databaseUrl)}, reached by the others at ${selfUrl}`);
  replicaLease.start();
  await stopped;
  // Sockets to a database that stopped answering close only when it answers (postgres.js ends
  // them politely): they must not keep a replica that was told to stop alive.
  setTimeout(() => process.exit(), 1_000).unref();
}
