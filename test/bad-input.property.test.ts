/**
 * Hostile input through the real server: fast-check throws random methods, paths, headers, content
 * types and bodies at every endpoint, then deterministic edge cases (50,000 levels of nesting,
 * bodies over the limit, duplicate keys, a BOM, `__proto__` in metadata, overlong ids and keys,
 * 1e308 and 2^53+2). Never a 5xx, always the JSON error shape, the server stays up, and the records
 * created before all this read back byte for byte as they were.
 *
 * `FC_SEED=<n>` replays a run; `FC_NUM_RUNS=<n>` changes how many cases each property tries.
 */
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, type ErrorCode } from '../src/core/errors/errors.js';
import { MAX_BODY_DEPTH } from '../src/core/settings.js';
import { errorBodySchema } from '../src/schemas/error.js';
import { paymentRequestSchema, paymentRequestStatusSchema } from '../src/schemas/payment-request.js';
import {
  deepMetadataText,
  deepText,
  DANGEROUS_KEYS,
  headerValue,
  jsonDepth,
  jsonKey,
  jsonNumberToken,
  jsonObjectText,
  jsonText,
  percentEncode,
  percentEncodeAll,
} from './support/hostile-input.js';
import { rawRequest, socketRequest, type RawResponse } from './support/raw-http.js';
import { createBody, KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

const SEED = process.env.FC_SEED !== undefined && process.env.FC_SEED !== '' ? Number(process.env.FC_SEED) : undefined;
const NUM_RUNS_OVERRIDE = process.env.FC_NUM_RUNS !== undefined && process.env.FC_NUM_RUNS !== '' ? Number(process.env.FC_NUM_RUNS) : undefined;
/** fast-check parameters: the seed from FC_SEED if set (fast-check prints the seed of any failure). */
const runs = <T,>(numRuns: number): fc.Parameters<T> => ({
  numRuns: NUM_RUNS_OVERRIDE ?? numRuns,
  ...(SEED !== undefined ? { seed: SEED } : {}),
});

/** Room for FC_NUM_RUNS far above the defaults (which take a few seconds). */
const PROPERTY_TIMEOUT_MS = 300_000;

const ajv = new Ajv({ strict: false });
const validErrorBody = ajv.compile(errorBodySchema);
const validPaymentRequest = ajv.compile(paymentRequestSchema);
const validStatusBody = ajv.compile(paymentRequestStatusSchema);

const COLLECTION = '/api/v1/payment-requests';
const JSON_CONTENT_TYPE = /^application\/json(;|$)/;
const SMALL_BODY_LIMIT = 8 * 1024;
const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Errors the engine saw as bugs (they become 500 `internal_error`); must stay empty. */
const unexpectedErrors: unknown[] = [];
const onUnexpectedError = (error: unknown) => unexpectedErrors.push(error);

/** Default limits (1 MiB), frozen clock so reads are byte-stable. */
let server: RunningServer;
/** An 8 KiB body limit, so over-limit bodies are cheap to send many times. */
let small: RunningServer;

interface EarlierRecord {
  server: 'default' | 'small';
  id: string;
  key: string;
  /** The exact text of GET /{id} and GET /{id}/status when created. */
  read: string;
  status: string;
}
const earlier: EarlierRecord[] = [];

const prototypeBaseline = snapshotPrototypes();

beforeAll(async () => {
  server = await startServer({ clock: 'frozen', onUnexpectedError });
  small = await startServer({ clock: 'frozen', onUnexpectedError }, { bodyLimit: SMALL_BODY_LIMIT });

  const bodies: Array<[RunningServer, 'default' | 'small', string, string]> = [
    [server, 'default', KEYS.custodial, JSON.stringify(createBody({ metadata: { orderId: 'A-1', nested: { list: [1, 2.5, { deep: true }], none: null } } }))],
    [
      server,
      'default',
      KEYS.custodial,
      '{"amount":2100000000000000,"description":"😀 the most","destinationWallet":"a@example.com","expiresIn":31536000,' +
        '"metadata":{"__proto__":{"polluted":"earlier"},"constructor":{"prototype":{"polluted":1}},"toString":"x","big":1e308,"k":9007199254740994}}',
    ],
    [server, 'default', KEYS.nwc, JSON.stringify(createBody({ amount: 21, description: 'nwc, no metadata' }))],
    // expiresIn 1: on the frozen clock it stays pending; if time leaked in, it would read expired.
    [server, 'default', KEYS.nwc, JSON.stringify(createBody({ description: '😀'.repeat(255), expiresIn: 1, metadata: { a: '\u0000\ud800' } }))],
    [server, 'default', KEYS.custodial, JSON.stringify(createBody({ amount: 1099, metadata: {} }))],
    [small, 'small', KEYS.custodial, JSON.stringify(createBody({ metadata: { on: 'the small server' } }))],
  ];
  for (const [target, name, key, text] of bodies) {
    const created = await rawRequest(target.url, post(text, key));
    expect(created.status, created.text).toBe(201);
    const id = (created.json as { id: string }).id;
    const read = await rawRequest(target.url, get(`${COLLECTION}/${id}`, key));
    const status = await rawRequest(target.url, get(`${COLLECTION}/${id}/status`, key));
    expect(read.status).toBe(200);
    expect(read.text, 'GET answers exactly what POST answered').toBe(created.text);
    expect(status.status).toBe(200);
    earlier.push({ server: name, id, key, read: read.text, status: status.text });
  }
});

afterAll(async () => {
  await server?.close();
  await small?.close();
});

// ---------------------------------------------------------------------------------------------
// Requests and the checks every response must pass
// ---------------------------------------------------------------------------------------------

interface FuzzRequest {
  target: 'default' | 'small';
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function post(body: string | Buffer, key: string | null = KEYS.custodial, headers: Record<string, string> = {}) {
  return {
    method: 'POST',
    path: COLLECTION,
    headers: {
      ...(key !== null ? { authorization: `Bearer ${key}` } : {}),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      ...headers,
    },
    body,
  };
}

function get(path: string, key: string | null = KEYS.custodial, headers: Record<string, string> = {}) {
  return { method: 'GET', path, headers: { ...(key !== null ? { authorization: `Bearer ${key}` } : {}), ...headers } };
}

function urlOf(target: 'default' | 'small'): string {
  return target === 'default' ? server.url : small.url;
}

/** A short description of a request for assertion messages (bodies and long values cut). */
function describeRequest(request: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer }): string {
  const cut = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}… (${s.length} chars)` : s);
  const headers = Object.entries(request.headers ?? {}).map(([k, v]) => `${k}: ${cut(v)}`);
  const body = request.body === undefined ? '(no body)' : cut(String(request.body));
  return `${request.method} ${cut(request.path)} [${headers.join(' | ')}] ${body}`;
}

/**
 * What every response must be: an answer (no reset, no hang), under 500, and a non-2xx in the
 * JSON error shape whose code has that status; 2xx bodies are JSON of the documented shape.
 */
function expectWellFormed(request: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer }, res: RawResponse): void {
  const context = `${describeRequest(request)}\n→ ${res.status} ${JSON.stringify(res.headers)} ${res.text.slice(0, 300)}`;
  expect(res.error, `no response: ${context}`).toBeUndefined();
  expect(res.status, context).toBeGreaterThanOrEqual(200);
  expect(res.status, context).toBeLessThan(500);
  const contentType = String(res.headers['content-type'] ?? '');
  const method = request.method.toUpperCase();

  // The one redirect: `/` sends a person's browser to the dashboard (README, "Dashboard").
  if (res.status >= 300 && res.status < 400) {
    expect([res.status, method, request.path.replace(/^[a-z]+:\/\/[^/]*/i, '').split(/[?#]/)[0]], context).toEqual([302, method === 'HEAD' ? 'HEAD' : 'GET', '/']);
    expect(res.headers.location, context).toBe('/dashboard');
    return;
  }

  if (res.status < 300) {
    if (res.status === 204) {
      // Only a CORS preflight answers without a body.
      expect(method, context).toBe('OPTIONS');
      expect(request.headers?.['access-control-request-method'], context).toBeDefined();
      expect(res.text, context).toBe('');
      return;
    }
    // Only a create answers 201, and only a read 200.
    expect(res.status === 201 ? ['POST'] : ['GET', 'HEAD'], context).toContain(method);
    expect(contentType, context).toMatch(JSON_CONTENT_TYPE);
    if (method === 'HEAD') {
      expect(res.text, context).toBe('');
      return;
    }
    expect(res.json, `2xx body is not JSON: ${context}`).not.toBeUndefined();
    expect(typeof res.json === 'object' && res.json !== null && !Array.isArray(res.json), `2xx body is not an object: ${context}`).toBe(true);
    expectDocumentedSuccessBody(res, context);
    return;
  }

  expect(contentType, `non-2xx without a JSON content type: ${context}`).toMatch(JSON_CONTENT_TYPE);
  if (method === 'HEAD') {
    expect(res.text, context).toBe('');
    return;
  }
  expect(validErrorBody(res.json), `not the error shape (${JSON.stringify(validErrorBody.errors)}): ${context}`).toBe(true);
  const code = (res.json as { error: { code: ErrorCode } }).error.code;
  expect(ERROR_CATALOGUE[code], `unknown error code: ${context}`).toBeDefined();
  expect(res.status, `the status of ${code}: ${context}`).toBe(ERROR_CATALOGUE[code].status);
  if (res.status === 401) expect(res.headers['www-authenticate'], context).toMatch(/^Bearer/);
  if (res.status === 405) expect(res.headers.allow, context).toMatch(/^(GET|POST)(, (GET|POST))*$/);
}

/** 2xx bodies: the payment request, its status, or the health check; earlier records unchanged. */
function expectDocumentedSuccessBody(res: RawResponse, context: string): void {
  const body = res.json as Record<string, unknown>;
  if (res.status === 201) {
    expect(validPaymentRequest(body), `201 body (${JSON.stringify(validPaymentRequest.errors)}): ${context}`).toBe(true);
    return;
  }
  expect(res.status, context).toBe(200);
  if ('id' in body) {
    expect(validPaymentRequest(body), `200 body (${JSON.stringify(validPaymentRequest.errors)}): ${context}`).toBe(true);
    const before = earlier.find((record) => record.id === body.id);
    if (before) expect(res.text, `an earlier record changed: ${context}`).toBe(before.read);
  } else if (Object.keys(body).length === 1 && body.status === 'ok') {
    // GET /healthz
  } else {
    expect(validStatusBody(body), `status body (${JSON.stringify(validStatusBody.errors)}): ${context}`).toBe(true);
  }
}

/** The own properties of the built-in prototypes, to detect pollution by identity. */
function snapshotPrototypes(): Array<[object, Map<PropertyKey, unknown>]> {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype].map((proto) => [
    proto,
    new Map(
      Reflect.ownKeys(proto).map((key) => {
        const descriptor = Object.getOwnPropertyDescriptor(proto, key)!;
        return [key, 'value' in descriptor ? descriptor.value : descriptor.get];
      }),
    ),
  ]);
}

/** Fails if a built-in prototype gained, lost or had replaced any property, or `({}).polluted` exists. */
function expectPrototypesIntact(context = ''): void {
  const changes: string[] = [];
  const now = snapshotPrototypes();
  prototypeBaseline.forEach(([proto, before], index) => {
    const after = now[index]![1];
    const name = proto === Object.prototype ? 'Object' : proto === Array.prototype ? 'Array' : proto === Function.prototype ? 'Function' : 'String';
    for (const key of after.keys()) if (!before.has(key)) changes.push(`${name}.prototype gained ${String(key)}`);
    for (const [key, value] of before) if (after.get(key) !== value) changes.push(`${name}.prototype.${String(key)} changed or went`);
  });
  const plain = {} as Record<string, unknown>;
  for (const key of ['polluted', 'isAdmin', 'amount', 'metadata', 'prototype']) if (plain[key] !== undefined) changes.push(`({}).${key} is ${String(plain[key])}`);
  if (Object.getPrototypeOf(plain) !== Object.prototype) changes.push('({}) has another prototype');
  expect(changes, `prototype pollution ${context}`).toEqual([]);
}

async function expectHealthy(target: RunningServer): Promise<void> {
  const res = await rawRequest(target.url, get('/healthz', null));
  expect(res.status, res.error ?? res.text).toBe(200);
  expect(res.json).toEqual({ status: 'ok' });
}

async function expectEarlierRecordsIntact(): Promise<void> {
  for (const record of earlier) {
    const url = urlOf(record.server);
    const read = await rawRequest(url, get(`${COLLECTION}/${record.id}`, record.key));
    expect(read.text, `GET ${record.id}`).toBe(record.read);
    const status = await rawRequest(url, get(`${COLLECTION}/${record.id}/status`, record.key));
    expect(status.text, `GET ${record.id}/status`).toBe(record.status);
  }
}

function detailsOf(res: RawResponse): Array<[string, string]> {
  const details = (res.json as { error: { details?: Array<{ field: string; code: string }> } }).error.details ?? [];
  return details.map((d) => [d.field, d.code]);
}

function expectError(res: RawResponse, status: number, code: ErrorCode, context = ''): void {
  expect(res.status, `${context} ${res.error ?? ''} ${res.text.slice(0, 300)}`).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(JSON_CONTENT_TYPE);
  expect(validErrorBody(res.json), JSON.stringify(validErrorBody.errors)).toBe(true);
  expect((res.json as { error: { code: string } }).error.code).toBe(code);
}

/** A valid create body as text, with fields replaced by raw JSON text (`''` drops the field). */
function createText(fields: Record<string, string>): string {
  const base: Record<string, string> = { amount: '1000', description: '"d"', destinationWallet: '"a@example.com"', ...fields };
  return `{${Object.entries(base)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
    .join(',')}}`;
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

/** Random requests at every endpoint (and beside them); `earlierIds` are ids that exist. */
function hostileRequest(earlierIds: string[]): fc.Arbitrary<FuzzRequest> {
  const idArb: fc.Arbitrary<string> = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...earlierIds) },
    { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
    { weight: 2, arbitrary: fc.constantFrom(...DANGEROUS_KEYS, 'pr_', '.', '..', ' ', '\u0000', `pr_${'A'.repeat(24)}`) },
    // Overlong, but under Node's 16 KiB header limit once encoded.
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 5000 }).map((n) => `pr_${'x'.repeat(n)}`) },
  );
  // How an id goes into the path: encoded, every byte encoded, raw, double-encoded, or a raw
  // (possibly malformed) escape sequence.
  const segmentArb: fc.Arbitrary<string> = fc.oneof(
    { weight: 4, arbitrary: idArb.map(percentEncode) },
    { weight: 1, arbitrary: idArb.map(percentEncodeAll) },
    { weight: 1, arbitrary: idArb.map((id) => percentEncode(percentEncode(id))) },
    { weight: 2, arbitrary: idArb.map((id) => (/^[\x21-\x7e]*$/.test(id) ? id : percentEncode(id))) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%ZZ', '%E0%A4%A', '%C0%AF', '%00', '%2F', '%25', '%FF', '%ED%A0%80', '\u00e9', ';', '*') },
  );
  const pathArb: fc.Arbitrary<string> = fc
    .record({
      kind: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('collection', 'item', 'status') },
        { weight: 1, arbitrary: fc.constantFrom('healthz', 'random') },
      ),
      id: segmentArb,
      extra: fc.oneof(
        { weight: 6, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.array(fc.oneof(segmentArb, fc.constantFrom('', 'status', 'payment-requests', '..')), { minLength: 1, maxLength: 2 }) },
      ),
      query: fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 30 }) },
      ),
      mutation: fc.oneof(
        { weight: 8, arbitrary: fc.constant('none') },
        { weight: 1, arbitrary: fc.constantFrom('upper', 'double-slash', 'trailing-slash', 'v2', 'no-leading-slash', 'absolute') },
      ),
      randomSegments: fc.array(segmentArb, { minLength: 0, maxLength: 4 }),
    })
    .map(({ kind, id, extra, query, mutation, randomSegments }) => {
      let path =
        kind === 'collection'
          ? COLLECTION
          : kind === 'item'
            ? `${COLLECTION}/${id}`
            : kind === 'status'
              ? `${COLLECTION}/${id}/status`
              : kind === 'healthz'
                ? '/healthz'
                : `/${randomSegments.join('/')}`;
      if (extra.length > 0) path += `/${extra.join('/')}`;
      if (mutation === 'upper') path = path.toUpperCase();
      if (mutation === 'double-slash') path = path.replace('/', '//');
      if (mutation === 'trailing-slash') path += '/';
      if (mutation === 'v2') path = path.replace('/v1/', '/v2/');
      if (mutation === 'no-leading-slash') path = path.slice(1) || '*';
      if (mutation === 'absolute') path = `http://sandbox.test${path}`;
      return query !== undefined ? `${path}?${query}` : path;
    });

  const methodArb = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS') },
    { weight: 1, arbitrary: fc.constantFrom('TRACE', 'PROPFIND', 'QUERY', 'PURGE', 'LINK') },
  );
  const authArb = fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    {
      weight: 12,
      arbitrary: fc
        .tuple(fc.constantFrom('Bearer ', 'bearer ', 'BEARER   ', 'Bearer\t'), fc.constantFrom(KEYS.custodial, KEYS.custodial, KEYS.nwc, KEYS.readonly))
        .map(([scheme, key]) => scheme + key),
    },
    { weight: 2, arbitrary: headerValue(80) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', 'Bearer', 'Bearer ', 'Basic c2tfdGVzdF9jdXN0b2RpYWw=', `Bearer ${KEYS.custodial} ${KEYS.nwc}`, `Bearer ${KEYS.custodial.toUpperCase()}`, KEYS.custodial),
    },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 12_000 }).map((n) => `Bearer ${'k'.repeat(n)}`) },
  );
  const contentTypeArb = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        undefined,
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'APPLICATION/JSON',
        'application/vnd.api+json',
        'application/json; charset=utf-16',
        'application/jsonp',
        '',
        'application/',
        '*/*',
        'json',
      ),
    },
    { weight: 1, arbitrary: headerValue(40) },
  );
  // Each extra header is sent now and then (a CORS preflight needs both of the first two).
  const rarely = <T,>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
  const extraHeadersArb = fc
    .record({
      origin: rarely(fc.constantFrom('https://app.example', 'null', 'http://localhost:3000')),
      'access-control-request-method': rarely(fc.constantFrom('POST', 'GET', 'DELETE', 'x')),
      'access-control-request-headers': rarely(fc.constantFrom('authorization, content-type', 'x-anything')),
      accept: rarely(fc.constantFrom('*/*', 'text/html', 'application/xml', '')),
      'x-http-method-override': rarely(fc.constantFrom('DELETE', 'GET', 'POST')),
      'content-encoding': rarely(fc.constantFrom('gzip', 'identity', 'br')),
      'x-random': rarely(headerValue(200)),
    })
    .map((headers) => Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined)) as Record<string, string>);

  // Bodies: nothing, junk, any JSON, create-shaped objects with hostile values, huge, deep.
  const fieldValueArb = fc.oneof(
    { weight: 4, arbitrary: jsonText(4) },
    { weight: 2, arbitrary: jsonNumberToken },
    { weight: 1, arbitrary: deepMetadataText },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 20_000 }).map((n) => JSON.stringify('y'.repeat(n))) },
  );
  const createShapedArb = fc
    .array(fc.tuple(fc.constantFrom('amount', 'description', 'destinationWallet', 'metadata', 'expiresIn', '__proto__', 'constructor', 'id', 'status'), fieldValueArb), {
      maxLength: 7,
    })
    .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
  // A valid body with one field replaced: by a hostile value, or by another valid one.
  const validValueArb = fc.oneof(
    fc.integer({ min: 21, max: 1_000_000 }).map((amount) => ['amount', String(amount)] as const),
    fc.string({ unit: 'binary', maxLength: 255 }).map((description) => ['description', JSON.stringify(description)] as const),
    fc.integer({ min: 1, max: 31_536_000 }).map((expiresIn) => ['expiresIn', String(expiresIn)] as const),
    jsonObjectText(jsonText(3)).map((metadata) => ['metadata', metadata] as const),
  );
  const oneFieldOffArb = fc.oneof(
    fc.tuple(fc.constantFrom('amount', 'description', 'destinationWallet', 'metadata', 'expiresIn'), fieldValueArb),
    validValueArb,
  ).map(([field, value]) => createText({ [field]: value }));
  const bodyTextArb = fc.oneof(
    { weight: 2, arbitrary: fc.string({ maxLength: 100 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 100 }) },
    { weight: 2, arbitrary: fc.json({ maxDepth: 4 }) },
    { weight: 2, arbitrary: jsonText(5) },
    { weight: 3, arbitrary: createShapedArb },
    { weight: 5, arbitrary: oneFieldOffArb },
    { weight: 1, arbitrary: fc.integer({ min: 4000, max: 20_000 }).map((n) => createText({ description: JSON.stringify('z'.repeat(n)) })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 100, max: 20_000 }), fc.constantFrom('object' as const, 'array' as const, 'mixed' as const), fc.boolean())
        .map(([levels, kind, balanced]) => {
          const text = deepText(levels, kind);
          return balanced ? text : text.slice(0, text.length - 1 - (levels >> 1));
        }),
    },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', '\ufeff', 'null', '[]', '{}', '{"amount":', '\u0000', '{"a":1}garbage', '\ufeff\ufeff{}', '1e400') },
  );
  const bodyArb = fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: fc.tuple(bodyTextArb, fc.integer({ min: 0, max: 9 })).map(([text, n]) => (n === 0 ? `\ufeff${text}` : text)) },
  );

  return fc
    .record({
      target: fc.constantFrom('default' as const, 'small' as const),
      // Aimed at a real endpoint with its method (so bodies reach validation), or anything at all.
      route: fc.oneof(
        { weight: 3, arbitrary: fc.record({ method: fc.constant('POST'), path: fc.oneof({ weight: 4, arbitrary: fc.constant(COLLECTION) }, { weight: 1, arbitrary: pathArb }) }) },
        { weight: 2, arbitrary: fc.record({ method: fc.constantFrom('GET', 'HEAD'), path: pathArb }) },
        { weight: 4, arbitrary: fc.record({ method: methodArb, path: pathArb }) },
      ),
      authorization: authArb,
      contentType: contentTypeArb,
      extra: extraHeadersArb,
      body: bodyArb,
      chunked: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
    })
    .map(({ target, route: { method, path }, authorization, contentType, extra, body, chunked }) => {
      const headers: Record<string, string> = { ...extra };
      if (authorization !== undefined) headers.authorization = authorization;
      if (contentType !== undefined) headers['content-type'] = contentType;
      if (body !== undefined) {
        if (chunked) headers['transfer-encoding'] = 'chunked';
        else headers['content-length'] = String(Buffer.byteLength(body));
      }
      return { target, method, path, headers, ...(body !== undefined ? { body } : {}) };
    });
}

