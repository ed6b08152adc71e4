import { describe, expect, it } from 'vitest';
import { AccountDirectory } from '../accounts/accounts.js';
import { createRequestHandler } from './handler.js';
import type { ApiRequest } from './messages.js';
import { declareRoute, type AnyRoute } from './route.js';

/** A public route whose answer JSON cannot write: a BigInt makes `JSON.stringify` throw. */
const routes: Array<AnyRoute<undefined>> = [
  declareRoute({
    name: 'unwritable',
    method: 'GET',
    path: '/unwritable',
    access: 'public',
    answer: { status: 200 },
    handle: () => ({ status: 200, body: { amount: 21n } }),
  }),
];
const directory = new AccountDirectory({ accounts: [], keys: [] });
const request: ApiRequest = { method: 'GET', url: '/unwritable', headers: {} };

describe('the request handler', () => {
  it('answers 500 internal_error when a reply cannot be serialized, and reports the error', async () => {
    const seen: Array<[unknown, ApiRequest]> = [];
    const handle = createRequestHandler(routes, { deps: undefined, directory, onUnexpectedError: (error, req) => seen.push([error, req]) });
    const response = await handle(request);
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'internal_error' } });
    expect(seen).toHaveLength(1);
    expect(seen[0]![0]).toBeInstanceOf(TypeError);
    expect(seen[0]![1]).toBe(request);
  });

  it('still answers 500 when onUnexpectedError itself throws', async () => {
    const handle = createRequestHandler(routes, {
      deps: undefined,
      directory,
      onUnexpectedError: () => {
        throw new Error('the logger is down');
      },
    });
    const response = await handle(request);
    expect(response.status).toBe(500);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'internal_error' } });
  });
});
