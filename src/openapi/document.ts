/**
 * The OpenAPI 3.1 document of this sandbox: the v1 API, the health check, the `/sandbox/v1`
 * control API and the webhook events (`webhooks`), generated from `src/schemas` (see
 * `components.ts`) and the error catalogue. It describes what a server with these settings
 * serves: with the controls off, the control paths and the webhooks are left out. Browser-safe.
 *
 * Adding a route to the engine? Add its operation here too: `test/openapi-document.test.ts`
 * compares the engine's route table with `paths` and fails on any difference.
 */
import type { ErrorCode } from '../core/pipeline/errors.js';
import { DEFAULT_SETTINGS, type SandboxSettings } from '../core/settings.js';
import { EVENT_TYPES, type EventType } from '../schemas/webhooks.js';
import { componentSchemas, formatNumber } from './components.js';
import { errorExamples, errorResponse, errorResponses, type ErrorExampleOverrides } from './error-responses.js';
import { completedEventExample, completedExample, createBodyExample, deliveryExample, endpointExample, eventExamples, nwcExample, pendingExample } from './examples.js';
import { collectRefs, schemaRef, type JsonObject } from './schema-tools.js';

/** The OpenAPI version of the document. */
export const OPENAPI_VERSION = '3.1.0';

/** Options of `buildOpenApiDocument`. */
export interface OpenApiOptions {
  /** `servers[0].url`: `/` (the origin that serves the document) by default. */
  serverUrl?: string;
}

type Method = 'get' | 'post' | 'put' | 'delete';

/** Who may call an operation: anyone, any valid key, or a key with a permission. */
type Auth = 'none' | 'key' | 'create' | 'read';

/** An operation, in the few words that differ from one to the next. */
interface OperationSpec {
  method: Method;
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  auth: Auth;
  pathParameters?: Record<string, string>;
  query?: JsonObject[];
  /** The component schema of a JSON body. */
  body?: { schema: string; examples?: Record<string, unknown> };
  success: {
    status: number;
    description: string;
    /** A component name, or none for an answer without a body. */
    schema?: string;
    examples?: Record<string, unknown>;
    headers?: Record<string, JsonObject>;
  };
  /** Error codes beyond those that follow from `auth`, `body` and `query`. */
  errors?: ErrorCode[];
  errorExamples?: ErrorExampleOverrides;
  /** More responses, by status (e.g. 304). */
  moreResponses?: Record<string, JsonObject>;
  parameters?: JsonObject[];
}