describe('random requests at every endpoint', () => {
  it('never a 5xx, always a JSON error, 2xx bodies as documented', async () => {
    const requestArb = hostileRequest(earlier.filter((r) => r.server === 'default').map((r) => r.id));
    let count = 0;
    await fc.assert(
      fc.asyncProperty(requestArb, async (request) => {
        const seen = unexpectedErrors.length;
        const res = await rawRequest(urlOf(request.target), request);
        expectWellFormed(request, res);
        expect(unexpectedErrors.slice(seen), describeRequest(request)).toEqual([]);
        if (++count % 50 === 0) {
          await expectHealthy(server);
          await expectHealthy(small);
        }
      }),
      runs(800),
    );

    await expectHealthy(server);
    await expectHealthy(small);
    await expectEarlierRecordsIntact();
    expectPrototypesIntact();
  }, PROPERTY_TIMEOUT_MS);

  it('the same, many at once: every one answered, none a 5xx', async () => {
    const batchArb = fc.array(hostileRequest(earlier.filter((r) => r.server === 'default').map((r) => r.id)), { minLength: 5, maxLength: 25 });
    await fc.assert(
      fc.asyncProperty(batchArb, async (batch) => {
        const seen = unexpectedErrors.length;
        const responses = await Promise.all(batch.map((request) => rawRequest(urlOf(request.target), request)));
        batch.forEach((request, i) => expectWellFormed(request, responses[i]!));
        expect(unexpectedErrors.slice(seen)).toEqual([]);
        await expectHealthy(server);
      }),
      runs(40),
    );
    await expectEarlierRecordsIntact();
  }, PROPERTY_TIMEOUT_MS);
});

