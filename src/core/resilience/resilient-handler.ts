/**
 * The resilience layer around the request handler: for an account's own `/api/v1` calls, the rate
 * limit, the API faults and the request journal. Everything else (the control API, the pages, a
 * call without a valid key) goes straight to the pipeline: a fault never touches the control API,
 * so a test can always turn faults off. With no fault and no rate limit, a call costs a key lookup
 * (the pipeline's own cache) and a journal entry.
 */
import type { AccountDirectory, KeyHolder } from '../accounts/accounts.js';
import { ApiError } from '../errors/errors.js';
import { JSON_HEADERS, type AnsweringHandler } from '../pipeline/handler.js';
import { pathOf, type ApiRequest, type ApiResponse } from '../pipeline/messages.js';
import type { WallClock } from '../ports.js';
import type { FaultAction } from '../../schemas/faults.js';
import type { ApiFaultBook } from './api-faults.js';
import { RateLimiter, type RateVerdict } from './rate-limiter.js';
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

const API_PREFIX = '/api/v1/';

/** `handle` with rate limit, faults and journal on `/api/v1`. */
export function withResilience(handle: AnsweringHandler, deps: ResilienceDeps): AnsweringHandler {
  const { directory, faults, journal, wall } = deps;
  const limiter = deps.rateLimit === 0 ? undefined : new RateLimiter(deps.rateLimit);
  return (request) => {
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
    // Counted per key, however the header spells it (`bearer KEY`, `Bearer  KEY`).
    const verdict = limiter?.take(holder, receivedAtMs);
    // Most accounts have no faults: then the path is not even cut from the URL.
    const fault = verdict?.allowed === false || !faults.has(accountId) ? undefined : faults.decide(accountId, method, pathOf(request.url));
    const call: Call = { journal, wall, accountId, method, request, verdict, fault, receivedAtMs };
    if (verdict?.allowed === false) return settle(call, errorAnswer(429, new ApiError('rate_limited'), verdict.headers));
    if (fault !== undefined && 'status' in fault) return settle(call, simulated(fault));
    if (fault !== undefined && ('reset' in fault || 'hangMs' in fault)) {
      // Nothing processed: the call never reached the service.
      return settle(call, { status: 0, headers: {}, body: '', transport: { drop: true, ...('hangMs' in fault ? { delayMs: fault.hangMs } : {}) } });
    }
    // A route that answered at once is journaled at once: no promise, no microtask hop.
    const answered = handle(request);
    return answered instanceof Promise ? answered.then((response) => settle(call, misbehaved(response, fault))) : settle(call, misbehaved(answered, fault));
  };
}

/** One `/api/v1` call of an account, as the layer saw it before answering. */
interface Call {
  journal: RequestJournal;
  wall: WallClock;
  accountId: string;
  method: string;
  request: ApiRequest;
  verdict: RateVerdict | undefined;
  fault: FaultAction | undefined;
  receivedAtMs: number;
}

/** Journals the call and returns its answer, with the rate limit's headers. */
function settle({ journal, wall, accountId, method, request, verdict, fault, receivedAtMs }: Call, response: ApiResponse): ApiResponse {
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
}

/** The service's answer, late or lost as a latency or drop fault says. */
function misbehaved(response: ApiResponse, fault: FaultAction | undefined): ApiResponse {
  return fault === undefined ? response : { ...response, transport: 'latencyMs' in fault ? { delayMs: fault.latencyMs } : { drop: true } };
}

/** A status fault's answer: the usual error shape, code `simulated_fault`, nothing processed. */
function simulated(fault: Extract<FaultAction, { status: number }>): ApiResponse {
  const error = new ApiError('simulated_fault', `A simulated ${fault.status} (PUT /sandbox/v1/faults): nothing was processed.`);
  return errorAnswer(fault.status, error, fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) });
}

function errorAnswer(status: number, error: ApiError, headers: Record<string, string>): ApiResponse {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(error.toBody()) };
}
