/**
 * The OpenAPI document: valid OpenAPI 3.1 (checked by an independent validator) for several
 * settings, its schemas the very ones of src/schemas, every example valid against its schema,
 * every error code described, and what the controls switch leaves out.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { decodeIndependently } from '../../test/support/bolt11-package.js';
import { OpenApiResponses } from '../../test/support/openapi-responses.js';
import { ERROR_CATALOGUE } from '../core/errors/errors.js';
import { DEFAULT_SETTINGS, resolveSettings, type SandboxSettings } from '../core/settings.js';
import { createPaymentRequestBodySchema } from '../schemas/create-payment-request.js';
import { errorBodySchema } from '../schemas/error.js';
import { paymentRequestSchema, paymentRequestStatusSchema } from '../schemas/payment-request.js';
import { ruleSchema, rulesSchema } from '../schemas/rules.js';
import { createEndpointBodySchema, webhookDeliverySchema, webhookEndpointSchema, webhookEventSchema } from '../schemas/webhooks.js';
import { advanceClockBodySchema, payBodySchema } from '../schemas/control.js';
import { RETRY_DELAYS_SECONDS } from '../core/due/retry-schedule.js';
import { DETAIL_CODE_CATALOGUE } from '../core/errors/detail-codes.js';
import type { AnyRoute } from '../core/pipeline/route.js';
import { routeTable } from '../core/routes/route-table.js';
import { ATTEMPT_TIMEOUT_MS } from '../core/webhooks/delivery-dispatcher.js';
import { KEPT_EVENTS_PER_ACCOUNT } from '../core/events/event-log.js';
import { buildOpenApiDocument } from './document.js';
import { formatNumber, formatSeconds } from './facts.js';
import { openApiDocumentOf, openApiRoute } from './route.js';
import { ERROR_CONDITIONS } from './error-responses.js';
import { completedExample, nwcExample, pendingExample } from './examples.js';
import type { JsonObject } from './schema-tools.js';

type Json = Record<string, any>;

const SETTINGS: Array<[string, SandboxSettings]> = [
  ['the defaults', resolveSettings()],
  ['--no-controls', resolveSettings({ controls: false })],
  ['other open-point choices', resolveSettings({ minAmount: 1, feeRounding: 'ceil', feePercentageBelowThreshold: 'effective', maxExpiresIn: 86_400, maxMetadataBytes: 1024 })],
];

describe('the document is valid OpenAPI 3.1', () => {
  it.each(SETTINGS)('with %s', async (_name, settings) => {
    const document = openApiDocumentOf(settings);
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('with an absolute server URL (as lnpr openapi prints it)', async () => {
    const document = openApiDocumentOf(DEFAULT_SETTINGS, { serverUrl: 'http://127.0.0.1:8787' });
    expect((await new Validator().validate(document)).valid).toBe(true);
    expect(document.servers).toEqual([{ url: 'http://127.0.0.1:8787', description: 'The sandbox' }]);
  });

  it('is plain JSON: serializing and parsing it changes nothing, and two builds are equal', () => {
    const document = openApiDocumentOf();
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);
    expect(openApiDocumentOf()).toEqual(document);
  });
});

/** A component with its annotations removed and its `$ref`s replaced by what they name, as src/schemas has it (without `$id`). */
function unannotated(schema: unknown, components: Json): unknown {
  if (Array.isArray(schema)) return schema.map((item) => unannotated(item, components));
  if (schema === null || typeof schema !== 'object') return schema;
  const object = schema as Json;
  if (typeof object.$ref === 'string') return unannotated(components[object.$ref.split('/').pop()!], components);
  return Object.fromEntries(
    Object.entries(object)
      .filter(([key]) => key !== 'description' && key !== 'examples')
      .map(([key, value]) => [
        key,
        // `properties` maps names (such as `description`) to schemas: keep every name.
        key === 'properties' ? Object.fromEntries(Object.entries(value as Json).map(([name, property]) => [name, unannotated(property, components)])) : unannotated(value, components),
      ]),
  );
}

function withoutIds(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === '$id' ? undefined : value)));
}

