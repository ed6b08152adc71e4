/**
 * The resilience layer around the request handler: for an account's own `/api/v1` calls, the rate
 * limit, the API faults and the request journal. Everything else (the control API, the pages, a
 * call without a valid key) goes straight to the pipeline: a fault never touches the control API,
 * so a test can always turn faults off. With no fault and no rate limit, a call costs a key lookup
 * (the pipeline's own cache) and a journal entry.
 */
import type { AccountDirectory, KeyHolder } from '../accounts/accounts.js';
import { ApiError } from '../errors/errors.js';
import type { RequestHandler } from '../pipeline/handler.js';
import type { ApiResponse } from '../pipeline/messages.js';
import type { WallClock } from '../ports.js';
import type { FaultAction } from '../../schemas/faults.js';
import type { ApiFaultBook } from './api-faults.js';
import { RateLimiter } from './rate-limiter.js';
import type { RequestJournal } from './request-journal.js';

/** What the layer needs. */
export interface ResilienceDeps {
  directory: AccountDirectory;
  faults: ApiFaultBook;
  journal: RequestJournal;
  wall: WallClock;
  /** `/api/v1` calls per second per key; none when 0. */
  rateLimit: number;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } as const;
const API_PREFIX = '/api/v1/';

/** `handle` with rate limit, faults and journal on `/api/v1`. */
export function withResilience(handle: RequestHandler, deps: ResilienceDeps): RequestHandler {
  const { directory, faults, journal, wall } = deps;
  const limiter = deps.rateLimit === 0 ? undefined : new RateLimiter(deps.rateLimit);
  return async (request) => {
    if (!request.url.startsWith(API_PREFIX)) return handle(request);
    const authorization = request.headers.authorization;
    let holder: KeyHolder | undefined;
    try {
      holder = directory.identify(authorization);
    } catch {
      // No valid key: the pipeline answers 401; not any account's call.
    }
    const accountId = holder?.account?.id;
    if (holder === undefined || accountId === undefined) return handle(request);
    const receivedAtMs = wall.now();
    const method = request.method.toUpperCase();
    const queryAt = request.url.indexOf('?');
    const path = queryAt === -1 ? request.url : request.url.slice(0, queryAt);
    // Counted per key, however the header spells it (`bearer KEY`, `Bearer  KEY`).
    const verdict = limiter?.take(holder, receivedAtMs);
    const fault = verdict?.allowed === false ? undefined : faults.decide(accountId, method, path);
    let response: ApiResponse;
    if (verdict?.allowed === false) response = errorAnswer(429, new ApiError('rate_limited'), verdict.headers);
    else if (fault !== undefined && 'status' in fault) response = simulated(fault);
    else if (fault !== undefined && ('reset' in fault || 'hangMs' in fault)) {
      // Nothing processed: the call never reached the service.
      response = { status: 0, headers: {}, body: '', transport: { drop: true, ...('hangMs' in fault ? { delayMs: fault.hangMs } : {}) } };
    } else {
      response = await handle(request);
      if (fault !== undefined) response = { ...response, transport: 'latencyMs' in fault ? { delayMs: fault.latencyMs } : { drop: true } };
    }
    if (verdict !== undefined) response.headers = { ...response.headers, ...verdict.headers };
    const dropped = response.transport?.drop === true;
    journal.record(accountId, {
      method,
      url: request.url,
      headers: request.headers,
      body: request.body,
      status: dropped ? null : response.status,
      responseBody: dropped ? undefined : response.body,
      fault: fault ?? null,
      receivedAtMs,
      durationMs: wall.now() - receivedAtMs,
    });
    return response;
  };
}

/** A status fault's answer: the usual error shape, code `simulated_fault`, nothing processed. */
function simulated(fault: Extract<FaultAction, { status: number }>): ApiResponse {
  const error = new ApiError('simulated_fault', `A simulated ${fault.status} (PUT /sandbox/v1/faults): nothing was processed.`);
  return errorAnswer(fault.status, error, fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) });
}

function errorAnswer(status: number, error: ApiError, headers: Record<string, string>): ApiResponse {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(error.toBody()) };
}