describe('create bodies with hostile metadata', () => {
  it('stores metadata as plain data: echoed and read back identically, or a 400 naming metadata; nothing polluted', async () => {
    const metadataArb = fc.oneof(
      { weight: 6, arbitrary: jsonObjectText(jsonText(5), 8) },
      // fast-check's own JSON values, keyed by the dangerous keys too (defined as own properties).
      { weight: 2, arbitrary: fc.dictionary(jsonKey, fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 }).map((value) => JSON.stringify(value)) },
      { weight: 2, arbitrary: deepMetadataText },
      { weight: 1, arbitrary: fc.integer({ min: 2000, max: 18_000 }).map((n) => `{${JSON.stringify('k'.repeat(n))}:1}`) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '{"__proto__":{"polluted":true}}',
          '{"constructor":{"prototype":{"polluted":true}}}',
          '{"__proto__":{"__proto__":{"polluted":1}}}',
          '{"__proto__":1,"__proto__":{"polluted":2}}',
          '{"prototype":{"polluted":true},"toString":"no","hasOwnProperty":1,"valueOf":null}',
          '{"a":1,"a":{"b":2},"a":[3]}',
          '{"1":"one","0":"zero","b":1,"a":2}',
          '{"big":1e308,"neg0":-0,"p53":9007199254740994,"inf":1e400,"tiny":5e-324}',
          '{}',
        ),
      },
    );
    const descriptionArb = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 255 }),
      fc.string({ unit: 'grapheme-composite', maxLength: 255 }),
      fc.constantFrom('', '\ud800', 'a\udfffb', '😀'.repeat(255), 'é'.repeat(255)),
    );
    const createArb = fc.record({
      key: fc.constantFrom(KEYS.custodial, KEYS.nwc),
      amount: fc.oneof(fc.integer({ min: 21, max: 1_000_000 }), fc.bigInt({ min: 21n, max: 2_100_000_000_000_000n }).map(Number), fc.constantFrom(21, 999, 1000, 1099, 1100, 2_100_000_000_000_000)),
      description: descriptionArb,
      destinationWallet: fc.constantFrom('merchant@example.com', 'a@localhost', 'A.b+c-d_e@sub.example.co.uk'),
      expiresIn: fc.option(fc.integer({ min: 1, max: 31_536_000 }), { nil: undefined }),
      metadata: fc.option(metadataArb, { freq: 6, nil: undefined }),
      // Fields before the real ones: ignored, or overridden by the later duplicate; a deep metadata
      // first is overridden too while the body stays within its depth bound (a metadata of 31 levels
      // is a body of 32), and refused for it beyond (32 levels, or 5,000).
      prefix: fc.option(
        fc.oneof(
          fc.constantFrom(
            '"__proto__":{"amount":1,"polluted":true}',
            '"constructor":{"prototype":{"polluted":true}}',
            '"metadata":{"first":"loses"}',
            '"amount":"not a number"',
          ),
          fc.constantFrom(17, 31, 32, 5_000).map((levels) => `"metadata":${deepText(levels, 'mixed')}`),
        ),
        { nil: undefined },
      ),
    });

    await fc.assert(
      fc.asyncProperty(createArb, async ({ key, amount, description, destinationWallet, expiresIn, metadata, prefix }) => {
        const fields = [
          ...(prefix !== undefined ? [prefix] : []),
          `"amount":${amount}`,
          `"description":${JSON.stringify(description)}`,
          `"destinationWallet":${JSON.stringify(destinationWallet)}`,
          ...(expiresIn !== undefined ? [`"expiresIn":${expiresIn}`] : []),
          ...(metadata !== undefined ? [`"metadata":${metadata}`] : []),
        ];
        const text = `{${fields.join(',')}}`;
        const request = post(text, key);
        const seen = unexpectedErrors.length;
        const res = await rawRequest(server.url, request);
        expectWellFormed(request, res);

        // A body nested deeper than MAX_BODY_DEPTH (32, the body itself being level 1) is refused
        // before it is parsed, naming the first member that goes that deep: nothing else is judged.
        const tooDeepMember = fields.find((field) => jsonDepth(JSON.parse(`{${field}}`)) > MAX_BODY_DEPTH);
        // Within that bound, what JSON.parse makes of the body's metadata (the last one, if the
        // prefix has one too) is judged per field, and is what the sandbox must store and echo.
        const expected = (JSON.parse(text) as { metadata?: Record<string, unknown> }).metadata;
        const tooDeep = expected !== undefined && jsonDepth(expected) > 16;
        const tooLarge = expected !== undefined && !tooDeep && new TextEncoder().encode(JSON.stringify(expected)).length > 16_384;
        const context = describeRequest(request);

        if (tooDeepMember !== undefined) {
          // Even beside a lone-surrogate description: the body is never parsed, so only this is said.
          expectError(res, 400, 'invalid_request', context);
          expect(detailsOf(res), context).toEqual([[Object.keys(JSON.parse(`{${tooDeepMember}}`))[0], 'too_deep']]);
        } else if (/\p{Cs}/u.test(description)) {
          // A lone surrogate cannot be written as UTF-8 into the invoice's description tag: refused.
          expectError(res, 400, 'invalid_request', context);
          expect(detailsOf(res), context).toContainEqual(['description', 'invalid_format']);
        } else if (tooDeep || tooLarge) {
          expectError(res, 400, 'invalid_request', context);
          expect(detailsOf(res), context).toEqual([['metadata', tooDeep ? 'too_deep' : 'too_large']]);
        } else {
          expect(res.status, `${context}\n→ ${res.text.slice(0, 500)}`).toBe(201);
          const body = res.json as Record<string, unknown>;
          expect(body.amount).toBe(amount);
          expect(body.description).toBe(description);
          expect(body.isNwc).toBe(key === KEYS.nwc);
          if (expected === undefined) expect(body).not.toHaveProperty('metadata');
          else expect(JSON.stringify(body.metadata), context).toBe(JSON.stringify(expected));

          // Read back: the same bytes (frozen clock), and the stored value is plain data.
          const read = await rawRequest(server.url, get(`${COLLECTION}/${body.id as string}`, key));
          expect(read.status).toBe(200);
          expect(read.text, context).toBe(res.text);
          const stored = server.sandbox.store.getPaymentRequest(body.id as string)!;
          if (expected !== undefined) {
            expect(Object.getPrototypeOf(stored.metadata)).toBe(Object.prototype);
            expect(JSON.stringify(stored.metadata)).toBe(JSON.stringify(expected));
          }
        }
        expectPrototypesIntact(context);
        expect(unexpectedErrors.slice(seen), context).toEqual([]);
      }),
      runs(250),
    );

    await expectHealthy(server);
    await expectEarlierRecordsIntact();
  }, PROPERTY_TIMEOUT_MS);
});

