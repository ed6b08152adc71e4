/**
 * `lnpr conformance` as users run it: a child process against our real server (also a child
 * process). The tests do not depend on how many checks the suite has. No run may print a key.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Check } from '../../conformance/check.js';
import { runConformance } from '../../conformance/run-conformance.js';
import { runCli, startCliServer, type CliProcess } from '../../test/support/cli-process.js';
import { conformance as runCommand, guardMainnet, payCommand, shellQuote } from './conformance.js';
import { UsageError } from './usage-error.js';

const KEY = 'sk_test_custodial';
const ADMIN_KEY = 'sk_test_admin';
const dir = mkdtempSync(join(tmpdir(), 'lnpr-conformance-'));
let server: CliProcess & { url: string };
let noControls: CliProcess & { url: string };
/** Every run's output, checked for keys at the end. */
const outputs: string[] = [];
/** Secrets of the payers' NWC URIs the tests gave: no output may hold one. */
const payerSecrets: string[] = [];

beforeAll(async () => {
  [server, noControls] = await Promise.all([startCliServer([]), startCliServer(['--no-controls'])]);
}, 60_000);

afterAll(async () => {
  for (const cli of [server, noControls]) cli?.child.kill('SIGTERM');
  await Promise.all([server?.exited, noControls?.exited]);
  rmSync(dir, { recursive: true, force: true });
  for (const output of outputs) {
    expect(output).not.toContain(KEY);
    expect(output).not.toContain(ADMIN_KEY);
    for (const secret of payerSecrets) expect(output).not.toContain(secret);
  }
});

/** Runs `lnpr conformance ...args` to the end. */
async function conformance(args: string[]): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const cli = runCli(['conformance', ...args]);
  const code = await cli.exited;
  const { stdout, stderr } = cli.output();
  outputs.push(stdout, stderr);
  return { code, stdout, stderr };
}

