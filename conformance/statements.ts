/**
 * Every normative statement of the spec (docs/spec/payment-request-service.md) and of CONTRACT.md,
 * stated once, with a stable id: the rules the suite is meant to hold, rather than the faults it
 * was told about. Checks name the statements they hold (`Check.holds`); the coverage page
 * (coverage-table.ts) is printed from this table, and statements.test.ts fails when a statement a
 * client can observe is held by no check and not marked as a gap, or when a check names an id
 * that is not here. Data and types only, no I/O.
 *
 * `observable` says how a client sees a statement:
 * - `v1`: through `/api/v1` answers (every profile may hold it);
 * - `control`: through the `/sandbox/v1` control API that `full` holds a target to (CONTRACT.md:
 *   "transitions, 409s, the clock per account, `/pay`'s answer, which keys may call it, one account
 *   per key": the "Sandbox control API" section, its accounts and the read-only key's rule), and
 *   the sandbox surfaces `full` holds where a target offers them (the events list, webhook
 *   endpoints, test wallets, `/healthz`: checks/sandbox-surfaces.ts);
 * - `sandbox`: over HTTP too, but a feature of this sandbox beyond v1 and that control API
 *   (webhook deliveries, wallets over NIP-47, API faults, the journal, pages, OpenAPI, the browser
 *   guards), which another implementation of the API is not held to: the test file named holds it;
 * - `not-over-http`: the CLI, files, packaging, PostgreSQL, NIP-47 traffic: the test file named
 *   holds it.
 * Sentences that only describe (the base URL, where keys come from) or restate a row of another
 * table (the spec's Errors and Limits tables repeat the endpoint tables) are stated once, at the
 * first place, with the other places in `section`. Where a source leaves a fact open ("not shown",
 * CONTRACT.md's "Open points") the readings that conform are in OPEN_POINTS, not statements.
 */

/** Which document states it. */
export type StatementSource = 'spec' | 'contract';

/** The source's own word; MUST where the source just states behaviour it promises. */
export type StatementLevel = 'MUST' | 'SHOULD' | 'MAY';

/** How a client sees the statement (see the module comment). */
export type StatementObservable = 'v1' | 'control' | 'sandbox' | 'not-over-http';

/** One normative statement. */
export interface Statement {
  /** Stable: checks, fault generators and the coverage page refer to it. */
  id: string;
  source: StatementSource;
  /** The source's section (› for a subsection; `;` when the source says it in several places). */
  section: string;
  /** The source's words, quoted or closely paraphrased, short. */
  text: string;
  level: StatementLevel;
  observable: StatementObservable;
  /** For `sandbox` and `not-over-http` statements: the test file (from the repository root) that holds it. */
  test?: string;
  /** Why no check (or, off HTTP, no test) holds it yet: today's gap list. */
  gap?: string;
}

/** A place the sources leave open: not a statement to enforce, but the readings that conform. */
export interface OpenPoint {
  id: string;
  source: StatementSource;
  section: string;
  text: string;
  /** Every reading that conforms (CONTRACT.md's "Open points" and "Readings the suite holds"). */
  readings: string[];
}

type Row = Omit<Statement, 'source' | 'section'>;
type Extra = Pick<Statement, 'gap'>;

const v1 = (id: string, level: StatementLevel, text: string, extra: Extra = {}): Row => ({ id, level, text, observable: 'v1', ...extra });
const control = (id: string, level: StatementLevel, text: string, extra: Extra = {}): Row => ({ id, level, text, observable: 'control', ...extra });
const sandbox = (id: string, level: StatementLevel, text: string, test: string): Row => ({ id, level, text, observable: 'sandbox', test });
const offHttp = (id: string, level: StatementLevel, text: string, test: string | Extra): Row => ({
  id,
  level,
  text,
  observable: 'not-over-http',
  ...(typeof test === 'string' ? { test } : test),
});

function from(source: StatementSource, section: string, rows: Row[]): Statement[] {
  return rows.map((row) => ({ source, section, ...row }));
}

