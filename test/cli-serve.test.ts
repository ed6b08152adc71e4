/** `lnpr serve` as users run it: a child process, its banner, signals, flags, data files, crashes. */
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startCliServer } from './support/cli-process.js';
import { api, createBody, KEYS } from './support/sandbox-server.js';
import { freePort } from './support/free-port.js';

const dir = mkdtempSync(join(tmpdir(), 'lnpr-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const dataFile = () => join(dir, `sandbox-${++files}.json`);

describe('lnpr serve', () => {
  it('prints its URL (on 127.0.0.1) and the keys it accepts, serves, and exits 0 on SIGTERM', async () => {
    const cli = await startCliServer([]);
    expect(cli.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { stdout } = cli.output();
    for (const key of Object.values(KEYS)) expect(stdout).toContain(key);
    expect((await api(cli.url, '/api/v1/payment-requests', { body: createBody() })).status).toBe(201);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('exits 0 on SIGINT', async () => {
    const cli = await startCliServer([]);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
  });

  it.each([
    [['--network', 'litecoin'], /--network must be one of/],
    [['--port', 'abc'], /--port must be a whole number/],
    [['--clock', 'sideways'], /--clock must be one of/],
    [['--min-amount', '0'], /--min-amount must be a whole number/],
    [['--frobnicate'], /Unknown option '--frobnicate'/],
    [['--config', '/nonexistent/accounts.json'], /--config \/nonexistent\/accounts.json/],
  ])('refuses %j with exit 2 and a message', async (flags, message) => {
    const cli = runCli(['serve', ...flags]);
    expect(await cli.exited).toBe(2);
    expect(cli.output().stderr).toMatch(message);
  });

  it('takes PORT and LNPR_DATA from the environment', async () => {
    const port = await freePort();
    const file = dataFile();
    const cli = await startCliServer([], { PORT: String(port), LNPR_DATA: file });
    expect(cli.url).toBe(`http://127.0.0.1:${port}`);
    await api(cli.url, '/api/v1/payment-requests', { body: createBody() });
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).paymentRequests).toHaveLength(1);
  });

  it('replaces the accounts with --config, and refuses an invalid accounts file', async () => {
    const config = join(dir, 'accounts.json');
    writeFileSync(
      config,
      JSON.stringify({ accounts: [{ id: 'acct_mine', mode: 'custodial' }], keys: [{ key: 'sk_mine_12345', account: 'acct_mine', permissions: ['create', 'read'] }] }),
    );
    const cli = await startCliServer(['--config', config]);
    expect(cli.output().stdout).toContain('sk_mine_12345');
    expect((await api(cli.url, '/api/v1/payment-requests', { key: 'sk_mine_12345', body: createBody() })).status).toBe(201);
    expect((await api(cli.url, '/api/v1/payment-requests', { key: KEYS.custodial, body: createBody() })).status).toBe(401);
    cli.child.kill('SIGTERM');
    await cli.exited;

    writeFileSync(config, JSON.stringify({ accounts: [{ id: 'acct_nwc', mode: 'nwc' }], keys: [] }));
    const bad = runCli(['serve', '--config', config]);
    expect(await bad.exited).toBe(2);
    expect(bad.output().stderr).toMatch(/not a valid accounts file/);
  });
});

describe('lnpr serve --fixtures and --scenario', () => {
  it('starts with the fixtures loaded, each account clock at the file\'s now', async () => {
    const sample = JSON.parse(readFileSync('fixtures/sample-fixtures.json', 'utf8'));
    const cli = await startCliServer(['--fixtures', 'fixtures/sample-fixtures.json']);
    const keyOf = (accountId: string) => (accountId === 'acct_nwc' ? KEYS.nwc : KEYS.custodial);
    for (const record of sample.paymentRequests) {
      const res = await api(cli.url, `/api/v1/payment-requests/${record.id}`, { key: keyOf(record.accountId) });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(record.status);
      expect(res.body.invoice).toBe(record.invoice);
    }
    const clock = (await api(cli.url, '/sandbox/v1/clock')).body;
    expect(Math.abs(Date.parse(clock.now) - Date.parse(sample.now))).toBeLessThan(60_000);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('loads behaviour rules from --scenario files', async () => {
    const scenario = join(dir, 'rules.yaml');
    writeFileSync(scenario, 'name: fail 4040\nrules:\n  - { name: fail 4040, match: { amount: 4040 }, outcome: fail }\nsteps: []\n');
    const cli = await startCliServer(['--scenario', scenario]);
    const created = (await api(cli.url, '/api/v1/payment-requests', { body: createBody({ amount: 4040 }) })).body;
    expect((await api(cli.url, `/api/v1/payment-requests/${created.id}/status`)).body.status).toBe('failed');
    cli.child.kill('SIGTERM');
    await cli.exited;

    writeFileSync(scenario, 'rules:\n  - { outcome: explode }\n');
    const bad = runCli(['serve', '--scenario', scenario]);
    expect(await bad.exited).toBe(2);
    expect(bad.output().stderr).toContain(scenario);
  });
});

describe('lnpr serve --data', () => {
  it('serves after a restart every record it acknowledged, byte for byte, and keeps account clocks', async () => {
    const file = dataFile();
    const first = await startCliServer(['--data', file]);
    const created = [];
    for (let i = 0; i < 5; i++) created.push((await api(first.url, '/api/v1/payment-requests', { body: createBody({ amount: 1000 + i }) })).text);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await startCliServer(['--data', file]);
    for (const text of created) {
      const { id } = JSON.parse(text);
      expect((await api(second.url, `/api/v1/payment-requests/${id}`)).text).toBe(text);
    }
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('refuses a second process on the same file, saying which process holds it', async () => {
    const file = dataFile();
    const first = await startCliServer(['--data', file]);
    const second = runCli(['serve', '--port', '0', '--data', file]);
    expect(await second.exited).toBe(2);
    expect(second.output().stderr).toContain(String(first.child.pid));
    expect(second.output().stderr).toContain(file);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
  });

  it('refuses a file of another format and leaves it untouched', async () => {
    const file = dataFile();
    writeFileSync(file, '{"somebody": "else\'s file"}');
    const cli = runCli(['serve', '--port', '0', '--data', file]);
    expect(await cli.exited).toBe(2);
    expect(cli.output().stderr).toContain(file);
    expect(readFileSync(file, 'utf8')).toBe('{"somebody": "else\'s file"}');
  });

  it('keeps every acknowledged create through a SIGKILL in the middle of 300 parallel creates', async () => {
    const file = dataFile();
    const cli = await startCliServer(['--data', file]);
    const acknowledged = new Map<string, string>();
    let killed = false;
    const creates = Array.from({ length: 300 }, async (_, i) => {
      try {
        const res = await api(cli.url, '/api/v1/payment-requests', { body: createBody({ amount: 21 + i }) });
        if (res.status === 201) acknowledged.set(res.body.id, res.text);
        if (acknowledged.size >= 100 && !killed) {
          killed = true;
          cli.child.kill('SIGKILL');
        }
      } catch {
        // Cut off by the kill: never acknowledged, so nothing is owed.
      }
    });
    await Promise.all(creates);
    expect(await cli.exited).toBe('SIGKILL');
    expect(acknowledged.size).toBeGreaterThanOrEqual(100);

    const restarted = await startCliServer(['--data', file]);
    for (const [id, text] of acknowledged) {
      expect((await api(restarted.url, `/api/v1/payment-requests/${id}`)).text).toBe(text);
    }
    restarted.child.kill('SIGTERM');
    expect(await restarted.exited).toBe(0);
  });

  it('finishes an in-flight request on SIGTERM, stores it, then exits 0', async () => {
    const file = dataFile();
    const cli = await startCliServer(['--data', file]);
    // Headers and half the body go first, so the request is surely in the server when the signal lands.
    const body = JSON.stringify(createBody({ description: 'in flight' }));
    const { port } = new URL(cli.url);
    const request = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/payment-requests',
      headers: { authorization: `Bearer ${KEYS.custodial}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      request.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      request.on('error', reject);
    });
    request.write(body.slice(0, 20));
    await sleep(300);
    cli.child.kill('SIGTERM');
    await sleep(300);
    request.end(body.slice(20));
    const { status, text } = await response;
    expect(status).toBe(201);
    expect(await cli.exited).toBe(0);
    const stored = JSON.parse(readFileSync(file, 'utf8')).paymentRequests;
    expect(stored.map((r: { id: string }) => r.id)).toEqual([JSON.parse(text).id]);
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