describe('components.schemas are the schemas of src/schemas', () => {
  const document = openApiDocumentOf();
  const components = (document.components as Json).schemas as Json;

  it.each([
    ['PaymentRequest', paymentRequestSchema],
    ['PaymentRequestStatus', paymentRequestStatusSchema],
    ['CreatePaymentRequest', createPaymentRequestBodySchema(DEFAULT_SETTINGS)],
    ['PayBody', payBodySchema],
    ['AdvanceClockBody', advanceClockBodySchema],
    ['Rule', ruleSchema],
    ['Rules', rulesSchema],
    ['CreateWebhookEndpoint', createEndpointBodySchema],
    ['WebhookEndpoint', webhookEndpointSchema],
    ['WebhookEvent', webhookEventSchema],
    ['WebhookDelivery', webhookDeliverySchema],
  ] as const)('%s', (name, source) => {
    expect(unannotated(components[name], components)).toEqual(withoutIds(source));
  });

  it('Error, with the catalogue\'s codes as the enum of error.code', () => {
    const error = unannotated(components.Error, components) as Json;
    expect(error.properties.error.properties.code.enum).toEqual(Object.keys(ERROR_CATALOGUE));
    delete error.properties.error.properties.code.enum;
    expect(error).toEqual(withoutIds(errorBodySchema));
  });

  it('shared sub-schemas are $refs: the payment request in an event, the faults, the rules', () => {
    expect(components.WebhookEvent.properties.data.$ref).toBe('#/components/schemas/PaymentRequest');
    expect(components.WebhookEndpoint.properties.faults).toEqual({ $ref: '#/components/schemas/WebhookEndpointFaults' });
    expect(components.Rules.items).toEqual({ $ref: '#/components/schemas/Rule' });
  });

  it('no $id is left anywhere (it would move the base URI of the $refs)', () => {
    expect(JSON.stringify(document)).not.toContain('"$id"');
  });

  it('the create body follows the settings, and says which limits are open points', () => {
    const create = (settings: Partial<SandboxSettings>) =>
      ((openApiDocumentOf(resolveSettings(settings)).components as Json).schemas as Json).CreatePaymentRequest.properties as Json;
    expect(create({ minAmount: 1 }).amount.minimum).toBe(1);
    expect(create({}).amount.minimum).toBe(21);
    expect(create({}).amount.description).toMatch(/21 sats in one statement, 1 sat in another/);
    expect(create({ maxExpiresIn: 600, defaultExpiresIn: 600 }).expiresIn).toMatchObject({ maximum: 600, description: expect.stringMatching(/not shown in the spec; this sandbox accepts 1 to 600/) });
    expect(create({ maxMetadataBytes: 1024 }).metadata.description).toMatch(/1,024 bytes as JSON/);
    const fees = (settings: Partial<SandboxSettings>) => ((openApiDocumentOf(resolveSettings(settings)).components as Json).schemas as Json).PaymentRequest.properties as Json;
    expect(fees({ feeRounding: 'ceil' }).feeAmount.description).toMatch(/rounding open \("not shown"\); this sandbox rounds up/);
    expect(fees({ feePercentageBelowThreshold: 'effective' }).feePercentage.description).toMatch(/effective percentage/);
  });
});

describe('errors', () => {
  it('every catalogue code is described', () => {
    expect(Object.keys(ERROR_CATALOGUE).filter((code) => ERROR_CONDITIONS[code] === undefined)).toEqual([]);
  });

  it('each error response lists codes of its own status, and the 401s carry WWW-Authenticate', () => {
    const document = openApiDocumentOf();
    for (const [path, item] of Object.entries(document.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        for (const [status, response] of Object.entries((operation as Json).responses as Json)) {
          const codes = (response as Json)['x-lnpr-error-codes'] as Array<keyof typeof ERROR_CATALOGUE> | undefined;
          if (Number(status) >= 400) expect(codes, `${method} ${path} ${status}`).toBeDefined();
          for (const code of codes ?? []) expect(ERROR_CATALOGUE[code].status, `${method} ${path} ${code}`).toBe(Number(status));
          if (status === '401') expect((response as Json).headers['WWW-Authenticate']).toBeDefined();
        }
      }
    }
  });

  it('every body-taking operation documents 400, 413 and 415; every keyed one 401', () => {
    const document = openApiDocumentOf();
    for (const [path, item] of Object.entries(document.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json) as Array<[string, Json]>) {
        const statuses = Object.keys(operation.responses);
        if (operation.requestBody) expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['400', '413', '415']));
        if (operation.security === undefined) expect(statuses, `${method} ${path}`).toContain('401');
      }
    }
  });
});

