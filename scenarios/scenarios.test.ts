/**
 * Every scenario file, run through the real `lnpr scenario run` in a child process against one
 * real `lnpr serve`: the scenarios are documentation, and this keeps them true. All files go
 * through one CLI process (each start of the CLI costs seconds; they would run one after another
 * anyway, since they share the server's accounts), and each file's part of the output is checked.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../src/scenario/load-scenario.js';
import { runCli, startCliServer, type CliProcess } from '../test/support/cli-process.js';
import { freePort } from '../test/support/free-port.js';

const DIR = fileURLToPath(new URL('.', import.meta.url));
const FILES = readdirSync(DIR)
  .filter((file) => file.endsWith('.yaml'))
  .sort();

/** `nwc-wallet-offline.yaml` waits out the NWC timeout (10 s by default) once: 1 s here. */
const SERVE_ARGS = ['--nwc-timeout', '1'];

let server: CliProcess & { url: string };
/** The run of every shipped scenario, in one CLI process. */
let all: { code: number | string; stdout: string; stderr: string };

beforeAll(async () => {
  server = await startCliServer(SERVE_ARGS);
  all = await scenarioRun(FILES.map((file) => `scenarios/${file}`));
}, 60_000);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
});

/** Runs `lnpr scenario run ...args` to the end. */
async function scenarioRun(args: string[], baseUrl = server.url): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const cli = runCli(['scenario', 'run', ...args, '--base-url', baseUrl, '--api-key', 'sk_test_custodial']);
  const code = await cli.exited;
  return { code, ...cli.output() };
}

function writeTemp(name: string, text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'lnpr-scenario-')), name);
  writeFileSync(file, text);
  return file;
}