const SPEC_STATEMENTS: Statement[] = [
  ...from('spec', 'What the service does', [
    v1('spec.service.sats', 'MUST', 'Amounts are in satoshis (sats)'),
    v1('spec.service.mode-from-account', 'MUST', 'The payment mode is selected automatically from the account configuration, not chosen by the caller'),
    offHttp('spec.service.custodial-fee-deducted', 'MUST', 'Custodial: processed by the service\'s managed system; fees are deducted before forwarding', { gap: 'the sandbox forwards nothing: no behaviour to hold beyond the fee itself' }),
    v1('spec.service.nwc-through-wallet', 'MUST', "Non-custodial: processed through the caller's connected Lightning wallet (a Nostr Wallet Connect connection)"),
    offHttp('spec.service.nwc-fees-separate', 'MUST', 'Non-custodial: fees are collected separately', { gap: 'the sandbox collects nothing: no behaviour to hold beyond the fee itself' }),
    v1('spec.service.is-nwc-every-response', 'MUST', 'The mode is reported in every payment request response by the field `isNwc`'),
    v1('spec.service.fee-charged', 'MUST', 'A fee is charged on each payment'),
    v1('spec.service.fee-same-both-modes', 'MUST', 'The fee amount is the same in both modes'),
  ]),
  ...from('spec', 'Resources › Payment request', [
    v1('spec.resource.id-prefix', 'MUST', '`id`: a string with the prefix `pr_`, shaped `pr_<identifier>`, always'),
    v1('spec.resource.id-identifies', 'MUST', 'A payment request is identified by `id` (one id, one request)'),
    v1('spec.resource.status-values', 'MUST', '`status`: a string, always, one of `pending`, `completed`, `expired`, `failed`'),
    v1('spec.resource.amount', 'MUST', '`amount`: a number, always: the amount in satoshis (the one sent)'),
    v1('spec.resource.description', 'MUST', '`description`: a string, always: the description of the payment (the one sent)'),
    v1('spec.resource.invoice-present', 'MUST', '`invoice`: a string, on create and on read'),
    v1('spec.resource.invoice-bolt11', 'MUST', '`invoice` is the Lightning invoice (BOLT11 text)'),
    v1('spec.resource.payment-hash-present', 'MUST', '`paymentHash`: a string, on create and on read'),
    v1('spec.resource.payment-hash-tracking', 'MUST', "`paymentHash`: the payment hash for tracking (the invoice's)"),
    v1('spec.resource.expires-at', 'MUST', '`expiresAt`: always, an ISO 8601 UTC timestamp with milliseconds'),
    v1('spec.resource.is-nwc', 'MUST', '`isNwc`: a boolean, always: `true` = non-custodial, `false` = custodial'),
    v1('spec.resource.nwc-relay-only-when-nwc', 'MUST', '`nwcRelay`: the relay address for non-custodial payments, present only when `isNwc` is `true`'),
    v1('spec.resource.preimage-absent-before', 'MUST', '`preimage`: optional, available after successful completion (so not before it, nor on a failed or expired request)'),
    v1('spec.resource.preimage-proof', 'MUST', '`preimage`: the payment preimage, proof of payment (its SHA-256 is the payment hash)'),
    v1('spec.resource.fee-amount', 'MUST', '`feeAmount`: a number, always: the fee in satoshis'),
    v1('spec.resource.fee-percentage', 'MUST', '`feePercentage`: a number, always: the fee percentage applied'),
    v1('spec.resource.metadata-as-given', 'MUST', '`metadata`: custom key-value pairs supplied at creation, returned as given'),
    v1('spec.resource.created-at', 'MUST', '`createdAt`: always, an ISO 8601 UTC timestamp'),
    v1('spec.resource.updated-at', 'MUST', '`updatedAt`: always, an ISO 8601 UTC timestamp'),
    v1('spec.resource.updated-at-changes', 'MUST', '`updatedAt` changes when the record changes (for example on completion)'),
    offHttp('spec.resource.destination-wallet-stored', 'MUST', 'The `destinationWallet` supplied at creation is stored with the request', { gap: 'no test reads the stored value (the stored record requires it: src/store/stored-records.ts)' }),
    v1('spec.resource.destination-wallet-records-only', 'MUST', 'For non-custodial payments `destinationWallet` is for records only; the payment goes directly to the connected wallet'),
    v1('spec.resource.destination-wallet-hidden', 'MUST', '`destinationWallet` is not among the fields shown in responses'),
  ]),
  ...from('spec', 'Fee rules', [
    v1('spec.fees.below-threshold', 'MUST', 'Under 1,000 sats the fee is the higher of 10 sats and 0.5 % of the amount'),
    v1('spec.fees.from-threshold', 'MUST', 'From 1,000 sats the fee is 0.5 % of the amount'),
    v1('spec.fees.examples', 'MUST', 'Checks that follow from the rules: 21, 100, 500 → 10; 1,000 → 5; 10,000 → 50'),
    v1('spec.fees.fields', 'MUST', 'The fee appears in responses as `feeAmount` (sats) and `feePercentage`'),
    v1('spec.fees.percentage-10000', 'MUST', 'A 10,000-sat payment shows `feePercentage` 0.5'),
  ]),
  ...from('spec', 'States and transitions', [
    v1('spec.states.pending-initial', 'MUST', '`pending`: the initial state returned on creation'),
    v1('spec.states.completed', 'MUST', '`completed`: paid; a `preimage` is then available'),
    v1('spec.states.expired', 'MUST', '`expired`: the validity period (`expiresIn`) elapsed'),
    v1('spec.states.failed', 'MUST', '`failed`: the payment failed'),
  ]),
  ...from('spec', 'Endpoints; Versioning', [
    v1('spec.endpoints.prefix', 'MUST', 'All endpoints are under `/api/v1/payment-requests`; the version (v1) is carried in the path'),
    v1('spec.endpoints.json', 'MUST', 'All endpoints use JSON'),
    v1('spec.endpoints.auth-required', 'MUST', 'All endpoints require authentication'),
  ]),
  ...from('spec', 'Endpoints › Create a payment request; Errors; Limits', [
    v1('spec.create.201', 'MUST', '`POST /api/v1/payment-requests` with a valid body answers 201 Created'),
    v1('spec.create.201-fields', 'MUST', 'The 201 body: id, status, amount, description, invoice, paymentHash, expiresAt, isNwc, feeAmount, feePercentage, metadata, createdAt, updatedAt'),
    v1('spec.create.201-pending', 'MUST', 'The 201 body has status `pending`'),
    v1('spec.create.body-object', 'MUST', 'The request body is a JSON object; anything else is invalid input (400)'),
    v1('spec.create.amount-required', 'MUST', '`amount` is required: missing → 400'),
    v1('spec.create.amount-number', 'MUST', '`amount` is a number of satoshis: anything else is an invalid amount → 400'),
    v1('spec.create.amount-invalid', 'MUST', 'An invalid amount (zero, negative, not whole sats) → 400'),
    v1('spec.create.amount-minimum', 'MUST', 'An amount below the minimum → 400 (the minimum: an open point)'),
    v1('spec.create.description-required', 'MUST', '`description` is required: missing → 400'),
    v1('spec.create.description-string', 'MUST', '`description` is a string: another type → 400'),
    v1('spec.create.description-max', 'MUST', '`description`: at most 255 characters (255 accepted, 256 → 400), in every mode'),
    v1('spec.create.destination-wallet-required', 'MUST', '`destinationWallet` is required: missing → 400'),
    v1('spec.create.destination-wallet-address', 'MUST', '`destinationWallet` is a Lightning address shaped `<name>@<domain>`; anything else → 400'),
    v1('spec.create.metadata-optional', 'MUST', '`metadata` is not required'),
    v1('spec.create.metadata-object', 'MUST', '`metadata` is an object of key-value pairs; another type → 400'),
    v1('spec.create.expires-in-optional', 'MUST', '`expiresIn` is not required; its default is 3600 seconds'),
    v1('spec.create.expires-in-seconds', 'MUST', '`expiresIn` is the validity in seconds'),
    v1('spec.create.expires-in-number', 'MUST', '`expiresIn` is a number: another type → 400'),
    v1('spec.create.400-details', 'MAY', 'The 400 response body may carry details about the error'),
  ]),
  ...from('spec', 'Endpoints › Get a payment request; Errors', [
    v1('spec.get.200', 'MUST', '`GET /api/v1/payment-requests/{id}` answers 200 with the payment request object (the same request, the same values)'),
    v1('spec.get.nwc-relay', 'MUST', 'It additionally carries `nwcRelay` when `isNwc` is `true`'),
    v1('spec.get.preimage-when-completed', 'MUST', 'It additionally carries `preimage` when completed'),
    v1('spec.get.404', 'MUST', 'No payment request with that identifier → 404'),
  ]),
  ...from('spec', 'Endpoints › Get a payment request status; Errors', [
    v1('spec.status.200-one-field', 'MUST', '`GET …/{id}/status` answers 200 with a JSON object of one field, `status`, one of the four states'),
    v1('spec.status.agrees', 'MUST', "The status endpoint reports the request's status (the one GET shows)"),
    v1('spec.status.404', 'MUST', 'No payment request with that identifier → 404'),
  ]),
  ...from('spec', 'Authentication; Errors', [
    v1('spec.auth.bearer-header', 'MUST', 'The key is sent in the header `Authorization` as a bearer token: `Authorization: Bearer <API_KEY>`'),
    v1('spec.auth.missing-401', 'MUST', 'A request (to any endpoint) with a missing key gets 401'),
    v1('spec.auth.invalid-401', 'MUST', 'A request (to any endpoint) with an invalid key gets 401'),
    v1('spec.auth.permission-401', 'MUST', 'A key that lacks permission for an action gets 401 (stated for creation)'),
  ]),
];