// ---------------------------------------------------------------------------------------------
// Deterministic edge cases
// ---------------------------------------------------------------------------------------------

describe('deep nesting (50,000 levels)', () => {
  const DEEP = 50_000;
  it.each([
    ['metadata, objects', createText({ metadata: deepText(DEEP, 'object') }), [['metadata', 'too_deep']]],
    ['metadata, arrays inside an object', createText({ metadata: `{"a":${deepText(DEEP, 'array')}}` }), [['metadata', 'too_deep']]],
    ['metadata, objects and arrays', createText({ metadata: `{"a":${deepText(DEEP, 'mixed')}}` }), [['metadata', 'too_deep']]],
    // Beyond MAX_BODY_DEPTH the body is refused before it is parsed, naming the root member the
    // deep part is in (or `body`), whatever that member's type should be.
    ['metadata itself an array', createText({ metadata: deepText(DEEP, 'array') }), [['metadata', 'too_deep']]],
    ['the description', createText({ description: deepText(DEEP, 'object', '"d"') }), [['description', 'too_deep']]],
    ['the whole body, arrays', deepText(DEEP, 'array'), [['body', 'too_deep']]],
    ['the whole body, objects', deepText(DEEP, 'object'), [['a', 'too_deep']]],
    ['metadata 500,000 levels (just under 1 MiB)', createText({ metadata: `{"a":${deepText(500_000, 'array')}}` }), [['metadata', 'too_deep']]],
  ])('in %s → 400 naming the field', async (_title, text, expected) => {
    const request = post(text);
    const res = await rawRequest(server.url, request);
    expectWellFormed(request, res);
    expectError(res, 400, 'invalid_request');
    expect(detailsOf(res).sort()).toEqual([...expected].sort());
    await expectHealthy(server);
  });

  it('in an unknown field → 400 naming it (the depth bound applies to the whole body, before parsing)', async () => {
    // An unknown field is otherwise ignored (201, not echoed); but the depth bound is checked on
    // the text before anything is parsed, so before anyone knows which fields the route takes.
    const request = post(createText({ extra: deepText(DEEP, 'mixed') }));
    const res = await rawRequest(server.url, request);
    expectWellFormed(request, res);
    expectError(res, 400, 'invalid_request');
    expect(detailsOf(res)).toEqual([['extra', 'too_deep']]);
  });

  it.each([
    ['unbalanced arrays', '['.repeat(DEEP)],
    ['unbalanced objects', '{"a":'.repeat(DEEP)],
    ['one closer too many', `${deepText(DEEP, 'array')}]`],
  ])('%s → 400 invalid_json', async (_title, text) => {
    const request = post(text);
    const res = await rawRequest(server.url, request);
    expectWellFormed(request, res);
    expectError(res, 400, 'invalid_json');
  });
});

