/** What the Fastify transport adds around the engine: CORS, logging without keys, malformed HTTP. */
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../src/http/server.js';
import { createSandbox } from '../src/index.node.js';
import { api, createBody, KEYS } from './support/sandbox-server.js';

let logs = '';
let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const sandbox = createSandbox();
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logs += chunk.toString();
      done();
    },
  });
  const app = await buildServer({ handle: sandbox.handle, logger: { level: 'trace', stream } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = app.listeningOrigin;
  close = () => app.close();
});
afterAll(() => close());

describe('CORS', () => {
  it('answers a preflight with 204 and the asked-for method and headers', async () => {
    const res = await fetch(`${url}/api/v1/payment-requests`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.test');
    expect(res.headers.get('access-control-allow-methods')).toBe('POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
  });

  it('lets the browser read responses, Location included', async () => {
    const res = await api(url, '/api/v1/payment-requests', { body: createBody(), headers: { origin: 'http://app.test' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.test');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/location/i);
  });

  it('leaves a plain OPTIONS (no preflight) to the engine: JSON 405', async () => {
    const res = await api(url, '/api/v1/payment-requests', { method: 'OPTIONS' });
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('method_not_allowed');
  });
});

describe('logging', () => {
  it('logs requests at trace level without ever writing an API key', async () => {
    for (const key of Object.values(KEYS)) {
      await api(url, '/api/v1/payment-requests', { key, body: createBody() });
      await api(url, '/api/v1/payment-requests/pr_x', { key });
    }
    await api(url, '/api/v1/payment-requests', { key: 'sk_test_secret_unknown', rawBody: '{bad' });
    expect(logs).toContain('"statusCode":201');
    for (const key of [...Object.values(KEYS), 'sk_test_secret_unknown']) expect(logs).not.toContain(key);
  });
});

describe('malformed HTTP', () => {
  it('answers a request line it cannot parse with a JSON 400 and closes', async () => {
    const reply = await rawExchange('GARBAGE\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4));
    expect(body.error.code).toBe('invalid_request');
  });
});

function rawExchange(text: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    let reply = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    socket.on('data', (chunk) => (reply += chunk.toString()));
    socket.on('end', () => resolve(reply));
    socket.on('error', reject);
  });
}
