/**
 * The request log's parts without a server: which payment request a line names, the formats,
 * the batching, and what a crash leaves written.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BatchedOutput } from '../src/http/batched-output.js';
import { createLogOutput } from '../src/http/log-output.js';
import { prettyLine, prettyRequestLine } from '../src/http/pretty-log.js';
import { paymentRequestIdOf } from '../src/http/request-log.js';

const ID = 'pr_0123456789ABCDEFGHIJabcd';

/** A destination that keeps every chunk written to it. */
function sink(): { chunks: string[]; write(text: string): void } {
  const chunks: string[] = [];
  return { chunks, write: (text) => chunks.push(text) };
}

describe('paymentRequestIdOf', () => {
  it.each([
    ['a payment request', `{"id":"${ID}","status":"pending"}`, '/api/v1/payment-requests', 201, ID],
    ['a payment', `{"paymentRequestId":"${ID}","status":"completed"}`, '/sandbox/v1/pay', 200, ID],
    ['a status read, by its URL', '{"status":"pending"}', `/api/v1/payment-requests/${ID}/status`, 200, ID],
    ['an error, whatever its URL', '{"error":{"code":"payment_request_not_found"}}', `/api/v1/payment-requests/${ID}`, 404, undefined],
    ['an id further in the body', `{"data":[{"id":"${ID}"}]}`, '/api/v1/payment-requests', 200, undefined],
    ['no body', '', '/healthz', 200, undefined],
  ])('names the payment request of %s', (_case, body, url, status, expected) => {
    expect(paymentRequestIdOf(body, url, status)).toBe(expected);
  });
});

describe('the pretty format', () => {
  it('shows a request as method, URL, status, time and the id the URL does not show', () => {
    expect(prettyRequestLine({ method: 'POST', url: '/api/v1/payment-requests', statusCode: 201, responseTime: 4.21, paymentRequestId: ID })).toBe(
      `POST /api/v1/payment-requests 201 4.2 ms ${ID}\n`,
    );
    expect(prettyRequestLine({ method: 'GET', url: `/api/v1/payment-requests/${ID}`, statusCode: 200, responseTime: 12.6, paymentRequestId: ID })).toBe(
      `GET /api/v1/payment-requests/${ID} 200 13 ms\n`,
    );
  });

  it('escapes control characters, so a URL cannot act on the terminal', () => {
    expect(prettyRequestLine({ method: 'GET', url: '/x\u001b[2J', statusCode: 404, responseTime: 0.1 })).toBe('GET /x\\u001b[2J 404 0.1 ms\n');
  });

  it('shows other records as level, message, fields and the error stack', () => {
    const record = { level: 50, time: 1, pid: 2, hostname: 'h', url: '/a', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x' }, msg: 'internal error' };
    expect(prettyLine(`${JSON.stringify(record)}\n`)).toBe('error: internal error url=/a\n  Error: boom\n      at x\n');
  });
});

describe('createLogOutput', () => {
  const record = { method: 'GET', url: '/healthz', statusCode: 200, responseTime: 0.25 };

  it('writes request records as pino-shaped JSON lines', () => {
    const destination = sink();
    const log = createLogOutput({ level: 'info', format: 'json', destination });
    log.requestLog!(record);
    log.flush();
    const written = JSON.parse(destination.chunks.join(''));
    expect(written).toMatchObject({ level: 30, pid: process.pid, ...record, msg: 'request completed' });
    expect(written.time).toBeTypeOf('number');
  });

  it('leaves request records out above info', () => {
    expect(createLogOutput({ level: 'warn', format: 'json', destination: sink() }).requestLog).toBeUndefined();
  });

  it('writes the waiting lines to stdout when the process crashes', async () => {
    const script = `
      const { createLogOutput } = await import('./src/http/log-output.ts');
      const log = createLogOutput({ level: 'info', format: 'json' });
      for (let i = 0; i < 200; i++) log.requestLog({ method: 'GET', url: '/crash/' + i, statusCode: 200, responseTime: 1 });
      setTimeout(() => { throw new Error('crash'); }, 5);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('crash');
    const urls = stdout.trim().split('\n').map((line) => JSON.parse(line).url);
    expect(urls).toEqual(Array.from({ length: 200 }, (_, i) => `/crash/${i}`));
  });
});

describe('BatchedOutput', () => {
  it('writes the lines of a burst in one chunk, on flush or after a short delay', async () => {
    const destination = sink();
    const output = new BatchedOutput(destination);
    for (let i = 0; i < 100; i++) output.write(`line ${i}\n`);
    expect(destination.chunks).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(destination.chunks).toHaveLength(1);
    expect(destination.chunks[0]!.split('\n')).toHaveLength(101);
    output.write('last\n');
    output.flush();
    expect(destination.chunks.at(-1)).toBe('last\n');
  });

  it('writes at once when a batch is large', () => {
    const destination = sink();
    const output = new BatchedOutput(destination);
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 64; i++) output.write(line);
    expect(destination.chunks).toHaveLength(1);
  });
});