/** Builds the document for a server with these settings. */
export function buildOpenApiDocument(settings: SandboxSettings = DEFAULT_SETTINGS, options: OpenApiOptions = {}): JsonObject {
  const operations = [...v1Operations(settings), ...(settings.controls ? [...controlOperations(), ...webhookOperations()] : [])];
  const paths: Record<string, JsonObject> = {};
  for (const spec of operations) {
    const item = (paths[spec.path] ??= {});
    item[spec.method] = operation(spec);
  }
  const document: JsonObject = {
    openapi: OPENAPI_VERSION,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Lightning payment requests: lnpr-sandbox',
      version: '1',
      summary: settings.controls
        ? 'The v1 payment-request API of the spec, as the offline sandbox serves it, with its control API and webhooks.'
        : 'The v1 payment-request API of the spec, as the offline sandbox serves it.',
      description: infoDescription(settings),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.serverUrl ?? '/', description: options.serverUrl ? 'The sandbox' : 'The sandbox that served this document' }],
    security: [{ bearerAuth: [] }],
    tags: tags(settings),
    paths,
    ...(settings.controls ? { webhooks: webhooks() } : {}),
    components: {
      schemas: componentSchemas(settings),
      headers: HEADERS,
      examples: errorExamples(),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Every call but `/healthz` and `/openapi.json` carries an API key: `Authorization: Bearer <API_KEY>`. Missing, malformed or unknown keys get 401 `unauthorized`; a key without the permission gets 401 `insufficient_permission`. The default test keys: `sk_test_custodial`, `sk_test_nwc` (non-custodial), `sk_test_readonly` (read only).',
        },
      },
    },
    'x-lnpr-responses': {
      description:
        'Answers outside the operations, for tools that check traffic against this document. `noRoute`: a path no operation has. `methodNotAllowed`: a path of `paths` with a method it does not list (every GET also answers HEAD, without a body). `anyRequest`: what any request may get.',
      noRoute: { '404': errorResponse(['route_not_found']) },
      methodNotAllowed: { '405': errorResponse(['method_not_allowed']) },
      anyRequest: { '417': errorResponse(['expectation_failed']), '500': errorResponse(['internal_error']) },
    },
    'x-lnpr-settings': {
      minAmount: settings.minAmount,
      maxAmount: settings.maxAmount,
      feeRounding: settings.feeRounding,
      feePercentageBelowThreshold: settings.feePercentageBelowThreshold,
      defaultExpiresIn: settings.defaultExpiresIn,
      minExpiresIn: settings.minExpiresIn,
      maxExpiresIn: settings.maxExpiresIn,
      maxMetadataBytes: settings.maxMetadataBytes,
      maxMetadataDepth: settings.maxMetadataDepth,
      controls: settings.controls,
    },
  };
  return withoutUnusedComponents(document);
}

// ---------------------------------------------------------------------------------------------
// The operations

const PAYMENT_REQUEST_ID = 'The payment request id, `pr_<identifier>`.';

function v1Operations(settings: SandboxSettings): OperationSpec[] {
  const collection = '/api/v1/payment-requests';
  const minAmountMessage = `amount must be at least ${settings.minAmount} sats`;
  return [
    {
      method: 'post',
      path: collection,
      operationId: 'createPaymentRequest',
      tag: 'Payment requests',
      summary: 'Create a payment request',
      description:
        'Creates a payment request: a Lightning invoice to be paid, in the mode of the key\'s account (custodial, or non-custodial through the connected wallet). The answer is `pending`.',
      auth: 'create',
      body: { schema: 'CreatePaymentRequest', examples: { order: createBodyExample, tip: { amount: 21, description: 'Tip', destinationWallet: 'alice@wallet.example', expiresIn: 600 } } },
      success: {
        status: 201,
        description: 'Created: the payment request, `pending`.',
        schema: 'PaymentRequest',
        examples: { custodial: pendingExample, nonCustodial: nwcExample },
        headers: { Location: { $ref: '#/components/headers/Location' } },
      },
      errorExamples: {
        invalid_request: {
          error: {
            code: 'invalid_request',
            message: `Invalid payment request: ${minAmountMessage}.`,
            details: [{ field: 'amount', code: 'amount_below_minimum', message: minAmountMessage }],
          },
        },
      },
    },
    {
      method: 'get',
      path: `${collection}/{id}`,
      operationId: 'getPaymentRequest',
      tag: 'Payment requests',
      summary: 'Get a payment request',
      description:
        'The payment request, with `nwcRelay` when `isNwc` is `true` and `preimage` once completed. A pending request whose `expiresAt` has passed on its account\'s clock reads as `expired`.',
      auth: 'read',
      pathParameters: { id: PAYMENT_REQUEST_ID },
      success: { status: 200, description: 'The payment request.', schema: 'PaymentRequest', examples: { pending: pendingExample, completed: completedExample, nonCustodial: nwcExample } },
      errors: ['payment_request_not_found'],
    },
    {
      method: 'get',
      path: `${collection}/{id}/status`,
      operationId: 'getPaymentRequestStatus',
      tag: 'Payment requests',
      summary: "Get a payment request's status",
      auth: 'read',
      pathParameters: { id: PAYMENT_REQUEST_ID },
      success: { status: 200, description: 'The status alone.', schema: 'PaymentRequestStatus', examples: { completed: { status: 'completed' } } },
      errors: ['payment_request_not_found'],
    },
    {
      method: 'get',
      path: '/healthz',
      operationId: 'getHealth',
      tag: 'Server',
      summary: 'Health check',
      auth: 'none',
      success: { status: 200, description: 'The server is up.', schema: 'Health', examples: { ok: { status: 'ok' } } },
    },
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      tag: 'Server',
      summary: 'This OpenAPI document',
      description: 'The document describes what this server serves, with its settings (e.g. `--min-amount`); with `--no-controls` it leaves out the control API and the webhooks. `lnpr openapi` prints the same document.',
      auth: 'none',
      parameters: [
        { name: 'If-None-Match', in: 'header', required: false, description: 'An `ETag` of an earlier answer: 304 if the document is unchanged.', schema: { type: 'string' } },
      ],
      success: {
        status: 200,
        description: 'The document.',
        schema: 'OpenApiDocument',
        headers: { ETag: { $ref: '#/components/headers/ETag' }, 'Cache-Control': { $ref: '#/components/headers/Cache-Control' } },
      },
      moreResponses: { '304': { description: 'Not modified: the `If-None-Match` ETag is current.', headers: { ETag: { $ref: '#/components/headers/ETag' } } } },
    },
  ];
}

