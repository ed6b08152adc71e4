/**
 * The request log of `lnpr serve`, through the real CLI in a child process: one line per request,
 * JSON when stdout is not a terminal (as here, a pipe) or with `--log-format json`, a human line
 * with `--log-format pretty`, none below `info`, never a key, and none lost on SIGTERM.
 */
import { describe, expect, it } from 'vitest';
import { runCli, type CliProcess } from './support/cli-process.js';
import { api, createBody, KEYS } from './support/sandbox-server.js';

const PR_ID = /^pr_[0-9A-Za-z]{24}$/;

/** `lnpr serve --port 0 <args>`, with no flag of its own (startCliServer adds `--log-level warn`). */
async function serve(args: string[]): Promise<CliProcess & { url: string }> {
  const cli = runCli(['serve', '--port', '0', ...args]);
  const url = await new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(cli.output().stdout);
      if (match) {
        clearInterval(poll);
        resolve(match[1]!);
      }
    }, 20);
    void cli.exited.then((code) => {
      clearInterval(poll);
      reject(new Error(`lnpr serve exited (${code}) before listening:\n${cli.output().stderr}`));
    });
  });
  return { ...cli, url };
}

/** Stops the server and returns what it wrote to stdout after its banner. */
async function stop(cli: CliProcess): Promise<string[]> {
  cli.child.kill('SIGTERM');
  expect(await cli.exited).toBe(0);
  return cli.output().stdout.split('\n');
}

/** The JSON request records among stdout's lines. */
function requestRecords(lines: string[]): Array<Record<string, unknown>> {
  return lines
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.msg === 'request completed');
}

/** A create, a read of it, a status read, an unknown id, a key that is not one. */
async function someRequests(url: string): Promise<string> {
  const created = await api(url, '/api/v1/payment-requests', { body: createBody() });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect((await api(url, `/api/v1/payment-requests/${id}`, { key: KEYS.nwc })).status).toBe(404);
  expect((await api(url, `/api/v1/payment-requests/${id}/status`)).status).toBe(200);
  expect((await api(url, '/api/v1/payment-requests/pr_unknown', { key: KEYS.readonly })).status).toBe(404);
  expect((await api(url, '/api/v1/payment-requests', { key: 'sk_test_not_a_key_secret', body: createBody() })).status).toBe(401);
  return id;
}

describe('lnpr serve request log', () => {
  it('writes one JSON line per request by default when stdout is not a terminal, and never a key', async () => {
    const cli = await serve([]);
    const id = await someRequests(cli.url);
    const lines = await stop(cli);
    const records = requestRecords(lines);
    expect(records.map((r) => [r.method, r.url, r.statusCode])).toEqual([
      ['POST', '/api/v1/payment-requests', 201],
      ['GET', `/api/v1/payment-requests/${id}`, 404],
      ['GET', `/api/v1/payment-requests/${id}/status`, 200],
      ['GET', '/api/v1/payment-requests/pr_unknown', 404],
      ['POST', '/api/v1/payment-requests', 401],
    ]);
    for (const record of records) {
      expect(record.level).toBe(30);
      expect(typeof record.time).toBe('number');
      expect(record.responseTime).toBeTypeOf('number');
      expect(record.responseTime as number).toBeGreaterThanOrEqual(0);
    }
    // The answer names the payment request (the create's body, the status read's URL); errors name none.
    expect(records.map((r) => r.paymentRequestId)).toEqual([id, undefined, id, undefined, undefined]);
    expect(records[0]!.paymentRequestId).toMatch(PR_ID);
    // The banner lists the keys; nothing after it may carry one.
    const logLines = lines.filter((line) => line.startsWith('{'));
    expect(logLines.length).toBeGreaterThanOrEqual(records.length);
    for (const line of logLines) {
      for (const key of [...Object.values(KEYS), 'sk_test_not_a_key_secret']) expect(line).not.toContain(key);
      expect(line.toLowerCase()).not.toContain('authorization');
    }
  });

  it('writes one human line per request with --log-format pretty', async () => {
    const cli = await serve(['--log-format', 'pretty']);
    const id = await someRequests(cli.url);
    const lines = await stop(cli);
    const requestLines = lines.filter((line) => /^(GET|POST) \//.test(line));
    expect(requestLines).toHaveLength(5);
    expect(requestLines[0]).toMatch(/^POST \/api\/v1\/payment-requests 201 \d+(\.\d)? ms pr_[0-9A-Za-z]{24}$/);
    expect(requestLines[0]).toContain(id);
    expect(requestLines[1]).toMatch(new RegExp(`^GET /api/v1/payment-requests/${id} 404 \\d+(\\.\\d)? ms$`));
    expect(requestLines[2]).toMatch(new RegExp(`^GET /api/v1/payment-requests/${id}/status 200 \\d+(\\.\\d)? ms$`));
    expect(requestLines[4]).toMatch(/^POST \/api\/v1\/payment-requests 401 \d+(\.\d)? ms$/);
    expect(lines.some((line) => line.startsWith('{'))).toBe(false);
    expect(lines.join('\n')).not.toContain('sk_test_not_a_key_secret');
  });

  it('takes --log-format json too', async () => {
    const cli = await serve(['--log-format', 'json']);
    await api(cli.url, '/healthz', { key: null });
    const records = requestRecords(await stop(cli));
    expect(records.map((r) => [r.method, r.url, r.statusCode])).toEqual([['GET', '/healthz', 200]]);
  });

  it.each([['json'], ['pretty']])('logs no request with --log-level warn (--log-format %s)', async (format) => {
    const cli = await serve(['--log-level', 'warn', '--log-format', format]);
    await someRequests(cli.url);
    const output = (await stop(cli)).join('\n');
    expect(output).not.toContain('request completed');
    expect(output).not.toMatch(/^(GET|POST) \//m);
  });

  it.each([
    [['--log-format', 'yaml'], /--log-format must be one of pretty, json \(got "yaml"\)/],
    [['--log-level', 'loud'], /--log-level must be one of .*info.* \(got "loud"\)/],
  ])('refuses %j with exit 2 and a usage message', async (flags, message) => {
    const cli = runCli(['serve', '--port', '0', ...flags]);
    expect(await cli.exited).toBe(2);
    expect(cli.output().stderr).toMatch(message);
    expect(cli.output().stdout).not.toContain('listening on');
  });

  it('writes every request line before exiting on SIGTERM sent right after the answers', async () => {
    const cli = await serve([]);
    const count = 300;
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) => api(cli.url, `/api/v1/payment-requests/pr_flush${i}`)),
    );
    expect(answers.every((answer) => answer.status === 404)).toBe(true);
    const records = requestRecords(await stop(cli));
    expect(records).toHaveLength(count);
    expect(new Set(records.map((r) => r.url)).size).toBe(count);
  });
});
