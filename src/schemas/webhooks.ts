/**
 * Webhooks (sandbox events, not part of the v1 spec): the request body that registers an
 * endpoint and the objects the control API answers with. One source for ajv, the OpenAPI document
 * and the TypeScript types, like the v1 schemas.
 */
import { ISO_UTC_MILLIS_PATTERN, paymentRequestSchema, type PaymentRequest } from './payment-request.js';

/** The event types, one per change of a payment request. */
export const EVENT_TYPES = [
  'payment_request.created',
  'payment_request.completed',
  'payment_request.failed',
  'payment_request.expired',
] as const;

/** One event type. */
export type EventType = (typeof EVENT_TYPES)[number];

/** The longest `delaySeconds` fault: a day, the longest retry gap. */
export const MAX_DELAY_SECONDS = 86_400;

/** `faults` of an endpoint: how its deliveries misbehave, to test a receiver. */
export const endpointFaultsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    /** Probability of a second, identical delivery (same `webhook-id`). */
    duplicate: { type: 'number', minimum: 0, maximum: 1 },
    /** Holds each `created` event until the request's next event, then sends the newer first. */
    reorder: { type: 'boolean' },
    /** Seconds (account clock) by which each first attempt is late. */
    delaySeconds: { type: 'integer', minimum: 0, maximum: MAX_DELAY_SECONDS },
  },
} as const;

/** `POST /sandbox/v1/webhook-endpoints`. */
export const createEndpointBodySchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/create-webhook-endpoint.json',
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048 },
    // `type: 'string'` lets ajv check uniqueness by hashing, not by comparing every pair (10,000
    // untyped items took it 300 ms); a list of distinct event types is never longer than there are.
    events: { type: 'array', minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true, items: { type: 'string', enum: EVENT_TYPES } },
    faults: endpointFaultsSchema,
  },
} as const;

/** Faults of an endpoint. */
export interface EndpointFaults {
  duplicate?: number;
  reorder?: boolean;
  delaySeconds?: number;
}

/** The body of `POST /sandbox/v1/webhook-endpoints`. */
export interface CreateEndpointBody {
  url: string;
  events?: EventType[];
  faults?: EndpointFaults;
}

/** A webhook endpoint as the control API shows it. */
export const webhookEndpointSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/webhook-endpoint.json',
  type: 'object',
  // `secret` is shown to keys with the create permission only: a read-only key never sees it.
  required: ['id', 'url', 'events', 'faults', 'createdAt'],
  properties: {
    id: { type: 'string', pattern: '^we_\\S+$' },
    url: { type: 'string' },
    events: { type: 'array', items: { enum: EVENT_TYPES } },
    faults: endpointFaultsSchema,
    secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/=]+$' },
    createdAt: { type: 'string', pattern: ISO_UTC_MILLIS_PATTERN },
  },
} as const;

/** A webhook endpoint. */
export interface WebhookEndpoint {
  id: string;
  url: string;
  events: EventType[];
  faults: EndpointFaults;
  /** Shown to keys with the create permission only. */
  secret?: string;
  createdAt: string;
}

/** An event: the body of every delivery, and an item of `GET /sandbox/v1/events`. */
export const webhookEventSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/webhook-event.json',
  type: 'object',
  required: ['id', 'type', 'timestamp', 'data'],
  properties: {
    id: { type: 'string', pattern: '^evt_\\S+$' },
    type: { enum: EVENT_TYPES },
    /** The account's clock when the change happened. */
    timestamp: { type: 'string', pattern: ISO_UTC_MILLIS_PATTERN },
    /** The payment request exactly as `GET /api/v1/payment-requests/{id}` answered at that moment. */
    data: paymentRequestSchema,
  },
} as const;

/** An event. */
export interface WebhookEvent {
  id: string;
  type: EventType;
  timestamp: string;
  data: PaymentRequest;
}

/** Where a delivery attempt stands. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** One attempt of a delivery, as `GET /sandbox/v1/webhook-deliveries` lists it. */
export const webhookDeliverySchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/webhook-delivery.json',
  type: 'object',
  required: ['id', 'event', 'endpoint', 'attempt', 'status', 'responseStatus', 'error', 'scheduledAt', 'attemptedAt', 'durationMs'],
  properties: {
    /** The delivery: the same on each of its attempts (a duplicate is another delivery). */
    id: { type: 'string', pattern: '^wd_\\S+$' },
    event: { type: 'string', pattern: '^evt_\\S+$' },
    endpoint: { type: 'string', pattern: '^we_\\S+$' },
    /** 1 for the first attempt, up to 8 (seven retries). */
    attempt: { type: 'integer', minimum: 1 },
    status: { enum: DELIVERY_STATUSES },
    responseStatus: { type: ['integer', 'null'] },
    error: { type: ['string', 'null'] },
    /** When the attempt is due on the account's clock; null while held (the `reorder` fault). */
    scheduledAt: { type: ['string', 'null'], pattern: ISO_UTC_MILLIS_PATTERN },
    attemptedAt: { type: ['string', 'null'], pattern: ISO_UTC_MILLIS_PATTERN },
    durationMs: { type: ['integer', 'null'], minimum: 0 },
  },
} as const;

/** One delivery attempt. */
export interface WebhookDelivery {
  id: string;
  event: string;
  endpoint: string;
  attempt: number;
  status: (typeof DELIVERY_STATUSES)[number];
  responseStatus: number | null;
  error: string | null;
  scheduledAt: string | null;
  attemptedAt: string | null;
  durationMs: number | null;
}
