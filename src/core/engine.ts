/**
 * The engine: the behaviour of the API assembled from its parts and its ports. Transports get
 * `handle`; in-process users (and the CLI) also get the parts themselves.
 */
import { AccountDirectory, type AccountsConfig } from './accounts/accounts.js';
import { controlRoutes } from './routes/control-routes.js';
import { compileCreateBodyValidator } from './payments/create-body.js';
import { createRequestHandler, type ApiRequest, type RequestHandler } from './pipeline/handler.js';
import { PaymentRequests } from './payments/payment-requests.js';
import type { AccountClocks, InvoiceIssuer, RandomSource, SandboxStore } from './ports.js';
import { RuleBook } from './payments/rules.js';
import type { SandboxSettings } from './settings.js';
import type { Rule } from '../schemas/rules.js';
import { v1Routes } from './routes/v1-routes.js';

/** Everything the engine is made of. */
export interface EngineOptions {
  settings: SandboxSettings;
  accounts: AccountsConfig;
  store: SandboxStore;
  clocks: AccountClocks;
  invoices: InvoiceIssuer;
  random: RandomSource;
  serviceNodeKey: Uint8Array;
  /** Behaviour rules in force from the start (e.g. from `--scenario` files). */
  rules?: Rule[];
  /** Sees unexpected errors (bugs) before they become a 500, e.g. to log them. */
  onUnexpectedError?: (error: unknown, request: ApiRequest) => void;
}

/** The assembled engine. */
export interface Engine {
  /** Answers one request; never throws. */
  handle: RequestHandler;
  settings: SandboxSettings;
  directory: AccountDirectory;
  paymentRequests: PaymentRequests;
  clocks: AccountClocks;
  store: SandboxStore;
  rules: RuleBook;
}

/** Assembles the engine. */
export function createEngine(options: EngineOptions): Engine {
  const { settings, store, clocks } = options;
  const directory = new AccountDirectory(options.accounts);
  const rules = new RuleBook(options.rules);
  const paymentRequests = new PaymentRequests({ ...options, rules });
  const routes = [
    ...v1Routes({ directory, paymentRequests, validateCreateBody: compileCreateBodyValidator(settings) }),
    ...(settings.controls ? controlRoutes({ directory, paymentRequests, clocks, rules }) : []),
  ];
  return {
    handle: createRequestHandler(routes, options.onUnexpectedError),
    settings,
    directory,
    paymentRequests,
    clocks,
    store,
    rules,
  };
}
