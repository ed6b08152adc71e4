/**
 * Who may drive a sandbox over HTTP (CONTRACT "Browsers and the network"), without a browser:
 * the `Host` check (421 `misdirected_request`, against DNS rebinding) on every path, and CORS by
 * path family: the v1 API open to any origin, the control surface (`/sandbox/v1`, the pages'
 * calls, the live streams) to the sandbox's own origin, loopback origins and the given ones only,
 * a request there from any other origin refused (403 `origin_not_allowed`) before it does
 * anything. Then the `lnpr serve` flags: `--public-url`, `--cors-origin`, `--no-cors`.
 * Every request goes to 127.0.0.1; the names are only ever sent as headers.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildServer } from '../src/http/server.js';
import { webPagesOf } from '../src/http/web-pages.js';
import type { RequestRecord } from '../src/http/request-log.js';
import { createNodeSandbox } from '../src/sandbox.node.js';
import type { Sandbox } from '../src/sandbox.js';
import { runCli, startCliServer } from './support/cli-process.js';
import { socketRequest } from './support/raw-http.js';
import { createBody, KEYS } from './support/sandbox-server.js';

/** A server of the test's own, with what it logged. */
interface TestServer {
  url: string;
  port: number;
  sandbox: Sandbox;
  records: RequestRecord[];
  close(): Promise<void>;
}

async function start(options: { cors?: boolean; publicUrl?: string; corsOrigins?: string[]; hostNames?: string[] } = {}): Promise<TestServer> {
  const sandbox = await createNodeSandbox({ clock: 'frozen' });
  const records: RequestRecord[] = [];
  const app = await buildServer({ handle: sandbox.handle, web: webPagesOf(sandbox), requestLog: (record) => records.push(record), ...options });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = app.listeningOrigin;
  return {
    url,
    port: Number(new URL(url).port),
    sandbox,
    records,
    async close() {
      await app.close();
      sandbox.close();
      await sandbox.store.close();
    },
  };
}

interface Sent {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Abort after the response head (for streams). */
  headOnly?: boolean;
}
interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

/** One request to 127.0.0.1 with exactly these headers (Host included, when given). */
function send(server: TestServer, path: string, { method = 'GET', headers = {}, body, headOnly = false }: Sent = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: server.port, method, path, headers, agent: false, timeout: 5_000 }, (response) => {
      let text = '';
      if (headOnly) {
        resolve({ status: response.statusCode!, headers: response.headers, text, json: undefined });
        request.destroy();
        return;
      }
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode!, headers: response.headers, text, json });
      });
    });
    request.on('timeout', () => request.destroy(new Error(`no answer to ${method} ${path} within 5 s`)));
    request.on('error', reject);
    request.end(body);
  });
}

const auth = (key: string = KEYS.custodial) => ({ authorization: `Bearer ${key}` });
const json = { 'content-type': 'application/json' };

let server: TestServer;
beforeAll(async () => {
  server = await start({ corsOrigins: ['https://app.example:8443'] });
});
afterAll(() => server.close());
beforeEach(async () => {
  expect((await send(server, '/sandbox/v1/reset', { method: 'POST', headers: auth() })).status).toBe(204);
});

