/** Every 400 of the create rules, and the transport-level errors, through the real server. */
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../src/schemas/error.js';
import { createBody, startServer, type ApiResult, type RunningServer } from './support/sandbox-server.js';

const validErrorBody = new Ajv({ strict: false }).compile(errorBodySchema);

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({}, { bodyLimit: 64 * 1024 });
});
afterAll(() => server.close());

function expectError(res: ApiResult, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(validErrorBody(res.body), JSON.stringify(validErrorBody.errors)).toBe(true);
  expect(res.body.error.code).toBe(code);
}

function fieldsOf(res: ApiResult): Array<[string, string]> {
  return res.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]);
}

const create = (body: unknown) => server.api('/api/v1/payment-requests', { body });

describe('create body rules', () => {
  it.each([
    ['amount missing', createBody({ amount: undefined }), 'amount', 'missing_field'],
    ['description missing', createBody({ description: undefined }), 'description', 'missing_field'],
    ['destinationWallet missing', createBody({ destinationWallet: undefined }), 'destinationWallet', 'missing_field'],
    ['amount as a string', createBody({ amount: '1000' }), 'amount', 'invalid_type'],
    ['amount with a fraction', createBody({ amount: 1000.5 }), 'amount', 'invalid_type'],
    ['amount zero', createBody({ amount: 0 }), 'amount', 'amount_below_minimum'],
    ['amount negative', createBody({ amount: -100 }), 'amount', 'amount_below_minimum'],
    ['amount 20, under the minimum of 21', createBody({ amount: 20 }), 'amount', 'amount_below_minimum'],
    ['amount 1e308', createBody({ amount: 1e308 }), 'amount', 'above_maximum'],
    ['amount 2^53 + 2', createBody({ amount: 2 ** 53 + 2 }), 'amount', 'above_maximum'],
    ['amount null', createBody({ amount: null }), 'amount', 'invalid_type'],
    ['description 256 characters', createBody({ description: 'x'.repeat(256) }), 'description', 'too_long'],
    ['description 256 emoji', createBody({ description: '😀'.repeat(256) }), 'description', 'too_long'],
    ['description a number', createBody({ description: 42 }), 'description', 'invalid_type'],
    ['description with a lone surrogate (no UTF-8 for the invoice)', createBody({ description: 'lone surrogate \ud800' }), 'description', 'invalid_format'],
    ['description with a lone low surrogate', createBody({ description: '\udc00 first' }), 'description', 'invalid_format'],
    ['destinationWallet without @', createBody({ destinationWallet: 'merchant.example.com' }), 'destinationWallet', 'invalid_format'],
    ['destinationWallet without a domain', createBody({ destinationWallet: 'merchant@' }), 'destinationWallet', 'invalid_format'],
    ['destinationWallet with two @', createBody({ destinationWallet: 'a@b@example.com' }), 'destinationWallet', 'invalid_format'],
    ['destinationWallet with spaces', createBody({ destinationWallet: 'mer chant@example.com' }), 'destinationWallet', 'invalid_format'],
    ['metadata an array', createBody({ metadata: ['order'] }), 'metadata', 'invalid_type'],
    ['metadata a string', createBody({ metadata: 'order-1' }), 'metadata', 'invalid_type'],
    ['metadata null', createBody({ metadata: null }), 'metadata', 'invalid_type'],
    ['metadata 17 levels deep', createBody({ metadata: nested(17) }), 'metadata', 'too_deep'],
    ['metadata over 16 KiB', createBody({ metadata: { blob: 'x'.repeat(17_000) } }), 'metadata', 'too_large'],
    ['expiresIn zero', createBody({ expiresIn: 0 }), 'expiresIn', 'below_minimum'],
    ['expiresIn negative', createBody({ expiresIn: -60 }), 'expiresIn', 'below_minimum'],
    ['expiresIn fractional', createBody({ expiresIn: 1.5 }), 'expiresIn', 'invalid_type'],
    ['expiresIn over a year', createBody({ expiresIn: 31_536_001 }), 'expiresIn', 'above_maximum'],
    ['expiresIn a string', createBody({ expiresIn: '3600' }), 'expiresIn', 'invalid_type'],
  ])('%s → 400 naming the field', async (_title, body, field, code) => {
    const res = await create(body);
    expectError(res, 400, 'invalid_request');
    expect(fieldsOf(res)).toEqual([[field, code]]);
  });

  it('names every offending field in one error', async () => {
    const res = await create({ amount: 'lots', description: 'x'.repeat(300), metadata: [], expiresIn: -1 });
    expectError(res, 400, 'invalid_request');
    expect(fieldsOf(res).sort()).toEqual(
      [
        ['amount', 'invalid_type'],
        ['description', 'too_long'],
        ['destinationWallet', 'missing_field'],
        ['expiresIn', 'below_minimum'],
        ['metadata', 'invalid_type'],
      ].sort(),
    );
  });

  it('accepts the edges: 21 sats, 255 code points of emoji, metadata 16 levels deep, expiresIn 1', async () => {
    const res = await create(createBody({ amount: 21, description: '😀'.repeat(255), metadata: nested(16), expiresIn: 1 }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.description).toBe('😀'.repeat(255));
  });

  it.each([[[]], [null], ['a string'], [42], [true]])('rejects a body that is not an object: %j', async (body) => {
    const res = await create(body);
    expectError(res, 400, 'invalid_request');
    expect(fieldsOf(res)).toEqual([['body', 'invalid_type']]);
  });

  it('ignores fields the spec does not define', async () => {
    const res = await create(createBody({ currency: 'BTC', id: 'pr_mine', status: 'completed' }));
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe('pr_mine');
    expect(res.body.status).toBe('pending');
    expect(res.body).not.toHaveProperty('currency');
  });
});

describe('body encoding', () => {
  it('rejects malformed JSON with invalid_json', async () => {
    expectError(await server.api('/api/v1/payment-requests', { rawBody: '{"amount": 1000,' }), 400, 'invalid_json');
  });

  it('rejects an empty body with invalid_json', async () => {
    expectError(await server.api('/api/v1/payment-requests', { rawBody: '' }), 400, 'invalid_json');
  });

  it('accepts a leading byte-order mark', async () => {
    const res = await server.api('/api/v1/payment-requests', { rawBody: `\ufeff${JSON.stringify(createBody())}` });
    expect(res.status, res.text).toBe(201);
  });

  it('takes the last of duplicate keys, as JSON.parse does', async () => {
    const res = await server.api('/api/v1/payment-requests', {
      rawBody: '{"amount": 5, "amount": 2000, "description": "d", "destinationWallet": "a@example.com"}',
    });
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe(2000);
  });

  it('answers 415 for a body that is not declared JSON', async () => {
    const res = await server.api('/api/v1/payment-requests', {
      rawBody: JSON.stringify(createBody()),
      headers: { 'content-type': 'text/plain' },
    });
    expectError(res, 415, 'unsupported_media_type');
  });

  it('accepts application/json with a charset', async () => {
    const res = await server.api('/api/v1/payment-requests', {
      rawBody: JSON.stringify(createBody()),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(201);
  });

  it('answers 413 for a body over the limit, in the same JSON shape', async () => {
    const res = await server.api('/api/v1/payment-requests', { body: createBody({ metadata: { blob: 'x'.repeat(70_000) } }) });
    expectError(res, 413, 'payload_too_large');
  });

  it('answers a body nested 50,000 levels deep with 400, and stays up', async () => {
    const deep = `{"amount":1000,"description":"d","destinationWallet":"a@example.com","metadata":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`;
    const big = await startServer({}, { bodyLimit: 1024 * 1024 });
    try {
      const res = await big.api('/api/v1/payment-requests', { rawBody: deep });
      expectError(res, 400, 'invalid_request');
      expect(fieldsOf(res)).toEqual([['metadata', 'too_deep']]);
      expect((await big.api('/healthz', { key: null })).status).toBe(200);
    } finally {
      await big.close();
    }
  });
});

describe('routes', () => {
  it('answers an unknown path with a JSON 404', async () => {
    expectError(await server.api('/api/v2/payment-requests'), 404, 'route_not_found');
    expectError(await server.api('/nope', { key: null }), 404, 'route_not_found');
  });

  it('answers a wrong method with a JSON 405 and Allow', async () => {
    const res = await server.api('/api/v1/payment-requests', { method: 'GET' });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('POST');
    const del = await server.api('/api/v1/payment-requests/pr_x', { method: 'DELETE' });
    expectError(del, 405, 'method_not_allowed');
    expect(del.headers.get('allow')).toBe('GET');
  });

  it('answers a malformed percent-encoding in the path with a JSON 404', async () => {
    expectError(await server.api('/api/v1/payment-requests/%E0%A4%A'), 404, 'route_not_found');
  });

  it('serves /healthz without a key', async () => {
    const res = await server.api('/healthz', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });
});

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < depth; i++) value = { level: value };
  return value;
}
