/**
 * Where webhooks may go when the sandbox listens beyond loopback, through the real server and the
 * node:http sender. The policy is the one `lnpr serve --host 0.0.0.0` builds from its flags, given
 * to a server that listens on 127.0.0.1 only: every connection here is to a loopback address of
 * this machine, and the tests assert which of them were (not) made.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serveWebhooks } from '../src/cli/serve-webhooks.js';
import { addressRefusal } from '../src/core/webhooks/address-policy.js';
import type { WebhookAddressPolicy } from '../src/core/settings.js';
import type { WebhookRequest } from '../src/core/webhooks/webhook-sender.js';
import { createFetchWebhookSender } from '../src/webhook-sender/fetch-webhook-sender.js';
import { createHttpWebhookSender, type HostResolver } from '../src/webhook-sender/http-webhook-sender.node.js';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

/** A listener that only counts the connections it gets (it answers 204 to any request). */
interface CountingListener {
  url: string;
  port: number;
  connections: number;
  close(): Promise<void>;
}

async function countingListener(host: string, port = 0): Promise<CountingListener> {
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  const listener = { url: '', port: 0, connections: 0, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  server.on('connection', (socket) => {
    listener.connections += 1;
    socket.unref();
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  listener.port = (server.address() as AddressInfo).port;
  listener.url = `http://${host}:${listener.port}/hooks`;
  return listener;
}

/** The policy of `lnpr serve --host 0.0.0.0` with these flags. */
const beyondLoopback = (flags: Parameters<typeof serveWebhooks>[0]): WebhookAddressPolicy => serveWebhooks(flags, '0.0.0.0', undefined).addressPolicy;

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function serverWith(policy: WebhookAddressPolicy, resolve?: HostResolver): Promise<RunningServer> {
  const sender = createHttpWebhookSender(resolve ? { resolve } : {});
  const server = await startServer({ clock: 'frozen', settings: { webhookAllowedHosts: policy }, webhookSender: sender });
  closers.push(async () => {
    await server.close();
    sender.close();
  });
  return server;
}

async function receiver(): Promise<WebhookReceiver> {
  const started = await startReceiver();
  closers.push(() => started.close());
  return started;
}

const register = (server: RunningServer, url: string) => server.api('/sandbox/v1/webhook-endpoints', { body: { url } });
/** The first attempts, newest first (a failed one is followed by a pending retry, on a frozen clock never made). */
const firstAttempts = async (server: RunningServer) =>
  ((await server.api('/sandbox/v1/webhook-deliveries')).body.data as Array<Record<string, any>>).filter((delivery) => delivery.attempt === 1);

describe('--webhook URL beyond loopback allows exactly its origin', () => {
  it('the same origin registers; another port of the host, :22, and localhost are refused at registration', async () => {
    const hooks = await receiver();
    const { port } = new URL(hooks.url);
    const server = await serverWith(beyondLoopback({ webhook: [hooks.url] }));
    expect((await register(server, `http://127.0.0.1:${port}/another/path`)).status).toBe(201);
    for (const url of [`http://127.0.0.1:${Number(port) + 1}/x`, 'http://127.0.0.1:22/', `http://localhost:${port}/x`, `https://127.0.0.1:${port}/x`, 'http://[::1]:22/', 'http://2130706433:22/']) {
      const refused = await register(server, url);
      expect(refused.status, url).toBe(400);
      expect(refused.body.error.details, url).toEqual([expect.objectContaining({ field: 'url', code: 'host_not_allowed', message: expect.stringMatching(/^address not allowed: \S+ \(loopback\)/) })]);
    }
    // Its deliveries go.
    const pr = await server.create();
    const [delivery] = await hooks.waitFor(1);
    expect(delivery!.event.data.id).toBe(pr.id);
  });

  it('an endpoint already stored with a refused address fails each attempt with the reason, and no connection is made', async () => {
    const target = await countingListener('127.0.0.1');
    closers.push(() => target.close());
    const server = await serverWith(beyondLoopback({}));
    // As one registered while the sandbox listened on loopback, before a restart beyond it.
    await server.sandbox.events.endpoints.ensure('acct_custodial', { url: target.url });
    await server.create();
    await server.sandbox.events.settle();
    const [attempt] = await firstAttempts(server);
    expect(attempt).toMatchObject({ status: 'failed', responseStatus: null, error: 'address not allowed: 127.0.0.1 (loopback)' });
    expect(target.connections).toBe(0);
  });
});

describe('a name is checked at each attempt, on what it resolves to then', () => {
  it('a name registers; resolving to a refused address, its attempt fails without a connection', async () => {
    const target = await countingListener('127.0.0.1');
    closers.push(() => target.close());
    const resolved: string[] = [];
    const server = await serverWith(beyondLoopback({}), async (hostname) => {
      resolved.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    });
    expect((await register(server, `http://receiver.test:${target.port}/hooks`)).status).toBe(201);
    await server.create();
    await server.sandbox.events.settle();
    const [attempt] = await firstAttempts(server);
    expect(attempt).toMatchObject({ status: 'failed', responseStatus: null, error: 'address not allowed: 127.0.0.1 (loopback), which receiver.test resolves to' });
    expect(resolved).toEqual(['receiver.test']);
    expect(target.connections).toBe(0);
  });

  it('a name that first resolves to an allowed address and later to 127.0.0.2: the later attempt is refused, 127.0.0.2 never connected to', async () => {
    // 127.0.0.1 is allowed (--webhook-allow-host), so the first answer is delivered; 127.0.0.2 is not.
    const allowed = await receiver();
    const port = Number(new URL(allowed.url).port);
    const later = await countingListener('127.0.0.2', port);
    closers.push(() => later.close());
    const answers = ['127.0.0.1', '127.0.0.2'];
    let calls = 0;
    const server = await serverWith(beyondLoopback({ 'webhook-allow-host': ['127.0.0.1'] }), async () => [{ address: answers[Math.min(calls++, 1)]!, family: 4 }]);
    const endpoint = (await register(server, `http://hooks.test:${port}/hooks`)).body;
    allowed.secret = endpoint.secret;
    const pr = await server.create();
    const [first] = await allowed.waitFor(1);
    expect(first!.verified).toBe(true);
    await server.sandbox.events.settle();
    await server.api(`/sandbox/v1/payment-requests/${pr.id}/complete`, { method: 'POST' });
    await server.sandbox.events.settle();
    const [completed, created] = await firstAttempts(server);
    expect(created).toMatchObject({ status: 'succeeded', responseStatus: 204 });
    expect(completed).toMatchObject({ status: 'failed', responseStatus: null, error: 'address not allowed: 127.0.0.2 (loopback), which hooks.test resolves to' });
    expect(calls).toBe(2);
    expect(allowed.received).toHaveLength(1);
    expect(later.connections).toBe(0);
  });

  it('the node:http sender with the system resolver: localhost resolves to loopback, refused before any connection', async () => {
    const target = await countingListener('127.0.0.1');
    closers.push(() => target.close());
    const sender = createHttpWebhookSender();
    closers.push(async () => sender.close());
    const strict: WebhookAddressPolicy = { allowedOrigins: [], allowedHosts: [] };
    const request: WebhookRequest = { url: `http://localhost:${target.port}/hooks`, headers: {}, body: '{}', timeoutMs: 2_000, checkAddress: (address) => addressRefusal(address, strict) };
    const answer = await sender.send(request, new AbortController().signal);
    expect(answer).toEqual({ error: expect.stringMatching(/^address not allowed: (127\.0\.0\.1|::1) \(loopback\), which localhost resolves to$/), durationMs: expect.any(Number) });
    expect(target.connections).toBe(0);
    // Without a check (an open policy) the same request is delivered.
    const { checkAddress: _unchecked, ...open } = request;
    expect(await sender.send({ ...open, url: target.url }, new AbortController().signal)).toMatchObject({ status: 204 });
    expect(target.connections).toBe(1);
  });
});

describe('the fetch sender', () => {
  it('cannot see what a name resolves to, so it refuses an attempt that asks for the check, without fetching', async () => {
    let fetched = 0;
    const sender = createFetchWebhookSender(async () => {
      fetched += 1;
      return new Response(null, { status: 204 });
    });
    const strict: WebhookAddressPolicy = { allowedOrigins: [], allowedHosts: [] };
    const request: WebhookRequest = { url: 'http://hooks.example/x', headers: {}, body: '{}', timeoutMs: 1_000, checkAddress: (address) => addressRefusal(address, strict) };
    expect(await sender.send(request, new AbortController().signal)).toEqual({ error: expect.stringMatching(/^cannot check what hooks.example resolves to with fetch/), durationMs: 0 });
    expect(fetched).toBe(0);
  });
});

describe('redirects', () => {
  it('are not followed: a 3xx is the answer, and a failure', async () => {
    const elsewhere = await countingListener('127.0.0.1');
    closers.push(() => elsewhere.close());
    const hooks = await receiver();
    hooks.answer = () => ({ status: 307, headers: { location: elsewhere.url } });
    const server = await serverWith('any');
    expect((await register(server, hooks.url)).status).toBe(201);
    await server.create();
    await hooks.waitFor(1);
    await server.sandbox.events.settle();
    expect((await firstAttempts(server))[0]).toMatchObject({ status: 'failed', responseStatus: 307, error: 'the receiver answered 307' });
    expect(elsewhere.connections).toBe(0);
  });
});

describe('lnpr serve\'s flags', () => {
  it('build the policy: loopback is open; beyond it, the --webhook origins (and the accounts file\'s) and the allowed hosts', () => {
    expect(serveWebhooks({ webhook: ['http://127.0.0.1:9/x'] }, '127.0.0.1', undefined).addressPolicy).toBe('any');
    expect(serveWebhooks({}, 'localhost', undefined).addressPolicy).toBe('any');
    expect(serveWebhooks({ 'webhook-allow-host': ['*'] }, '0.0.0.0', undefined).addressPolicy).toBe('any');
    const accounts = { accounts: [{ id: 'acct_x', mode: 'custodial', webhooks: [{ url: 'https://10.1.2.3/hooks' }] }], keys: [] } as never;
    expect(serveWebhooks({ webhook: ['http://127.0.0.1:9/x', 'HTTP://LOCALHOST:80/y'], 'webhook-allow-host': ['Hooks.Internal', '::1'] }, '::', accounts).addressPolicy).toEqual({
      allowedOrigins: ['http://127.0.0.1:9', 'http://localhost', 'https://10.1.2.3'],
      allowedHosts: ['hooks.internal', '::1'],
    });
    expect(() => serveWebhooks({ 'webhook-allow-host': ['hooks.internal:8080'] }, '0.0.0.0', undefined)).toThrow(/--webhook-allow-host hooks.internal:8080: needs a host name or address, without a port/);
  });

  it('keys of another account see the same rules', async () => {
    const server = await serverWith(beyondLoopback({}));
    expect((await server.api('/sandbox/v1/webhook-endpoints', { key: KEYS.nwc, body: { url: 'http://169.254.169.254/latest' } })).body.error.details[0].message).toMatch(/^address not allowed: 169.254.169.254 \(metadata\)/);
  });
});
