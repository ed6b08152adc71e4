/**
 * How `lnpr serve` makes its sandbox and the server over it, from the parsed flags: one recipe,
 * used by a lone process (memory, `--data`) at start and by a replica each time it takes the
 * lead (`src/replicas/serve-replica.ts`), so a leader serves exactly what `lnpr serve` serves.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../core/errors/errors.js';
import type { SandboxStore } from '../core/store/sandbox-store.js';
import type { ClientAddresses } from '../http/client-address.js';
import type { NwcRequestLog } from '../http/nwc-requests.js';
import { buildServer, type ServerOptions } from '../http/server.js';
import { webPagesOf } from '../http/web-pages.js';
import { createNodeSandbox, type NodeSandbox, type NodeSandboxOptions } from '../sandbox.node.js';
import type { Sandbox } from '../sandbox.js';
import type { RelaySession } from '../nostr/relay-session.js';
import type { RemotePayees } from '../core/ports.js';
import type { ServeWebhooks } from './serve-webhooks.js';
import { UsageError } from './usage-error.js';

/** The time limits of `lnpr serve`'s clients: headers within 10 s, a whole request within 30 s. */
export const SERVE_TIME_LIMITS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 } as const;

/** What the flags decided, before any sandbox exists. */
export interface SandboxRecipe {
  sandboxOptions: Omit<NodeSandboxOptions, 'store' | 'dataFile'>;
  /** `--fixtures`: loaded into an empty sandbox. */
  fixtures?: { data: unknown; path: string };
  webhooks: ServeWebhooks;
  serverOptions: Omit<ServerOptions, 'handle' | 'web' | 'relay' | 'clientAddresses' | 'serverFactory'>;
  nwcRequests: NwcRequestLog;
}

/** Where the sandbox keeps its state and how its server is made. */
export interface SandboxPlace {
  dataFile?: string;
  store?: SandboxStore;
  clientAddresses?: ClientAddresses;
  serverFactory?: ServerOptions['serverFactory'];
  /**
   * A replica serving the accounts it owns (`lnpr serve --database-url`): the store starts with
   * the accounts' records only, and fixtures and `--webhook` endpoints go into each account as the
   * replica adopts it (`adoptInto`), not at start.
   */
  replica?: { walletRelaySession: () => RelaySession; remotePayees: RemotePayees };
}

/** The sandbox and its (not yet listening) server; closes the sandbox if making the server fails. */
export async function startSandboxServer(
  recipe: SandboxRecipe,
  place: SandboxPlace,
): Promise<{ sandbox: NodeSandbox; app: FastifyInstance; webhookLines: string[] }> {
  const sandbox = await createNodeSandbox({
    ...recipe.sandboxOptions,
    ...(place.dataFile ? { dataFile: place.dataFile } : {}),
    ...(place.store ? { store: place.store } : {}),
    ...(place.replica ? { adoptAccounts: true, walletRelaySession: place.replica.walletRelaySession, remotePayees: place.replica.remotePayees } : {}),
  }).catch((error: unknown) => {
    throw error instanceof ApiError ? new UsageError(`behaviour rules: ${error.message}`) : error;
  });
  try {
    if (recipe.fixtures !== undefined && !place.replica) await loadRecipeFixtures(recipe, sandbox);
    const webhookLines = await recipe.webhooks.register(sandbox, place.replica ? [] : undefined);
    const app = await buildServer({
      ...recipe.serverOptions,
      handle: sandbox.answer,
      web: webPagesOf(sandbox, { nwcRequests: recipe.nwcRequests }),
      relay: sandbox.relay,
      ...(place.clientAddresses ? { clientAddresses: place.clientAddresses } : {}),
      ...(place.serverFactory ? { serverFactory: place.serverFactory } : {}),
    });
    return { sandbox, app, webhookLines };
  } catch (error) {
    await closeSandbox(sandbox);
    throw error;
  }
}

/** Loads `--fixtures`, into the given accounts only if `accountIds` is given; a bad file is a UsageError. */
async function loadRecipeFixtures(recipe: SandboxRecipe, sandbox: NodeSandbox, accountIds?: ReadonlySet<string>): Promise<void> {
  try {
    const { loadFixtures } = await import('../fixtures/load-fixtures.js');
    await loadFixtures(sandbox, recipe.fixtures!.data, recipe.fixtures!.path, accountIds);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * What a replica puts into an account it adopts: with `firstServed` (nobody served it before),
 * the fixtures' records of the account; the `--webhook` endpoints, if missing.
 */
export async function adoptInto(recipe: SandboxRecipe, sandbox: NodeSandbox, accountId: string, firstServed: boolean): Promise<void> {
  if (firstServed && recipe.fixtures !== undefined) await loadRecipeFixtures(recipe, sandbox, new Set([accountId]));
  await recipe.webhooks.register(sandbox, [accountId]);
}

/** Stops the scheduler and deliveries in flight (pending ones stay in the outbox), then flushes the store. */
export function closeSandbox(sandbox: Sandbox): Promise<void> {
  sandbox.close();
  return sandbox.store.close();
}
