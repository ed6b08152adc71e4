/**
 * The engine: the behaviour of the API assembled from its parts and its ports. Transports get
 * `handle`; in-process users (and the CLI) also get the parts themselves.
 */
import { AccountData } from './account-data.js';
import { AccountRegistry } from './accounts/account-registry.js';
import { AccountDirectory, type AccountsConfig } from './accounts/accounts.js';
import type { EventListener } from './events/change-log.js';
import type { DeliveryListener } from './webhooks/delivery-dispatcher.js';
import { createEventMachinery, type EventMachinery } from './events/event-machinery.js';
import { PaymentRequests } from './payments/payment-requests.js';
import { RuleBook } from './payments/rules.js';
import { cryptoRandom } from './random.js';
import { createRequestHandler, type AnsweringHandler, type ApiRequest, type RequestHandler } from './pipeline/handler.js';
import type { AnyRoute } from './pipeline/route.js';
import type { AccountClocks, ConnectedWallets, InvoiceIssuer, RandomSource, RemotePayees, Timers, WallClock } from './ports.js';
import type { SandboxStore } from './store/sandbox-store.js';
import type { WebhookSender } from './webhooks/webhook-sender.js';
import type { RouteDeps } from './routes/route-deps.js';
import { routeTable } from './routes/route-table.js';
import type { SandboxSettings } from './settings.js';
import type { Rule } from '../schemas/rules.js';
import { ApiLoad } from './webhooks/api-load.js';
import type { WalletParts } from './wallets/wallet-parts.js';
import { createWalletMachinery } from './wallets/wallet-machinery.js';
import { ApiFaultBook } from './resilience/api-faults.js';
import { RequestJournal, type JournalFilter } from './resilience/request-journal.js';
import { withResilience } from './resilience/resilient-handler.js';
import type { JournalEntryView } from '../schemas/faults.js';
import type { TestWallets } from './wallets/test-wallets.js';
import type { WalletLedger } from './wallets/wallet-ledger.js';
import { platformTimers } from './due/platform-timers.js';

/** Everything the engine is made of. */
export interface EngineOptions {
  settings: SandboxSettings;
  accounts: AccountsConfig;
  store: SandboxStore;
  clocks: AccountClocks;
  wall: WallClock;
  invoices: InvoiceIssuer;
  random: RandomSource;
  serviceNodeKey: Uint8Array;
  /** Sends webhook deliveries. */
  webhookSender: WebhookSender;
  /** The scheduler's timers; the platform's by default. */
  timers?: Timers;
  /** Behaviour rules in force from the start (e.g. from `--scenario` files). */
  rules?: Rule[];
  /** Routes served beside the engine's own (e.g. the OpenAPI document's). */
  extraRoutes?: ReadonlyArray<AnyRoute<RouteDeps>>;
  /** Sees unexpected errors (bugs) before they become a 500, e.g. to log them. */
  onUnexpectedError?: (error: unknown, request?: ApiRequest) => void;
  /**
   * How NWC accounts' connected wallets are reached, given the ledger of the sandbox-run ones:
   * in-process by default (MSW); Node's sandbox speaks NIP-47 over its relay.
   */
  connectedWallets?: (parts: WalletParts) => ConnectedWallets;
  /** The relay NWC URLs name (`ws://HOST:PORT/nostr`), read when one is shown. */
  relayUrl?: () => string;
  /**
   * The store starts without the accounts' records, and the engine acts for an account (its
   * configured webhooks, what falls due, its wallets) only once `adopt` hands it over: a replica
   * that serves some accounts of a sandbox others share (`lnpr serve --database-url`).
   */
  adoptAccounts?: boolean;
  /** Invoices another process holds, which the test wallets here may pay (a replica's). */
  remotePayees?: RemotePayees;
}

/** The relay named where no transport says better (MSW: wallets run in-process, without one). */
export const IN_PROCESS_RELAY_URL = 'ws://localhost/nostr';

/** The assembled engine. */
export interface Engine {
  /** Answers one request; never throws. */
  handle: RequestHandler;
  /** `handle`, answering at once when the route does (no promise): what a transport calls. */
  answer: AnsweringHandler;
  /** Every route served, as declared (method, path, access, body, query, answers). */
  routes: ReadonlyArray<AnyRoute<RouteDeps>>;
  settings: SandboxSettings;
  directory: AccountDirectory;
  /** The accounts API: accounts made and deleted while the sandbox runs. */
  accounts: AccountRegistry;
  /** Resets accounts (`POST /sandbox/v1/reset`) and erases deleted ones. */
  accountData: AccountData;
  paymentRequests: PaymentRequests;
  /** The account clocks; moving one runs whatever it makes due (expiries, outcomes, retries). */
  clocks: AccountClocks;
  store: SandboxStore;
  rules: RuleBook;
  /** Events, webhook endpoints, deliveries and the scheduler. */
  events: EventMachinery;
  /** The money of the sandbox-run wallets: invoices, lookups, the one settlement path. */
  ledger: WalletLedger;
  /** The accounts' test wallets. */
  testWallets: TestWallets;
  /**
   * The account's journaled `/api/v1` calls, newest first (what `GET /sandbox/v1/requests`
   * answers): e.g. `sandbox.requests('acct_custodial', { method: 'POST' })`.
   */
  requests(accountId: string, filter?: JournalFilter): JournalEntryView[];
  /** The accounts' API faults (`PUT /sandbox/v1/faults`). */
  apiFaults: ApiFaultBook;
  /** NWC accounts' connected wallets. */
  connectedWallets: ConnectedWallets;
  /** Calls `listener` with every event (each change of a payment request) and its account; returns the function that stops it. */
  onEvent(listener: EventListener): () => void;
  /** Calls `listener` with every recorded delivery attempt and its account; returns the function that stops it. */
  onDelivery(listener: DeliveryListener): () => void;
  /** Calls `listener` with the account of every clock move; returns the function that stops it. */
  onClockMove(listener: (accountId: string) => void): () => void;
  /**
   * Takes the account over once the store holds its records (with `adoptAccounts`): its
   * configured webhooks, what its records have due, its test wallets and NWC requests.
   */
  adopt(accountId: string): void;
  /** Stops the scheduler and aborts delivery attempts in flight; the store stays open (close it after). */
  close(): void;
}

