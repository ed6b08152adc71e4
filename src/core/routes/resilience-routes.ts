/**
 * Resilience testing (`/sandbox/v1/faults`, `/sandbox/v1/requests`): the account's API faults and
 * its request journal. Any key of the account reads them; `create` changes them. They act on the
 * account's `/api/v1` calls only (core/resilience).
 */
import { API_METHODS, FAULT_STATUSES, faultsViewSchema, journalListSchema, putFaultsBodySchema, type FaultRule, type PutFaultsBody } from '../../schemas/faults.js';
import { LIST_LIMIT } from '../../schemas/list-limit.js';
import type { ErrorDetail } from '../errors/errors.js';
import { declareBody, declareQuery } from '../pipeline/route.js';
import { route, type EngineRoute } from './route-deps.js';

const KINDS = ['status', 'latencyMs', 'reset', 'resetAfterCommit', 'hangMs'] as const;

/** A fault does exactly one thing; `retryAfter` goes with a status. */
function faultProblems(body: unknown): ErrorDetail[] {
  const faults = (body as { faults?: unknown })?.faults;
  if (!Array.isArray(faults)) return [];
  return faults.flatMap((rule: FaultRule, index) => {
    const fault = rule?.fault as Record<string, unknown> | undefined;
    if (typeof fault !== 'object' || fault === null || Array.isArray(fault)) return [];
    const kinds = KINDS.filter((kind) => kind in fault);
    const field = `faults.${index}.fault`;
    if (kinds.length > 1) {
      const message = `${field} must do one thing: one of ${KINDS.join(', ')} (it has ${kinds.join(' and ')})`;
      return [{ field, code: 'invalid_value' as const, message }];
    }
    if ('retryAfter' in fault && !('status' in fault)) {
      return [{ field: `${field}.retryAfter`, code: 'invalid_value' as const, message: `${field}.retryAfter goes with a status (${FAULT_STATUSES.join(', ')})` }];
    }
    return [];
  });
}

const SINCE_MAX_LENGTH = 40;

/** `since` must be a time, looked for with the schema's problems (a length the schema already refuses is not read again). */
function sinceProblems({ since }: Readonly<Record<string, string | number>>): ErrorDetail[] {
  if (typeof since !== 'string' || since === '' || since.length > SINCE_MAX_LENGTH || !Number.isNaN(Date.parse(since))) return [];
  return [{ field: 'since', code: 'invalid_format', message: 'since must be a time in ISO 8601, e.g. 2026-11-25T10:00:00.000Z' }];
}

/** The resilience routes. */
export function resilienceRoutes(): EngineRoute[] {
  return [
    route({
      name: 'putFaults',
      method: 'PUT',
      path: '/sandbox/v1/faults',
      access: 'create',
      body: declareBody<PutFaultsBody>({ schema: putFaultsBodySchema, what: 'faults', check: faultProblems, notes: { latencyMs: { unit: 'ms' }, hangMs: { unit: 'ms' }, retryAfter: { unit: 'seconds' } } }),
      answer: { status: 200, schema: faultsViewSchema },
      handle: ({ caller, body }, { apiFaults }) => ({ status: 200, body: apiFaults.set(caller.account.id, body) }),
    }),
    route({
      name: 'getFaults',
      method: 'GET',
      path: '/sandbox/v1/faults',
      access: 'read',
      answer: { status: 200, schema: faultsViewSchema },
      handle: ({ caller }, { apiFaults }) => ({ status: 200, body: apiFaults.view(caller.account.id) }),
    }),
    route({
      name: 'listRequests',
      method: 'GET',
      path: '/sandbox/v1/requests',
      access: 'read',
      query: declareQuery<{ method?: string; path?: string; status?: number; since?: string; limit?: number }>({
        method: { enum: [...API_METHODS] },
        path: { type: 'string', minLength: 1, maxLength: 200 },
        status: { type: 'integer', minimum: 100, maximum: 599 },
        since: { type: 'string', minLength: 1, maxLength: SINCE_MAX_LENGTH },
        limit: LIST_LIMIT,
      }, sinceProblems),
      answer: { status: 200, schema: journalListSchema },
      handle: ({ caller, query }, { journal }) => ({ status: 200, body: { data: journal.list(caller.account.id, query) } }),
    }),
    route({
      name: 'clearRequests',
      method: 'DELETE',
      path: '/sandbox/v1/requests',
      access: 'create',
      answer: { status: 204 },
      handle: ({ caller }, { journal }) => {
        journal.clear(caller.account.id);
        return { status: 204 };
      },
    }),
  ];
}
