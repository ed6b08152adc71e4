/**
 * Full checks of the records a store reads back from disk, against the schemas of src/schemas
 * plus the fields only the store keeps. A hand-edited file (`"status": "hacked"`) must refuse the
 * start, naming the record and the field, rather than be served as is. Each check is compiled on
 * first use. Browser-safe.
 */
import { compileSchemaCheck, type SchemaCheck } from '../core/pipeline/schema-check.js';
import type { ErrorDetail } from '../core/errors/errors.js';
import type { StoreChange } from '../core/store/sandbox-store.js';
import { ISO_UTC_MILLIS_PATTERN, paymentRequestSchema } from '../schemas/payment-request.js';
import { TRANSACTION_STATES } from '../core/store/wallet-records.js';
import { webhookDeliverySchema, webhookEndpointSchema, webhookEventSchema } from '../schemas/webhooks.js';
import { isJsonObject } from './stored-values.js';

const accountId = { type: 'string', minLength: 1 } as const;

/** A payment request as stored: the v1 object, plus what no response shows. */
const storedPaymentRequestSchema = {
  type: 'object',
  required: [...paymentRequestSchema.required, 'accountId', 'destinationWallet', 'expiresIn'],
  // A custodial request's preimage is drawn at creation; only a wallet outside the sandbox may
  // leave an NWC request's unknown until it is paid.
  if: { properties: { isNwc: { const: false } } },
  then: { required: ['preimage'], properties: { preimage: paymentRequestSchema.properties.preimage } },
  properties: {
    ...paymentRequestSchema.properties,
    // Its length was checked on create; a stored record is not refused over a limit changed since.
    description: { type: 'string' },
    // Not blank, said as a pattern: minLength counts the code points of every (long) invoice,
    // which would triple the cost of checking a file's records at start.
    invoice: { type: 'string', pattern: '\\S' },
    accountId,
    destinationWallet: { type: 'string' },
    expiresIn: { type: 'integer', minimum: 1 },
    scheduledOutcome: {
      type: 'object',
      required: ['transition', 'at', 'rule'],
      properties: {
        transition: { enum: ['complete', 'fail', 'expire'] },
        at: { type: 'string', pattern: ISO_UTC_MILLIS_PATTERN },
        rule: { type: 'string' },
      },
    },
  },
} as const;

/** An event as stored: the delivered object and its account. */
const storedEventSchema = {
  type: 'object',
  required: [...webhookEventSchema.required, 'accountId'],
  properties: { ...webhookEventSchema.properties, accountId },
} as const;

/** A webhook endpoint as stored: with its account and, always, its secret. */
const storedEndpointSchema = {
  type: 'object',
  required: [...webhookEndpointSchema.required, 'accountId', 'secret'],
  properties: { ...webhookEndpointSchema.properties, accountId },
} as const;

/** A delivery attempt as stored: with its account and, while held, what releases it. */
const storedDeliverySchema = {
  type: 'object',
  required: [...webhookDeliverySchema.required, 'accountId'],
  properties: { ...webhookDeliverySchema.properties, accountId, heldFor: { type: 'string' } },
} as const;

const hex64 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const msats = { type: 'integer', minimum: 0 } as const;

/** A test wallet as stored (core/store/wallet-records.ts). */
const storedWalletSchema = {
  type: 'object',
  required: ['id', 'accountId', 'name', 'balanceMsats', 'createdAt', 'serviceSecret', 'clientSecret'],
  properties: {
    id: { type: 'string', pattern: '^wal_' },
    accountId,
    name: { type: ['string', 'null'] },
    balanceMsats: msats,
    createdAt: { type: 'string', pattern: ISO_UTC_MILLIS_PATTERN },
    serviceSecret: hex64,
    clientSecret: hex64,
  },
} as const;

/** A wallet transaction as stored. */
const storedTransactionSchema = {
  type: 'object',
  required: ['id', 'walletId', 'accountId', 'type', 'state', 'invoice', 'paymentHash', 'amountMsats', 'feesPaidMsats', 'createdAt'],
  properties: {
    id: { type: 'string', minLength: 1 },
    walletId: { type: 'string', minLength: 1 },
    accountId,
    type: { enum: ['incoming', 'outgoing'] },
    state: { enum: [...TRANSACTION_STATES] },
    invoice: { type: 'string', pattern: '\\S' },
    description: { type: 'string' },
    descriptionHash: hex64,
    preimage: hex64,
    paymentHash: hex64,
    amountMsats: msats,
    feesPaidMsats: msats,
    createdAt: { type: 'integer' },
    expiresAt: { type: 'integer' },
    settledAt: { type: 'integer' },
  },
} as const;

/** The kinds of stored record, by what their messages call them. */
const CHECKS = {
  'payment request': compileSchemaCheck(storedPaymentRequestSchema, { place: 'body' }),
  event: compileSchemaCheck(storedEventSchema, { place: 'body' }),
  'webhook endpoint': compileSchemaCheck(storedEndpointSchema, { place: 'body' }),
  'delivery attempt': compileSchemaCheck(storedDeliverySchema, { place: 'body' }),
  'test wallet': compileSchemaCheck(storedWalletSchema, { place: 'body' }),
  'wallet transaction': compileSchemaCheck(storedTransactionSchema, { place: 'body' }),
} satisfies Record<string, SchemaCheck>;

/** A kind of stored record. */
export type StoredRecordKind = keyof typeof CHECKS;

/**
 * What is wrong with a stored record, naming it by id and each bad field with its value
 * (`payment request pr_1: status must be one of pending, completed, expired, failed (it is "hacked")`);
 * undefined when it is valid.
 */
export function storedRecordProblem(kind: StoredRecordKind, value: unknown): string | undefined {
  if (!isJsonObject(value)) return `a ${kind} is not a JSON object (it is ${shown(value)})`;
  const details = CHECKS[kind](value);
  if (details.length === 0) return undefined;
  const name = typeof value.id === 'string' ? `${kind} ${value.id}` : `a ${kind} without an id`;
  return `${name}: ${details.map((detail) => withValue(detail, value)).join('; ')}`;
}

/** What is wrong with a record of a journal's `change` (lists and ids checked by isStoreChange), or undefined. */
export function storeChangeProblem(change: StoreChange): string | undefined {
  const lists = [
    ['paymentRequests', 'payment request'],
    ['events', 'event'],
    ['endpoints', 'webhook endpoint'],
    ['deliveries', 'delivery attempt'],
    ['wallets', 'test wallet'],
    ['walletTransactions', 'wallet transaction'],
  ] as const;
  for (const [list, kind] of lists) {
    for (const item of change[list] ?? []) {
      const problem = storedRecordProblem(kind, item);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/** The detail's message with the value the field holds, so the edit that broke it is easy to find. */
function withValue(detail: ErrorDetail, record: Record<string, unknown>): string {
  if (detail.code === 'missing_field' || detail.code === 'unknown_field') return detail.message;
  let value: unknown = record;
  for (const key of detail.field.split('.')) value = isJsonObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
  return `${detail.message} (it is ${shown(value)})`;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