function controlOperations(): OperationSpec[] {
  const transitions = [
    ['complete', 'completePaymentRequest', 'Pay a payment request', 'A wallet pays it: `completed`, `preimage` set, `updatedAt` moves.'],
    ['fail', 'failPaymentRequest', 'Fail a payment request', 'The payment fails: `failed`.'],
    ['expire', 'expirePaymentRequest', 'Expire a payment request', 'It expires now: `expired`.'],
  ] as const;
  const invalidTransition = {
    invalid_transition: {
      error: {
        code: 'invalid_transition' as const,
        message: `Cannot complete payment request ${pendingExample.id}: it is already completed; completed, expired and failed are final.`,
      },
    },
  };
  return [
    ...transitions.map(([transition, operationId, summary, description]): OperationSpec => ({
      method: 'post',
      path: `/sandbox/v1/payment-requests/{id}/${transition}`,
      operationId,
      tag: 'Sandbox: payment requests',
      summary,
      description: `${description} From a terminal state: 409, and nothing changes.`,
      auth: 'key',
      pathParameters: { id: PAYMENT_REQUEST_ID },
      success: { status: 200, description: 'The payment request after the change.', schema: 'PaymentRequest', ...(transition === 'complete' ? { examples: { completed: completedExample } } : {}) },
      errors: ['payment_request_not_found', 'invalid_transition'],
      errorExamples: invalidTransition,
    })),
    {
      method: 'post',
      path: '/sandbox/v1/pay',
      operationId: 'payInvoice',
      tag: 'Sandbox: payment requests',
      summary: 'Pay an invoice as a wallet would',
      description: "Completes the key's account's payment request that has this invoice.",
      auth: 'key',
      body: { schema: 'PayBody', examples: { invoice: { invoice: pendingExample.invoice } } },
      success: {
        status: 200,
        description: 'Paid.',
        schema: 'PayResult',
        examples: { paid: { paymentRequestId: completedExample.id, status: 'completed', preimage: completedExample.preimage } },
      },
      errors: ['invoice_not_found', 'invalid_transition'],
      errorExamples: {
        invalid_request: {
          error: {
            code: 'invalid_request',
            message: 'Invalid payment: invoice is not a valid BOLT11 invoice: Invalid checksum.',
            details: [{ field: 'invoice', code: 'invalid_invoice', message: 'invoice is not a valid BOLT11 invoice: Invalid checksum' }],
          },
        },
      },
    },
    {
      method: 'get',
      path: '/sandbox/v1/payment-requests',
      operationId: 'listPaymentRequests',
      tag: 'Sandbox: payment requests',
      summary: "The account's payment requests",
      description: "Newest (last created) first, each as `GET /api/v1/payment-requests/{id}` shows it on the account's clock. v1 has no list; the dashboard uses this one.",
      auth: 'key',
      query: [{ name: 'limit', in: 'query', required: false, description: 'At most this many (the newest); all by default.', schema: { type: 'integer', minimum: 1 } }],
      success: { status: 200, description: 'The payment requests.', schema: 'PaymentRequestList', examples: { one: { data: [pendingExample] } } },
    },
    {
      method: 'get',
      path: '/sandbox/v1/pay-page/{id}',
      operationId: 'getPayPage',
      tag: 'Sandbox: pay page',
      summary: 'What the hosted pay page shows',
      description: 'No key: the id is the secret, as with any hosted invoice page (`GET /pay/{id}`). Public fields only, and the account clock.',
      auth: 'none',
      pathParameters: { id: PAYMENT_REQUEST_ID },
      success: { status: 200, description: 'The public view.', schema: 'PayPage' },
      errors: ['payment_request_not_found'],
    },
    {
      method: 'post',
      path: '/sandbox/v1/pay-page/{id}/pay',
      operationId: 'payFromPayPage',
      tag: 'Sandbox: pay page',
      summary: "The pay page's test wallet pays",
      description: 'No key. Completes the payment request, as `POST /sandbox/v1/payment-requests/{id}/complete` does; from a terminal state 409, and nothing changes.',
      auth: 'none',
      pathParameters: { id: PAYMENT_REQUEST_ID },
      success: { status: 200, description: 'The public view, `completed`.', schema: 'PayPage' },
      errors: ['payment_request_not_found', 'invalid_transition'],
      errorExamples: invalidTransition,
    },
    clockOperation('get', '/sandbox/v1/clock', 'getClock', "The account's clock"),
    {
      ...clockOperation('post', '/sandbox/v1/clock/advance', 'advanceClock', "Move the account's clock on"),
      description: "Moves the account's clock on; expiries, rule outcomes and webhook retries that fall due run before the answer.",
      body: { schema: 'AdvanceClockBody', examples: { hour: { seconds: 3600 } } },
    },
    clockOperation('post', '/sandbox/v1/clock/freeze', 'freezeClock', "Freeze the account's clock"),
    clockOperation('post', '/sandbox/v1/clock/unfreeze', 'unfreezeClock', "Let the account's clock run again"),
    {
      method: 'get',
      path: '/sandbox/v1/rules',
      operationId: 'getRules',
      tag: 'Sandbox: rules',
      summary: 'Behaviour rules in force',
      auth: 'key',
      success: { status: 200, description: "The account's rules and the fixed ones.", schema: 'RulesView' },
    },
    {
      method: 'put',
      path: '/sandbox/v1/rules',
      operationId: 'putRules',
      tag: 'Sandbox: rules',
      summary: "Replace the account's behaviour rules",
      auth: 'key',
      body: {
        schema: 'PutRulesBody',
        examples: { bigOrdersFail: { rules: [{ name: 'big orders fail', match: { amount: { min: 100000 } }, outcome: 'fail', after: 30 }] } },
      },
      success: { status: 200, description: 'The rules now in force.', schema: 'RulesView' },
    },
    {
      method: 'post',
      path: '/sandbox/v1/reset',
      operationId: 'resetAccount',
      tag: 'Sandbox: payment requests',
      summary: "Reset the key's account",
      description: "Deletes the account's payment requests and resets its clock. Rules, webhook endpoints and events stay.",
      auth: 'key',
      success: { status: 204, description: 'Done.' },
    },
  ];
}