describe('Host: only names this sandbox serves (no DNS rebinding)', () => {
  it('accepts the listening address, localhost (any case, any port, none) and a request without Host', async () => {
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, 'localhost', 'LocalHost:1', '127.0.0.1', 'localhost.:80']) {
      expect((await send(server, '/healthz', { headers: { host } })).status, host).toBe(200);
    }
    // HTTP/1.0 needs no Host; a browser always sends one.
    const bare = await socketRequest(server.url, 'GET /healthz HTTP/1.0');
    expect(bare.status).toBe(200);
  });

  it('refuses any other name or address with 421 misdirected_request on every path, before anything runs', async () => {
    const pr = (await send(server, '/api/v1/payment-requests', { method: 'POST', headers: { ...auth(), ...json }, body: JSON.stringify(createBody()) })).json;
    const paths: Array<[string, string, Record<string, string>?, string?]> = [
      ['GET', '/healthz'],
      ['GET', '/openapi.json'],
      ['GET', `/api/v1/payment-requests/${pr.id}`, auth()],
      ['POST', '/api/v1/payment-requests', { ...auth(), ...json }, JSON.stringify(createBody())],
      ['POST', '/sandbox/v1/reset', auth()],
      ['POST', `/sandbox/v1/payment-requests/${pr.id}/complete`, auth()],
      ['GET', '/dashboard'],
      ['GET', '/'],
      ['GET', `/pay/${pr.id}`],
      ['GET', '/assets/dashboard.js'],
      ['GET', '/sandbox/v1/stream', auth()],
      ['GET', `/pay/${pr.id}/stream`],
      ['GET', '/no/such/path'],
      ['OPTIONS', '/api/v1/payment-requests', { origin: 'http://evil.test', 'access-control-request-method': 'POST' }],
    ];
    for (const host of [`evil.test:${server.port}`, 'evil.test', '127.0.0.1.evil.test', `[::1]:${server.port}`, '10.0.0.5', 'localhost.evil.test']) {
      for (const [method, path, headers, body] of paths) {
        const res = await send(server, path, { method, headers: { ...headers, host }, ...(body !== undefined ? { body } : {}) });
        expect(res.status, `${method} ${path} with Host ${host}`).toBe(421);
        expect(res.json).toEqual({ error: { code: 'misdirected_request', message: expect.stringContaining('--public-url') } });
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    }
    // An empty Host names nothing (node:http would fill one in); a URL Fastify cannot decode is screened too.
    expect((await socketRequest(server.url, 'GET /healthz HTTP/1.1\r\nHost: ')).json).toMatchObject({ error: { code: 'misdirected_request' } });
    expect((await socketRequest(server.url, 'GET /pay/%zz HTTP/1.1\r\nHost: evil.test')).json).toMatchObject({ error: { code: 'misdirected_request' } });
    expect((await socketRequest(server.url, `GET /pay/%zz HTTP/1.1\r\nHost: localhost`)).json).toMatchObject({ error: { code: 'route_not_found' } });
    // Nothing ran: the request is still pending, and it is still the only one.
    const list = await send(server, '/sandbox/v1/payment-requests', { headers: auth() });
    expect(list.json.data.map((p: any) => [p.id, p.status])).toEqual([[pr.id, 'pending']]);
  });

  it('logs a refused page request once', async () => {
    server.records.length = 0;
    expect((await send(server, '/dashboard', { headers: { host: 'evil.test' } })).status).toBe(421);
    expect((await send(server, '/api/v1/payment-requests', { headers: { host: 'evil.test' } })).status).toBe(421);
    await until(() => server.records.length >= 2);
    expect(server.records.map((r) => [r.url, r.statusCode])).toEqual([
      ['/dashboard', 421],
      ['/api/v1/payment-requests', 421],
    ]);
  });

  it('accepts the host of publicUrl (any port) and the given names, nothing else', async () => {
    const proxied = await start({ publicUrl: 'https://sandbox.team.example', hostNames: ['my-laptop.lan'] });
    try {
      for (const host of ['sandbox.team.example', 'sandbox.team.example:443', 'SANDBOX.team.example:8080', 'my-laptop.lan:8787', 'localhost']) {
        expect((await send(proxied, '/healthz', { headers: { host } })).status, host).toBe(200);
      }
      for (const host of ['team.example', 'evil.sandbox.team.example', 'sandbox.team.example.evil.test']) {
        expect((await send(proxied, '/healthz', { headers: { host } })).status, host).toBe(421);
      }
    } finally {
      await proxied.close();
    }
  });
});