function writeTemp(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The live lines of the checks (a mark, then the id), without their indented messages. */
function checkLines(text: string): string[] {
  return text.split('\n').filter((line) => /^(✓|✗|! warned|↷ skipped) /.test(line));
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('lnpr conformance against our server', () => {
  it('--profile core: live lines, a summary, exit 0, and the counts line last', async () => {
    const { code, stdout, stderr } = await conformance(['--base-url', server.url, '--api-key', KEY, '--profile', 'core']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/^\d+ passed, 0 failed, \d+ skipped$/);
    const lines = checkLines(stdout);
    expect(lines.length).toBeGreaterThan(0);
    expect(stdout).toContain(`profile core, lifecycle via none, ${lines.length} checks`);
    expect(stdout).not.toContain('\u001b['); // not a TTY: no colour
  });

  it('--reporter junit --output FILE: XML with one testcase per check run; the live lines stay on stdout', async () => {
    const file = join(dir, 'conformance.xml');
    const { code, stdout } = await conformance(['--base-url', server.url, '--api-key', KEY, '--read-only-key', 'sk_test_readonly', '--reporter', 'junit', '--output', file]);
    expect(code).toBe(0);
    const xml = readFileSync(file, 'utf8');
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /);
    expect(xml.trimEnd().endsWith('</testsuites>')).toBe(true);
    const testcases = xml.match(/<testcase /g) ?? [];
    expect(testcases.length).toBeGreaterThan(0);
    expect(testcases).toHaveLength(checkLines(stdout).length);
    expect(xml).toContain(`<testsuites name="lnpr conformance" tests="${testcases.length}" failures="0"`);
    expect(xml).not.toContain('sk_test_readonly');
    expect(stdout).not.toContain('sk_test_readonly');
  });

  let passingId: string;
  it('--reporter json: the report alone on stdout (it parses), the live lines on stderr', async () => {
    const { code, stdout, stderr } = await conformance(['--base-url', server.url, '--api-key', KEY, '--reporter', 'json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ format: 'lnpr-conformance', version: 1, passed: true, profile: 'core', baseUrl: server.url });
    expect(report.checks.length).toBeGreaterThan(0);
    expect(report.checks).toHaveLength(checkLines(stderr).length);
    for (const check of report.checks) expect(check).toEqual(expect.objectContaining({ id: expect.any(String), outcome: expect.any(String) }));
    expect(stderr.trimEnd().split('\n').at(-1)).toMatch(/^\d+ passed, 0 failed, \d+ skipped$/);
    passingId = report.checks.find((check: { outcome: string }) => check.outcome === 'passed').id;
  });

  it('--known-failing: a listed check that passes fails the run as an unexpected pass', async () => {
    expect(passingId).toBeDefined();
    const list = writeTemp('known-failing.txt', `# our known failures\n\n${passingId}   # should fail, but does not\n`);
    const { code, stdout } = await conformance(['--base-url', server.url, '--api-key', KEY, '--known-failing', list]);
    expect(code).toBe(1);
    expect(stdout).toContain(`✗ (unexpected pass) ${passingId}`);
    expect(stdout).toContain('listed as known-failing but passes');
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/^\d+ passed, 1 failed, \d+ skipped$/);

    const junit = join(dir, 'unexpected.xml');
    expect((await conformance(['--base-url', server.url, '--api-key', KEY, '--known-failing', list, '--reporter', 'junit', '--output', junit])).code).toBe(1);
    expect(readFileSync(junit, 'utf8')).toMatch(/<failure message="listed as known-failing but passes[^"]*" type="unexpected pass">/);
  });

  it('--pay-command without the control API: the command gets the invoice, and its failure fails the lifecycle checks', async () => {
    const invoices = join(dir, 'paid-invoices.txt');
    const { code, stdout, stderr } = await conformance([
      '--base-url', noControls.url, '--api-key', KEY, '--profile', 'lifecycle', '--reporter', 'json',
      '--pay-command', `printf '%s\\n' {invoice} >> ${shellQuote(invoices)}; echo no route to the node >&2; false`,
    ]);
    const report = JSON.parse(stdout);
    expect(report.lifecycle).toBe('pay-command');
    expect(stderr).toContain('(profile lifecycle)');
    expect(code).toBe(1);
    const paid = readFileSync(invoices, 'utf8').trim().split('\n');
    expect(paid.length).toBeGreaterThan(0);
    for (const invoice of paid) expect(invoice).toMatch(/^lnbcrt\w+$/);
    const failed = report.checks.filter((check: { outcome: string }) => check.outcome === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.some((check: { message?: string }) => check.message?.includes('the pay command exited with 1: no route to the node'))).toBe(true);
    // What a pay command cannot do (fail, expire) is skipped, not failed (and the NWC payment check, run without --nwc-key, for want of one).
    for (const check of report.checks.filter((c: { outcome: string }) => c.outcome === 'skipped')) expect(check.message).toMatch(/control API|--nwc-key/);
  });
});

/** A funded test wallet of `on` (POST /sandbox/v1/wallets); its URI's secret joins those no output may hold. */
async function testWallet(on: string, balance = 100_000): Promise<{ id: string; nwcUrl: string; secret: string }> {
  const answer = await fetch(`${on}/sandbox/v1/wallets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ balance, name: 'conformance payer' }),
  });
  expect(answer.status).toBe(201);
  const wallet = (await answer.json()) as { id: string; nwcUrl: string };
  const secret = new URL(wallet.nwcUrl.replace(/^nostr\+walletconnect:/, 'http:')).searchParams.get('secret')!;
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  payerSecrets.push(secret);
  return { ...wallet, secret };
}

async function walletBalance(id: string): Promise<number> {
  const answer = await fetch(`${server.url}/sandbox/v1/wallets/${id}`, { headers: { authorization: `Bearer ${KEY}` } });
  return ((await answer.json()) as { balance: number }).balance;
}

describe('lnpr conformance --payer-nwc-url: paying through an NWC wallet', () => {
  it('a funded test wallet pays the lifecycle checks\' invoices: the full profile passes, the NWC request completes with the wallet\'s preimage', async () => {
    const wallet = await testWallet(server.url);
    const file = join(dir, 'payer.json');
    const { code, stdout, stderr } = await conformance([
      '--base-url', server.url, '--api-key', KEY, '--read-only-key', 'sk_test_readonly', '--nwc-key', 'sk_test_nwc',
      // The accounts, reset and credential checks of the full profile make scratch accounts with the admin key.
      '--admin-key', ADMIN_KEY,
      '--profile', 'full', '--payer-nwc-url', wallet.nwcUrl, '--reporter', 'json', '--output', file,
    ]);
    const report = JSON.parse(readFileSync(file, 'utf8'));
    expect(code, stdout).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toContain('paying through the NWC wallet of --payer-nwc-url');
    expect(stdout).toContain('lifecycle via an NWC wallet (--payer-nwc-url)');
    expect(report.lifecycle).toBe('nwc-payer');
    expect(report.checks.filter((check: { outcome: string }) => check.outcome === 'failed')).toEqual([]);
    // Every check ran: the control API still fails and expires requests; only payments go through the wallet.
    expect(report.checks.filter((check: { outcome: string }) => check.outcome === 'skipped')).toEqual([]);
    expect(report.checks.find((check: { id: string }) => check.id === 'nwc.completes-with-wallet-preimage')).toMatchObject({ outcome: 'passed' });
    expect(report.checks.find((check: { id: string }) => check.id === 'lifecycle.completes')).toMatchObject({ outcome: 'passed' });
    // The wallet paid: 1,000 sats per request completed (at least the shared one and the NWC one).
    expect(await walletBalance(wallet.id)).toBeLessThanOrEqual(100_000 - 2_000);
    const written = readFileSync(file, 'utf8');
    outputs.push(written);
    expect(stdout + written).not.toContain(wallet.secret);
  }, 120_000);

  it('without it the NWC payment check is skipped, saying what it needs; the control API pays, as before', async () => {
    const { code, stdout } = await conformance(['--base-url', server.url, '--api-key', KEY, '--nwc-key', 'sk_test_nwc', '--profile', 'lifecycle', '--reporter', 'json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.lifecycle).toBe('controls');
    expect(report.checks.find((check: { id: string }) => check.id === 'nwc.completes-with-wallet-preimage')).toMatchObject({
      outcome: 'skipped',
      message: expect.stringContaining('--payer-nwc-url'),
    });
  }, 60_000);

  it('a wallet it cannot use stops the run with exit 2, saying why, and never prints the URI\'s secret', async () => {
    const wallet = await testWallet(server.url, 1);
    const [malformed, noWallet, both] = await Promise.all([
      conformance(['--base-url', server.url, '--api-key', KEY, '--profile', 'lifecycle', '--payer-nwc-url', wallet.nwcUrl.replace(/^nostr\+walletconnect/, 'nostr+wallet')]),
      // Another wallet key on the same relay: nobody answers for it.
      conformance(['--base-url', server.url, '--api-key', KEY, '--profile', 'lifecycle', `--payer-nwc-url=${wallet.nwcUrl.replace(/^(nostr\+walletconnect:\/\/)[0-9a-f]{8}/, '$1aaaaaaaa')}`]),
      conformance(['--base-url', server.url, '--api-key', KEY, '--profile', 'lifecycle', '--payer-nwc-url', wallet.nwcUrl, '--pay-command', 'true {invoice}']),
    ]);
    for (const run of [malformed, noWallet, both]) {
      expect(run.code).toBe(2);
      expect(run.stdout + run.stderr).not.toContain(wallet.secret);
    }
    expect(malformed.stderr).toBe("lnpr: payerNwcUrl (--payer-nwc-url): the payer's NWC connection URI is not usable: it must start with nostr+walletconnect://\n");
    expect(noWallet.stderr).toMatch(/^lnpr: payerNwcUrl \(--payer-nwc-url\): the NWC wallet aaaaaaaa\w+… on ws:\/\/127\.0\.0\.1:\d+\/nostr has no info event \(kind 13194\) on its relay/);
    expect(both.stderr).toBe('lnpr: give --pay-command or --payer-nwc-url, not both: they are two ways to pay\n');
  }, 60_000);

  it('a wallet that cannot pay fails the lifecycle checks with its NIP-47 error', async () => {
    const wallet = await testWallet(server.url, 1);
    const { code, stdout } = await conformance(['--base-url', server.url, '--api-key', KEY, '--profile', 'lifecycle', '--payer-nwc-url', wallet.nwcUrl, '--reporter', 'json']);
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    expect(report.checks.find((check: { id: string }) => check.id === 'lifecycle.completes')).toMatchObject({
      outcome: 'failed',
      message: expect.stringMatching(/^paying the invoice through the NWC wallet \w+… on ws:\/\/\S+ failed: the wallet answered pay_invoice with INSUFFICIENT_BALANCE: /),
    });
  }, 60_000);
});

describe('lnpr conformance and the accounts it runs in', () => {
  /** What the default custodial account holds: its payment requests and how far its clock is from real time. */
  async function defaultAccount(): Promise<{ ids: string[]; offsetMs: number; frozen: boolean }> {
    const headers = { authorization: `Bearer ${KEY}` };
    const list = (await (await fetch(`${server.url}/sandbox/v1/payment-requests?limit=1000`, { headers })).json()) as { data: Array<{ id: string }> };
    const asked = Date.now();
    const clock = (await (await fetch(`${server.url}/sandbox/v1/clock`, { headers })).json()) as { now: string; frozen: boolean };
    return { ids: list.data.map((pr) => pr.id), offsetMs: Date.parse(clock.now) - asked, frozen: clock.frozen };
  }
  /** The same account: the same requests, and its clock where it was (give or take a loaded machine's latency). */
  function expectUnchanged(after: Awaited<ReturnType<typeof defaultAccount>>, before: Awaited<ReturnType<typeof defaultAccount>>): void {
    expect({ ids: after.ids, frozen: after.frozen }).toEqual({ ids: before.ids, frozen: before.frozen });
    expect(Math.abs(after.offsetMs - before.offsetMs)).toBeLessThan(3_000);
  }
  async function accountIds(): Promise<string[]> {
    const answer = await fetch(`${server.url}/sandbox/v1/accounts`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    return ((await answer.json()) as { data: Array<{ id: string }> }).data.map((account) => account.id);
  }

  it('--admin-key: the whole suite runs in accounts of its own, deleted after; the default account is as it was', async () => {
    const before = await defaultAccount();
    const accountsBefore = await accountIds();
    const file = join(dir, 'isolated.json');
    const { code, stdout } = await conformance(['--base-url', server.url, '--admin-key', ADMIN_KEY, '--profile', 'full', '--reporter', 'json', '--output', file]);
    const report = JSON.parse(readFileSync(file, 'utf8'));
    expect(code, stdout).toBe(0);
    expect(stdout).toContain('in accounts of its own (--admin-key), deleted at the end');
    // The read-only and NWC checks ran with the new accounts' keys: none is skipped for want of a key.
    expect(report.checks.filter((check: { outcome: string; message?: string }) => check.outcome === 'skipped' && /--read-only-key|--nwc-key/.test(check.message ?? ''))).toEqual([]);
    expect(report.footprint).toEqual({
      isolated: true,
      accounts: [
        { id: expect.stringMatching(/^acct_/), mode: 'custodial', deleted: true },
        { id: expect.stringMatching(/^acct_/), mode: 'nwc', deleted: true },
      ],
    });
    expect(stdout).toContain("Accounts: the run's own (");
    expect(await accountIds()).toEqual(accountsBefore);
    expectUnchanged(await defaultAccount(), before);
  }, 120_000);

  it('without it, the report says what the run left in the account: payment requests, and the clock moved on', async () => {
    // Emptied first (what the earlier runs left), so the list below holds all the run leaves.
    await fetch(`${server.url}/sandbox/v1/reset`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` } });
    const before = await defaultAccount();
    const { code, stdout } = await conformance(['--base-url', server.url, '--api-key', KEY, '--nwc-key', 'sk_test_nwc', '--profile', 'full', '--reporter', 'json', '--output', join(dir, 'shared.json')]);
    expect(code, stdout).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'shared.json'), 'utf8'));
    const after = await defaultAccount();
    const created = after.ids.length - before.ids.length;
    expect(report.footprint.isolated).toBe(false);
    const [main, nwc] = report.footprint.left;
    expect(main).toEqual({ key: 'main', paymentRequests: created, clockAdvancedSeconds: expect.any(Number) });
    expect(main.paymentRequests).toBeGreaterThan(10);
    expect(main.clockAdvancedSeconds).toBeGreaterThan(0);
    expect(nwc).toMatchObject({ key: 'nwc', clockAdvancedSeconds: 0 });
    expect(nwc.paymentRequests).toBeGreaterThan(0);
    expect(stdout).toMatch(new RegExp(`\\nLeft behind: in the account of --api-key ${created} payment requests, its clock moved forward ${main.clockAdvancedSeconds} s; in the account of --nwc-key ${nwc.paymentRequests} payment requests? \\(--admin-key`));
  }, 120_000);

  it('--admin-key that is no admin key, or a target without the accounts API: exit 2, saying so', async () => {
    const notAdmin = await conformance(['--base-url', server.url, '--admin-key', KEY]);
    expect(notAdmin.code).toBe(2);
    expect(notAdmin.stderr).toMatch(/^lnpr: --admin-key: the target did not make an account \(POST \/sandbox\/v1\/accounts answered 401: is it a key with the accounts permission\?\)/);
    const bare = await conformance(['--base-url', noControls.url, '--admin-key', ADMIN_KEY]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('answered 404: the target has no accounts API; run without --admin-key');
  });
});

