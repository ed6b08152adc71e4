/**
 * The OpenAPI document as served and printed: `GET /openapi.json` from the Fastify server and the
 * MSW handlers alike (no key, ETag, HEAD), `--no-controls`, `lnpr openapi`, and the guard against
 * drift: the document's operations are exactly the engine's route table.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountsConfig } from '../src/core/accounts/accounts.js';
import { statusOf } from '../src/core/errors/errors.js';
import { errorCodesOf, type AnyRoute } from '../src/core/pipeline/route.js';
import { DEFAULT_SETTINGS, resolveSettings } from '../src/core/settings.js';
import { createHandlers } from '../src/msw/index.node.js';
import { openApiDocumentOf } from '../src/openapi/index.js';
import { createSandbox, DEFAULT_ACCOUNTS } from '../src/sandbox.js';
import { runCli } from './support/cli-process.js';
import { startServer, type RunningServer } from './support/sandbox-server.js';

type Json = Record<string, any>;

const MSW_URL = 'http://openapi.msw.test';
let server: RunningServer;
const msw = setupServer(...createHandlers({ baseUrl: MSW_URL }));

beforeAll(async () => {
  server = await startServer();
  msw.listen({ onUnhandledRequest: 'bypass' });
});
afterAll(async () => {
  msw.close();
  await server.close();
});

describe('GET /openapi.json', () => {
  it('answers without a key: the document of this server, valid OpenAPI 3.1, with an ETag', async () => {
    const res = await server.api('/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.body).toEqual(openApiDocumentOf(server.sandbox.settings));
    expect(res.body.servers).toEqual([{ url: '/', description: 'The sandbox that served this document' }]);
    expect((await new Validator().validate(res.body)).valid).toBe(true);
  });

  it('revalidates: 304 without a body for its ETag (weak or in a list), 200 for another', async () => {
    const etag = (await server.api('/openapi.json')).headers.get('etag')!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await server.api('/openapi.json', { headers: { 'if-none-match': ifNoneMatch } });
      expect([res.status, res.text, res.headers.get('etag')]).toEqual([304, '', etag]);
    }
    expect((await server.api('/openapi.json', { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
  });

  it('answers HEAD without a body, and other methods with 405', async () => {
    const head = await server.api('/openapi.json', { method: 'HEAD' });
    expect([head.status, head.text]).toEqual([200, '']);
    const post = await server.api('/openapi.json', { method: 'POST', body: {} });
    expect([post.status, post.body.error.code, post.headers.get('allow')]).toEqual([405, 'method_not_allowed', 'GET']);
  });

  it('the MSW handlers answer it too, byte for byte the same document', async () => {
    const [fromFastify, fromMsw] = await Promise.all([fetch(`${server.url}/openapi.json`), fetch(`${MSW_URL}/openapi.json`)]);
    expect(fromMsw.status).toBe(200);
    expect(fromMsw.headers.get('etag')).toBe(fromFastify.headers.get('etag'));
    expect(await fromMsw.text()).toBe(await fromFastify.text());
  });

  it('with --no-controls it still answers, and leaves out the control API and the webhooks', async () => {
    const bare = await startServer({ settings: { controls: false, minAmount: 1 } });
    try {
      const res = await bare.api('/openapi.json', { key: null });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.paths).filter((path) => path.startsWith('/sandbox'))).toEqual([]);
      expect(res.body.webhooks).toBeUndefined();
      expect(res.body.components.schemas.CreatePaymentRequest.properties.amount.minimum).toBe(1);
      expect((await bare.api('/sandbox/v1/clock')).status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});

describe("the document's operations are exactly the engine's routes", () => {
  const operationsOf = (document: Json) =>
    Object.entries(document.paths as Json)
      .flatMap(([path, item]) => Object.keys(item as Json).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();

  it.each([true, false])('controls %s', (controls) => {
    const sandbox = createSandbox({ settings: { controls } });
    try {
      const routes = sandbox.routes.map(({ method, path }) => `${method} ${path.replace(/:(\w+)/g, '{$1}')}`).sort();
      const documented = operationsOf(openApiDocumentOf(sandbox.settings));
      // Named both ways round, so the failure says what to add where.
      expect(routes.filter((route) => !documented.includes(route)), 'routes the OpenAPI document lacks (give them prose in src/openapi/operations/)').toEqual([]);
      expect(documented.filter((operation) => !routes.includes(operation)), 'operations of the document no route serves').toEqual([]);
      expect(routes.length).toBeGreaterThan(controls ? 20 : 4);
    } finally {
      sandbox.close();
    }
  });
});

describe('the document says what the route declarations say, and the engine answers as they declare', () => {
  /** The default accounts and a key of the custodial account with no permission at all. */
  const accounts: AccountsConfig = { ...DEFAULT_ACCOUNTS, keys: [...DEFAULT_ACCOUNTS.keys, { key: 'sk_test_no_permission', account: 'acct_custodial', permissions: [] }] };
  const concrete = (path: string) => path.replace(/:\w+/g, 'x_unknown');
  const byOperation = <T extends { operation: string }>(items: T[]) => [...items].sort((a, b) => a.operation.localeCompare(b.operation));

  it.each([true, false])('controls %s', async (controls) => {
    const sandbox = createSandbox({ settings: { controls }, accounts });
    try {
      const document = openApiDocumentOf(sandbox.settings);
      const operations = new Map<string, Json>(
        Object.entries(document.paths as Json).flatMap(([path, item]) => Object.entries(item as Json).map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation as Json])),
      );
      const operationOf = (route: AnyRoute<unknown>) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`;

      // Operations, security, permissions and error statuses (4xx and 5xx): the document's and the declarations'.
      const declared = sandbox.routes.map((route) => ({
        operation: operationOf(route),
        keyed: route.access !== 'public',
        permission: route.access !== 'public' && route.access !== 'key',
        statuses: [...new Set(errorCodesOf(route).map((code) => String(statusOf(code))))].filter((status) => status !== '500').sort(),
      }));
      const documented = [...operations].map(([operation, { security, responses }]) => ({
        operation,
        keyed: security === undefined,
        permission: (responses['401']?.['x-lnpr-error-codes'] ?? []).includes('insufficient_permission') as boolean,
        statuses: Object.keys(responses).filter((status) => /^[45]/.test(status) && status !== '500').sort(),
      }));
      expect(documented.filter(({ keyed }) => !keyed).length).toBeGreaterThan(1);
      expect(byOperation(documented)).toEqual(byOperation(declared));

      // The engine holds to the declarations: whatever 4xx a probe gets, the operation documents
      // with that code (no key, a key without permissions, a full key; unknown ids in the path,
      // a body that is not JSON or not sent as JSON, an empty object, an unknown query parameter).
      const unexpected: string[] = [];
      for (const route of sandbox.routes) {
        const responses = operations.get(operationOf(route))!.responses as Json;
        const bodies: Array<{ body?: string; type?: string }> = route.body ? [{ body: '{', type: 'application/json' }, { body: '{}' }, { body: '{}', type: 'application/json' }] : [{}];
        for (const key of [undefined, 'sk_test_no_permission', 'sk_test_custodial']) {
          for (const query of ['', '?unknown=1']) {
            for (const { body, type } of bodies) {
              const headers = { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(type ? { 'content-type': type } : {}) };
              const answer = await sandbox.handle({ method: route.method, url: concrete(route.path) + query, headers, ...(body === undefined ? {} : { body }) });
              if (answer.status < 400 || answer.status >= 500) continue;
              const code = (JSON.parse(answer.body) as Json).error.code as string;
              if (!(responses[String(answer.status)]?.['x-lnpr-error-codes'] ?? []).includes(code)) unexpected.push(`${operationOf(route)}${query} (key ${key}, body ${body}): ${answer.status} ${code}`);
            }
          }
        }
      }
      expect(unexpected, 'answers the declarations (and so the document) do not have').toEqual([]);
    } finally {
      sandbox.close();
    }
  });
});

describe('lnpr openapi', () => {
  it('prints the document as pretty JSON; with no server given, the very document GET /openapi.json serves ("/")', async () => {
    const cli = runCli(['openapi'], { PORT: '', HOST: '' });
    expect(await cli.exited).toBe(0);
    const { stdout } = cli.output();
    expect(stdout).toMatch(/^\{\n {2}"openapi": "3\.1\.0",/);
    expect(JSON.parse(stdout)).toEqual(openApiDocumentOf(DEFAULT_SETTINGS));
    expect(JSON.parse(stdout).servers[0].url).toBe('/');
  });

  it('--port (or PORT) names the server lnpr serve would be on', async () => {
    for (const [args, env, url] of [
      [['--port', '9000'], {}, 'http://127.0.0.1:9000'],
      [[], { PORT: '9100' }, 'http://127.0.0.1:9100'],
      [['--host', '0.0.0.0'], {}, 'http://0.0.0.0:8787'],
    ] as const) {
      const cli = runCli(['openapi', ...args], { PORT: '', HOST: '', ...env });
      expect(await cli.exited, cli.output().stderr).toBe(0);
      expect(JSON.parse(cli.output().stdout).servers[0].url).toBe(url);
    }
  });

  it('--output FILE with the serve flags that change the document', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lnpr-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      const cli = runCli(['openapi', '--output', file, '--no-controls', '--min-amount', '1', '--server-url', 'https://sandbox.example.test/']);
      expect(await cli.exited).toBe(0);
      expect(cli.output().stdout).toBe('');
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(
        openApiDocumentOf(resolveSettings({ controls: false, minAmount: 1 }), { serverUrl: 'https://sandbox.example.test' }),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('bad usage exits 2 with a message', async () => {
    const runs = [['--min-amount', '0'], ['--server-url', 'ftp://x'], ['--bogus'], ['extra']].map((args) => ({ args, cli: runCli(['openapi', ...args]) }));
    for (const { args, cli } of runs) {
      expect(await cli.exited, args.join(' ')).toBe(2);
      expect(cli.output().stderr, args.join(' ')).toMatch(/^lnpr: /);
    }
  });
});