describe('CORS by path family', () => {
  const FOREIGN = ['http://evil.test', 'https://localhost:3000', 'http://localhost.evil.test', 'http://127.0.0.1.evil.test:80', 'null', 'http://app.example:8443', 'https://app.example'];
  const ALLOWED = () => [server.url, 'http://localhost:3000', 'http://localhost', 'http://127.0.0.1:5173', 'http://[::1]:8080', 'https://app.example:8443'];

  it('/api/v1, /healthz and /openapi.json answer any origin, preflights included', async () => {
    for (const origin of [...FOREIGN.slice(0, 2), ...ALLOWED()]) {
      const created = await send(server, '/api/v1/payment-requests', { method: 'POST', headers: { ...auth(), ...json, origin }, body: JSON.stringify(createBody()) });
      expect(created.status).toBe(201);
      expect(created.headers['access-control-allow-origin']).toBe(origin);
      expect(created.headers.vary).toMatch(/origin/i);
      for (const path of ['/healthz', '/openapi.json']) expect((await send(server, path, { headers: { origin } })).headers['access-control-allow-origin']).toBe(origin);
      const preflight = await send(server, '/api/v1/payment-requests', {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-headers']).toBe('authorization, content-type');
    }
  });

  it('refuses a foreign origin on /sandbox/v1 with 403 origin_not_allowed and no CORS header: reads, writes, simple requests and preflights', async () => {
    const pr = (await send(server, '/api/v1/payment-requests', { method: 'POST', headers: { ...auth(), ...json }, body: JSON.stringify(createBody()) })).json;
    const textPlain = { 'content-type': 'text/plain' };
    for (const origin of FOREIGN) {
      const attempts: Array<[string, string, Record<string, string>, string?]> = [
        ['GET', '/sandbox/v1/events', auth()],
        ['GET', `/sandbox/v1/pay-page/${pr.id}`, {}],
        ['GET', '/sandbox/v1/clock', auth()],
        ['POST', '/sandbox/v1/webhook-endpoints', { ...auth(), ...json }, JSON.stringify({ url: 'http://127.0.0.1:9/hook' })],
        ['POST', '/sandbox/v1/webhook-endpoints', { ...auth(), ...textPlain }, JSON.stringify({ url: 'http://127.0.0.1:9/hook' })],
        ['POST', '/sandbox/v1/reset', { ...auth(), ...textPlain }, '{}'],
        // Keyless: only the Origin check stops a form on another site from paying it.
        ['POST', `/sandbox/v1/pay-page/${pr.id}/pay`, textPlain, ''],
        ['POST', `/sandbox/v1/payment-requests/${pr.id}/complete`, auth()],
        ['OPTIONS', '/sandbox/v1/reset', { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' }],
        ['GET', '/dashboard', {}],
      ];
      for (const [method, path, headers, body] of attempts) {
        const res = await send(server, path, { method, headers: { ...headers, origin }, ...(body !== undefined ? { body } : {}) });
        expect(res.status, `${method} ${path} from ${origin}`).toBe(403);
        expect(res.json).toEqual({ error: { code: 'origin_not_allowed', message: expect.any(String) } });
        expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
      }
    }
    // Nothing happened.
    expect((await send(server, `/api/v1/payment-requests/${pr.id}`, { headers: auth() })).json.status).toBe('pending');
    expect((await send(server, '/sandbox/v1/webhook-endpoints', { headers: auth() })).json.data).toEqual([]);
    expect((await send(server, '/sandbox/v1/payment-requests', { headers: auth() })).json.data).toHaveLength(1);
  });

  it("answers the sandbox's own origin, loopback origins and --cors-origin ones on /sandbox/v1, preflights included", async () => {
    for (const origin of ALLOWED()) {
      const clock = await send(server, '/sandbox/v1/clock', { headers: { ...auth(), origin } });
      expect(clock.status, origin).toBe(200);
      expect(clock.headers['access-control-allow-origin']).toBe(origin);
      const preflight = await send(server, '/sandbox/v1/webhook-endpoints', {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(origin);
      expect(preflight.headers['access-control-allow-methods']).toBe('POST');
    }
    const registered = await send(server, '/sandbox/v1/webhook-endpoints', {
      method: 'POST',
      headers: { ...auth(), ...json, origin: 'https://app.example:8443' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook' }),
    });
    expect(registered.status).toBe(201);
    await send(server, `/sandbox/v1/webhook-endpoints/${registered.json.id}`, { method: 'DELETE', headers: auth() });
  });

  it('the same for the live streams: a foreign origin is refused, an allowed one gets its CORS headers', async () => {
    const pr = (await send(server, '/api/v1/payment-requests', { method: 'POST', headers: { ...auth(), ...json }, body: JSON.stringify(createBody()) })).json;
    for (const path of ['/sandbox/v1/stream', `/pay/${pr.id}/stream`]) {
      const refused = await send(server, path, { headers: { ...auth(), origin: 'http://evil.test' } });
      expect(refused.status).toBe(403);
      expect(refused.json.error.code).toBe('origin_not_allowed');
      const allowed = await send(server, path, { headers: { ...auth(), origin: 'http://localhost:3000' }, headOnly: true });
      expect(allowed.status).toBe(200);
      expect(allowed.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    }
  });

  it('takes the origin of publicUrl as its own', async () => {
    const proxied = await start({ publicUrl: 'https://sandbox.team.example/' });
    try {
      const host = { host: 'sandbox.team.example' };
      expect((await send(proxied, '/sandbox/v1/clock', { headers: { ...auth(), ...host, origin: 'https://sandbox.team.example' } })).status).toBe(200);
      expect((await send(proxied, '/sandbox/v1/clock', { headers: { ...auth(), ...host, origin: 'https://sandbox.team.example:8443' } })).status).toBe(403);
      // Its own origin as reached: http and the Host it was sent.
      expect((await send(proxied, '/sandbox/v1/clock', { headers: { ...auth(), ...host, origin: 'http://sandbox.team.example' } })).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  it('cors: false (--no-cors) sends no CORS header anywhere, leaves preflights to the engine, and still refuses foreign origins on /sandbox/v1', async () => {
    const bare = await start({ cors: false });
    try {
      const created = await send(bare, '/api/v1/payment-requests', { method: 'POST', headers: { ...auth(), ...json, origin: 'http://evil.test' }, body: JSON.stringify(createBody()) });
      expect(created.status).toBe(201);
      expect(created.headers['access-control-allow-origin']).toBeUndefined();
      const preflight = await send(bare, '/api/v1/payment-requests', { method: 'OPTIONS', headers: { origin: 'http://evil.test', 'access-control-request-method': 'POST' } });
      expect(preflight.status).toBe(405);
      expect((await send(bare, '/sandbox/v1/clock', { headers: { ...auth(), origin: 'http://localhost:3000' } })).headers['access-control-allow-origin']).toBeUndefined();
      const refused = await send(bare, '/sandbox/v1/reset', { method: 'POST', headers: { ...auth(), origin: 'http://evil.test' } });
      expect(refused.status).toBe(403);
    } finally {
      await bare.close();
    }
  });
});

describe('lnpr serve --public-url, --cors-origin', () => {
  it('accepts the public host and origin, and the --cors-origin origins', async () => {
    const cli = await startCliServer(['--public-url', 'http://sandbox.lan:9000', '--cors-origin', 'http://shop.test:3000', '--cors-origin', 'https://app.example']);
    try {
      expect(cli.output().stdout).toContain('public URL: http://sandbox.lan:9000');
      expect(cli.output().stdout).toContain('dashboard: http://sandbox.lan:9000/dashboard');
      const port = Number(new URL(cli.url).port);
      const target = { port } as TestServer;
      expect((await send(target, '/healthz', { headers: { host: 'sandbox.lan:9000' } })).status).toBe(200);
      expect((await send(target, '/healthz', { headers: { host: 'evil.test:9000' } })).status).toBe(421);
      for (const origin of ['http://sandbox.lan:9000', 'http://shop.test:3000', 'https://app.example']) {
        const res = await send(target, '/sandbox/v1/clock', { headers: { ...auth(), origin } });
        expect(res.status, origin).toBe(200);
        expect(res.headers['access-control-allow-origin']).toBe(origin);
      }
      expect((await send(target, '/sandbox/v1/clock', { headers: { ...auth(), origin: 'http://shop.test:3001' } })).status).toBe(403);
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  });

  it.each([
    [['--public-url', 'sandbox.lan:9000'], /--public-url must be an http\(s\) origin/],
    [['--public-url', 'https://sandbox.lan/prefix'], /--public-url must be an http\(s\) origin/],
    [['--cors-origin', '*'], /--cors-origin must be an http\(s\) origin/],
    [['--cors-origin', 'ftp://files.example'], /--cors-origin must be an http\(s\) origin/],
  ])('refuses %j with exit 2 and a message', async (flags, message) => {
    const cli = runCli(['serve', ...flags]);
    expect(await cli.exited).toBe(2);
    expect(cli.output().stderr).toMatch(message);
  });
});

async function until(check: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}