function clockOperation(method: Method, path: string, operationId: string, summary: string): OperationSpec {
  return {
    method,
    path,
    operationId,
    tag: 'Sandbox: clock',
    summary,
    auth: 'key',
    success: { status: 200, description: "The account's clock.", schema: 'Clock', examples: { running: { now: '2026-03-14T15:09:26.000Z', frozen: false } } },
  };
}

const WEBHOOK_ENDPOINT_ID = 'The webhook endpoint id, `we_<identifier>`.';
const EVENT_ID = 'The event id, `evt_<identifier>`.';

function webhookOperations(): OperationSpec[] {
  const limit = { name: 'limit', in: 'query', required: false, description: 'At most this many items (the newest); all by default.', schema: { type: 'integer', minimum: 1 } };
  const idFilter = (name: string, description: string) => ({ name, in: 'query', required: false, description, schema: { type: 'string', minLength: 1, maxLength: 256 } });
  const unknownParameter = {
    invalid_request: {
      error: {
        code: 'invalid_request' as const,
        message: 'Invalid query: after is not a parameter here (known: type, paymentRequest, limit).',
        details: [{ field: 'after', code: 'unknown_parameter', message: 'after is not a parameter here (known: type, paymentRequest, limit)' }],
      },
    },
  };
  const tag = 'Sandbox: webhooks';
  return [
    {
      method: 'post',
      path: '/sandbox/v1/webhook-endpoints',
      operationId: 'createWebhookEndpoint',
      tag,
      summary: 'Register a webhook endpoint',
      description: 'Every change of a payment request of the account is then delivered to it, signed per Standard Webhooks with the endpoint\'s `secret` (see `webhooks`).',
      auth: 'key',
      body: { schema: 'CreateWebhookEndpoint', examples: { receiver: { url: endpointExample.url, events: endpointExample.events } } },
      success: { status: 201, description: 'Registered.', schema: 'WebhookEndpoint', examples: { endpoint: endpointExample }, headers: { Location: { $ref: '#/components/headers/Location' } } },
    },
    {
      method: 'get',
      path: '/sandbox/v1/webhook-endpoints',
      operationId: 'listWebhookEndpoints',
      tag,
      summary: "The account's webhook endpoints",
      description: 'Takes no query parameters: any is a 400 (`unknown_parameter`).',
      auth: 'key',
      success: { status: 200, description: 'The endpoints.', schema: 'WebhookEndpointList', examples: { one: { data: [endpointExample] } } },
      errors: ['invalid_request'],
    },
    {
      method: 'get',
      path: '/sandbox/v1/webhook-endpoints/{id}',
      operationId: 'getWebhookEndpoint',
      tag,
      summary: 'A webhook endpoint',
      auth: 'key',
      pathParameters: { id: WEBHOOK_ENDPOINT_ID },
      success: { status: 200, description: 'The endpoint.', schema: 'WebhookEndpoint', examples: { endpoint: endpointExample } },
      errors: ['webhook_endpoint_not_found'],
    },
    {
      method: 'delete',
      path: '/sandbox/v1/webhook-endpoints/{id}',
      operationId: 'deleteWebhookEndpoint',
      tag,
      summary: 'Remove a webhook endpoint',
      description: 'Its pending deliveries stop.',
      auth: 'key',
      pathParameters: { id: WEBHOOK_ENDPOINT_ID },
      success: { status: 204, description: 'Removed.' },
      errors: ['webhook_endpoint_not_found'],
    },
    {
      method: 'get',
      path: '/sandbox/v1/events',
      operationId: 'listEvents',
      tag,
      summary: "The account's events",
      description: 'Newest first; the sandbox keeps the newest 1,000 per account. A bad or unknown query parameter is a 400 naming it, never ignored.',
      auth: 'key',
      query: [
        { name: 'type', in: 'query', required: false, description: 'Only events of this type.', schema: { enum: [...EVENT_TYPES] } },
        idFilter('paymentRequest', "Only this payment request's events (its `pr_` id)."),
        limit,
      ],
      success: { status: 200, description: 'The events.', schema: 'WebhookEventList', examples: { one: { data: [completedEventExample] } } },
      errorExamples: unknownParameter,
    },
    {
      method: 'get',
      path: '/sandbox/v1/events/{id}',
      operationId: 'getEvent',
      tag,
      summary: 'An event',
      auth: 'key',
      pathParameters: { id: EVENT_ID },
      success: { status: 200, description: 'The event.', schema: 'WebhookEvent', examples: { completed: completedEventExample } },
      errors: ['event_not_found'],
    },
    {
      method: 'post',
      path: '/sandbox/v1/events/{id}/redeliver',
      operationId: 'redeliverEvent',
      tag,
      summary: 'Send an event again',
      description: "Sends the event again to the account's endpoints that take its type: one new delivery each.",
      auth: 'key',
      pathParameters: { id: EVENT_ID },
      success: {
        status: 202,
        description: 'Accepted: the new deliveries, `pending`.',
        schema: 'WebhookDeliveryList',
        examples: { one: { data: [{ ...deliveryExample, status: 'pending', responseStatus: null, attemptedAt: null, durationMs: null }] } },
      },
      errors: ['event_not_found'],
    },
    {
      method: 'get',
      path: '/sandbox/v1/webhook-deliveries',
      operationId: 'listWebhookDeliveries',
      tag,
      summary: 'Delivery attempts',
      description: 'Every delivery attempt of the account, newest first. A bad or unknown query parameter is a 400 naming it, never ignored.',
      auth: 'key',
      query: [idFilter('event', 'Only deliveries of this event (its `evt_` id).'), idFilter('endpoint', 'Only deliveries to this endpoint (its `we_` id).'), limit],
      success: { status: 200, description: 'The attempts.', schema: 'WebhookDeliveryList', examples: { one: { data: [deliveryExample] } } },
    },
  ];
}

