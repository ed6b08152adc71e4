/**
 * Schemas of the answers `src/schemas` types only in TypeScript (the engine never validates them,
 * so ajv has no schema for them): the health check, the clock, the pay result, the rules and the
 * list envelopes. Written here once, in terms of the shared pieces of `src/schemas` (status
 * values, timestamp patterns, component `$ref`s); `satisfies` ties each to its TypeScript type's
 * field names, and the traffic tests validate every real answer against them.
 */
import type { ClockView, PayPageView, PayResult } from '../schemas/control.js';
import { ISO_UTC_MILLIS_PATTERN, ISO_UTC_PATTERN, STATUS_VALUES } from '../schemas/payment-request.js';
import { schemaRef, type JsonObject } from './schema-tools.js';

type Keys<T> = Record<keyof T, unknown>;

/** `GET /healthz`. */
export const healthSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { const: 'ok' } },
} satisfies JsonObject;

/** An account's clock. */
export const clockSchema = {
  type: 'object',
  required: ['now', 'frozen'],
  properties: {
    now: { type: 'string', pattern: ISO_UTC_MILLIS_PATTERN },
    frozen: { type: 'boolean' },
  } satisfies Keys<ClockView>,
} satisfies JsonObject;

/** The answer of `POST /sandbox/v1/pay`. */
export const payResultSchema = {
  type: 'object',
  required: ['paymentRequestId', 'status', 'preimage'],
  properties: {
    paymentRequestId: { type: 'string', pattern: '^pr_\\S+$' },
    status: { const: 'completed' },
    preimage: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  } satisfies Keys<PayResult>,
} satisfies JsonObject;

/** `GET /sandbox/v1/pay-page/{id}`: a payment request's public fields, and its account's clock. */
export const payPageSchema = {
  type: 'object',
  required: ['id', 'status', 'amount', 'description', 'invoice', 'createdAt', 'expiresAt', 'updatedAt', 'clock'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: '^pr_\\S+$' },
    status: { enum: [...STATUS_VALUES] },
    amount: { type: 'integer', minimum: 1 },
    description: { type: 'string' },
    invoice: { type: 'string', minLength: 1 },
    createdAt: { type: 'string', pattern: ISO_UTC_PATTERN },
    expiresAt: { type: 'string', pattern: ISO_UTC_MILLIS_PATTERN },
    updatedAt: { type: 'string', pattern: ISO_UTC_PATTERN },
    clock: schemaRef('Clock'),
  } satisfies Keys<PayPageView>,
} satisfies JsonObject;

/** `GET`/`PUT /sandbox/v1/rules`: the account's own rules and the fixed ones. */
export const rulesViewSchema = {
  type: 'object',
  required: ['rules', 'fixedRules'],
  properties: {
    rules: schemaRef('Rules'),
    fixedRules: schemaRef('Rules'),
  },
} satisfies JsonObject;

/** `{"data": [item, …]}`, the envelope of every list. */
export function listSchema(itemComponent: string): JsonObject {
  return {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: schemaRef(itemComponent) } },
  };
}
