/**
 * Schemas of the answers the engine never validates (so ajv needs none): the health check, the
 * clock, the pay result, the pay page, the rules and the list envelopes. Routes name them as their
 * answers and the OpenAPI document shows them; written once, in terms of the shared pieces of
 * `src/schemas` (the very schema objects, which the document turns into `$ref`s). `satisfies` ties
 * each to its TypeScript type's field names, and the traffic tests validate every real answer
 * against them.
 */
import type { ClockView, PayPageView, PayResult } from './control.js';
import { ISO_UTC_MILLIS_PATTERN, ISO_UTC_PATTERN, paymentRequestSchema, STATUS_VALUES } from './payment-request.js';
import { accountSchema } from './accounts.js';
import { rulesSchema } from './rules.js';
import { webhookDeliverySchema, webhookEndpointSchema, webhookEventSchema } from './webhooks.js';

type Keys<T> = Record<keyof T, unknown>;

/** `GET /healthz`. */
export const healthSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { const: 'ok' } },
} as const;

/** An account's clock. */
export const clockSchema = {
  type: 'object',
  required: ['now', 'frozen'],
  properties: {
    now: { type: 'string', pattern: ISO_UTC_MILLIS_PATTERN },
    frozen: { type: 'boolean' },
  } satisfies Keys<ClockView>,
} as const;

/** The answer of `POST /sandbox/v1/pay`. */
export const payResultSchema = {
  type: 'object',
  required: ['paymentRequestId', 'status', 'preimage'],
  properties: {
    paymentRequestId: { type: 'string', pattern: '^pr_\\S+$' },
    status: { const: 'completed' },
    preimage: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  } satisfies Keys<PayResult>,
} as const;

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
    clock: clockSchema,
  } satisfies Keys<PayPageView>,
} as const;

/** `GET`/`PUT /sandbox/v1/rules`: the account's own rules and the fixed ones. */
export const rulesViewSchema = {
  type: 'object',
  required: ['rules', 'fixedRules'],
  properties: {
    rules: rulesSchema,
    fixedRules: rulesSchema,
  },
} as const;

/** `{"data": [item, …]}`, the envelope of every list. */
function listSchema<Item extends object>(item: Item) {
  return {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: item } },
  } as const;
}

/** `GET /sandbox/v1/payment-requests`. */
export const paymentRequestListSchema = listSchema(paymentRequestSchema);
/** `GET /sandbox/v1/webhook-endpoints`. */
export const webhookEndpointListSchema = listSchema(webhookEndpointSchema);
/** `GET /sandbox/v1/events`. */
export const webhookEventListSchema = listSchema(webhookEventSchema);
/** `GET /sandbox/v1/webhook-deliveries` and the answer of a redelivery. */
export const webhookDeliveryListSchema = listSchema(webhookDeliverySchema);

/** `GET /sandbox/v1/accounts`. */
export const accountListSchema = listSchema(accountSchema);

/** `GET /openapi.json`: an OpenAPI 3.1 document (this sandbox's). */
export const openApiDocumentSchema = {
  type: 'object',
  required: ['openapi', 'info'],
  properties: { openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' }, info: { type: 'object', additionalProperties: true } },
} as const;
