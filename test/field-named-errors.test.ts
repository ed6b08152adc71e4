/**
 * Every body and query of every route, v1 and control alike, gets field-named 400s: walked from
 * the route table itself, so a route added tomorrow is covered without a line here. For each
 * declared field a value of the wrong JSON type, for each required field its absence, for each
 * query parameter a bad value and a stranger beside it: the answer names the field by its path,
 * uses a catalogued detail code, and says it in words that start with the field's name — never a
 * raw validator sentence.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DETAIL_CODES } from '../src/core/errors/detail-codes.js';
import type { AnyRoute } from '../src/core/pipeline/route.js';
import { createSandbox } from '../src/sandbox.js';

const sandbox = createSandbox();
afterAll(() => sandbox.close());

/** A key that may call every route (create and read on the custodial account), and the one for the accounts API. */
const AUTHORIZATION = 'Bearer sk_test_custodial';
const ADMIN_AUTHORIZATION = 'Bearer sk_test_admin';
const RAW_VALIDATOR_WORDS = /must NOT|allowed values|must match|must be equal|should be|additional properties/;

type Schema = {
  type?: string | string[];
  enum?: readonly unknown[];
  properties?: Record<string, Schema>;
  required?: readonly string[];
  additionalProperties?: boolean;
  items?: Schema;
  oneOf?: Schema[];
};

/** Every field of a body schema with its dotted path, nested objects and list items included. */
function fieldsOf(schema: Schema, prefix = ''): Array<[string, Schema, Schema]> {
  return Object.entries(schema.properties ?? {}).flatMap(([name, property]): Array<[string, Schema, Schema]> => {
    const path = `${prefix}${name}`;
    return [
      [path, property, schema],
      ...(property.properties ? fieldsOf(property, `${path}.`) : []),
      ...(property.items?.properties ? fieldsOf(property.items, `${path}.0.`) : []),
    ];
  });
}

/** `value` put at the dotted `path` of `body` (list items as one-item lists). */
function withValueAt(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  if (rest.length === 0) return { ...body, [head!]: value };
  if (rest[0] === '0') return { ...body, [head!]: [withValueAt({ outcome: 'none' }, rest.slice(1).join('.'), value)] };
  return { ...body, [head!]: withValueAt((body[head!] as Record<string, unknown>) ?? {}, rest.join('.'), value) };
}

const bodyRoutes = sandbox.routes.filter((route) => route.body !== undefined);
const queryRoutes = sandbox.routes.filter((route) => route.query !== undefined);

