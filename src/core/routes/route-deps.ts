/** What every route's handler gets: the engine's parts. One type for the whole table. */
import type { AccountData } from '../account-data.js';
import type { AccountRegistry } from '../accounts/account-registry.js';
import type { EventLog } from '../events/event-log.js';
import type { WebhookEndpoints } from '../webhooks/webhook-endpoints.js';
import type { PaymentRequests } from '../payments/payment-requests.js';
import type { RuleBook } from '../payments/rules.js';
import { type Access, type AnyRoute, type RouteDeclaration } from '../pipeline/route.js';
import type { AccountClocks, ConnectedWallets } from '../ports.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import type { TestWallets } from '../wallets/test-wallets.js';
import type { WalletFaultBook } from '../wallets/wallet-faults.js';
import type { ApiFaultBook } from '../resilience/api-faults.js';
import type { RequestJournal } from '../resilience/request-journal.js';
import type { WalletLedger } from '../wallets/wallet-ledger.js';

/** The engine's parts, as handlers use them. */
export interface RouteDeps {
  paymentRequests: PaymentRequests;
  clocks: AccountClocks;
  rules: RuleBook;
  endpoints: WebhookEndpoints;
  log: EventLog;
  /** The accounts API. */
  accounts: AccountRegistry;
  /** Resets an account's data. */
  accountData: AccountData;
  /** Every sandbox-run wallet's money: invoices, lookups, the one settlement path. */
  ledger: WalletLedger;
  /** The accounts' test wallets. */
  testWallets: TestWallets;
  /** NWC accounts' connected wallets. */
  connectedWallets: ConnectedWallets;
  /** Faults of the sandbox-run connected wallets. */
  walletFaults: WalletFaultBook;
  /** The accounts' API faults. */
  apiFaults: ApiFaultBook;
  /** The accounts' `/api/v1` calls. */
  journal: RequestJournal;
  /** The store's health, for `GET /healthz`. */
  storage: Pick<SandboxStore, 'health'>;
}

/** A route of the engine's table. */
export type EngineRoute = AnyRoute<RouteDeps>;

/**
 * Declares a route of the engine; only there to infer its types from the declaration itself (its
 * result is erased, so a table's type cannot widen what the handler sees).
 */
export function route<Body = undefined, Query = undefined, A extends Access = Access>(declaration: RouteDeclaration<RouteDeps, Body, Query, A>): EngineRoute {
  return declaration;
}
