/**
 * Error responses of the document, built from the error catalogue (`core/errors/errors.ts`):
 * an operation names the codes it can answer with, and gets one response per HTTP status, its
 * description naming each code, `x-lnpr-error-codes` listing them (for tools and the tests), the
 * `Error` schema and an example per code. Browser-safe.
 */
import { MAX_TEST_WALLETS_PER_ACCOUNT } from '../core/wallets/wallet-limits.js';
import { ERROR_CATALOGUE, errorBody, type ErrorBody, type ErrorCode } from '../core/errors/errors.js';
import { KEPT_EVENTS_TEXT, MAX_CREATED_ACCOUNTS_TEXT } from './facts.js';
import type { JsonObject } from './schema-tools.js';

/** Every error code, in catalogue order. */
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/**
 * When each code is answered. A code missing here falls back to the catalogue's message, and the
 * document's tests fail until it is described.
 */
export const ERROR_CONDITIONS: Readonly<Record<string, string>> = {
  invalid_json: 'the body is not JSON, or is empty',
  invalid_request: 'the body (or a query parameter) breaks a rule; `details` names every offending field',
  unauthorized: 'the API key is missing, malformed or unknown (with `WWW-Authenticate: Bearer`)',
  insufficient_permission: 'the key may not do this (e.g. a read-only key creating)',
  origin_not_allowed: "(HTTP server only) a control call, dashboard or pay-page request sent by a web page of another origin (its `Origin` header is neither the sandbox's own origin, a loopback origin, the origin of `--public-url`, nor one of `--cors-origin`)",
  route_not_found: 'no endpoint has this path',
  payment_request_not_found: "no payment request with that id in the key's account",
  invoice_not_found: "no payment request of the key's account has that invoice",
  event_not_found: `no kept event of the key's account has that id (the newest ${KEPT_EVENTS_TEXT} per account are kept)`,
  webhook_endpoint_not_found: "no webhook endpoint of the key's account has that id",
  account_not_found: 'no account made through the accounts API has that id',
  wallet_not_found: "no test wallet of the key's account has that id",
  wallet_not_connected: 'the account is custodial: only NWC accounts have a connected wallet',
  method_not_allowed: 'the path exists, not with this method (`Allow` lists those it accepts)',
  invalid_transition: 'the payment request is in a terminal state (`completed`, `expired`, `failed`) and cannot change',
  account_not_deletable: 'the account comes from the accounts file (`lnpr serve --config`), which would bring it back at the next start: it cannot be deleted (`POST /sandbox/v1/reset {"scope": "all"}` with its key empties it)',
  wallet_limit_reached: `the account already has ${MAX_TEST_WALLETS_PER_ACCOUNT} test wallets; delete some first`,
  wallet_error: "an NWC account's connected wallet answered `make_invoice` with a NIP-47 error (`details[0].message`: `the wallet answered CODE: …`); nothing was stored",
  wallet_unavailable: "an NWC account's connected wallet did not answer `make_invoice` within the NWC timeout (10 s; `lnpr serve --nwc-timeout`); nothing was stored",
  account_limit_reached: `the sandbox already holds ${MAX_CREATED_ACCOUNTS_TEXT} accounts made through the accounts API; delete some first`,
  payload_too_large: 'the body is over the HTTP server\'s limit (1 MiB by default, `lnpr serve --body-limit`)',
  expectation_failed: 'an `Expect` header other than `100-continue` (HTTP server only)',
  unsupported_media_type: 'a body not sent as `application/json` (or `application/*+json`)',
  misdirected_request: '(HTTP server only) the `Host` header names neither an address the sandbox listens on, `localhost`, nor the host of `--public-url` (a DNS-rebinding page, or a proxy that needs `--public-url`)',
  internal_error: 'a bug in the sandbox: please report it',
  simulated_fault: 'an API fault of the account (`PUT /sandbox/v1/faults`) answered this call with its status (429, 500, 502, 503 or 504; `Retry-After` when the fault gives one): nothing was processed',
  rate_limited: 'more `/api/v1` calls this second than `lnpr serve --rate-limit N` allows for this key (with `Retry-After` and `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`)',
  too_many_streams: 'too many live streams are open at once; close one and try again',
  docs_not_built: '(HTTP server only) a page of the documentation site, `/docs/`, when the site was not built (`npm run docs:build` builds it)',
  storage_unavailable: 'the data file cannot be written (a full disk, an I/O error, a read-only file system): nothing was changed; writes succeed again, without a restart, once it can',
};

/** When `code` is answered. */
export function conditionOf(code: ErrorCode): string {
  return ERROR_CONDITIONS[code] ?? ERROR_CATALOGUE[code].message.replace(/\.$/, '');
}

/** `components.examples` key of a code's example. */
export function errorExampleName(code: ErrorCode): string {
  return `error_${code}`;
}

/** `components.examples`: one example body per code, with the catalogue's message. */
export function errorExamples(): Record<string, JsonObject> {
  return Object.fromEntries(
    ERROR_CODES.map((code) => [errorExampleName(code), { summary: `${code} (${ERROR_CATALOGUE[code].status})`, value: toJson(errorBody(code)) }]),
  );
}

/** An operation's own example of a code, e.g. `invalid_request` with the details its body gets. */
export type ErrorExampleOverrides = Partial<Record<ErrorCode, ErrorBody>>;

/** The responses for `codes`, by status. */
export function errorResponses(codes: readonly ErrorCode[], overrides: ErrorExampleOverrides = {}): Record<string, JsonObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, JsonObject> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = errorResponse(statusCodes, overrides);
  }
  return responses;
}

/** One response object for codes sharing an HTTP status. */
export function errorResponse(codes: readonly ErrorCode[], overrides: ErrorExampleOverrides = {}): JsonObject {
  const status = ERROR_CATALOGUE[codes[0]!].status;
  const headers: JsonObject = {};
  if (status === 401) headers['WWW-Authenticate'] = { $ref: '#/components/headers/WWW-Authenticate' };
  if (status === 405) headers.Allow = { $ref: '#/components/headers/Allow' };
  const examples: JsonObject = {};
  for (const code of codes) {
    const override = overrides[code];
    examples[code] = override ? { summary: code, value: toJson(override) } : { $ref: `#/components/examples/${errorExampleName(code)}` };
  }
  return {
    description: codes.map((code) => `\`${code}\`: ${conditionOf(code)}.`).join(' '),
    'x-lnpr-error-codes': [...codes],
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples } },
  };
}

function toJson(value: unknown): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject;
}
