/**
 * API faults (`PUT /sandbox/v1/faults`) and the request journal (`GET /sandbox/v1/requests`): one
 * source for ajv, the OpenAPI document and the TypeScript types.
 */

/** The statuses a status fault may answer with. */
export const FAULT_STATUSES = [429, 500, 502, 503, 504] as const;
/** Faults per account at most. */
export const MAX_FAULTS = 20;
/** The longest latency, hang or Retry-After a fault may ask for. */
export const MAX_FAULT_LATENCY_MS = 60_000;
export const MAX_FAULT_HANG_MS = 120_000;
export const MAX_RETRY_AFTER_SECONDS = 86_400;
/** The methods of `/api/v1`. */
export const API_METHODS = ['GET', 'HEAD', 'POST'] as const;

/** Which `/api/v1` calls a fault applies to: a method, a path or a pattern with `{name}` segments. */
export const faultMatchSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    method: { enum: [...API_METHODS] },
    path: { type: 'string', pattern: '^/api/v1(/[^/?#\\s]+)*$', maxLength: 200 },
  },
} as const;

/** What happens to a matched call: exactly one of status, latencyMs, reset, resetAfterCommit, hangMs. */
export const faultActionSchema = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    status: { enum: [...FAULT_STATUSES] },
    retryAfter: { type: 'integer', minimum: 0, maximum: MAX_RETRY_AFTER_SECONDS },
    latencyMs: { type: 'integer', minimum: 1, maximum: MAX_FAULT_LATENCY_MS },
    reset: { type: 'boolean', const: true },
    resetAfterCommit: { type: 'boolean', const: true },
    hangMs: { type: 'integer', minimum: 1, maximum: MAX_FAULT_HANG_MS },
  },
} as const;

export type FaultAction =
  | { status: (typeof FAULT_STATUSES)[number]; retryAfter?: number }
  | { latencyMs: number }
  | { reset: true }
  | { resetAfterCommit: true }
  | { hangMs: number };

/** One fault: which calls, when, and what happens. */
export const faultRuleSchema = {
  type: 'object',
  required: ['fault'],
  additionalProperties: false,
  properties: {
    match: faultMatchSchema,
    after: { type: 'integer', minimum: 0, maximum: 1_000_000 },
    times: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    probability: { type: 'number', minimum: 0, maximum: 1 },
    fault: faultActionSchema,
  },
} as const;

export interface FaultRule {
  match?: { method?: (typeof API_METHODS)[number]; path?: string };
  after?: number;
  times?: number;
  probability?: number;
  fault: FaultAction;
}

/** `PUT /sandbox/v1/faults`. */
export const putFaultsBodySchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/put-faults.json',
  type: 'object',
  required: ['faults'],
  additionalProperties: false,
  properties: {
    faults: { type: 'array', maxItems: MAX_FAULTS, items: faultRuleSchema },
    seed: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  },
} as const;

export interface PutFaultsBody {
  faults: FaultRule[];
  seed?: number;
}

/** The faults in force, each with how often it matched and fired. */
export const faultsViewSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/faults.json',
  type: 'object',
  required: ['faults', 'seed'],
  properties: {
    faults: {
      type: 'array',
      items: {
        type: 'object',
        required: ['fault', 'matched', 'fired'],
        properties: { ...faultRuleSchema.properties, matched: { type: 'integer', minimum: 0 }, fired: { type: 'integer', minimum: 0 } },
      },
    },
    seed: { type: 'integer' },
  },
} as const;

export interface FaultsView {
  faults: Array<FaultRule & { matched: number; fired: number }>;
  seed: number;
}

/** One journaled `/api/v1` call. */
export const journalEntrySchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/journal-entry.json',
  type: 'object',
  required: ['id', 'method', 'path', 'query', 'headers', 'body', 'status', 'responseBody', 'fault', 'receivedAt', 'durationMs'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: '^req_\\S+$' },
    method: { type: 'string' },
    path: { type: 'string' },
    query: { type: 'object', additionalProperties: { type: 'string' } },
    headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'As sent, names in lower case; never `authorization` or `cookie`.' },
    body: { description: 'The body as JSON when it parses, else its text; null when none. Longer than 8 KiB: its first 8 KiB as text.' },
    status: { type: ['integer', 'null'], description: 'null when no answer was sent (a reset or a hang).' },
    responseBody: { description: 'The answer as JSON (null for none); longer than 8 KiB: its first 8 KiB as text.' },
    fault: { description: 'The fault applied (as given to PUT /sandbox/v1/faults), or null.' },
    receivedAt: { type: 'string' },
    durationMs: { type: 'number', minimum: 0 },
  },
} as const;

export interface JournalEntryView {
  id: string;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
  status: number | null;
  responseBody: unknown;
  fault: FaultAction | null;
  receivedAt: string;
  durationMs: number;
}

/** `GET /sandbox/v1/requests`. */
export const journalListSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/journal-list.json',
  type: 'object',
  required: ['data'],
  properties: { data: { type: 'array', items: journalEntrySchema } },
} as const;
