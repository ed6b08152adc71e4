/**
 * The JSON Schema of a scenario file (`scenarios/*.yaml`) and its TypeScript shape. The schema is
 * the one definition of the format: the loader validates with it, and editors can use it too.
 */
import { rulesSchema, type Rule } from '../schemas/rules.js';

/** The actions a step can take; a step takes exactly one. */
export const STEP_ACTIONS = [
  'reset',
  'create',
  'read',
  'status',
  'complete',
  'fail',
  'expire',
  'pay',
  'advance',
  'freeze',
  'unfreeze',
  'clock',
  'request',
  'receiver',
  'webhook',
  'received',
  'events',
  'deliveries',
  'redeliver',
  'walletPay',
] as const;

/** One of `STEP_ACTIONS`. */
export type StepAction = (typeof STEP_ACTIONS)[number];

/** The actions that send no request to the server: they start a local webhook receiver, look at what it got, or pay through a wallet. */
export const LOCAL_ACTIONS = ['receiver', 'received', 'walletPay'] as const satisfies readonly StepAction[];

/** What a step may carry besides its action. */
export const STEP_OPTIONS = ['as', 'key', 'expect', 'title', 'within'] as const;

/** The actions that only read, so asking again (`within`) changes nothing; `request` too when its method is GET or HEAD. */
export const READ_ONLY_ACTIONS = ['read', 'status', 'clock', 'events', 'deliveries'] as const satisfies readonly StepAction[];

/** The name a step gives its result; `keys` is taken by `${keys.name}`, `__proto__` by JavaScript. */
const NAME_PATTERN = '^(?!keys$|__proto__$)[A-Za-z_][A-Za-z0-9_]*$';

/** A string that is exactly one reference: where a number is expected, `${name.field}` may stand for it. */
const SINGLE_REFERENCE_PATTERN = '^\\$\\{[^}]+\\}$';

const switchOn = { const: true, description: 'write `true`' } as const;
const idOrReference = { type: 'string', minLength: 1, description: 'a payment request id, usually a reference such as ${order.id}' } as const;
const text = { type: 'string', minLength: 1 } as const;
const httpStatus = { type: 'integer', minimum: 100, maximum: 599 } as const;
const listLimit = {
  type: ['integer', 'string'],
  minimum: 1,
  pattern: SINGLE_REFERENCE_PATTERN,
  description: 'a whole number (1 or more), or one reference',
} as const;

/** Expectations about an HTTP answer (every step but `receiver`, `received` and `walletPay`). */
export const HTTP_EXPECTATIONS = [
  'status',
  'body',
  'absent',
  'error',
  'exactBody',
  'preimageMatchesPaymentHash',
  'preimageMatches',
  'count',
  'headers',
  'dropped',
  'tookAtLeastMs',
] as const;
/** Expectations about a wallet's answer (`walletPay` steps). */
export const WALLET_PAY_EXPECTATIONS = ['body', 'absent', 'error', 'exactBody', 'preimageMatches'] as const;
/** What goes with `dropped: true`: there is no answer to expect anything else of. */
export const DROPPED_EXPECTATIONS = ['dropped', 'tookAtLeastMs'] as const;
/** Expectations about what a receiver got (`received` steps). */
export const RECEIVED_EXPECTATIONS = ['count', 'types', 'events', 'verified', 'sameWebhookId'] as const;

const expectationSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'integer', minimum: 100, maximum: 599 },
    /** Partial deep match: every given field must equal. */
    body: {},
    /** Top-level body fields that must not be present. */
    absent: { type: 'array', items: { type: 'string', minLength: 1 } },
    /** Shorthand for `body.error.code`. */
    error: { type: 'string', minLength: 1 },
    /** `body` must equal the response body exactly, no extra fields. */
    exactBody: { type: 'boolean' },
    /** sha256(hex-decoded body.preimage) == body.paymentHash. */
    preimageMatchesPaymentHash: { type: 'boolean' },
    /** sha256(hex-decoded body.preimage) == this hash. */
    preimageMatches: { type: 'string', minLength: 1 },
    /** How many items: `body.data` (or the body, if it is an array); for `received`, how many deliveries. */
    count: { type: 'integer', minimum: 0 },
    /** `received`: the event types of the deliveries, in the order they arrived. */
    types: { type: 'array', items: text },
    /** `received`: the delivered event bodies, matched like `body`, element by element. */
    events: { type: 'array' },
    /** `received`: every delivery verified (standardwebhooks) with its endpoint's secret. */
    verified: switchOn,
    /** `received`: every delivery's webhook-id is its event's id, so all deliveries of one event share it. */
    sameWebhookId: switchOn,
    /** Response headers (names in any case) with these values, as text: `{ retry-after: "2" }`. */
    headers: { type: 'object', additionalProperties: { type: ['string', 'number'], description: 'a header value, as text (a number stands for its digits)' } },
    /** No answer came: the connection was closed (a `reset` or `hangMs` fault), or nothing came in time. */
    dropped: switchOn,
    /** The answer (or the closed connection) took at least this many ms. */
    tookAtLeastMs: { type: 'integer', minimum: 0 },
  },
} as const;

/** `receiver: true`, or with how it answers: `receiver: { answer: [500, 500, 204] }`. */
const receiverSchema = {
  type: ['boolean', 'object'],
  not: { const: false },
  additionalProperties: false,
  properties: {
    answer: {
      type: ['integer', 'array'],
      minimum: 100,
      maximum: 599,
      minItems: 1,
      items: httpStatus,
      description: 'an HTTP status, or a list of them (one per delivery, the last repeats), e.g. [500, 500, 204]',
    },
  },
  description: 'true, or { answer: [status, …] }',
} as const;

/** `webhook: { url, events?, faults? }`: the body of POST /sandbox/v1/webhook-endpoints. */
const webhookSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string', minLength: 1, description: 'a URL, usually a receiver\'s: ${shop.url}' },
    /** Sent as given; the server validates (event types, e.g. [payment_request.completed]). */
    events: {},
    /** Sent as given: { duplicate: p, reorder: true, delaySeconds: n }. */
    faults: {},
  },
} as const;

/** `walletPay: { nwcUrl, invoice }`: NIP-47 `pay_invoice` through the wallet of that connection URI. */
const walletPaySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['nwcUrl', 'invoice'],
  properties: {
    nwcUrl: { type: 'string', minLength: 1, description: "a wallet's connection URI, usually a reference such as ${payer.nwcUrl}" },
    invoice: { type: 'string', minLength: 1, description: 'a BOLT11 invoice, usually ${order.invoice}' },
  },
} as const;

/** `events: { type?, paymentRequest?, limit? }`: the query of GET /sandbox/v1/events. */
const eventsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { type: text, paymentRequest: text, limit: listLimit },
} as const;

/** `deliveries: { event?, endpoint?, limit? }`: the query of GET /sandbox/v1/webhook-deliveries. */
const deliveriesQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { event: text, endpoint: text, limit: listLimit },
} as const;

const requestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['method', 'path'],
  properties: {
    method: { type: 'string', pattern: '^[A-Za-z]+$', description: 'an HTTP method, e.g. GET' },
    path: { type: 'string', pattern: '^/', description: 'a path starting with /, e.g. /api/v1/payment-requests' },
    /** Sent as JSON. */
    body: {},
    /** Sent as is (for bodies that are not JSON); `body` or `rawBody`, not both. */
    rawBody: { type: 'string' },
    /** Extra headers; they win over the runner's (`authorization`, `content-type`). */
    headers: { type: 'object', additionalProperties: { type: 'string' } },
  },
  not: { required: ['body', 'rawBody'] },
} as const;

