/**
 * The one catalogue of API errors. Every 4xx/5xx from either transport is built here, so the
 * body shape and the codes are the same everywhere: `{"error": {"code", "message", "details"?}}`.
 */
import type { DetailCode } from './detail-codes.js';

/** What is wrong with one field of a request body or query, by its path in dot form (`rules.0.outcome`). */
export interface ErrorDetail {
  field: string;
  code: DetailCode;
  message: string;
}

const CATALOGUE = {
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  invalid_request: { status: 400, message: 'The request is invalid; see details.' },
  unauthorized: { status: 401, message: 'A valid API key is required: send "Authorization: Bearer <API_KEY>".' },
  insufficient_permission: { status: 401, message: 'This API key is not allowed to perform this action.' },
  origin_not_allowed: { status: 403, message: 'Web pages of this origin may not drive the sandbox; see --cors-origin.' },
  route_not_found: { status: 404, message: 'No such endpoint.' },
  payment_request_not_found: { status: 404, message: 'No payment request with that id.' },
  invoice_not_found: { status: 404, message: 'No payment request of this account has that invoice.' },
  event_not_found: { status: 404, message: 'No event of this account has that id.' },
  webhook_endpoint_not_found: { status: 404, message: 'No webhook endpoint of this account has that id.' },
  account_not_found: { status: 404, message: 'No account has that id.' },
  wallet_not_found: { status: 404, message: 'No test wallet of this account has that id.' },
  wallet_not_connected: { status: 404, message: 'This account is custodial: it has no connected wallet (NWC accounts do).' },
  method_not_allowed: { status: 405, message: 'This endpoint does not accept that method.' },
  invalid_transition: { status: 409, message: 'The payment request is in a terminal state and cannot change.' },
  account_not_deletable: { status: 409, message: 'The account comes from the accounts file and cannot be deleted; a reset empties it.' },
  account_limit_reached: { status: 409, message: 'The sandbox holds the most accounts it may; delete some first.' },
  wallet_limit_reached: { status: 409, message: 'The account holds the most test wallets it may; delete some first.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  expectation_failed: { status: 417, message: 'The sandbox only understands "Expect: 100-continue".' },
  unsupported_media_type: { status: 415, message: 'The request body must be JSON: send "Content-Type: application/json".' },
  rate_limited: { status: 429, message: 'Too many requests for this API key (--rate-limit); retry after the Retry-After seconds.' },
  misdirected_request: { status: 421, message: 'The Host header names no address this sandbox serves (DNS rebinding?); see --public-url.' },
  wallet_error: { status: 502, message: "The account's connected wallet refused the request; see details for its NIP-47 error." },
  wallet_unavailable: { status: 502, message: "The account's connected wallet did not answer in time (see --nwc-timeout); nothing was stored." },
  simulated_fault: { status: 503, message: 'A simulated fault (PUT /sandbox/v1/faults): nothing was processed.' },
  internal_error: { status: 500, message: 'The sandbox failed unexpectedly; this is a bug, please report it.' },
  too_many_streams: { status: 503, message: 'Too many live streams are open at once; close one and try again.' },
  docs_not_built: { status: 503, message: 'The documentation site is not built: run npm run docs:build (npm ci builds it too), then reload.' },
  storage_unavailable: {
    status: 503,
    message: 'The sandbox cannot write to its storage (e.g. its disk is full), so nothing was changed; try again shortly.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

/** A stable error code, part of the public surface. */
export type ErrorCode = keyof typeof CATALOGUE;

/** Every code with its HTTP status and default message, for the README and tests. */
export const ERROR_CATALOGUE: Readonly<Record<ErrorCode, { status: number; message: string }>> = CATALOGUE;

/** The JSON body of every error response. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

/** An error the engine answers with; anything else thrown is a bug and becomes `internal_error`. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;

  constructor(code: ErrorCode, message: string = CATALOGUE[code].message, details?: ErrorDetail[]) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = CATALOGUE[code].status;
    this.details = details;
  }

  /** The response body for this error. */
  toBody(): ErrorBody {
    return errorBody(this.code, this.message, this.details);
  }
}

/** The body for `code`, with the catalogue's message unless one is given. */
export function errorBody(code: ErrorCode, message: string = CATALOGUE[code].message, details?: ErrorDetail[]): ErrorBody {
  return { error: details && details.length > 0 ? { code, message, details } : { code, message } };
}

/** The HTTP status of `code`. */
export function statusOf(code: ErrorCode): number {
  return CATALOGUE[code].status;
}