describe('lnpr conformance refuses, with exit 2 and one line on stderr', () => {
  it('an unreachable target', async () => {
    const { code, stdout, stderr } = await conformance(['--base-url', `http://127.0.0.1:${await closedPort()}`, '--api-key', KEY]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^lnpr: the target cannot be reached: .*\n$/);
    expect(checkLines(stdout)).toEqual([]);
  });

  it('a missing --api-key, without echoing the other keys', async () => {
    const { code, stdout, stderr } = await conformance(['--base-url', server.url, '--read-only-key', 'sk_test_readonly', '--nwc-key', 'sk_test_nwc']);
    expect(code).toBe(2);
    expect(stderr).toBe('lnpr: --api-key KEY is required: a key with create and read permission (or --admin-key KEY, to run in accounts of its own)\n');
    expect(stdout + stderr).not.toMatch(/sk_test_/);
  });

  it('a malformed known-failing file, naming the line', async () => {
    const list = writeTemp('bad-known-failing.txt', 'auth.missing-key\nauth.unknown-key auth.empty-bearer\n');
    const { code, stderr } = await conformance(['--base-url', server.url, '--api-key', KEY, '--known-failing', list]);
    expect(code).toBe(2);
    expect(stderr).toBe(`lnpr: --known-failing ${list} line 2: "auth.unknown-key auth.empty-bearer" is not a check id (one check id per line)\n`);
  });

  it('never echoes a key, even in a parse error or a URL password', async () => {
    const runs = await Promise.all([
      conformance([`--api-key=${KEY}`, '--base-url', 'not a url']),
      conformance(['--api-key', KEY, '--base-url', `http://user:${KEY}@127.0.0.1:${await closedPort()}`]),
      conformance(['--api-key', KEY, '--base-url']),
    ]);
    for (const { code, stderr } of runs) {
      expect(code).toBe(2);
      expect(stderr).toMatch(/^lnpr: /);
    }
    expect(runs[1]!.stderr).toContain('[redacted]');
  });
});