describe('the shipped scenarios', () => {
  it('include the ones the issue asks for', () => {
    expect(FILES).toEqual(
      expect.arrayContaining([
        'happy-path.yaml',
        'expiry-by-clock.yaml',
        'failure.yaml',
        'payment-after-expiry-refused.yaml',
        'double-payment-refused.yaml',
        'nwc-account.yaml',
        'fee-table-walk.yaml',
        'two-accounts-independent-clocks.yaml',
        'auto-pay-rule.yaml',
        'webhooks-happy-path.yaml',
        'webhooks-retries.yaml',
        'nwc-test-wallet-pays.yaml',
        'nwc-dropped-notification.yaml',
        'nwc-wallet-offline.yaml',
        'faults-status-and-retry.yaml',
        'faults-lost-answer.yaml',
        'faults-reset-latency-hang.yaml',
      ]),
    );
  });

  it('all pass against the real server: exit 0, and the summary line counts every step', () => {
    expect(all.code, `${all.stdout}\n${all.stderr}`).toBe(0);
    const total = FILES.reduce((sum, file) => sum + loadScenario(readFileSync(join(DIR, file), 'utf8')).steps.length, 0);
    expect(all.stdout.trimEnd().split('\n').at(-1)).toBe(`${total} passed, 0 failed`);
  });

  it.each(FILES)('%s: every step is shown with ✓, in order', (file) => {
    const steps = loadScenario(readFileSync(join(DIR, file), 'utf8')).steps;
    const section = sectionOf(all.stdout, `scenarios/${file}`);
    const numbered = section.filter((line) => /^ {2}[✓✗] \d+ /.test(line));
    expect(numbered, section.join('\n')).toHaveLength(steps.length);
    numbered.forEach((line, i) => expect(line).toMatch(new RegExp(`^ {2}✓ ${i + 1} .+ \\(\\d+ ms\\)$`)));
    expect(section.join('\n')).not.toContain('✗');
  });

  it('webhook scenarios start their own receivers and remove their endpoints at the end of the file', () => {
    for (const file of FILES.filter((name) => name.startsWith('webhooks-'))) {
      const section = sectionOf(all.stdout, `scenarios/${file}`);
      const started = section.filter((line) => / start a webhook receiver .*: http:\/\/127\.0\.0\.1:\d+\/webhooks \(/.test(line));
      expect(started.length, section.join('\n')).toBeGreaterThan(0);
      expect(section.filter((line) => /^ {2}✓ · remove the scenario's webhook endpoint we_\w+ \(/.test(line)).length).toBeGreaterThan(0);
    }
  });

  it('are independent: all of them again, in reverse order, pass', async () => {
    const { code, stdout, stderr } = await scenarioRun(FILES.map((file) => `scenarios/${file}`).reverse());
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/^\d+ passed, 0 failed$/);
  });
});

describe('the shipped scenarios on a used sandbox', () => {
  let used: CliProcess & { url: string };
  afterAll(async () => {
    used?.child.kill('SIGTERM');
    await used?.exited;
  });

  it('all pass after others have used the default accounts: endpoints that fail, requests, rules, clocks moved on', async () => {
    used = await startCliServer(SERVE_ARGS);
    const call = async (key: string, method: string, path: string, body?: unknown) => {
      const answer = await fetch(used.url + path, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(answer.status, `${method} ${path}: ${await answer.clone().text()}`).toBeLessThan(300);
      return answer.status === 204 ? undefined : ((await answer.json()) as Record<string, any>);
    };
    for (const key of ['sk_test_custodial', 'sk_test_nwc']) {
      // A receiver that is gone: every delivery fails and is retried on the account's clock.
      await call(key, 'POST', '/sandbox/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/gone' });
      // after: 30, not 1: an NWC create takes a few hundred ms (make_invoice over the relay) and
      // createdAt is whole seconds, so a rule due 1 s later could fail the request before `complete`.
      await call(key, 'PUT', '/sandbox/v1/rules', { rules: [{ name: 'someone else\'s rule', match: { amount: { max: 100_000 } }, outcome: 'fail', after: 30 }] });
      for (let i = 0; i < 5; i++) {
        const created = await call(key, 'POST', '/api/v1/payment-requests', { amount: 1000 + i, description: `left over ${i}`, destinationWallet: 'someone@example.com' });
        if (i % 2 === 0) await call(key, 'POST', `/sandbox/v1/payment-requests/${created!.id}/complete`);
      }
      await call(key, 'POST', '/sandbox/v1/clock/advance', { seconds: 7200 });
    }
    const { code, stdout, stderr } = await scenarioRun(FILES.map((file) => `scenarios/${file}`), used.url);
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/^\d+ passed, 0 failed$/);
  }, 60_000);
});

/** The lines a file's run printed: from its header (`Name (file)`) to the next unindented line. */
function sectionOf(stdout: string, file: string): string[] {
  const lines = stdout.split('\n');
  const start = lines.findIndex((line) => line.endsWith(` (${file})`) && !line.startsWith(' '));
  if (start === -1) throw new Error(`no output for ${file}:\n${stdout}`);
  const end = lines.findIndex((line, i) => i > start && line !== '' && !line.startsWith(' '));
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

describe('lnpr scenario run, when things go wrong', () => {
  it('exits 1 on a failed expectation, shows expected and actual, stops that file and runs the next', async () => {
    const wrong = readFileSync(join(DIR, 'happy-path.yaml'), 'utf8').replace(
      '  - status: ${order.id}\n    expect:\n      body: { status: completed }',
      '  - status: ${order.id}\n    expect:\n      body: { status: failed }',
    );
    expect(wrong).toContain('{ status: failed }');
    const file = writeTemp('wrong.yaml', wrong);
    const { code, stdout } = await scenarioRun([file, 'scenarios/fee-table-walk.yaml']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^ {2}✓ 4 pay /m);
    expect(stdout).toMatch(/^ {2}✗ 5 status pr_\w+ \(\d+ ms\)$/m);
    expect(stdout).toContain('      expected body.status: "failed"\n      actual   body.status: "completed"\n');
    expect(stdout).toContain('response: HTTP 200');
    expect(sectionOf(stdout, file).join('\n')).not.toMatch(/^ {2}. 6 /m);
    expect(stdout).toContain('(2 steps not run)');
    // The next file still ran, and the summary counts both: 4 + 12 passed, 1 failed.
    expect(sectionOf(stdout, 'scenarios/fee-table-walk.yaml').filter((line) => line.startsWith('  ✓'))).toHaveLength(12);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('16 passed, 1 failed');
  });

  it('exits 2 on an invalid file, naming the step, before running any step', async () => {
    const invalid = writeTemp('invalid.yaml', 'name: Bad\nsteps:\n  - reset: true\n  - create: {}\n    pay: x\n  - read: a\n    expct: {}\n');
    const { code, stdout, stderr } = await scenarioRun(['scenarios/happy-path.yaml', invalid]);
    expect(code).toBe(2);
    expect(stderr).toContain(`${invalid} is not a valid scenario`);
    expect(stderr).toContain('step 2 (line 4): 2 actions (create, pay): a step takes exactly one');
    expect(stderr).toContain('step 3 (line 6): unknown key "expct"');
    // Not even the valid file ran: every file is checked first.
    expect(stdout).not.toContain('✓');
  });

  it('exits 2 when the target cannot be reached, saying why', async () => {
    const port = await freePort();
    const { code, stderr } = await scenarioRun(['scenarios/happy-path.yaml'], `http://127.0.0.1:${port}`);
    expect(code).toBe(2);
    expect(stderr).toMatch(new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}/sandbox/v1/reset: .*ECONNREFUSED`));
  });

  it('exits 2 on bad usage', async () => {
    // None of these reaches the server, so they may run side by side.
    const missingKey = runCli(['scenario', 'run', 'scenarios/happy-path.yaml', '--base-url', server.url]);
    const [missingKeyCode, missingFile, badKey, emptyHost] = await Promise.all([
      missingKey.exited,
      scenarioRun(['scenarios/no-such-file.yaml']),
      scenarioRun(['scenarios/happy-path.yaml', '--key', 'nwc']),
      scenarioRun(['scenarios/happy-path.yaml', '--receiver-host=']),
    ]);
    expect(missingKeyCode).toBe(2);
    expect(missingKey.output().stderr).toContain('--api-key KEY is required');
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toContain('cannot read scenario file scenarios/no-such-file.yaml');
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('--key expects NAME=KEY');
    expect(emptyHost.code).toBe(2);
    expect(emptyHost.stderr).toContain('--receiver-host needs a host');
  });
});