function operation(spec: OperationSpec): JsonObject {
  const errors: ErrorCode[] = [];
  if (spec.body) errors.push('invalid_json', 'invalid_request');
  if (spec.query) errors.push('invalid_request');
  if (spec.auth !== 'none') errors.push('unauthorized');
  if (spec.auth === 'create' || spec.auth === 'read') errors.push('insufficient_permission');
  errors.push(...(spec.errors ?? []));
  if (spec.body) errors.push('payload_too_large', 'unsupported_media_type');

  const parameters: JsonObject[] = [
    ...Object.entries(spec.pathParameters ?? {}).map(([name, description]) => ({ name, in: 'path', required: true, description, schema: { type: 'string', minLength: 1 } })),
    ...(spec.query ?? []),
    ...(spec.parameters ?? []),
  ];
  const { success } = spec;
  const successResponse: JsonObject = {
    description: success.description,
    ...(success.headers ? { headers: success.headers } : {}),
    ...(success.schema
      ? { content: { 'application/json': { schema: schemaRef(success.schema), ...(success.examples ? { examples: exampleObjects(success.examples) } : {}) } } }
      : {}),
  };
  return {
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    ...(spec.auth === 'none' ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: schemaRef(spec.body.schema), ...(spec.body.examples ? { examples: exampleObjects(spec.body.examples) } : {}) } },
          },
        }
      : {}),
    responses: sortByStatus({
      [String(success.status)]: successResponse,
      ...spec.moreResponses,
      ...errorResponses(errors, spec.errorExamples),
    }),
  };
}