describe('conformance() in-process: every other bad usage is a UsageError (main turns it into exit 2)', () => {
  /** Runs the command in this process with captured streams; resolves with the usage error's message. */
  async function refusal(args: string[]): Promise<string> {
    let written = '';
    const stream = { write: (chunk: string) => ((written += chunk), true) } as unknown as NodeJS.WritableStream;
    const error = await runCommand(['--base-url', server.url, '--api-key', KEY, ...args], { stdout: stream, stderr: stream, env: {} }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    outputs.push(written, message);
    return message;
  }

  it.each([
    [['--profile', 'everything'], /^--profile must be one of core, lifecycle, full \(got "everything"\)$/],
    [['--reporter', 'xml'], /^--reporter must be one of pretty, junit, json/],
    [['--min-amount', '0'], /^--min-amount must be a whole number at least 1/],
    [['--min-amount', '2.5'], /^--min-amount must be a whole number/],
    [['--pay-command', 'lncli payinvoice'], /^--pay-command must contain \{invoice\}/],
    [['--known-failing', '/nonexistent/known-failing.txt'], /^--known-failing \/nonexistent\/known-failing\.txt: ENOENT/],
    [['--output', '/nonexistent/dir/report.xml'], /^--output \/nonexistent\/dir\/report\.xml: the directory cannot be written/],
    [['--frobnicate'], /^Unknown option '--frobnicate'/],
    [['--api-key', ''], /^--api-key KEY is required/],
    [['--nwc-key', ''], /^--nwc-key is empty$/],
    [['--payer-nwc-url', ''], /^--payer-nwc-url is empty$/],
    [['positional'], /^lnpr conformance takes options only/],
  ])('%j', async (flags, message) => {
    expect(await refusal(flags)).toMatch(message);
  });

  it('the lifecycle profile against a target without controls and without --pay-command', async () => {
    expect(await refusal(['--base-url', noControls.url, '--profile', 'lifecycle'])).toMatch(/^the lifecycle profile needs a way to move payment requests on/);
  });

  it('a stray key-like argument is not echoed', async () => {
    expect(await refusal([KEY])).not.toContain(KEY);
  });
});

describe('payCommand', () => {
  it('runs the command through the shell with {invoice} replaced (and in LNPR_INVOICE), and resolves on exit 0', async () => {
    const out = join(dir, 'pay-ok.txt');
    await payCommand(`printf '%s|%s' {invoice} "$LNPR_INVOICE" > ${shellQuote(out)}`)('lnbcrt10u1pexample');
    expect(readFileSync(out, 'utf8')).toBe('lnbcrt10u1pexample|lnbcrt10u1pexample');
  });

  it('quotes the invoice: shell syntax in it stays text', async () => {
    const out = join(dir, 'pay-quoted.txt');
    const hostile = `it's $(touch ${join(dir, 'pwned')}); \`id\` "x" *`;
    await payCommand(`printf '%s' {invoice} > ${shellQuote(out)}`)(hostile);
    expect(readFileSync(out, 'utf8')).toBe(hostile);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    expect(shellQuote('lnbcrt10u1p0abc')).toBe('lnbcrt10u1p0abc');
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });

  it('rejects on a non-zero exit with the stderr, and after the timeout', async () => {
    await expect(payCommand('echo insufficient balance >&2; exit 3')('lnbcrt1')).rejects.toThrow('the pay command exited with 3: insufficient balance');
    await expect(payCommand('true {invoice}; exit 4')('lnbcrt1')).rejects.toThrow('the pay command exited with 4 (no stderr)');
    const started = Date.now();
    await expect(payCommand('sleep 5; : {invoice}', 300)('lnbcrt1')).rejects.toThrow('did not finish within 0.3 s');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('drives the runner: a lifecycle check that completes a request hands the pay command its real invoice', async () => {
    const out = join(dir, 'pay-runner.txt');
    const check: Check = {
      id: 'test.pays',
      holds: [],
      title: 'completes a request',
      section: 'Test',
      level: 'MUST',
      profile: 'lifecycle',
      async run(context) {
        const answer = await context.client.post('/api/v1/payment-requests', {
          body: { amount: 1000, description: 'pay command test', destinationWallet: 'test@example.com' },
        });
        await context.lifecycle!.complete({ id: answer.body.id, invoice: answer.body.invoice });
      },
    };
    const result = await runConformance(
      { baseUrl: noControls.url, apiKey: KEY, profile: 'lifecycle', payInvoice: payCommand(`printf '%s' {invoice} > ${shellQuote(out)}; echo wallet offline >&2; false`) },
      [check],
    );
    expect(result.lifecycle).toBe('pay-command');
    expect(result.checks[0]).toMatchObject({ id: 'test.pays', outcome: 'failed', message: 'the pay command exited with 1: wallet offline' });
    expect(readFileSync(out, 'utf8')).toMatch(/^lnbcrt10u1\w+$/);
    expect(result.passed).toBe(false);
  });
});

describe('guardMainnet', () => {
  const MAINNET = 'lnbc10u1p4s8xf8pp5';
  const REGTEST = 'lnbcrt10u1p4s8xf8pp5';

  it('refuses mainnet invoices unless allowed, and never stops regtest ones', async () => {
    const paid: string[] = [];
    const lines: string[] = [];
    const pay = async (invoice: string) => {
      paid.push(invoice);
    };
    const guarded = guardMainnet(pay, false, (line) => lines.push(line));
    await expect(guarded(MAINNET)).rejects.toThrow(/--allow-mainnet-payments/);
    await guarded(REGTEST);
    expect(paid).toEqual([REGTEST]);

    const allowed = guardMainnet(pay, true, (line) => lines.push(line));
    await allowed(MAINNET);
    await allowed(MAINNET);
    expect(paid).toEqual([REGTEST, MAINNET, MAINNET]);
    expect(lines.filter((line) => line.includes('MAINNET'))).toHaveLength(1);
  });
});
