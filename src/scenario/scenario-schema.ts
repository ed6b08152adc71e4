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
] as const;

/** One of `STEP_ACTIONS`. */
export type StepAction = (typeof STEP_ACTIONS)[number];

/** What a step may carry besides its action. */
export const STEP_OPTIONS = ['as', 'key', 'expect', 'title'] as const;

/** The name a step gives its result; `keys` is taken by `${keys.name}`, `__proto__` by JavaScript. */
const NAME_PATTERN = '^(?!keys$|__proto__$)[A-Za-z_][A-Za-z0-9_]*$';

/** A string that is exactly one reference: where a number is expected, `${name.field}` may stand for it. */
const SINGLE_REFERENCE_PATTERN = '^\\$\\{[^}]+\\}$';

const switchOn = { const: true, description: 'write `true`' } as const;
const idOrReference = { type: 'string', minLength: 1, description: 'a payment request id, usually a reference such as ${order.id}' } as const;

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
  },
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
    reset: switchOn,
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
    as: { type: 'string', pattern: NAME_PATTERN, description: 'a name: letters, digits and _, not starting with a digit (not keys)' },
    key: { type: 'string', minLength: 1 },
    expect: expectationSchema,
    title: { type: 'string', minLength: 1 },
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
    /** Installed for the default key's account before the steps (and after each reset), removed after. */
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
  reset?: true;
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
  as?: string;
  key?: string;
  expect?: Expectation;
  title?: string;
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
