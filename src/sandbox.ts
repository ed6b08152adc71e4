/**
 * `createSandbox`: the engine wired with browser-safe parts (memory store, noble signer, wall
 * time). The Node entry (`sandbox.node.ts`) swaps in the faster signer and the JSON-file store.
 */
import defaultAccounts from '../fixtures/accounts.json' with { type: 'json' };
import { createAccountClocks, type ClockMode } from './clock/account-clocks.js';
import type { AccountsConfig } from './core/accounts/accounts.js';
import { createEngine, type Engine, type EngineOptions } from './core/engine.js';
import type { ApiRequest } from './core/pipeline/handler.js';
import type { EventListener } from './core/events/change-log.js';
import type { RandomSource, RecoverableSigner, Timers, WallClock } from './core/ports.js';
import type { SandboxStore } from './core/store/sandbox-store.js';
import type { WebhookSender } from './core/webhooks/webhook-sender.js';
import { cryptoRandom } from './core/random.js';
import { resolveSettings, type SandboxSettings } from './core/settings.js';
import { openApiRoute } from './openapi/route.js';
import { createInvoiceIssuer } from './lightning/invoice-issuer.js';
import type { Network } from './lightning/networks.js';
import { parsePrivateKey } from './lightning/node-key.js';
import { nobleSigner } from './lightning/signer.js';
import type { Rule } from './schemas/rules.js';
import { createMemoryStore } from './store/memory-store.js';
import { createFetchWebhookSender } from './webhook-sender/fetch-webhook-sender.js';

/** Options of `createSandbox`; every one has a default. */
export interface SandboxOptions {
  /** Open points of the spec and limits; see the README's "Open points". */
  settings?: Partial<SandboxSettings>;
  /** Accounts and keys; `fixtures/accounts.json` by default. */
  accounts?: AccountsConfig;
  /** Invoice network: `regtest` by default. */
  network?: Network;
  /** Whether account clocks start running (default) or frozen. */
  clock?: ClockMode;
  /** Where payment requests live: in memory by default. */
  store?: SandboxStore;
  signer?: RecoverableSigner;
  wallClock?: WallClock;
  random?: RandomSource;
  /** Behaviour rules in force from the start (scripted outcomes); accounts may add their own. */
  rules?: Rule[];
  /** Sends webhook deliveries: `fetch` by default (Node's sandbox uses node:http). */
  webhookSender?: WebhookSender;
  /** Sees every event (each change of a payment request), e.g. to assert on it in a test. */
  onEvent?: EventListener;
  /** The scheduler's timers (tests may drive them); the platform's by default. */
  timers?: Timers;
  /** Sees unexpected errors (bugs) before they become a 500; `request` is absent for background work. */
  onUnexpectedError?: (error: unknown, request?: ApiRequest) => void;
  /** How NWC accounts' connected wallets are reached: in-process by default; Node's sandbox uses its relay. */
  connectedWallets?: EngineOptions['connectedWallets'];
  /** The relay NWC URLs name; `ws://localhost/nostr` where no relay runs (MSW). */
  relayUrl?: () => string;
  /** @internal A replica of `lnpr serve --database-url`: accounts are served once adopted (EngineOptions). */
  adoptAccounts?: boolean;
  /** @internal Invoices other replicas hold (EngineOptions). */
  remotePayees?: EngineOptions['remotePayees'];
}

/** The sandbox: the engine and the choices it was made with. */
export interface Sandbox extends Engine {
  network: Network;
  accountsConfig: AccountsConfig;
}

/** The default accounts and keys of CONTRACT.md. */
export const DEFAULT_ACCOUNTS: AccountsConfig = defaultAccounts as AccountsConfig;

/** Creates a sandbox engine in this process; `sandbox.handle(request)` answers API requests. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const accountsConfig = options.accounts ?? DEFAULT_ACCOUNTS;
  const network = options.network ?? 'regtest';
  const store = options.store ?? createMemoryStore();
  const wall = options.wallClock ?? { now: () => Date.now() };
  const settings = resolveSettings(options.settings);
  const engine = createEngine({
    settings,
    extraRoutes: [openApiRoute(settings)],
    accounts: accountsConfig,
    store,
    clocks: createAccountClocks({ store, wall, mode: options.clock ?? 'running' }),
    wall,
    webhookSender: options.webhookSender ?? createFetchWebhookSender(),
    ...(options.timers ? { timers: options.timers } : {}),
    invoices: createInvoiceIssuer(network, options.signer ?? nobleSigner),
    random: options.random ?? cryptoRandom,
    serviceNodeKey: parsePrivateKey(accountsConfig.serviceNodeKey ?? DEFAULT_ACCOUNTS.serviceNodeKey!),
    rules: [...(accountsConfig.rules ?? []), ...(options.rules ?? [])],
    ...(options.onUnexpectedError ? { onUnexpectedError: options.onUnexpectedError } : {}),
    ...(options.connectedWallets ? { connectedWallets: options.connectedWallets } : {}),
    ...(options.relayUrl ? { relayUrl: options.relayUrl } : {}),
    ...(options.adoptAccounts ? { adoptAccounts: true } : {}),
    ...(options.remotePayees ? { remotePayees: options.remotePayees } : {}),
  });
  if (options.onEvent) engine.onEvent(options.onEvent);
  return { ...engine, network, accountsConfig };
}