describe('bodies over the limit', () => {
  const fill = (bytes: number) => {
    // A valid create body of exactly `bytes` bytes: the blob fills up the rest.
    const head = '{"amount":1000,"description":"d","destinationWallet":"a@example.com","metadata":{"blob":"';
    const tail = '"}}';
    return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
  };

  it('one byte over 1 MiB to the default server → 413 payload_too_large (JSON)', async () => {
    const request = post(fill(DEFAULT_BODY_LIMIT + 1));
    const res = await rawRequest(server.url, request);
    expectWellFormed(request, res);
    expectError(res, 413, 'payload_too_large');
  });

  it('exactly 1 MiB is read, and then judged on its metadata (400 too_large, not 413)', async () => {
    const res = await rawRequest(server.url, post(fill(DEFAULT_BODY_LIMIT)));
    expectError(res, 400, 'invalid_request');
    expect(detailsOf(res)).toEqual([['metadata', 'too_large']]);
  });

  it('over 1 MiB sent chunked, without a Content-Length → 413', async () => {
    const body = fill(DEFAULT_BODY_LIMIT + 64 * 1024);
    const request = { method: 'POST', path: COLLECTION, headers: { authorization: `Bearer ${KEYS.custodial}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body };
    const res = await rawRequest(server.url, request);
    expectWellFormed(request, res);
    expectError(res, 413, 'payload_too_large');
  });

  it('a Content-Length far over the limit, with no body sent → 413 at once', async () => {
    const res = await socketRequest(
      server.url,
      `POST ${COLLECTION} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${KEYS.custodial}\r\nContent-Type: application/json\r\nContent-Length: 999999999999`,
      '',
      5000,
    );
    expectError(res, 413, 'payload_too_large');
  });

  it.each([['POST'], ['PUT'], ['PATCH'], ['DELETE'], ['OPTIONS']])('over the small limit with %s → 413 JSON', async (method) => {
    const request = { ...post(fill(SMALL_BODY_LIMIT + 1)), method };
    const res = await rawRequest(small.url, request);
    expectWellFormed(request, res);
    expectError(res, 413, 'payload_too_large');
  });

  it('the servers are up afterwards', async () => {
    await expectHealthy(server);
    await expectHealthy(small);
  });
});

describe('duplicate keys: the last wins', () => {
  it.each([
    ['amount', '{"amount":5,"amount":2000,"description":"d","destinationWallet":"a@example.com"}', 201, { amount: 2000 }],
    ['amount, valid one first', '{"amount":2000,"description":"d","destinationWallet":"a@example.com","amount":5}', 400, [['amount', 'amount_below_minimum']]],
    ['metadata keys', createText({ metadata: '{"a":1,"a":{"b":2},"c":3,"a":[4]}' }), 201, { metadata: { a: [4], c: 3 } }],
    // The last would win, but the body is over MAX_BODY_DEPTH: refused before it is parsed.
    ['metadata, a 50,000-deep one first', `{"metadata":${deepText(50_000, 'object')},${createText({ metadata: '{"ok":true}' }).slice(1)}`, 400, [['metadata', 'too_deep']]],
    ['metadata, a 20-deep one first', `{"metadata":${deepText(20, 'object')},${createText({ metadata: '{"ok":true}' }).slice(1)}`, 201, { metadata: { ok: true } }],
    ['metadata, a valid one first', `${createText({ metadata: '{"ok":true}' }).slice(0, -1)},"metadata":${deepText(17, 'object')}}`, 400, [['metadata', 'too_deep']]],
  ])('%s', async (_title, text, status, expected) => {
    const request = post(text);
    const res = await rawRequest(server.url, request);
    expectWellFormed(request, res);
    expect(res.status, res.text).toBe(status);
    if (status === 201) expect(res.json).toMatchObject(expected);
    else expect(detailsOf(res)).toEqual(expected);
  });

  it('duplicate __proto__ keys in metadata: the last is kept, as an own key', async () => {
    const res = await rawRequest(server.url, post(createText({ metadata: '{"__proto__":{"first":1},"__proto__":{"polluted":true}}' })));
    expect(res.status, res.text).toBe(201);
    expect(res.text).toContain('"metadata":{"__proto__":{"polluted":true}}');
    expectPrototypesIntact();
  });
});

describe('a byte-order mark', () => {
  const valid = JSON.stringify(createBody());
  it.each([
    ['before a valid body (as text)', `\ufeff${valid}`, 201, undefined],
    ['before a valid body (as UTF-8 bytes)', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(valid)]), 201, undefined],
    ['twice', `\ufeff\ufeff${valid}`, 400, 'invalid_json'],
    ['alone', '\ufeff', 400, 'invalid_json'],
    ['with only whitespace after it', '\ufeff  \n', 400, 'invalid_json'],
    ['after whitespace', ` \ufeff${valid}`, 400, 'invalid_json'],
    ['in the middle', `${valid.slice(0, 10)}\ufeff${valid.slice(10)}`, 400, 'invalid_json'],
    ['UTF-16LE with its BOM', Buffer.from(`\ufeff${valid}`, 'utf16le'), 400, 'invalid_json'],
  ])('%s', async (_title, body, status, code) => {
    const request = post(body);
    const res = await rawRequest(server.url, request);
    expectWellFormed(request, res);
    expect(res.status, res.text).toBe(status);
    if (code !== undefined) expectError(res, status, code as ErrorCode);
  });
});

describe('__proto__ and constructor keys', () => {
  it.each([
    ['{"__proto__":{"polluted":true}}'],
    ['{"constructor":{"prototype":{"polluted":true}}}'],
    ['{"__proto__":{"toString":"boom","valueOf":1},"hasOwnProperty":"nope"}'],
  ])('metadata %s is stored and echoed as plain data, polluting nothing', async (metadata) => {
    const res = await rawRequest(server.url, post(createText({ metadata })));
    expect(res.status, res.text).toBe(201);
    const body = res.json as { id: string; metadata: Record<string, unknown> };
    expect(JSON.stringify(body.metadata)).toBe(JSON.stringify(JSON.parse(metadata)));
    expect(res.text).toContain(`"metadata":${metadata}`);
    const read = await rawRequest(server.url, get(`${COLLECTION}/${body.id}`));
    expect(read.text).toBe(res.text);
    const stored = server.sandbox.store.getPaymentRequest(body.id)!;
    expect(Object.getPrototypeOf(stored.metadata)).toBe(Object.prototype);
    for (const key of Object.keys(JSON.parse(metadata) as object)) expect(Object.hasOwn(stored.metadata!, key), key).toBe(true);
    expectPrototypesIntact();
  });

  it('a top-level __proto__ holding the fields does not supply them (400, all three missing)', async () => {
    const res = await rawRequest(server.url, post('{"__proto__":{"amount":1000,"description":"d","destinationWallet":"a@example.com"}}'));
    expectError(res, 400, 'invalid_request');
    expect(detailsOf(res).sort()).toEqual([
      ['amount', 'missing_field'],
      ['description', 'missing_field'],
      ['destinationWallet', 'missing_field'],
    ]);
    expectPrototypesIntact();
  });

  it('top-level __proto__ and constructor beside valid fields are ignored', async () => {
    const res = await rawRequest(server.url, post(createText({ ['__proto__']: '{"polluted":true,"isAdmin":true}', constructor: '{"prototype":{"polluted":true}}' })));
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.json as object)).not.toContain('__proto__');
    expectPrototypesIntact();
  });

  it.each([['__proto__'], ['constructor'], ['prototype'], ['toString'], ['hasOwnProperty']])('GET with the id %s → 404 payment_request_not_found', async (id) => {
    const res = await rawRequest(server.url, get(`${COLLECTION}/${id}`));
    expectError(res, 404, 'payment_request_not_found');
    const status = await rawRequest(server.url, get(`${COLLECTION}/${id}/status`));
    expectError(status, 404, 'payment_request_not_found');
  });
});

describe('overlong ids, keys and headers', () => {
  it('an id of 100,000 characters: a 4xx JSON error (the URL is over the header limit)', async () => {
    for (const path of [`${COLLECTION}/${'a'.repeat(100_000)}`, `${COLLECTION}/${'a'.repeat(100_000)}/status`]) {
      const request = get(path);
      const res = await rawRequest(server.url, request);
      expectWellFormed(request, res);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    await expectHealthy(server);
  });

  it('an id of 15,000 characters (under the limit) → 404, the message quoting at most 64 of them', async () => {
    const res = await rawRequest(server.url, get(`${COLLECTION}/${'a'.repeat(15_000)}`));
    expectError(res, 404, 'payment_request_not_found');
    expect((res.json as { error: { message: string } }).error.message.length).toBeLessThan(200);
  });

  it('an id of 1,000 percent-encoded emoji → 404', async () => {
    const res = await rawRequest(server.url, get(`${COLLECTION}/${percentEncode('😀'.repeat(1000))}/status`));
    expectError(res, 404, 'payment_request_not_found');
  });

  it('an unknown path of 15,000 characters → 404 route_not_found, the message cut short', async () => {
    const res = await rawRequest(server.url, get(`/${'n'.repeat(15_000)}`));
    expectError(res, 404, 'route_not_found');
    expect((res.json as { error: { message: string } }).error.message.length).toBeLessThan(300);
  });

  it('an Authorization header near 15 KiB → 401 unauthorized (JSON, WWW-Authenticate)', async () => {
    const request = get(`${COLLECTION}/${earlier[0]!.id}`, `${'k'.repeat(15 * 1024 - 100)}`);
    const res = await rawRequest(server.url, request);
    expectWellFormed(request, res);
    expectError(res, 401, 'unauthorized');
  });

  it('a valid key after 15,000 spaces, or with 15,000 after it: answered, never a 5xx', async () => {
    for (const authorization of [`Bearer ${' '.repeat(15_000)}${KEYS.custodial}`, `Bearer ${KEYS.custodial}${' '.repeat(15_000)}`]) {
      const request = get(`${COLLECTION}/${earlier[0]!.id}`, null, { authorization });
      const res = await rawRequest(server.url, request);
      expectWellFormed(request, res);
      expect([200, 401]).toContain(res.status);
    }
  });

  it('an Authorization header over 16 KiB → 400 JSON error (Node refuses the headers)', async () => {
    const request = get(`${COLLECTION}/${earlier[0]!.id}`, 'k'.repeat(17 * 1024));
    const res = await rawRequest(server.url, request);
    expectWellFormed(request, res);
    expectError(res, 400, 'invalid_request');
  });

  it('a metadata key of 16,000 characters → 201 (under 16 KiB as JSON); of 17,000 → 400 too_large', async () => {
    const ok = await rawRequest(server.url, post(createText({ metadata: `{${JSON.stringify('k'.repeat(16_000))}:1}` })));
    expect(ok.status, ok.text).toBe(201);
    expect(Object.keys((ok.json as { metadata: object }).metadata)).toEqual(['k'.repeat(16_000)]);
    const tooLarge = await rawRequest(server.url, post(createText({ metadata: `{${JSON.stringify('k'.repeat(17_000))}:1}` })));
    expectError(tooLarge, 400, 'invalid_request');
    expect(detailsOf(tooLarge)).toEqual([['metadata', 'too_large']]);
  });
});

describe('edge numbers', () => {
  it.each([
    ['1e308', 'amount', [['amount', 'above_maximum']]],
    ['-1e308', 'amount', [['amount', 'amount_below_minimum']]],
    ['9007199254740994', 'amount', [['amount', 'above_maximum']]], // 2^53 + 2
    ['9007199254740993', 'amount', [['amount', 'above_maximum']]], // 2^53 + 1, parsed as 2^53
    ['2100000000000001', 'amount', [['amount', 'above_maximum']]],
    ['-0', 'amount', [['amount', 'amount_below_minimum']]],
    ['-0.0', 'amount', [['amount', 'amount_below_minimum']]],
    ['1e400', 'amount', [['amount', 'invalid_type']]], // Infinity after JSON.parse
    ['1e308', 'expiresIn', [['expiresIn', 'above_maximum']]],
    ['9007199254740994', 'expiresIn', [['expiresIn', 'above_maximum']]],
    ['-0', 'expiresIn', [['expiresIn', 'below_minimum']]],
  ])('%s as %s → 400 naming it', async (token, field, expected) => {
    const res = await rawRequest(server.url, post(createText({ [field]: token })));
    expectError(res, 400, 'invalid_request');
    expect(detailsOf(res)).toEqual(expected);
  });

  it.each([['0.30000000000000004'], ['5e-324'], ['1000.5']])('%s as amount → 400 naming only amount, invalid_type among the codes', async (token) => {
    const res = await rawRequest(server.url, post(createText({ amount: token })));
    expectError(res, 400, 'invalid_request');
    const details = detailsOf(res);
    expect(new Set(details.map(([field]) => field))).toEqual(new Set(['amount']));
    expect(details.map(([, code]) => code)).toContain('invalid_type');
  });

  it.each([
    ['2100000000000000', 2_100_000_000_000_000],
    ['1E+3', 1000],
    ['1000.0', 1000],
    ['1e3', 1000],
    ['21', 21],
  ])('%s is a valid whole amount → 201 with amount %d', async (token, amount) => {
    const res = await rawRequest(server.url, post(createText({ amount: token })));
    expect(res.status, res.text).toBe(201);
    expect(validPaymentRequest(res.json)).toBe(true);
    expect((res.json as { amount: number }).amount).toBe(amount);
  });

  it('edge numbers inside metadata are kept as JSON.parse reads them (1e400 becomes null, -0 becomes 0)', async () => {
    const metadata = '{"big":1e308,"p53":9007199254740994,"neg0":-0,"inf":1e400,"tiny":5e-324,"sum":0.30000000000000004}';
    const res = await rawRequest(server.url, post(createText({ metadata })));
    expect(res.status, res.text).toBe(201);
    expect(JSON.stringify((res.json as { metadata: unknown }).metadata)).toBe(JSON.stringify(JSON.parse(metadata)));
    expect((res.json as { metadata: Record<string, unknown> }).metadata).toEqual({ big: 1e308, p53: 2 ** 53 + 2, neg0: 0, inf: null, tiny: 5e-324, sum: 0.1 + 0.2 });
  });
});

describe('requests Node answers before Fastify sees them', () => {
  // Node's HTTP server answers these itself; the sandbox promises the JSON error shape for every
  // request, including ones turned away before the engine (src/http/server.ts).
  it('Expect: something other than 100-continue → a JSON error, not a bare 417', async () => {
    const body = JSON.stringify(createBody());
    const head = `POST ${COLLECTION} HTTP/1.1\r\nHost: sandbox.test\r\nAuthorization: Bearer ${KEYS.custodial}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: nothing-you-know`;
    const res = await socketRequest(server.url, head, body, 5000);
    expectWellFormed({ method: 'POST', path: COLLECTION, body }, res);
  });

  it('HTTP/1.1 without a Host header → a JSON error, not a bare 400', async () => {
    const res = await socketRequest(server.url, `GET /healthz HTTP/1.1`, '', 5000);
    expectWellFormed({ method: 'GET', path: '/healthz' }, res);
  });

  it('CONNECT → an answer in the JSON error shape, not a dropped connection', async () => {
    const res = await socketRequest(server.url, `CONNECT sandbox.test:443 HTTP/1.1\r\nHost: sandbox.test:443`, '', 5000);
    expectWellFormed({ method: 'CONNECT', path: 'sandbox.test:443' }, res);
  });

  it('a HEAD that Node cannot parse → the 400 JSON error headers, without a body (HEAD responses have none)', async () => {
    for (const head of [`HEAD api/v1/payment-requests HTTP/1.1\r\nHost: sandbox.test`, `HEAD /healthz HTTP/1.1\r\nHost: sandbox.test\r\nX-Big: ${'a'.repeat(17_000)}`]) {
      const res = await socketRequest(server.url, head, '', 5000);
      expect(res.status, head.slice(0, 60)).toBe(400);
      expect(String(res.headers['content-type'])).toMatch(JSON_CONTENT_TYPE);
      expect(res.text, `a body after a HEAD response's headers: ${head.slice(0, 60)}`).toBe('');
    }
  });

  it('malformed HTTP (a bad header line, Content-Length with Transfer-Encoding) → 400 JSON', async () => {
    for (const head of [
      `GET /healthz HTTP/1.1\r\nHost: sandbox.test\r\nBad Header: x`,
      `POST ${COLLECTION} HTTP/1.1\r\nHost: sandbox.test\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json`,
      `GET /${'\u00e9'} HTTP/1.1\r\nHost: sandbox.test`,
    ]) {
      const res = await socketRequest(server.url, head, '', 5000);
      expectError(res, 400, 'invalid_request', head);
    }
  });
});

describe('afterwards', () => {
  it('both servers answer /healthz, earlier records read back byte-identical, no bug was logged, nothing polluted', async () => {
    await expectHealthy(server);
    await expectHealthy(small);
    expect(earlier).toHaveLength(6);
    await expectEarlierRecordsIntact();
    expect(unexpectedErrors).toEqual([]);
    expectPrototypesIntact();
  });
});