const CONTRACT_STATEMENTS: Statement[] = [
  ...from('contract', 'Commands, from a fresh checkout', [
    offHttp('contract.commands.npm-ci', 'MUST', '`npm ci` installs everything; no other set-up step exists', 'test/readme-commands.test.ts'),
    offHttp('contract.commands.npm-start', 'MUST', '`npm start` is `lnpr serve` with defaults: 127.0.0.1:8787, in-memory storage, regtest invoices, default accounts', 'test/readme-commands.test.ts'),
    offHttp('contract.commands.npm-start-flags', 'MUST', '`npm start -- <flags>` passes `lnpr serve` flags', 'test/readme-commands.test.ts'),
    offHttp('contract.commands.npm-test', 'MUST', '`npm test` runs the whole test suite', { gap: 'held by CI running it, not by a test' }),
    offHttp('contract.commands.bench', 'MUST', '`npm run bench` prints a table and writes `bench/results.json`', { gap: 'no test runs the benchmark (by design: exact figures belong there)' }),
    offHttp('contract.commands.npm-run-lnpr', 'MUST', '`npm run lnpr -- <command> [flags]` is the CLI from a checkout', 'test/readme-commands.test.ts'),
    offHttp('contract.commands.bin', 'MUST', 'The published package exposes the same CLI as the `lnpr` bin', 'test/package-tarball.test.ts'),
  ]),
  ...from('contract', 'CLI: lnpr', [
    offHttp('contract.cli.serve-flags', 'MUST', '`lnpr serve` takes the flags listed (port, host, data, network, config, scenario, fixtures, clock, min-amount, no-controls, webhook…, rate-limit, database-url, advertise-url)', 'test/cli-serve.test.ts'),
    offHttp('contract.cli.storage', 'MUST', 'Without `--data` in memory; with `--data` a JSON file that survives restarts', 'test/cli-serve.test.ts'),
    offHttp('contract.cli.env-database', 'MUST', '`LNPR_DATABASE_URL` and `LNPR_ADVERTISE_URL` stand for `--database-url` and `--advertise-url`', 'test/postgres-serve.test.ts'),
    offHttp('contract.cli.prints-url-keys', 'MUST', '`lnpr serve` prints the URL and the API keys it accepts', 'test/cli-serve.test.ts'),
    offHttp('contract.cli.graceful-stop', 'MUST', 'On SIGINT/SIGTERM it finishes in-flight requests, flushes storage and exits 0', 'test/cli-serve.test.ts'),
    offHttp('contract.cli.env-port-host-data', 'MUST', '`PORT`, `HOST`, `LNPR_DATA` stand for `--port`, `--host`, `--data`', 'test/cli-serve.test.ts'),
    offHttp('contract.cli.conformance-flags', 'MUST', '`lnpr conformance` takes --base-url, --api-key, --read-only-key, --nwc-key, --admin-key, --payer-nwc-url, --profile, --pay-command, --min-amount, --reporter, --output, --known-failing', 'src/cli/conformance.node.test.ts'),
    offHttp('contract.cli.conformance-exit', 'MUST', '`lnpr conformance` exits 0 when all required checks pass, 1 when a check failed, 2 on bad usage or an unreachable target', 'src/cli/conformance.node.test.ts'),
    offHttp('contract.cli.conformance-lifecycle', 'MUST', '`lifecycle` moves requests on through the detected control API or `--pay-command` (`{invoice}` replaced)', 'conformance/checks/checks.test.ts'),
    offHttp('contract.cli.conformance-full-controls', 'MUST', "`full` also holds a target that offers the control API to that API's promises (transitions, 409s, the clock per account, `/pay`'s answer, which keys may call it, one account per key)", { gap: 'control surface: most of those promises are held by no check yet (the contract.control.*, contract.accounts.* and contract.read-only.* gaps)' }),
    offHttp('contract.cli.scenario-run', 'MUST', "`lnpr scenario run FILE` runs a scenario's steps against a server with the control API; exit 0 when every expectation holds", 'src/scenario/run-scenario.node.test.ts'),
    offHttp('contract.cli.fixtures', 'MUST', '`lnpr fixtures` makes deterministic, faker-seeded sample data (`--seed N`, `--count N`)', 'src/fixtures/fixtures-cli.node.test.ts'),
    offHttp('contract.cli.version-help', 'MUST', '`lnpr --version` prints the package version; `--help` and `COMMAND --help` the usage', 'test/readme-commands.test.ts'),
    offHttp('contract.cli.readme-commands', 'MUST', "The README's commands work as written from a fresh checkout and from an installed package", 'test/readme-commands.test.ts'),
  ]),
  ...from('contract', 'Default accounts', [
    sandbox('contract.accounts.default-custodial', 'MUST', '`sk_test_custodial`: account `acct_custodial`, custodial (`isNwc: false`), create and read', 'src/core/accounts/accounts.test.ts'),
    sandbox('contract.accounts.default-nwc', 'MUST', '`sk_test_nwc`: account `acct_nwc`, non-custodial (`isNwc: true`, `nwcRelay` set), create and read', 'test/nwc-default-wallet.test.ts'),
    sandbox('contract.accounts.default-read-only', 'MUST', '`sk_test_readonly`: `acct_custodial`, read only: create gets 401', 'test/read-only-key.test.ts'),
    sandbox('contract.accounts.default-admin', 'MUST', '`sk_test_admin`: no account; creates and deletes accounts, nothing else', 'src/core/accounts/accounts.test.ts'),
    offHttp('contract.accounts.config-replaces', 'MUST', "`--config FILE` replaces the default accounts with the user's own accounts, keys, modes and relays", 'test/cli-serve.test.ts'),
  ]),
  ...from('contract', 'Default accounts › read-only key', [
    v1('contract.read-only.get', 'MUST', 'A read-only key may `GET` anything of its account'),
    control('contract.read-only.secrets-hidden', 'MUST', 'To a read-only key every secret is left out (`whsec_…`, the `secret` of an `nwcUrl`: shown to `create` keys only)'),
    control('contract.read-only.control-401', 'MUST', 'To a read-only key every other `/sandbox/v1` call (a control call, a webhook endpoint, a reset, a wallet change) answers 401'),
  ]),
  ...from('contract', 'Sandbox control API', [
    control('contract.control.same-keys', 'MUST', 'The control API takes the same bearer keys'),
    control('contract.control.own-account', 'MUST', "Every control call acts on the key's own account only"),
    control('contract.control.json', 'MUST', 'Control API bodies are JSON'),
    control('contract.control.complete', 'MUST', '`POST …/{id}/complete` pays it: status `completed`, `preimage` set, `updatedAt` moves'),
    control('contract.control.complete-answer', 'MUST', '`POST …/{id}/complete` answers 200 with the payment request'),
    control('contract.control.fail', 'MUST', '`POST …/{id}/fail`: status `failed`'),
    control('contract.control.fail-answer', 'MUST', '`POST …/{id}/fail` answers 200 with the payment request'),
    control('contract.control.expire', 'MUST', '`POST …/{id}/expire`: status `expired`'),
    control('contract.control.expire-answer', 'MUST', '`POST …/{id}/expire` answers 200 with the payment request'),
    control('contract.control.pay', 'MUST', '`POST /sandbox/v1/pay {"invoice"}`: a wallet pays that invoice (the request completes)'),
    control('contract.control.pay-answer', 'MUST', '`/pay` answers 200 `{"paymentRequestId", "status": "completed", "preimage"}`'),
    control('contract.control.pay-unknown-404', 'MUST', 'An unknown invoice to `/pay` answers 404'),
    control('contract.control.clock-now', 'MUST', '`GET /sandbox/v1/clock` answers 200 `{"now": ISO-8601, …}`, the account\'s clock'),
    control('contract.control.clock-frozen', 'MUST', '`GET /sandbox/v1/clock` answers `frozen`, a boolean'),
    control('contract.control.clock-per-account', 'MUST', 'Each account has its own clock (moving one leaves the others)'),
    control('contract.control.clock-advance', 'MUST', '`POST /sandbox/v1/clock/advance {"seconds": N}` moves the account\'s clock on by N seconds'),
    control('contract.control.clock-advance-answer', 'MUST', '`POST /sandbox/v1/clock/advance` answers 200 with the clock'),
    control('contract.control.reset-204', 'MUST', '`POST /sandbox/v1/reset` answers 204'),
    control('contract.control.reset-deletes', 'MUST', "A reset deletes the account's payment requests, events, deliveries (pending ones cancelled), request journal and test wallets"),
    control('contract.control.reset-clock', 'MUST', 'A reset sets the account\'s clock back to real time'),
    control('contract.control.reset-keeps', 'MUST', 'A reset keeps webhook endpoints, rules and faults; `{"scope": "all"}` removes those too'),
    control('contract.control.terminal-409', 'MUST', 'A transition out of a terminal state (`completed`, `expired`, `failed`) answers 409'),
    control('contract.control.terminal-unchanged', 'MUST', 'A transition out of a terminal state changes nothing'),
    control('contract.control.unknown-id-404', 'MUST', 'A control call on an unknown id answers 404'),
    control('contract.control.expired-on-clock', 'MUST', "A pending request whose `expiresAt` has passed on the account's clock reads as `expired`"),
    sandbox('contract.control.off', 'MUST', '`--no-controls` turns the control API off', 'test/control-api.test.ts'),
    control('contract.healthz', 'MUST', '`GET /healthz` answers 200 without a key (503 while storage cannot write)'),
  ]),
  ...from('contract', 'Sandbox control API › Accounts for isolated runs', [
    control('contract.accounts.isolated', 'MUST', "Runs in their own accounts: no run sees or resets another's data"),
    control('contract.accounts.create', 'MUST', '`POST /sandbox/v1/accounts {"mode", "name"?}` (an `accounts` key) answers 201 `{"id": "acct_…", "name", "mode", "keys": {"secret", "readOnly"}, "createdAt"}`'),
    control('contract.accounts.new-empty', 'MUST', 'A new account is empty, with its own clock'),
    control('contract.accounts.list', 'MUST', '`GET /sandbox/v1/accounts` answers 200 `{"data": [account without keys, …]}`'),
    control('contract.accounts.delete', 'MUST', '`DELETE /sandbox/v1/accounts/{id}` removes the account, its keys and all its data: 204'),
    control('contract.accounts.keys-permission', 'MUST', 'Only a key with the `accounts` permission may call the accounts API; that key does nothing else'),
    offHttp('contract.accounts.persist', 'MUST', 'With `--data` accounts persist like everything else', 'test/accounts-api.test.ts'),
    offHttp('contract.accounts.conformance-admin-key', 'MUST', '`lnpr conformance --admin-key` runs in a fresh account and deletes it afterwards; without it the run says what it left', 'test/shared-sandbox.test.ts'),
  ]),
  ...from('contract', 'Webhooks', [
    control('contract.webhooks.emit', 'MUST', 'An event on every change of a payment request, delivered to the account\'s endpoints'),
    control('contract.webhooks.standard-signed', 'MUST', 'Deliveries are signed per Standard Webhooks, so any Standard Webhooks library verifies them'),
    sandbox('contract.webhooks.own-account', 'MUST', "Endpoints, events and deliveries belong to the key's account", 'test/webhooks.test.ts'),
    control('contract.webhooks.endpoint-create', 'MUST', '`POST /sandbox/v1/webhook-endpoints {"url", "events"?, "faults"?}` (http or https) answers 201 `{"id": "we_…", "url", "events", "faults", "secret": "whsec_…", "createdAt"}`'),
    control('contract.webhooks.events-filter', 'MUST', '`events` filters by type (default: all)'),
    control('contract.webhooks.endpoint-list', 'MUST', "`GET /sandbox/v1/webhook-endpoints` answers 200 `{\"data\": [endpoint, …]}`"),
    control('contract.webhooks.endpoint-delete', 'MUST', '`DELETE /sandbox/v1/webhook-endpoints/{id}` answers 204; its pending deliveries stop'),
    control('contract.webhooks.events-every-change', 'MUST', "`GET /sandbox/v1/events` shows an event for every change of a payment request: `payment_request.created` for every create, `payment_request.completed`, `.failed` or `.expired` for each transition"),
    control('contract.webhooks.events-list', 'MUST', "`GET /sandbox/v1/events`: the account's events, newest first"),
    control('contract.webhooks.deliveries-list', 'MUST', '`GET /sandbox/v1/webhook-deliveries` (`?event=`): every attempt, newest first, with the fields listed; status `pending`, `succeeded`, `failed`'),
    control('contract.webhooks.redeliver', 'MUST', "`POST /sandbox/v1/events/{id}/redeliver` sends it again to the account's matching endpoints: 202"),
    sandbox('contract.webhooks.url-policy', 'MUST', 'On loopback any http(s) URL; beyond loopback no loopback, private, link-local or metadata address (by IP or resolution, checked at each attempt) except `--webhook` origins and `--webhook-allow-host` hosts', 'test/webhooks-address-policy.test.ts'),
    sandbox('contract.webhooks.no-redirects', 'MUST', 'Redirects are not followed', 'test/webhooks-address-policy.test.ts'),
    sandbox('contract.webhooks.capped', 'MUST', 'Attempts and events kept per account are capped (oldest finished ones go first)', 'test/webhooks-memory.test.ts'),
    sandbox('contract.sandbox.list-limit', 'MUST', 'Every `/sandbox/v1` list answers at most `limit` items (default 100, at most 1,000), newest first', 'test/webhooks-lists.test.ts'),
    offHttp('contract.webhooks.serve-flags', 'MUST', '`--webhook URL` registers URL for every account at start; `--webhook-secret` fixes its secret (else one is generated and printed)', 'test/webhooks-serve.test.ts'),
    offHttp('contract.webhooks.config', 'MUST', 'An accounts file may list `webhooks: [{"url", "secret"?, "events"?}]` per account', 'test/webhooks.test.ts'),
    sandbox('contract.webhooks.types', 'MUST', 'Event types: `payment_request.created`, `.completed`, `.failed`, `.expired`', 'test/webhooks.test.ts'),
    control('contract.webhooks.body', 'MUST', 'Body `{"id": "evt_…", "type", "timestamp", "data"}`; `data` is the payment request exactly as GET answered then; `timestamp` the account\'s clock then'),
    control('contract.webhooks.headers', 'MUST', 'Each attempt: POST, `content-type: application/json`, `webhook-id` (the event id, the same on retries and duplicates), `webhook-timestamp` (real Unix seconds), `webhook-signature` (`v1,<base64 HMAC-SHA256>` over `id.timestamp.body`)'),
    sandbox('contract.webhooks.retries', 'MUST', "A 2xx within 10 s delivers; else retries after 5 s, 30 s, 2 min, 10 min, 1 h, 6 h, 24 h on the account's clock (advancing runs those due), then `failed`", 'src/core/due/retry-schedule.test.ts'),
    sandbox('contract.webhooks.expiry-event', 'MUST', '`payment_request.expired` when the clock passes `expiresAt`: within a second on a running clock, at once when advanced past it', 'test/webhooks-frozen-clock.test.ts'),
    sandbox('contract.webhooks.order', 'MUST', "A request's events are emitted in the order its states changed", 'test/webhooks.test.ts'),
    sandbox('contract.webhooks.faults', 'MUST', 'Endpoint `faults`: `duplicate` p (same `webhook-id`), `reorder`, `delaySeconds` on the account\'s clock; decided from the event id, so runs repeat', 'src/core/webhooks/fault-decisions.test.ts'),
    offHttp('contract.webhooks.persist', 'MUST', 'With `--data`, endpoints, events and pending deliveries survive a restart and a crash; a delivery due before the stop is attempted after the start', 'test/webhooks-persistence.test.ts'),
    offHttp('contract.webhooks-check.cases', 'MUST', '`lnpr webhooks check` sends valid, duplicate, out-of-order, forged, stale and altered deliveries and reports which the receiver accepted', 'src/webhook-check/run-webhook-check.node.test.ts'),
    offHttp('contract.webhooks-check.exit', 'MUST', 'Exit 0 when valid deliveries were accepted and forged, stale and altered ones refused', 'src/cli/webhooks-check.node.test.ts'),
    offHttp('contract.webhooks-check.json', 'MUST', '`--reporter json` writes `{"format": "lnpr-webhooks-check", "version": 1, "passed", "counts", "cases"}`; case ids stable', 'src/webhook-check/reporters/reporters.test.ts'),
  ]),
  ...from('contract', 'Dashboard and hosted pay page', [
    sandbox('contract.dashboard.root', 'MUST', '`GET /` redirects to `/dashboard`', 'test/web-pages.test.ts'),
    sandbox('contract.dashboard.key-field', 'MUST', 'The dashboard works for one account, chosen by a key typed in a field labelled "API key" (default test keys offered)', 'test/dashboard-key.test.ts'),
    sandbox('contract.dashboard.live', 'MUST', 'It lists the account\'s requests live, each with QR code, invoice and buttons "Pay", "Fail", "Expire"', 'test/dashboard.browser.test.ts'),
    sandbox('contract.dashboard.clock-and-lists', 'MUST', 'It shows and moves the clock; shows rules, endpoints, events and deliveries ("Redeliver"); can create a request', 'test/dashboard.browser.test.ts'),
    control('contract.pay-page.no-key', 'MUST', '`GET /pay/{id}` is reachable without a key'),
    sandbox('contract.pay-page.content', 'MUST', 'The pay page shows amount, description, a QR of `lightning:<INVOICE>`, the invoice with a copy button, time left, "Pay with test wallet", the state live', 'test/web-pages.test.ts'),
    control('contract.pay-page.no-metadata', 'MUST', 'The pay page shows no metadata'),
    sandbox('contract.pages.offline', 'MUST', 'Everything is served by the sandbox itself, with no request to any other host', 'test/foreign-origin.browser.test.ts'),
    sandbox('contract.pages.off', 'MUST', 'The dashboard and pay page are off with `--no-controls`', 'test/web-pages.test.ts'),
    sandbox('contract.docs.served', 'MUST', '`GET /docs/` serves the documentation offline, with its own content security policy, with or without `--no-controls`; `npm start` and an installed package serve it', 'test/docs-site.test.ts'),
  ]),
  ...from('contract', 'Nostr Wallet Connect', [
    sandbox('contract.nwc.relay-nip01', 'MUST', '`ws://HOST:PORT/nostr`: NIP-01 (EVENT, REQ, CLOSE, EOSE, OK, NOTICE) and a NIP-11 document', 'test/nostr-relay.test.ts'),
    sandbox('contract.nwc.relay-kinds', 'MUST', 'The relay keeps the newest kind-13194 event per author, passes 23194–23197 to live subscriptions, refuses other kinds (`OK false "blocked: …"`)', 'test/nostr-relay.test.ts'),
    offHttp('contract.nwc.default-wallet', 'MUST', "By default the sandbox runs a connected wallet for each NWC account (node key: the account's `walletNodeKey`)", 'test/nwc-default-wallet.test.ts'),
    offHttp('contract.nwc.external-wallet', 'MUST', 'An accounts file may name any NWC wallet (`nwcUrl`)', 'test/nwc-external-wallet.test.ts'),
    v1('contract.nwc.relay-in-responses', 'MUST', '`nwcRelay` is the relay of the connection, on the 201 of a create as on every read'),
    control('contract.nwc.wallet-endpoint', 'MUST', "`GET /sandbox/v1/wallet` answers the connection `{relay, walletPubkey, nwcUrl?, online, encryption}` (`nwcUrl` to create keys only)"),
    offHttp('contract.nwc.make-invoice', 'MUST', 'Create on an NWC account sends `make_invoice` (msats = amount × 1000, description, expiry = expiresIn)', 'test/nwc-external-wallet.test.ts'),
    v1('contract.nwc.wallet-invoice', 'MUST', "Create on an NWC account answers with the connected wallet's invoice and payment hash"),
    offHttp('contract.nwc.external-invoice', 'MUST', "An external wallet's invoice is passed on as that wallet made it", 'test/nwc-external-wallet.test.ts'),
    sandbox('contract.nwc.wallet-errors', 'MUST', 'No wallet answer within 10 s (`--nwc-timeout`): 502 `wallet_unavailable`; a wallet error: 502 `wallet_error` with the NIP-47 code; nothing stored then', 'test/nwc-wallet-faults.test.ts'),
    offHttp('contract.nwc.completion', 'MUST', 'The request completes with the wallet\'s preimage on `payment_received` or a `lookup_invoice` answer; a missing notification is made up within 5 s', 'test/nwc-wallet-faults.test.ts'),
    control('contract.wallets.api', 'MUST', 'Test wallets: `POST`/`GET /sandbox/v1/wallets`, `GET …/{id}`, `…/topup`, `…/transactions` (newest first), `DELETE` with the answers listed (balances in sats over HTTP)'),
    control('contract.wallets.balance-sats', 'MUST', 'Test wallet balances are sats over HTTP: a wallet made with `balance` N shows N (not N × 1,000)'),
    control('contract.wallets.topup-adds', 'MUST', '`POST /sandbox/v1/wallets/{id}/topup {"amount": sats}` adds exactly that many sats to the balance, and answers 200 with the wallet'),
    sandbox('contract.wallets.keys', 'MUST', 'Keys of any account may call the wallets API; `create` keys to change', 'test/read-only-secrets.test.ts'),
    offHttp('contract.wallets.nip47', 'MUST', "A test wallet's `nwcUrl` answers get_info, get_balance, pay_invoice, make_invoice, lookup_invoice, list_transactions and notifies, over NIP-44 and NIP-04", 'test/nwc-test-wallets.test.ts'),
    offHttp('contract.wallets.pay-settles', 'MUST', '`pay_invoice` of any pending request\'s invoice settles it at once (completed with its preimage), balance drops by the amount, `fees_paid` 0; `make_invoice` invoices settle the same way', 'test/nwc-test-wallets.test.ts'),
    offHttp('contract.wallets.errors', 'MUST', '`INSUFFICIENT_BALANCE`; `PAYMENT_FAILED` for an unknown, expired, paid or failed invoice; `NOT_FOUND` for lookup of an unknown one', 'test/nwc-test-wallets.test.ts'),
    sandbox('contract.wallets.faults', 'MUST', '`PUT /sandbox/v1/wallet/faults` (offline, dropNotifications, duplicateNotifications, delaySeconds), decided from event ids', 'test/nwc-wallet-faults.test.ts'),
    offHttp('contract.nwc.conformance-payer', 'MUST', '`lnpr conformance --payer-nwc-url` pays through that wallet and checks the preimage\'s SHA-256 is the payment hash', 'test/msw-conformance.test.ts'),
    offHttp('contract.nwc.msw', 'MUST', "The MSW handlers run NWC accounts' wallets in-process: invoices and payments behave the same", 'test/msw-parity.test.ts'),
    offHttp('contract.nwc.persist', 'MUST', 'With `--data`, test wallets, balances, transactions and connections survive restarts', 'test/nwc-test-wallets.test.ts'),
  ]),
  ...from('contract', 'Resilience testing', [
    sandbox('contract.faults.v1-only', 'MUST', 'API faults apply per account to its `/api/v1` calls only, never to the control API', 'test/api-faults.test.ts'),
    sandbox('contract.faults.put-get', 'MUST', '`PUT /sandbox/v1/faults` (200); `GET` lists them with how often each fired; the first match applies; `path` may be a pattern', 'test/api-faults.test.ts'),
    sandbox('contract.faults.kinds', 'MUST', 'Faults: a status (code `simulated_fault`, nothing processed), latency, reset (nothing processed), resetAfterCommit (processed), hang', 'test/api-faults.test.ts'),
    sandbox('contract.faults.deterministic', 'MUST', '`probability` decided from a seed and the request count; `after` skips n matches; `times` fires at most n', 'test/api-faults.test.ts'),
    sandbox('contract.rate-limit', 'MUST', '`--rate-limit N` per key per second (off by default): 429 `rate_limited` with `Retry-After` and `RateLimit-*` headers', 'test/api-faults.test.ts'),
    control('contract.journal.list', 'MUST', "`GET /sandbox/v1/requests`: the account's own `/api/v1` calls, newest first, the last 1,000, with the fields listed; filters"),
    control('contract.journal.no-secrets', 'MUST', 'Journal `headers` never hold `authorization` or `cookie`'),
    control('contract.journal.delete', 'MUST', '`DELETE /sandbox/v1/requests` empties it'),
    offHttp('contract.trigger', 'MUST', '`lnpr trigger TYPE` makes the sandbox emit that event through the control API (never the clock) and prints the event id', 'src/cli/trigger.node.test.ts'),
    offHttp('contract.listen', 'MUST', "`lnpr listen` forwards the account's events live as signed Standard Webhooks deliveries, one line per delivery", 'src/cli/listen.node.test.ts'),
    offHttp('contract.msw.faults-journal', 'MUST', 'The MSW handlers apply the same faults and keep the same journal', 'test/msw-journal-example.test.ts'),
  ]),
  ...from('contract', 'Browsers and the network', [
    sandbox('contract.browser.host', 'MUST', 'A `Host` naming none of the listening addresses, `localhost` or `--public-url` is refused: 421 `misdirected_request`', 'test/browser-guard.test.ts'),
    control('contract.browser.cors-v1', 'MUST', 'CORS: `/api/v1/*` answers any origin'),
    control('contract.browser.cors-sandbox', 'MUST', '`/sandbox/v1/*` answers only its own and loopback origins, plus `--cors-origin`'),
    sandbox('contract.browser.slow-clients', 'MUST', 'Headers within 10 s, a whole request within 30 s', 'test/slow-clients.test.ts'),
    sandbox('contract.browser.stream-caps', 'MUST', 'At most 10 live streams per client address, 5 per pay page, 100 in all', 'test/live-stream-caps.test.ts'),
    offHttp('contract.files.owner-only', 'MUST', 'The data file, its journal and lock are created readable by their owner only (0600)', 'src/store/json-file-store.files.node.test.ts'),
  ]),
  ...from('contract', 'OpenAPI', [
    control('contract.openapi.served', 'MUST', '`GET /openapi.json` serves an OpenAPI 3.1 document of v1, the control API and the webhooks; `lnpr openapi` prints it'),
    sandbox('contract.openapi.conforms', 'MUST', 'Every response the sandbox sends conforms to it', 'test/openapi-traffic.test.ts'),
  ]),
  ...from('contract', 'Invoices', [
    v1('contract.invoice.valid', 'MUST', 'Every `invoice` is a real BOLT11 payment request any decoder accepts, with a valid signature'),
    v1('contract.invoice.network', 'MUST', 'Its network prefix is from `--network` (`lnbcrt` by default), one for every invoice'),
    v1('contract.invoice.amount', 'MUST', 'Its amount is `amount` sats'),
    v1('contract.invoice.payment-hash', 'MUST', 'Its payment hash is `paymentHash`'),
    v1('contract.invoice.payment-secret', 'MUST', 'It carries a payment secret'),
    v1('contract.invoice.expiry', 'MUST', 'Its expiry is `expiresIn`'),
    v1('contract.invoice.timestamp', 'MUST', 'Its timestamp is `createdAt`'),
    v1('contract.invoice.description', 'MUST', 'Its description is `description` (or its SHA-256 as a description hash where it does not fit)'),
    v1('contract.invoice.preimage', 'MUST', '`sha256(preimage) == paymentHash` once completed'),
    v1('contract.invoice.signer-nwc', 'MUST', "Non-custodial requests are signed by the account's connected-wallet node key"),
    v1('contract.invoice.signer-custodial', 'MUST', "Custodial requests are signed by the service's node key"),
  ]),
  ...from('contract', 'Readings the suite holds', [
    v1('contract.reading.character', 'MUST', 'A character is a Unicode code point (an emoji counts one)'),
    v1('contract.reading.expires-at', 'MUST', '`expiresAt` = `createdAt` + `expiresIn`'),
    v1('contract.reading.created-at-fixed', 'MUST', '`createdAt` never changes'),
    v1('contract.reading.updated-at-not-before', 'MUST', '`updatedAt` is never before `createdAt`'),
    v1('contract.reading.updated-at-only-on-change', 'MUST', '`updatedAt` changes only when the record does (a read moves neither timestamp)'),
    v1('contract.reading.metadata-untouched', 'MUST', '`metadata` comes back with the same values, strings untouched (no Unicode normalisation)'),
    v1('contract.reading.nwc-relay-absent', 'MUST', '`nwcRelay` is absent (not `null`) on custodial requests'),
    v1('contract.reading.nwc-relay-url', 'MUST', '`nwcRelay` is a `ws://` or `wss://` URL on NWC requests'),
    v1('contract.reading.invoice-multiplicities', 'MUST', 'An invoice has the multiplicities BOLT 11 requires of a writer (exactly one `p`, one `s`, one `d` or `h`, …)'),
    v1('contract.reading.id-exact', 'MUST', 'An id answers only for itself: a prefix or near miss of a real id is a 404'),
    v1('contract.reading.other-account', 'MUST', "Another account's id answers exactly as an unknown one (the same status and body)"),
    v1('contract.reading.bearer-only', 'MUST', 'Only `Authorization: Bearer <key>` authenticates'),
    control('contract.reading.refused-changes-nothing', 'MUST', 'A refused request (401, 400) changes nothing and emits nothing'),
  ]),
  ...from('contract', 'Outgrowing one process: PostgreSQL and replicas', [
    offHttp('contract.pg.schema', 'MUST', '`--database-url` keeps the state in PostgreSQL 14+ (not with `--data`); the first start creates the schema, a later version migrates it, simultaneous starts are safe', 'test/postgres-serve.test.ts'),
    offHttp('contract.pg.replicas', 'MUST', 'Replicas with the same database and accounts serve one sandbox: any replica gives the answer one process would (read-your-writes, monotonic reads) for every surface', 'test/replicas.test.ts'),
    offHttp('contract.pg.one-relay', 'MUST', 'The relay is one relay: an event through any replica reaches every replica\'s subscribers', 'test/replicas-wallets.test.ts'),
    offHttp('contract.pg.advertise-url', 'MUST', '`--advertise-url` (default `http://HOST:PORT`; required, or exit 2, for a wildcard HOST)', 'test/replicas.test.ts'),
    offHttp('contract.pg.streams-2s', 'MUST', 'A change through any replica reaches live streams and relay subscribers on every replica within 2 s', 'test/replicas.test.ts'),
    offHttp('contract.pg.trust-proxy', 'MUST', '`--trust-proxy ADDR` honours `X-Forwarded-For` from those addresses only; forwarding replicas pass the client address on', 'test/client-address.test.ts'),
    offHttp('contract.pg.journal-loose', 'MAY', 'The journal, fault counters and rate-limit windows need not be committed per call (a SIGKILL may lose their newest entries)', { gap: 'a permission (MAY): nothing to hold' }),
    offHttp('contract.pg.commit-first', 'MUST', 'A 201 (any change\'s answer) is sent only once committed; a SIGKILLed replica loses nothing it acknowledged', 'test/postgres-cluster.test.ts'),
    offHttp('contract.pg.takeover', 'MUST', "Within 5 s of a SIGKILL the others take over its expiries, rules, webhook attempts (at least once, same `webhook-id`) and wallets; its accounts' requests are answered within 10 s, never a 5xx", 'test/postgres-owners.test.ts'),
    offHttp('contract.pg.database-away', 'MUST', 'Within 5 s of the database going away `/healthz` answers 503; a write gets 503 `storage_unavailable` within 30 s (never 500/502/504 or a hang); back within 15 s of its return', 'test/postgres-outage.test.ts'),
    offHttp('contract.pg.webhooks-once', 'MUST', 'Webhooks across replicas are sent once per attempt and endpoint, by one replica', 'test/replicas.test.ts'),
    offHttp('contract.pg.not-loaded', 'MUST', 'Without `--database-url` no PostgreSQL client is loaded; `createSandbox` and the MSW handlers take no database option', 'test/postgres-serve.test.ts'),
  ]),
  ...from('contract', 'Packages exported; Runtimes', [
    offHttp('contract.packages.entry-points', 'MUST', '`lnpr-sandbox` (`createSandbox`), `lnpr-sandbox/msw` (`createHandlers`), `lnpr-sandbox/conformance` (`runConformance`), JSON Schemas and types', 'test/package-tarball.test.ts'),
    offHttp('contract.packages.msw-versions', 'MUST', '`lnpr-sandbox/msw` works with msw 2 and msw 3, for `setupServer` and `setupWorker`', 'test/msw-conformance.test.ts'),
    offHttp('contract.runtimes.node', 'MUST', 'Node 20, 22, 24 and 26 (`engines` says so, `npm test` passes on each)', { gap: 'held by the CI matrix, not by a test' }),
    offHttp('contract.runtimes.tarball', 'MUST', 'The package installs from its tarball into a fresh project: the bin, ESM imports of every entry point, types under `bundler` and `node16`', 'test/package-tarball.test.ts'),
  ]),
];

