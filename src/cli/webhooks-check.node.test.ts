/**
 * `lnpr webhooks check` as users run it: a child process against receivers in this process
 * (real HTTP on 127.0.0.1), for the exit statuses and the report formats; in-process for every
 * other way of calling it wrong. No run may print the secret.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../test/support/free-port.js';
import { runCli } from '../../test/support/cli-process.js';
import { WEBHOOK_CASES } from '../webhook-check/cases.js';
import { carelessReceiver, timestampBlindReceiver, typeTrustingReceiver, verifyingReceiver, type TestReceiver } from '../webhook-check/testing/receivers.node.js';
import { UsageError } from './usage-error.js';
import { webhooksCheck } from './webhooks-check.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const SECRET_KEY = SECRET.slice('whsec_'.length);
const dir = mkdtempSync(join(tmpdir(), 'lnpr-webhooks-check-'));
/** Every run's output, checked for the secret at the end. */
const outputs: string[] = [];

const receivers: TestReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  expect(outputs.length).toBeGreaterThan(0);
  for (const output of outputs) expect(output).not.toContain(SECRET_KEY);
});

async function using(receiver: Promise<TestReceiver>): Promise<TestReceiver> {
  const started = await receiver;
  receivers.push(started);
  return started;
}

/** Runs `lnpr ...args` to the end. */
async function lnpr(args: string[]): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const cli = runCli(args);
  const code = await cli.exited;
  const { stdout, stderr } = cli.output();
  outputs.push(stdout, stderr);
  return { code, stdout, stderr };
}

/** The live lines of the cases (a mark, then the id), without their indented reasons. */
function caseLines(text: string): string[] {
  return text.split('\n').filter((line) => /^(✓|✗|! warned) /.test(line));
}