function exampleObjects(examples: Record<string, unknown>): JsonObject {
  return Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value: JSON.parse(JSON.stringify(value)) as JsonObject }]));
}

function sortByStatus(responses: Record<string, JsonObject>): JsonObject {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

// ---------------------------------------------------------------------------------------------
// Webhooks, headers, tags, the description

const EVENT_MEANINGS: Record<EventType, string> = {
  'payment_request.created': 'A payment request was created (`data.status` is `pending`).',
  'payment_request.completed': 'A payment request was paid (`data.status` is `completed`, `data.preimage` set).',
  'payment_request.failed': 'A payment request failed (`data.status` is `failed`).',
  'payment_request.expired':
    "A payment request expired (`data.status` is `expired`): sent when the account's clock passes `expiresAt`, within a second on a running clock, at once when the clock is advanced past it.",
};

function webhooks(): JsonObject {
  const signatureHeaders: JsonObject[] = [
    {
      name: 'webhook-id',
      in: 'header',
      required: true,
      description: 'The event id: the same on every retry and every duplicate. Deduplicate on it.',
      schema: { type: 'string', pattern: '^evt_\\S+$' },
    },
    {
      name: 'webhook-timestamp',
      in: 'header',
      required: true,
      description: 'Real Unix seconds of the attempt (not the account clock). Refuse stale ones, e.g. over 5 minutes off.',
      schema: { type: 'string', pattern: '^\\d+$' },
    },
    {
      name: 'webhook-signature',
      in: 'header',
      required: true,
      description:
        '`v1,<base64 HMAC-SHA256>` with the endpoint\'s secret (the base64 after `whsec_`, decoded) over `<webhook-id>.<webhook-timestamp>.<body>`, per the Standard Webhooks specification: any Standard Webhooks library verifies it.',
      schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
    },
  ];
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `${type.replace('payment_request.', 'paymentRequest_')}Webhook`.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase()),
          tags: ['Sandbox: webhooks'],
          summary: `${type}`,
          description: `${EVENT_MEANINGS[type]} POSTed to each webhook endpoint of the account that takes this type, signed per Standard Webhooks.`,
          security: [],
          parameters: signatureHeaders,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { allOf: [schemaRef('WebhookEvent'), { type: 'object', properties: { type: { const: type } } }] },
                examples: { [type]: { value: JSON.parse(JSON.stringify(eventExamples[type])) as JsonObject } },
              },
            },
          },
          responses: {
            '2XX': { description: 'Delivered: any 2xx within 10 seconds; the delivery is `succeeded`.' },
            default: {
              description:
                "Anything else, or no answer within 10 seconds: the attempt is retried after 5 s, 30 s, 2 min, 10 min, 1 h, 6 h and 24 h on the account's clock; after the last, the delivery is `failed`.",
            },
          },
        },
      },
    ]),
  );
}

