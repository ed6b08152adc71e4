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
import { DEFAULT_SETTINGS, resolveSettings } from '../src/core/settings.js';
import { createHandlers } from '../src/msw/index.node.js';
import { buildOpenApiDocument } from '../src/openapi/index.js';
import { createSandbox } from '../src/sandbox.js';
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
    expect(res.body).toEqual(buildOpenApiDocument(server.sandbox.settings));
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
      const routes = sandbox.routes.map(({ method, pattern }) => `${method} ${pattern.replace(/:(\w+)/g, '{$1}')}`).sort();
      const documented = operationsOf(buildOpenApiDocument(sandbox.settings));
      // Named both ways round, so the failure says what to add where.
      expect(routes.filter((route) => !documented.includes(route)), 'routes the OpenAPI document lacks (add them to src/openapi/document.ts)').toEqual([]);
      expect(documented.filter((operation) => !routes.includes(operation)), 'operations of the document no route serves').toEqual([]);
      expect(routes.length).toBeGreaterThan(controls ? 20 : 4);
    } finally {
      sandbox.close();
    }
  });

  it('the route table is read-only data', () => {
    const sandbox = createSandbox();
    try {
      expect(Object.isFrozen(sandbox.routes[0])).toBe(true);
      expect(Object.keys(sandbox.routes[0]!).sort()).toEqual(['method', 'pattern']);
    } finally {
      sandbox.close();
    }
  });
});

describe('lnpr openapi', () => {
  it('prints the document as pretty JSON, naming the default server', async () => {
    const cli = runCli(['openapi']);
    expect(await cli.exited).toBe(0);
    const { stdout } = cli.output();
    expect(stdout).toMatch(/^\{\n {2}"openapi": "3\.1\.0",/);
    expect(JSON.parse(stdout)).toEqual(buildOpenApiDocument(DEFAULT_SETTINGS, { serverUrl: 'http://127.0.0.1:8787' }));
  });

  it('--output FILE with the serve flags that change the document', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lnpr-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      const cli = runCli(['openapi', '--output', file, '--no-controls', '--min-amount', '1', '--server-url', 'https://sandbox.example.test/']);
      expect(await cli.exited).toBe(0);
      expect(cli.output().stdout).toBe('');
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(
        buildOpenApiDocument(resolveSettings({ controls: false, minAmount: 1 }), { serverUrl: 'https://sandbox.example.test' }),
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