describe('examples', () => {
  /** Every example in the document with the schema it illustrates. */
  function examplesOf(document: Json): Array<{ where: string; schema: Json; value: unknown }> {
    const found: Array<{ where: string; schema: Json; value: unknown }> = [];
    const resolve = (object: Json): Json =>
      typeof object.$ref === 'string' ? resolve(object.$ref.slice(2).split('/').reduce((node: Json, part: string) => node[part], document)) : object;
    const visitContent = (where: string, content: Json | undefined) => {
      for (const [type, media] of Object.entries(content ?? {}) as Array<[string, Json]>) {
        for (const [name, example] of Object.entries((media.examples ?? {}) as Json)) {
          found.push({ where: `${where} ${type} ${name}`, schema: media.schema, value: resolve(example as Json).value });
        }
      }
    };
    const visitOperation = (where: string, operation: Json) => {
      visitContent(`${where} request`, operation.requestBody?.content);
      for (const [status, response] of Object.entries(operation.responses as Json)) visitContent(`${where} ${status}`, resolve(response as Json).content);
    };
    for (const [path, item] of Object.entries(document.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) visitOperation(`${method} ${path}`, operation as Json);
    }
    for (const [type, item] of Object.entries((document.webhooks ?? {}) as Json)) visitOperation(`webhook ${type}`, (item as Json).post);
    for (const [name, schema] of Object.entries(document.components.schemas as Json)) {
      for (const [index, value] of ((schema as Json).examples ?? []).entries()) {
        found.push({ where: `components.schemas.${name}.examples[${index}]`, schema: { $ref: `#/components/schemas/${name}` }, value });
      }
    }
    return found;
  }

  it('each validates against its schema', () => {
    const document = openApiDocumentOf();
    const responses = new OpenApiResponses(document);
    const examples = examplesOf(document);
    expect(examples.length).toBeGreaterThan(60);
    const problems = examples.flatMap(({ where, schema, value }) => responses.validate(schema, value).map((error) => `${where}: ${error}`));
    expect(problems).toEqual([]);
  });

  it('the payment requests are real: their invoices decode to their amount and hash, and the preimage hashes to it', () => {
    for (const example of [pendingExample, nwcExample]) {
      const decoded = decodeIndependently(example.invoice);
      expect(decoded.satoshis).toBe(example.amount);
      expect(decoded.paymentHash).toBe(example.paymentHash);
      expect(decoded.timestamp * 1000).toBe(Date.parse(example.createdAt));
      expect((decoded.timestamp + decoded.expireTime) * 1000).toBe(Date.parse(example.expiresAt));
    }
    expect(bytesToHex(sha256(hexToBytes(completedExample.preimage!)))).toBe(completedExample.paymentHash);
  });
});

describe('what the document covers', () => {
  const operationsOf = (document: JsonObject) =>
    Object.entries(document.paths as Json).flatMap(([path, item]) => Object.keys(item as Json).map((method) => `${method.toUpperCase()} ${path}`));

  it('with the controls on: v1, health, the document, the control API and the four webhook events', () => {
    const document = openApiDocumentOf();
    const operations = operationsOf(document);
    expect(operations).toEqual(expect.arrayContaining(['POST /api/v1/payment-requests', 'GET /sandbox/v1/clock', 'POST /sandbox/v1/events/{id}/redeliver']));
    expect(Object.keys(document.webhooks as Json)).toEqual(['payment_request.created', 'payment_request.completed', 'payment_request.failed', 'payment_request.expired']);
  });

  it('with --no-controls: no /sandbox paths, no webhooks, no control components, and it says so', () => {
    const document = openApiDocumentOf(resolveSettings({ controls: false }));
    expect(operationsOf(document).sort()).toEqual([
      'GET /api/v1/payment-requests/{id}',
      'GET /api/v1/payment-requests/{id}/status',
      'GET /healthz',
      'GET /openapi.json',
      'POST /api/v1/payment-requests',
    ]);
    expect(document.webhooks).toBeUndefined();
    expect(Object.keys((document.components as Json).schemas).sort()).toEqual(['CreatePaymentRequest', 'Error', 'Health', 'OpenApiDocument', 'PaymentRequest', 'PaymentRequestStatus']);
    expect((document.info as Json).description).toMatch(/--no-controls/);
  });

  it('the open points are stated where they apply, and their values under x-lnpr-settings', () => {
    const document = openApiDocumentOf(resolveSettings({ minAmount: 1 }));
    expect(document['x-lnpr-settings']).toMatchObject({ minAmount: 1, feeRounding: 'round', maxMetadataBytes: 16_384 });
    expect((document.info as Json).description).toMatch(/\| minimum amount \(21 or 1\) \| 1 sats/);
  });
});

