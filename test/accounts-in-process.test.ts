/**
 * The accounts API and the reset in-process: the engine's own handler (the bound on accounts),
 * and the MSW handlers, which answer both from the same route table without a server.
 */
import { getResponse } from 'msw';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_CREATED_ACCOUNTS } from '../src/core/accounts/account-registry.js';
import { createHandlers } from '../src/msw/create-handlers.js';
import { createSandbox } from '../src/sandbox.js';
import { callSandbox } from './support/in-process.js';
import { createBody, KEYS } from './support/sandbox-server.js';

describe('the engine in-process', () => {
  const sandbox = createSandbox();
  afterAll(() => sandbox.close());

  it(`holds at most ${MAX_CREATED_ACCOUNTS} accounts made through the API: then 409 account_limit_reached, until one is deleted`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX_CREATED_ACCOUNTS; i++) {
      const made = await callSandbox(sandbox, 'POST', '/sandbox/v1/accounts', { mode: 'custodial' }, KEYS.admin);
      expect(made.status).toBe(201);
      ids.push(made.body!.id);
    }
    const refused = await callSandbox(sandbox, 'POST', '/sandbox/v1/accounts', { mode: 'nwc' }, KEYS.admin);
    expect([refused.status, refused.body!.error.code]).toEqual([409, 'account_limit_reached']);
    // Keys are still found among them all, and unknown ones still refused.
    expect((await callSandbox(sandbox, 'GET', '/sandbox/v1/clock')).status).toBe(200);
    expect((await callSandbox(sandbox, 'GET', '/sandbox/v1/clock', undefined, 'sk_test_nobody_at_all')).status).toBe(401);
    const listed = await callSandbox(sandbox, 'GET', '/sandbox/v1/accounts?limit=1000', undefined, KEYS.admin);
    expect(listed.body!.data).toHaveLength(1000);
    expect((await callSandbox(sandbox, 'GET', '/sandbox/v1/accounts', undefined, KEYS.admin)).body!.data).toHaveLength(100);
    expect((await callSandbox(sandbox, 'DELETE', `/sandbox/v1/accounts/${ids[0]}`, undefined, KEYS.admin)).status).toBe(204);
    expect((await callSandbox(sandbox, 'POST', '/sandbox/v1/accounts', { mode: 'nwc' }, KEYS.admin)).status).toBe(201);
  });
});

describe('the MSW handlers', () => {
  const handlers = createHandlers();
  afterAll(() => handlers.sandbox.close());
  const send = (path: string, init: { method?: string; key?: string; body?: unknown } = {}) =>
    getResponse(
      handlers,
      new Request(`http://localhost/${path.replace(/^\//, '')}`, {
        method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
        headers: { authorization: `Bearer ${init.key ?? KEYS.custodial}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      }),
    );

  it('answer the accounts API and the reset in-process, as the server does', async () => {
    const made = await send('/sandbox/v1/accounts', { key: KEYS.admin, body: { mode: 'custodial', name: 'vitest worker 1' } });
    expect(made?.status).toBe(201);
    const account = (await made!.json()) as { id: string; keys: { secret: string } };
    const created = await send('/api/v1/payment-requests', { key: account.keys.secret, body: createBody() });
    expect(created?.status).toBe(201);
    const { id } = (await created!.json()) as { id: string };
    expect((await send(`/api/v1/payment-requests/${id}`))?.status).toBe(404);

    // A reset with no body at all (a POST whose body is null), then one with the full scope.
    await send('/sandbox/v1/webhook-endpoints', { key: account.keys.secret, body: { url: 'http://127.0.0.1:9/hooks' } });
    expect((await send('/sandbox/v1/reset', { method: 'POST', key: account.keys.secret }))?.status).toBe(204);
    expect((await send(`/api/v1/payment-requests/${id}`, { key: account.keys.secret }))?.status).toBe(404);
    expect(((await (await send('/sandbox/v1/webhook-endpoints', { key: account.keys.secret }))!.json()) as { data: unknown[] }).data).toHaveLength(1);
    expect((await send('/sandbox/v1/reset', { key: account.keys.secret, body: { scope: 'all' } }))?.status).toBe(204);
    expect(((await (await send('/sandbox/v1/webhook-endpoints', { key: account.keys.secret }))!.json()) as { data: unknown[] }).data).toEqual([]);

    const listed = (await (await send('/sandbox/v1/accounts', { key: KEYS.admin }))!.json()) as { data: Array<{ id: string }> };
    expect(listed.data.map((a) => a.id)).toEqual([account.id, 'acct_custodial', 'acct_nwc']);
    expect((await send(`/sandbox/v1/accounts/${account.id}`, { method: 'DELETE', key: KEYS.admin }))?.status).toBe(204);
    expect((await send('/sandbox/v1/clock', { key: account.keys.secret }))?.status).toBe(401);
  });
});