/** Assembles the engine. */
export function createEngine(options: EngineOptions): Engine {
  const { settings, store } = options;
  const onUnexpectedError = options.onUnexpectedError ?? (() => {});
  const directory = new AccountDirectory(options.accounts, store.accountRecords());
  const rules = new RuleBook(options.rules);
  const apiLoad = new ApiLoad();
  const events = createEventMachinery({
    store,
    clocks: options.clocks,
    wall: options.wall,
    // Not the engine's random source: fixtures seed that one, and event ids drawn from it would
    // change every record generated after the first event.
    random: cryptoRandom,
    sender: options.webhookSender,
    allowedHosts: settings.webhookAllowedHosts,
    ...(options.timers ? { timers: options.timers } : {}),
    apiLoad,
    onError: (error) => onUnexpectedError(error),
  });
  const { clocks } = events;
  // Written to the index at once (acknowledged later), so the first request already sees them.
  const ensureConfiguredWebhooks = (accountId?: string) => {
    for (const account of options.accounts.accounts) {
      if (accountId !== undefined && account.id !== accountId) continue;
      for (const webhook of account.webhooks ?? []) events.endpoints.ensure(account.id, webhook).catch(onUnexpectedError);
    }
  };
  if (!options.adoptAccounts) ensureConfiguredWebhooks();
  const wallets = createWalletMachinery({
    store,
    clocks,
    wall: options.wall,
    invoices: options.invoices,
    random: options.random,
    timers: options.timers ?? platformTimers,
    directory,
    changeLog: events.changeLog,
    nwcTimeoutSeconds: settings.nwcTimeoutSeconds,
    relayUrl: options.relayUrl ?? (() => IN_PROCESS_RELAY_URL),
    ...(options.connectedWallets ? { connectedWallets: options.connectedWallets } : {}),
    requests: () => paymentRequests,
    ...(options.remotePayees ? { remotePayees: options.remotePayees } : {}),
    onError: onUnexpectedError,
  });
  const { ledger, testWallets, connectedWallets, faults: walletFaults } = wallets;
  const paymentRequests: PaymentRequests = new PaymentRequests({ ...options, clocks, rules, changes: events.changeLog, connectedWallets });
  wallets.start();
  const apiFaults = new ApiFaultBook();
  const journal = new RequestJournal();
  const accountData = new AccountData({ store, clocks, rules, walletFaults, testWallets, apiFaults, journal, forgetDue: (accountId) => events.forget(accountId) });
  // Keys and wallet node keys are secrets: crypto-strong whatever the engine's random source.
  const accounts = new AccountRegistry({ directory, store, wall: options.wall, random: cryptoRandom, data: accountData, config: options.accounts });
  const routes = [...routeTable(settings), ...(options.extraRoutes ?? [])];
  const handleRoute = createRequestHandler(routes, {
    deps: { paymentRequests, clocks, rules, endpoints: events.endpoints, log: events.log, storage: store, accounts, accountData, ledger, testWallets, connectedWallets, walletFaults, apiFaults, journal },
    directory,
    onUnexpectedError,
  });
  const handleResiliently = withResilience(handleRoute, { directory, faults: apiFaults, journal, wall: options.wall, rateLimit: settings.rateLimit });
  const answer: AnsweringHandler = (request) => {
    apiLoad.noteRequest();
    return handleResiliently(request);
  };
  return {
    handle: async (request) => answer(request),
    answer,
    requests: (accountId, filter = {}) => journal.list(accountId, filter),
    apiFaults,
    routes,
    settings,
    directory,
    accounts,
    accountData,
    paymentRequests,
    clocks,
    store,
    rules,
    events,
    ledger,
    testWallets,
    connectedWallets,
    onEvent: (listener) => events.changeLog.subscribe(listener),
    onDelivery: (listener) => events.dispatcher.subscribe(listener),
    onClockMove: (listener) => events.onClockMove(listener),
    adopt: (accountId) => {
      ensureConfiguredWebhooks(accountId);
      events.adopt(accountId);
      wallets.adopt(accountId);
    },
    close: () => {
      events.close();
      wallets.close();
    },
  };
}