const HEADERS: Record<string, JsonObject> = {
  Location: { description: 'The path of the created resource.', schema: { type: 'string' }, required: true },
  Allow: { description: 'The methods the path accepts.', schema: { type: 'string' }, required: true },
  'WWW-Authenticate': { description: '`Bearer realm="lnpr-sandbox"`.', schema: { type: 'string' }, required: true },
  ETag: { description: 'The version of the document.', schema: { type: 'string' }, required: true },
  'Cache-Control': { description: 'Revalidate before use (`no-cache`).', schema: { type: 'string' } },
};

function tags(settings: SandboxSettings): JsonObject[] {
  return [
    { name: 'Payment requests', description: 'The v1 API of the spec.' },
    { name: 'Server', description: 'Health and this document (no key needed).' },
    ...(settings.controls
      ? [
          { name: 'Sandbox: payment requests', description: 'Not part of v1: move payment requests on as a payer or the world would (off with `--no-controls`).' },
          { name: 'Sandbox: clock', description: "Not part of v1: each account's virtual clock." },
          { name: 'Sandbox: rules', description: 'Not part of v1: scripted outcomes.' },
          { name: 'Sandbox: webhooks', description: 'Not part of v1 (the spec says webhooks exist but shows no format): endpoints, events, deliveries.' },
          { name: 'Sandbox: pay page', description: 'Not part of v1: the API of the hosted pay page (`GET /pay/{id}`), which needs no key: the id is the secret.' },
        ]
      : []),
  ];
}