/** One step: exactly one action, with optional `as`, `key`, `expect`, `title`. */
export const stepSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    reset: {
      enum: [true, 'all'],
      description: 'write `true` (payment requests, events, deliveries and the clock) or `all` (webhook endpoints and rules too)',
    },
    /** Any body, sent as JSON to POST /api/v1/payment-requests (invalid bodies too, to see the errors). */
    create: {},
    read: idOrReference,
    status: idOrReference,
    complete: idOrReference,
    fail: idOrReference,
    expire: idOrReference,
    pay: { type: 'string', minLength: 1, description: 'a BOLT11 invoice, usually ${order.invoice}' },
    advance: {
      type: ['integer', 'string'],
      minimum: 0,
      pattern: SINGLE_REFERENCE_PATTERN,
      description: 'a whole number of seconds (0 or more), or one reference such as ${wait.seconds}',
    },
    freeze: switchOn,
    unfreeze: switchOn,
    clock: switchOn,
    request: requestSchema,
    receiver: receiverSchema,
    webhook: webhookSchema,
    received: { type: 'string', pattern: NAME_PATTERN, description: 'the name of an earlier receiver step (its as:)' },
    events: eventsQuerySchema,
    deliveries: deliveriesQuerySchema,
    redeliver: { type: 'string', minLength: 1, description: 'an event id, usually a reference such as ${log.data.0.id}' },
    walletPay: walletPaySchema,
    as: { type: 'string', pattern: NAME_PATTERN, description: 'a name: letters, digits and _, not starting with a digit (not keys)' },
    key: { type: 'string', minLength: 1 },
    expect: expectationSchema,
    title: { type: 'string', minLength: 1 },
    within: { type: 'number', minimum: 0, maximum: 60, description: 'a number of seconds (0 to 60), e.g. 6' },
  },
  oneOf: STEP_ACTIONS.map((action) => ({ required: [action] })),
} as const;

/** A whole scenario file. */
export const scenarioSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/scenario.json',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'steps'],
  properties: {
    name: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    /** Named API keys; `default` is always the key the runner was given. */
    keys: {
      type: 'object',
      propertyNames: { pattern: NAME_PATTERN, not: { const: 'default' } },
      additionalProperties: { type: 'string', minLength: 1 },
    },
    /** Installed for the default key's account before the steps (and again after each `reset: all` of it), removed after. */
    rules: rulesSchema,
    steps: { type: 'array', minItems: 1, items: stepSchema },
  },
} as const;

/** What a step checks; absent, the HTTP status must be 2xx. */
export interface Expectation {
  status?: number;
  body?: unknown;
  absent?: string[];
  error?: string;
  exactBody?: boolean;
  preimageMatchesPaymentHash?: boolean;
  preimageMatches?: string;
  count?: number;
  types?: string[];
  events?: unknown[];
  verified?: true;
  sameWebhookId?: true;
  headers?: Record<string, string | number>;
  dropped?: true;
  tookAtLeastMs?: number;
}

/** How a receiver answers: `true` (204 to everything) or the statuses to answer in turn. */
export type ReceiverOptions = true | { answer?: number | number[] };

/** The body of a `webhook` step. */
export interface WebhookStep {
  url: string;
  events?: unknown;
  faults?: unknown;
}

/** The body of a `walletPay` step. */
export interface WalletPayStep {
  nwcUrl: string;
  invoice: string;
}

/** A raw HTTP request step. */
export interface RawRequest {
  method: string;
  path: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/** One step as written (references unresolved). */
export interface Step {
  /** `true`: the account's activity; `all`: its webhook endpoints and rules too. */
  reset?: true | 'all';
  create?: unknown;
  read?: string;
  status?: string;
  complete?: string;
  fail?: string;
  expire?: string;
  pay?: string;
  advance?: number | string;
  freeze?: true;
  unfreeze?: true;
  clock?: true;
  request?: RawRequest;
  receiver?: ReceiverOptions;
  webhook?: WebhookStep;
  received?: string;
  events?: { type?: string; paymentRequest?: string; limit?: number | string };
  deliveries?: { event?: string; endpoint?: string; limit?: number | string };
  redeliver?: string;
  walletPay?: WalletPayStep;
  as?: string;
  key?: string;
  expect?: Expectation;
  title?: string;
  /** Seconds to ask again (read-only steps) until the expectations hold. */
  within?: number;
}

/** A validated scenario file. */
export interface Scenario {
  name: string;
  description?: string;
  keys?: Record<string, string>;
  rules?: Rule[];
  steps: Step[];
}

/** The action a (valid) step takes. */
export function actionOf(step: Step): StepAction {
  const action = STEP_ACTIONS.find((name) => Object.hasOwn(step, name));
  if (action === undefined) throw new Error('a step without an action reached the runner; load it with loadScenario');
  return action;
}
