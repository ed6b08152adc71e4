/**
 * The request log through a real socket: the API's answers are logged as the transport sends
 * them (errors Fastify raises before the engine included), the pages by the log controller, each
 * once, as JSON that parses back to the exact URL however odd.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../index.node.js';
import { createLogOutput } from './log-output.js';
import { buildServer } from './server.js';
import { webPagesOf } from './web-pages.js';

const KEY = 'Bearer sk_test_custodial';
const written: string[] = [];
const log = createLogOutput({ level: 'info', format: 'json', destination: { write: (text) => written.push(text) } });
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const sandbox = createSandbox();
  const app = await buildServer({ handle: sandbox.handle, bodyLimit: 4096, logger: log.logger, requestLog: log.requestLog, web: webPagesOf(sandbox) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = app.listeningOrigin;
  close = async () => {
    await app.close();
    sandbox.close();
  };
});
afterAll(() => close());

/** The request records written so far. */
function records(): Array<Record<string, unknown>> {
  log.flush();
  return written
    .join('')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.msg === 'request completed');
}

describe('the request log of the Fastify transport', () => {
  it('logs every answer once: the API, errors raised before the engine, preflights and pages', async () => {
    const body = JSON.stringify({ amount: 1000, description: 'Coffee', destinationWallet: 'merchant@example.com' });
    const created = await fetch(`${url}/api/v1/payment-requests`, { method: 'POST', headers: { authorization: KEY, 'content-type': 'application/json' }, body });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const answers: Array<[string, RequestInit, number]> = [
      [`/api/v1/payment-requests/${id}/status`, { headers: { authorization: KEY } }, 200],
      ['/api/v1/payment-requests', { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(5000) }, 413],
      ['/api/v1/payment-requests', { method: 'OPTIONS', headers: { origin: 'http://app.test', 'access-control-request-method': 'POST' } }, 204],
      ['/dashboard', {}, 200],
    ];
    for (const [path, init, status] of answers) expect((await fetch(url + path, init)).status).toBe(status);

    const logged = records().map((r) => [r.method, r.url, r.statusCode, r.paymentRequestId]);
    expect(logged).toEqual([
      ['POST', '/api/v1/payment-requests', 201, id],
      ['GET', `/api/v1/payment-requests/${id}/status`, 200, id],
      ['POST', '/api/v1/payment-requests', 413, undefined],
      ['OPTIONS', '/api/v1/payment-requests', 204, undefined],
      ['GET', '/dashboard', 200, undefined],
    ]);
    for (const record of records()) {
      expect(record.level).toBe(30);
      expect(record.responseTime).toBeTypeOf('number');
      expect(record.responseTime as number).toBeGreaterThan(0);
    }
  });

  it('writes a URL that needs escaping as valid JSON that reads back the same', async () => {
    written.length = 0;
    // Sent as is (fetch would percent-encode the quote and turn the backslash into a slash).
    const odd = '/api/v1/x"y\\z';
    expect(await rawStatusLine(`GET ${odd} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 404/);
    expect(records().map((r) => r.url)).toEqual([odd]);
  });
});

/** Sends `text` over a new connection; resolves with the answer's first line. */
function rawStatusLine(text: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer.split('\r\n', 1)[0]!));
    socket.on('error', reject);
  });
}