describe('lnpr webhooks check, as a process', () => {
  it('a receiver that verifies: exit 0; --reporter json puts the report alone on stdout and the live lines on stderr', async () => {
    const receiver = await using(verifyingReceiver(SECRET));
    const { code, stdout, stderr } = await lnpr(['webhooks', 'check', '--url', receiver.url, '--secret', SECRET, '--reporter', 'json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ format: 'lnpr-webhooks-check', version: 1, passed: true, url: receiver.url });
    expect(report.cases.map((c: { id: string }) => c.id)).toEqual(WEBHOOK_CASES.map((c) => c.id));
    for (const c of report.cases) expect(c.outcome).toBe('passed');
    expect(stderr.split('\n')[0]).toBe(`lnpr webhooks check: ${receiver.url}`);
    expect(caseLines(stderr)).toHaveLength(WEBHOOK_CASES.length);
    expect(stderr.trimEnd().split('\n').at(-1)).toBe(`${WEBHOOK_CASES.length} passed, 0 failed, 0 warned`);
    expect(receiver.received.length).toBeGreaterThanOrEqual(WEBHOOK_CASES.length);
  });

  it('a receiver that checks nothing: exit 1; the JUnit file has one <testcase> per case and the forged, stale and altered ones fail as accepted', async () => {
    const receiver = await using(carelessReceiver());
    const file = join(dir, 'careless.xml');
    const { code, stdout, stderr } = await lnpr(['webhooks', 'check', `--secret=${SECRET}`, '--url', receiver.url, '--reporter', 'junit', '--output', file]);
    expect(code).toBe(1);
    expect(stderr).toBe('');
    const xml = readFileSync(file, 'utf8');
    outputs.push(xml);
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="lnpr webhooks check" tests="12" failures="7" /);
    expect(xml.match(/<testcase /g)).toHaveLength(WEBHOOK_CASES.length);
    for (const id of ['forged.other-secret', 'forged.no-signature', 'forged.no-webhook-headers', 'stale.past', 'stale.future', 'altered.amount', 'altered.whitespace']) {
      expect(xml).toMatch(new RegExp(`<testcase classname="\\w+" name="${id.replace('.', '\\.')}: [^"]*" time="[\\d.]+">\\n\\s*<failure message="[^"]*: accepted \\(200\\), expected a refusal \\(4xx\\)"`));
      expect(stdout).toContain(`✗ ${id}  `);
    }
    expect(stdout).toMatch(/Failed \(required\):\n {2}forged\.other-secret +accepted \(200\); must be refused\n/);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('4 passed, 7 failed, 1 warned');
  });

  it('a receiver that checks signatures but not timestamps: exit 1, naming the stale cases (pretty report)', async () => {
    const receiver = await using(timestampBlindReceiver(SECRET));
    const { code, stdout } = await lnpr(['webhooks', 'check', '--url', receiver.url, '--secret', SECRET]);
    expect(code).toBe(1);
    expect(caseLines(stdout).filter((line) => line.startsWith('✗'))).toEqual([
      expect.stringMatching(/^✗ stale\.past {2}correctly signed, but webhook-timestamp 10 minutes old \(each event type\): refused → 200 ×4 /),
      expect.stringMatching(/^✗ stale\.future {2}/),
    ]);
    expect(stdout).toContain('The receiver does not check webhook-timestamp');
    expect(stdout).toMatch(/Failed \(required\):\n {2}stale\.past {4}accepted \(200\); must be refused\n {2}stale\.future {2}accepted \(200\); must be refused\n/);
  });

  it('a receiver that skips verification for payment_request.failed and payment_request.expired: exit 1; every forged, stale and altered case fails naming both types', async () => {
    const receiver = await using(typeTrustingReceiver(SECRET, ['payment_request.failed', 'payment_request.expired']));
    const { code, stdout, stderr } = await lnpr(['webhooks', 'check', '--url', receiver.url, '--secret', SECRET, '--reporter', 'junit']);
    expect(code).toBe(1);
    const ids = ['forged.other-secret', 'forged.no-signature', 'forged.no-webhook-headers', 'stale.past', 'stale.future', 'altered.amount', 'altered.whitespace'];
    for (const id of ids) {
      expect(stdout).toMatch(
        new RegExp(`name="${id.replace('.', '\\.')}: [^"]*" time="[\\d.]+">\\n\\s*<failure message="payment_request\\.failed, payment_request\\.expired \\([^)]*\\): accepted \\(200\\), expected a refusal \\(4xx\\)"`),
      );
      expect(stderr).toMatch(new RegExp(`\\n✗ ${id.replace('.', '\\.')} .* → created 401, completed 401, failed 200, expired 200 `));
      expect(stderr).toMatch(new RegExp(`\\n  ${id.replace('.', '\\.')} +accepted \\(200\\) for payment_request\\.failed, payment_request\\.expired; must be refused\\n`));
    }
    expect(stderr).toContain('Refused for payment_request.created, payment_request.completed only: the receiver treats event types differently.');
    expect(stderr.trimEnd().split('\n').at(-1)).toBe('4 passed, 7 failed, 1 warned');
  });

  it('exit 2: an unreachable receiver, a missing --url, an unknown webhooks subcommand (never echoed)', async () => {
    const port = await freePort();
    const [unreachable, noUrl, badSubcommand, help] = await Promise.all([
      lnpr(['webhooks', 'check', '--url', `http://127.0.0.1:${port}/hooks`, '--secret', SECRET]),
      lnpr(['webhooks', 'check', '--secret', SECRET]),
      lnpr(['webhooks', SECRET]),
      lnpr(['--help']),
    ]);
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(/^lnpr: the receiver cannot be reached: http:\/\/127\.0\.0\.1:\d+\/hooks: connect ECONNREFUSED [\d.:]+\n$/);
    expect(caseLines(unreachable.stdout)).toEqual([]);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toBe('lnpr: --url URL is required: the receiver, e.g. --url http://127.0.0.1:3000/webhooks\n');
    expect(badSubcommand.code).toBe(2);
    expect(badSubcommand.stderr).toBe('lnpr: lnpr webhooks has one subcommand: check (lnpr webhooks check --help)\n');
    expect(help.stdout).toContain('webhooks     test a webhook receiver');
  });
});

describe('webhooksCheck() in-process', () => {
  /** Captured output streams. */
  function streams() {
    const written = { stdout: '', stderr: '' };
    const stream = (name: 'stdout' | 'stderr') => ({ write: (chunk: string) => ((written[name] += chunk), true) }) as unknown as NodeJS.WritableStream;
    return { io: { stdout: stream('stdout'), stderr: stream('stderr'), env: {} }, written };
  }

  /** Runs the command; resolves with the usage error's message (main turns it into exit 2). */
  async function refusal(args: string[]): Promise<string> {
    const { io, written } = streams();
    const error = await webhooksCheck(args, io).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    outputs.push(written.stdout, written.stderr, message);
    return message;
  }

  const URL_FLAGS = ['--url', 'http://127.0.0.1:9/hooks'];
  it.each([
    [[...URL_FLAGS], /^--secret whsec_… is required: the secret the receiver verifies with$/],
    [[...URL_FLAGS, '--secret', SECRET_KEY], /^--secret: the secret must start with whsec_ \(a Standard Webhooks secret\)$/],
    [[...URL_FLAGS, '--secret', 'whsec_not*base64'], /^--secret: the secret must be whsec_ followed by base64/],
    [[...URL_FLAGS, '--secret', 'whsec_'], /^--secret: the secret must be whsec_ followed by base64/],
    [['--url', 'not a url', '--secret', SECRET], /^--url: "not a url" is not a URL$/],
    [['--url', 'ftp://example.com/hooks', '--secret', SECRET], /^--url: "ftp:\/\/example\.com\/hooks" is not an http\(s\) URL$/],
    [[...URL_FLAGS, '--secret', SECRET, '--reporter', 'xml'], /^--reporter must be one of pretty, junit, json \(got "xml"\)$/],
    [[...URL_FLAGS, '--secret', SECRET, '--output', '/nonexistent/dir/report.xml'], /^--output \/nonexistent\/dir\/report\.xml: the directory cannot be written/],
    [[...URL_FLAGS, '--secret', SECRET, '--frobnicate'], /^Unknown option '--frobnicate'/],
    [[...URL_FLAGS, '--secret', SECRET, 'extra'], /^lnpr webhooks check takes options only/],
  ])('refuses %j', async (args, message) => {
    expect(await refusal(args)).toMatch(message);
  });

  it('never echoes the secret: not when it is malformed, stray, or a URL password', async () => {
    const malformed = `${SECRET}!`;
    expect(await refusal([...URL_FLAGS, '--secret', malformed])).not.toContain(SECRET_KEY);
    expect(await refusal([...URL_FLAGS, '--secret', SECRET, SECRET])).not.toContain(SECRET_KEY);
    // The flags swapped: the secret lands where a value is quoted back.
    expect(await refusal(['--url', SECRET, '--secret', 'http://127.0.0.1:9/hooks'])).toBe('--url: "[redacted]" is not a URL');
    const message = await refusal(['--url', `http://hook:p4ssw0rd-of-the-hook@127.0.0.1:9/x`, '--secret', SECRET]);
    expect(message).toBe('--url: a user or password in the URL is never sent (deliveries carry no credentials but their signature); give the URL without it');
    expect(outputs.join('\n')).not.toContain('p4ssw0rd');
  });

  it('--help prints the usage', async () => {
    const { io, written } = streams();
    await webhooksCheck(['--help'], io);
    expect(written.stdout).toMatch(/^Usage: lnpr webhooks check --url URL --secret whsec_… \[options\]\n/);
    expect(written.stdout).toContain('Exit status: 0 valid deliveries were accepted');
  });

  it('--output FILE with the pretty reporter: live lines on stdout, the whole report in the file', async () => {
    const receiver = await using(verifyingReceiver(SECRET));
    const file = join(dir, 'report.txt');
    const { io, written } = streams();
    await webhooksCheck(['--url', receiver.url, '--secret', SECRET, '--output', file], io);
    const report = readFileSync(file, 'utf8');
    outputs.push(written.stdout, written.stderr, report);
    expect(written.stderr).toBe('');
    expect(caseLines(written.stdout)).toEqual(caseLines(report));
    expect(caseLines(report)).toHaveLength(WEBHOOK_CASES.length);
    expect(report.trimEnd().split('\n').at(-1)).toBe(`${WEBHOOK_CASES.length} passed, 0 failed, 0 warned`);
  });
});