function infoDescription(settings: SandboxSettings): string {
  const lines = [
    'The payment-request API of the v1 spec (`/api/v1`), as the offline sandbox `lnpr-sandbox` serves it, generated from the same JSON Schemas it validates with. Every answer of the API conforms to this document; the web pages of the dashboard and the hosted pay page (HTML, from `lnpr serve`) and their live-update streams are not part of it.',
    '',
    '**Authentication.** `Authorization: Bearer <API_KEY>` on every call but `/healthz` and `/openapi.json`. The key is checked before the body: a bad key and a bad body get 401.',
    '',
    '**Errors.** Every 4xx/5xx has one JSON shape, `{"error": {"code", "message", "details"?}}` (schema `Error`); each response lists its codes (also in `x-lnpr-error-codes`). A path no operation has gets 404 `route_not_found`; a path with a method it does not list, 405 `method_not_allowed` with `Allow`; every GET also answers HEAD (no body). Bodies over the HTTP server\'s limit get 413, bodies not sent as JSON 415, an `Expect` header other than `100-continue` 417. These are under `x-lnpr-responses` too.',
    '',
    '**Open points.** Where the spec says "not shown", the sandbox picks a default and makes it a setting; the fields concerned say so. This server:',
    '',
    '| open point | this server | setting |',
    '| --- | --- | --- |',
    `| minimum amount (21 or 1) | ${formatNumber(settings.minAmount)} sats | \`minAmount\` (\`--min-amount\`) |`,
    `| maximum amount | ${formatNumber(settings.maxAmount)} sats | \`maxAmount\` |`,
    `| fee rounding | \`${settings.feeRounding}\` | \`feeRounding\` |`,
    `| \`feePercentage\` under 1,000 sats | \`${settings.feePercentageBelowThreshold}\` | \`feePercentageBelowThreshold\` |`,
    `| \`expiresIn\` bounds | ${formatNumber(settings.minExpiresIn)} to ${formatNumber(settings.maxExpiresIn)} s (default ${formatNumber(settings.defaultExpiresIn)}) | \`minExpiresIn\`, \`maxExpiresIn\`, \`defaultExpiresIn\` |`,
    `| \`metadata\` size | ${formatNumber(settings.maxMetadataBytes)} bytes as JSON, ${settings.maxMetadataDepth} levels deep | \`maxMetadataBytes\`, \`maxMetadataDepth\` |`,
    '',
    'The same values are under `x-lnpr-settings`.',
    '',
    settings.controls
      ? '**Sandbox.** The `/sandbox/v1` control API (not part of v1) moves payment requests on, drives each account\'s clock, sets behaviour rules and manages webhook endpoints; the events it delivers are under `webhooks`. Every control call acts on the key\'s own account only.'
      : '**Sandbox.** This server runs with `--no-controls`: it serves v1 only, so the control API and the webhooks are left out of this document.',
  ];
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------

/** Drops components nothing refers to (e.g. the control API's with the controls off). */
function withoutUnusedComponents(document: JsonObject): JsonObject {
  const components = document.components as Record<string, Record<string, JsonObject>>;
  const { components: _components, ...rest } = document;
  const used = new Set<string>();
  const pending = [...collectRefs(rest)];
  // Security schemes are referred to by name, not by `$ref`.
  used.add('#/components/securitySchemes/bearerAuth');
  while (pending.length > 0) {
    const ref = pending.pop()!;
    if (used.has(ref)) continue;
    used.add(ref);
    const [, , kind, name] = ref.split('/');
    const target = components[kind!]?.[name!];
    if (target === undefined) throw new Error(`the OpenAPI document refers to ${ref}, which does not exist`);
    pending.push(...collectRefs(target));
  }
  for (const [kind, entries] of Object.entries(components)) {
    for (const name of Object.keys(entries)) if (!used.has(`#/components/${kind}/${name}`)) delete entries[name];
  }
  return document;
}