async function send(route: AnyRoute<unknown>, body: unknown, query = '') {
  const url = `${route.path.replace(/:(\w+)/g, 'pr_doesnotexist')}${query}`;
  const response = await sandbox.handle({
    method: route.method,
    url,
    headers: { authorization: route.access === 'accounts' ? ADMIN_AUTHORIZATION : AUTHORIZATION, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: JSON.parse(response.body || '{}') as { error?: { code: string; message: string; details?: Array<{ field: string; code: string; message: string }> } } };
}

/** A value of another JSON type than `schema` takes. */
function wrongValue(schema: Schema): unknown {
  if (schema.enum) return 12_345;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('string')) return 12_345;
  if (types.includes('integer') || types.includes('number')) return 'twelve';
  if (types.includes('boolean')) return 'yes';
  if (types.includes('array')) return 'a list';
  if (types.includes('object')) return 7;
  return Symbol.for('untyped');
}

/** A body that passes: each required field with a value of its type (the routes' own checks may still refuse it). */
function minimalBody(schema: Schema): Record<string, unknown> {
  const samples: Record<string, unknown> = { string: 'x', integer: 1, number: 1, boolean: true, array: [], object: {} };
  return Object.fromEntries((schema.required ?? []).map((name) => {
    const property = schema.properties?.[name] ?? {};
    const type = Array.isArray(property.type) ? property.type[0] : property.type;
    return [name, property.enum ? property.enum[0] : samples[type ?? 'string']];
  }));
}

function expectFieldNamed(answer: Awaited<ReturnType<typeof send>>, field: string): void {
  expect(answer.status).toBe(400);
  expect(answer.body.error?.code).toBe('invalid_request');
  const detail = answer.body.error?.details?.find((d) => d.field === field);
  expect(detail, `no detail names ${field}: ${JSON.stringify(answer.body)}`).toBeDefined();
  expect(DETAIL_CODES).toContain(detail!.code);
  expect(detail!.message.startsWith(field)).toBe(true);
  expect(answer.body.error!.message).not.toMatch(RAW_VALIDATOR_WORDS);
  for (const d of answer.body.error!.details!) expect(DETAIL_CODES).toContain(d.code);
}

describe('field-named 400s on every route with a body', () => {
  it('covers the routes that take bodies (v1, control, webhooks)', () => {
    expect(bodyRoutes.map((route) => route.name)).toEqual(expect.arrayContaining(['createPaymentRequest', 'payInvoice', 'advanceClock', 'putRules', 'createWebhookEndpoint']));
  });

  it.each(bodyRoutes.map((route) => [route.name, route] as const))('%s: each field of the wrong type is named, at any depth', async (_name, route) => {
    const schema = route.body!.schema as Schema;
    const fields = fieldsOf(schema);
    expect(fields.length).toBeGreaterThan(0);
    for (const [field, property] of fields) {
      if (property.oneOf) continue; // several types are right: the next test words it
      expectFieldNamed(await send(route, withValueAt(minimalBody(schema), field, wrongValue(property))), field);
    }
  });

  it.each(bodyRoutes.map((route) => [route.name, route] as const))('%s: a value outside a list is named, with the list', async (_name, route) => {
    const schema = route.body!.schema as Schema;
    for (const [field, property] of fieldsOf(schema)) {
      const list = property.enum ?? property.items?.enum;
      if (list === undefined) continue;
      const path = property.enum ? field : `${field}.0`;
      const answer = await send(route, withValueAt(minimalBody(schema), field, property.enum ? 'no_such_value' : ['no_such_value']));
      expectFieldNamed(answer, path);
      const detail = answer.body.error!.details!.find((d) => d.field === path)!;
      expect(detail.code).toBe('invalid_value');
      for (const allowed of list) expect(detail.message).toContain(String(allowed));
    }
  });

  it.each(bodyRoutes.map((route) => [route.name, route] as const))('%s: an unknown field is named with the known ones, where the schema closes', async (_name, route) => {
    const schema = route.body!.schema as Schema;
    const closed = [['', schema] as const, ...fieldsOf(schema).filter(([, property]) => property.additionalProperties === false && property.properties).map(([path, property]) => [`${path}.`, property] as const)]
      .filter(([, object]) => object.additionalProperties === false && !object.items);
    for (const [prefix, object] of closed) {
      const field = `${prefix}notAField`;
      const answer = await send(route, withValueAt(minimalBody(schema), field, 1));
      expectFieldNamed(answer, field);
      const detail = answer.body.error!.details!.find((d) => d.field === field)!;
      expect(detail.code).toBe('unknown_field');
      for (const known of Object.keys(object.properties ?? {})) expect(detail.message).toContain(known);
    }
  });

  it.each(bodyRoutes.filter((route) => ((route.body!.schema as Schema).required ?? []).length > 0).map((route) => [route.name, route] as const))(
    '%s: each missing required field is named',
    async (_name, route) => {
      const schema = route.body!.schema as Schema;
      for (const field of schema.required ?? []) {
        const { [field]: _missing, ...rest } = minimalBody(schema);
        const answer = await send(route, rest);
        expectFieldNamed(answer, field);
        expect(answer.body.error!.details!.find((d) => d.field === field)!.code).toBe('missing_field');
      }
    },
  );

  it.each(bodyRoutes.map((route) => [route.name, route] as const))('%s: a body that is no JSON object is named as the body', async (_name, route) => {
    expectFieldNamed(await send(route, [1, 2]), 'body');
  });
});

describe('field-named 400s on every route with a query', () => {
  it.each(queryRoutes.map((route) => [route.name, route] as const))('%s: a stranger and each bad value are named', async (_name, route) => {
    const answer = await send(route, undefined, '?notAParameter=1');
    expectFieldNamed(answer, 'notAParameter');
    expect(answer.body.error!.details![0]!.code).toBe('unknown_parameter');
    for (const [name, parameter] of Object.entries(route.query!.schema.properties)) {
      const bad = 'type' in parameter && parameter.type === 'integer' ? '0.5' : 'enum' in parameter ? 'no_such_value' : '';
      expectFieldNamed(await send(route, undefined, `?${name}=${bad}`), name);
    }
  });
});

/**
 * A route's own checks of its fields' form (what its schema cannot state) run with the schema, so
 * one answer names every wrong field: a body with a field the route's check refuses and an unknown
 * field beside it gets both. One case per route that declares a check; a route that declares one
 * tomorrow fails the first test until it has a case here.
 */
describe('one answer names every wrong field, the route checks with the schema', () => {
  /** A body the route's check refuses at `field`, and another wrong field the schema refuses (`also`). */
  const CHECKED_BODIES: Record<string, { body: Record<string, unknown>; field: string; also: Record<string, unknown>; alsoField: string }> = {
    createPaymentRequest: {
      body: { amount: 1000, description: 'lone \uD800 surrogate', destinationWallet: 'merchant@example.com' },
      field: 'description',
      also: { amount: 'twelve' },
      alsoField: 'amount',
    },
    putRules: {
      body: { rules: [{ match: { amount: { min: 5, max: 1 } }, outcome: 'none' }] },
      field: 'rules.0.match.amount',
      also: { rules: [{ match: { amount: { min: 5, max: 1 } }, outcome: 'none' }, { outcome: 'no_such_outcome' }] },
      alsoField: 'rules.1.outcome',
    },
    putFaults: { body: { faults: [{ fault: { status: 500, latencyMs: 10 } }] }, field: 'faults.0.fault', also: { notAField: 1 }, alsoField: 'notAField' },
    createWebhookEndpoint: { body: { url: 'ftp://example.com/hook' }, field: 'url', also: { notAField: 1 }, alsoField: 'notAField' },
  };
  const CHECKED_QUERIES: Record<string, { query: string; field: string }> = {
    listRequests: { query: 'since=last%20Tuesday', field: 'since' },
  };

  it('has a case for every route whose body or query declares a check', () => {
    expect(bodyRoutes.filter((route) => route.body!.check !== undefined).map((route) => route.name).sort()).toEqual(Object.keys(CHECKED_BODIES).sort());
    expect(queryRoutes.filter((route) => route.query!.check !== undefined).map((route) => route.name).sort()).toEqual(Object.keys(CHECKED_QUERIES).sort());
  });

  it.each(Object.entries(CHECKED_BODIES))('%s: the checked field and one the schema refuses, in one answer', async (name, { body, field, also, alsoField }) => {
    const route = bodyRoutes.find((candidate) => candidate.name === name)!;
    expectFieldNamed(await send(route, body), field);
    const answer = await send(route, { ...body, ...also });
    expectFieldNamed(answer, field);
    expectFieldNamed(answer, alsoField);
  });

  it.each(Object.entries(CHECKED_QUERIES))('%s: the checked parameter and an unknown one, in one answer', async (name, { query, field }) => {
    const route = queryRoutes.find((candidate) => candidate.name === name)!;
    const answer = await send(route, undefined, `?${query}&notAParameter=1`);
    expectFieldNamed(answer, field);
    expectFieldNamed(answer, 'notAParameter');
  });

  it('POST /sandbox/v1/webhook-endpoints: an unknown field, an ftp URL, an unknown event and an unknown fault are four details', async () => {
    const route = bodyRoutes.find((candidate) => candidate.name === 'createWebhookEndpoint')!;
    const answer = await send(route, { url: 'ftp://example.com/hook', events: ['payment_request.refunded'], faults: { notAFault: true }, notAField: 1 });
    expect(answer.status).toBe(400);
    const details = answer.body.error!.details!;
    expect(details.map((detail) => [detail.field, detail.code]).sort()).toEqual(
      [['events.0', 'invalid_value'], ['faults.notAFault', 'unknown_field'], ['notAField', 'unknown_field'], ['url', 'unsupported_scheme']].sort(),
    );
    expect(answer.body.error!.message).toContain('url must use http or https, not ftp');
  });

  it('POST /sandbox/v1/webhook-endpoints: a URL that is no URL, and a host the policy refuses, are named with the rest', async () => {
    const route = bodyRoutes.find((candidate) => candidate.name === 'createWebhookEndpoint')!;
    const notUrl = await send(route, { url: 'not a url', events: 'all' });
    expect(notUrl.body.error!.details!.map((detail) => [detail.field, detail.code]).sort()).toEqual([['events', 'invalid_type'], ['url', 'invalid_url']]);
    // A sandbox others can reach refuses private addresses: said in the same answer.
    const guarded = createSandbox({ settings: { webhookAllowedHosts: { allowedOrigins: [], allowedHosts: [] } } });
    try {
      const answer = await guarded.handle({
        method: 'POST',
        url: '/sandbox/v1/webhook-endpoints',
        headers: { authorization: AUTHORIZATION, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'http://10.0.0.7/hook', notAField: 1 }),
      });
      const details = (JSON.parse(answer.body) as { error: { details: Array<{ field: string; code: string }> } }).error.details;
      expect(details.map((detail) => [detail.field, detail.code]).sort()).toEqual([['notAField', 'unknown_field'], ['url', 'host_not_allowed']]);
    } finally {
      guarded.close();
    }
  });
});