describe('the operations are the route declarations: a route and its prose cannot drift apart', () => {
  const routes = () => [...routeTable(DEFAULT_SETTINGS), openApiRoute(DEFAULT_SETTINGS)];
  const build = (table: ReturnType<typeof routes>, settings: SandboxSettings = DEFAULT_SETTINGS) => buildOpenApiDocument(table, settings);
  const replaced = (name: string, change: (route: AnyRoute<unknown>) => AnyRoute<unknown>) => routes().map((route) => (route.name === name ? change(route) : route));

  it('a route without prose throws, and so does prose without a route', () => {
    expect(() => build(replaced('getClock', (route) => ({ ...route, name: 'getClockTwice' })))).toThrow(/getClockTwice .* has no prose/);
    expect(() => build(routes().filter(({ name }) => name !== 'getClock'))).toThrow(/prose describes operations no route has: getClock/);
  });

  it('a schema that is no component throws: a new schema cannot go undocumented', () => {
    expect(() => build(replaced('getClock', (route) => ({ ...route, answer: { status: 200, schema: { type: 'object' } } })))).toThrow(/getClock .*answer schema is no component/);
    expect(() => build(replaced('payInvoice', (route) => ({ ...route, body: { ...route.body!, schema: { ...payBodySchema } } })))).not.toThrow();
    expect(() => build(replaced('payInvoice', (route) => ({ ...route, body: { ...route.body!, schema: { type: 'object' } } })))).toThrow(/payInvoice .*body schema is no component/);
  });

  it('prose for what the route does not have throws', () => {
    expect(() => build(replaced('getPaymentRequest', (route) => ({ ...route, path: '/api/v1/payment-requests/:key' })))).toThrow(/path parameters it does not have: id/);
    expect(() => build(replaced('listEvents', (route) => ({ ...route, query: undefined })))).toThrow(/query parameters it does not take: type, paymentRequest, limit/);
    expect(() => build(replaced('payInvoice', (route) => ({ ...route, errors: ['invoice_not_found'] })))).not.toThrow();
    expect(() => build(replaced('completePaymentRequest', (route) => ({ ...route, errors: ['payment_request_not_found'] })))).toThrow(/examples of codes it does not answer with: invalid_transition/);
    expect(() => build(replaced('getClock', (route) => ({ ...route, answer: { status: 204 } })))).toThrow(/answer examples, and its answer has no body/);
  });

  it('each operation takes its method, path, id, security, parameters, body and answer from its route', () => {
    const operation = (build(routes()).paths as Json)['/sandbox/v1/events']!.get as Json;
    expect(operation.operationId).toBe('listEvents');
    expect(operation.security).toBeUndefined();
    expect(operation.parameters.map(({ name, schema }: Json) => [name, schema])).toEqual([
      ['type', { enum: ['payment_request.created', 'payment_request.completed', 'payment_request.failed', 'payment_request.expired'] }],
      ['paymentRequest', { type: 'string', minLength: 1, maxLength: 256 }],
      ['limit', { type: 'integer', minimum: 1, maximum: 1_000 }],
    ]);
    expect(operation.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WebhookEventList' });
    const payPage = (build(routes()).paths as Json)['/sandbox/v1/pay-page/{id}']!.get as Json;
    expect([payPage.security, payPage.parameters[0].in, Object.keys(payPage.responses)]).toEqual([[], 'path', ['200', '404']]);
  });
});

describe('facts in the prose are the engine\'s constants', () => {
  it('the retry schedule, the attempt timeout and the kept events', () => {
    const document = openApiDocumentOf() as Json;
    const delivery = document.components.schemas.WebhookDelivery.properties;
    const delays = RETRY_DELAYS_SECONDS.map(formatSeconds);
    expect(delivery.attempt.description).toContain(`up to ${RETRY_DELAYS_SECONDS.length + 1} (${RETRY_DELAYS_SECONDS.length} retries: ${delays.join(', ')} on`);
    expect(delivery.status.description).toContain(`2xx within ${ATTEMPT_TIMEOUT_MS / 1000} s`);
    expect(document.webhooks['payment_request.completed'].post.responses.default.description).toContain(`retried after ${delays.slice(0, -1).join(', ')} and ${delays.at(-1)} on`);
    expect(document.paths['/sandbox/v1/events'].get.description).toContain(`keeps the newest ${formatNumber(KEPT_EVENTS_PER_ACCOUNT)} per account`);
    expect(ERROR_CONDITIONS.event_not_found).toContain(`newest ${formatNumber(KEPT_EVENTS_PER_ACCOUNT)} per account`);
  });

  it('spans of time in the largest unit that divides them', () => {
    expect([5, 30, 120, 600, 3_600, 21_600, 86_400, 90].map(formatSeconds)).toEqual(['5 s', '30 s', '2 min', '10 min', '1 h', '6 h', '24 h', '90 s']);
  });

  it('the Error schema lists every detail code with what it means', () => {
    const description = (openApiDocumentOf().components as Json).schemas.Error.properties.error.properties.details.items.properties.code.description as string;
    for (const [code, meaning] of Object.entries(DETAIL_CODE_CATALOGUE)) expect(description).toContain(`\`${code}\`: ${meaning}`);
  });
});