/** Every statement, spec first, each in its source's order. */
export const STATEMENTS: readonly Statement[] = [...SPEC_STATEMENTS, ...CONTRACT_STATEMENTS];

/** The places left open and what conforms there (CONTRACT.md: "Open points", "Readings the suite holds"). */
export const OPEN_POINTS: readonly OpenPoint[] = [
  { id: 'open.fee-rounding', source: 'spec', section: 'Fee rules', text: 'Rounding of the fee', readings: ['below 1,000 sats exactly 10 sats (the 0.5 % never exceeds 10 there)', 'from 1,000 sats any whole number between the floor and the ceiling of 0.5 %: down, up, half up, half to even'] },
  { id: 'open.fee-percentage-below-threshold', source: 'spec', section: 'Fee rules', text: '`feePercentage` for payments under 1,000 sats', readings: ['the rate, 0.5', 'the effective percentage, fee / amount × 100', 'any other reasonable value, held consistently'] },
  { id: 'open.transitions', source: 'spec', section: 'States and transitions', text: 'Transitions: not shown', readings: ['pending → completed, expired or failed; the three are terminal (CONTRACT: a transition out of them is refused)'] },
  { id: 'open.events', source: 'spec', section: 'Events', text: 'Events (webhooks): not shown', readings: ['none; the sandbox emits Standard Webhooks events (CONTRACT "Webhooks"), which v1 conformance does not require'] },
  { id: 'open.error-bodies', source: 'spec', section: 'Errors', text: 'Structure of error bodies and error codes', readings: ['any JSON error body; codes and messages beyond the status and the error shape are free'] },
  { id: 'open.minimum-amount', source: 'spec', section: 'Limits', text: 'The minimum amount (stated as 21 sats and as 1 sat)', readings: ['1 sat', '21 sats', '(a run may say which with --min-amount)'] },
  { id: 'open.bounds', source: 'spec', section: 'Limits', text: 'Rate limits, maximum amount, bounds of `expiresIn`, size limits on `metadata`', readings: ['any bound, answered 400 past it; none at all'] },
  { id: 'open.id-shape', source: 'contract', section: 'Open points', text: 'Id lengths and alphabets after `pr_`', readings: ['any'] },
  { id: 'open.extra-fields', source: 'contract', section: 'Open points', text: 'Answer fields beyond the spec\'s', readings: ['present or absent'] },
  { id: 'open.unknown-body-fields', source: 'contract', section: 'Open points', text: 'Unknown body fields on create', readings: ['ignored', 'refused with 400'] },
  { id: 'open.key-order', source: 'contract', section: 'Open points', text: "The order of keys in any JSON object (`metadata`'s included)", readings: ['any order'] },
  { id: 'open.header-case-encoding', source: 'contract', section: 'Open points', text: "Header names' case; a `content-encoding` the client accepted", readings: ['any case', 'identity or any encoding the client listed in accept-encoding'] },
  { id: 'open.invoice-field-order', source: 'contract', section: 'Open points', text: "The order of an invoice's tagged fields; an `n` field naming its signing key", readings: ['any order', 'with or without `n`'] },
  { id: 'open.nwc-completion-delay', source: 'contract', section: 'Open points', text: 'When a paid NWC request reads `completed`', readings: ['at once', 'up to 5 s after the payment'] },
  { id: 'open.wallet-errors', source: 'contract', section: 'Nostr Wallet Connect', text: 'What create answers when the connected wallet does not answer or errs (the spec shows no such errors)', readings: ['502 `wallet_unavailable` / `wallet_error` (the sandbox)', 'another 5xx or 4xx with an error body, nothing stored'] },
  { id: 'open.metadata-when-absent', source: 'spec', section: 'Endpoints › Create a payment request', text: '`metadata` in answers to a create that gave none', readings: ['absent', '`null`', '`{}`'] },
  { id: 'open.unusual-values', source: 'contract', section: 'Open points', text: 'Values at the edge of the rules (empty or blank descriptions, control characters, unusual Lightning addresses, huge amounts)', readings: ['accepted and echoed exactly', 'refused with 400'] },
];

/** Which checks hold each statement, by statement id, from the checks' `holds` (in the checks' order). */
export function heldBy(checks: ReadonlyArray<{ id: string; holds: readonly string[] }>): Map<string, string[]> {
  const held = new Map<string, string[]>();
  for (const check of checks) for (const id of check.holds) held.set(id, [...(held.get(id) ?? []), check.id]);
  return held;
}
