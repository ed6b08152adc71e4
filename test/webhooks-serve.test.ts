/**
 * `lnpr serve`'s webhook flags through the real CLI: `--webhook` for every account with a fixed
 * or a generated (printed) secret, kept across restarts with `--data`; bad flags exit 2; beyond
 * loopback, API-registered URLs may not name loopback, private or metadata addresses other than
 * the operator's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCliServer, type CliProcess } from './support/cli-process.js';
import { api, createBody, KEYS } from './support/sandbox-server.js';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';

let receiver: WebhookReceiver;
const running: Array<CliProcess & { url: string }> = [];
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  for (const cli of running.splice(0)) {
    cli.child.kill('SIGTERM');
    await cli.exited;
  }
  await receiver.close();
});
const serve = async (args: string[]) => {
  const cli = await startCliServer(args);
  running.push(cli);
  return cli;
};

describe('lnpr serve --webhook', () => {
  it("sends every account's events to the URL, signed with --webhook-secret", async () => {
    const cli = await serve(['--webhook', receiver.url, '--webhook-secret', SECRET]);
    expect(cli.output().stdout).toContain(`webhook: ${receiver.url} for every account, secret ${SECRET}`);
    receiver.secret = SECRET;
    const custodial = (await api(cli.url, '/api/v1/payment-requests', { body: createBody() })).body;
    const nwc = (await api(cli.url, '/api/v1/payment-requests', { key: KEYS.nwc, body: createBody() })).body;
    const received = await receiver.waitFor(2);
    expect(received.every((delivery) => delivery.verified)).toBe(true);
    expect(received.map((delivery) => delivery.event.data.id).sort()).toEqual([custodial.id, nwc.id].sort());
  });

  it('generates and prints a secret, and keeps it (one endpoint per account) across a restart with --data', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'lnpr-serve-webhook-'));
    try {
      const dataFile = join(directory, 'sandbox.json');
      const first = await serve(['--data', dataFile, '--webhook', receiver.url]);
      const secret = /secret (whsec_\S+)/.exec(first.output().stdout)?.[1];
      expect(secret).toBeDefined();
      first.child.kill('SIGTERM');
      await first.exited;
      running.length = 0;
      const second = await serve(['--data', dataFile, '--webhook', receiver.url]);
      expect(second.output().stdout).toContain(`secret ${secret}`);
      expect((await api(second.url, '/sandbox/v1/webhook-endpoints')).body.data).toHaveLength(1);
      receiver.secret = secret;
      await api(second.url, '/api/v1/payment-requests', { body: createBody() });
      const [delivery] = await receiver.waitFor(1);
      expect(delivery!.verified).toBe(true);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it.each([
    [['--webhook', 'ftp://127.0.0.1/x'], /--webhook ftp:\/\/127.0.0.1\/x: url must use http or https/],
    [['--webhook', 'not a url'], /--webhook not a url: url must be an absolute http or https URL/],
    [['--webhook', 'http://127.0.0.1:1/x', '--webhook-secret', 'secret'], /--webhook-secret must be whsec_/],
    [['--webhook-secret', SECRET], /--webhook-secret needs --webhook URL/],
  ])('exits 2 on %j', async (args, message) => {
    const cli = runCli(['serve', '--port', '0', ...args]);
    expect(await cli.exited).toBe(2);
    expect(cli.output().stderr).toMatch(message);
  });
});

describe('webhook URLs when the sandbox listens beyond loopback', () => {
  // The server binds 0.0.0.0; the test only ever connects to 127.0.0.1.
  const register = (url: string, webhookUrl: string) => api(url, '/sandbox/v1/webhook-endpoints', { body: { url: webhookUrl } });

  it('refuses loopback, private and metadata addresses nobody allowed, with 400 host_not_allowed', async () => {
    const cli = await serve(['--host', '0.0.0.0']);
    const url = cli.url.replace('0.0.0.0', '127.0.0.1');
    for (const [webhookUrl, why] of [
      ['http://127.0.0.1:9/x', '127.0.0.1 (loopback)'],
      ['http://10.0.0.5/x', '10.0.0.5 (private)'],
      ['http://169.254.169.254/latest', '169.254.169.254 (metadata)'],
    ]) {
      const refused = await register(url, webhookUrl!);
      expect(refused.status).toBe(400);
      expect(refused.body.error.details).toEqual([expect.objectContaining({ field: 'url', code: 'host_not_allowed', message: expect.stringContaining(`address not allowed: ${why}`) })]);
    }
    expect((await api(url, '/sandbox/v1/webhook-endpoints')).body.data).toEqual([]);
  });

  it('accepts the hosts of --webhook-allow-host on any port, exactly the origin of --webhook, and names (checked at each attempt)', async () => {
    const cli = await serve(['--host', '0.0.0.0', '--webhook-allow-host', '10.0.0.5', '--webhook', receiver.url]);
    const { port } = new URL(receiver.url);
    expect(cli.output().stdout).toContain(`other addresses only at: http://127.0.0.1:${port}, 10.0.0.5`);
    const url = cli.url.replace('0.0.0.0', '127.0.0.1');
    expect((await register(url, 'http://10.0.0.5:8080/y')).status).toBe(201);
    expect((await register(url, `http://127.0.0.1:${port}/another-path`)).status).toBe(201);
    expect((await register(url, 'http://receiver.example/z')).status).toBe(201);
    expect((await register(url, `http://127.0.0.1:${Number(port) + 1}/x`)).status).toBe(400);
    expect((await register(url, 'http://127.0.0.1:22/')).status).toBe(400);
  });
});
