/**
 * The README's commands, run as a new user runs them: in a fresh copy of the repository (the
 * files git tracks, as a clone has them: no dist/, no node_modules) after `npm ci`, through a
 * shell. The commands are read from the README itself, so a command that changes there is the
 * command tested here; only the address and the secret are filled in. Slow (an `npm ci`): one
 * copy serves every case.
 */
import { execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyingReceiver, type TestReceiver } from '../src/webhook-check/testing/receivers.node.js';
import { userEnv } from './support/tarball-project.js';

const REPO = new URL('..', import.meta.url).pathname;
const run = promisify(execFile);
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

let checkout: string;
let readme: string;

beforeAll(async () => {
  readme = await readFile(join(REPO, 'README.md'), 'utf8');
  checkout = await mkdtemp(join(tmpdir(), 'lnpr-clone-'));
  // What a clone holds: the tracked files (and new ones not yet committed, not ignored).
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, maxBuffer: 1 << 26 });
  const files = stdout.split('\0').filter((file) => file !== '');
  for (const file of files) await cp(join(REPO, file), join(checkout, file), { force: true, errorOnExist: false }).catch(ignoreDeleted);
  await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: checkout, env: userEnv(), maxBuffer: 1 << 26 });
}, 300_000);

afterAll(async () => {
  if (checkout) await rm(checkout, { recursive: true, force: true });
});

describe("the README's commands, from a fresh clone after npm ci", () => {
  it('npx lnpr --version prints the package version', async () => {
    const { version } = JSON.parse(await readFile(join(checkout, 'package.json'), 'utf8')) as { version: string };
    expect(await shell('npx lnpr --version')).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('npm start & then kill $! leaves nothing listening within 3 s', async () => {
    // The README's own words, with a port of the test's choosing.
    expect(readme).toContain('npm start &');
    const script = [
      'npm start -- --port 0 > server.log 2>&1 &',
      'npm_pid=$!',
      'for i in $(seq 1 150); do grep -q "listening on http" server.log && break; sleep 0.1; done',
      'grep -o "http://127.0.0.1:[0-9]*" server.log | head -1',
      'kill $npm_pid',
    ].join('\n');
    const { stdout, code } = await shell(script);
    expect(code).toBe(0);
    const url = new URL(stdout.trim());
    const closedAfter = await waitUntilClosed(Number(url.port), 3_000);
    expect(closedAfter, `still listening on ${url.port} 3 s after kill`).toBeLessThan(3_000);
  }, 30_000);

  describe('against a running sandbox', () => {
    let server: { url: string; stop(): Promise<void> };
    let receiver: TestReceiver;

    beforeAll(async () => {
      server = await startFromCheckout();
      receiver = await verifyingReceiver(SECRET);
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
      await receiver?.close();
    });

    it('npx lnpr conformance … (the full profile, as the README writes it) passes', async () => {
      const command = readmeCommand('npx lnpr conformance --base-url http://127.0.0.1:8787').replace('http://127.0.0.1:8787', server.url);
      expect(command).toContain('--profile full');
      const result = await shell(command);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const report = await readFile(join(checkout, 'conformance.xml'), 'utf8');
      expect(report).toMatch(/<testsuites[^>]* failures="0"/);
    }, 60_000);

    it('npx lnpr webhooks check … passes against a receiver that verifies', async () => {
      const command = readmeCommand('npx lnpr webhooks check --url').replace(/http:\/\/127\.0\.0\.1:3000\/\S+/, receiver.url);
      const result = await shell(command, { LNPR_WEBHOOK_SECRET: SECRET });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(receiver.received.length).toBeGreaterThanOrEqual(12);
    }, 60_000);
  });
});

/** The README's command that starts with `prefix`, continuation lines joined. */
function readmeCommand(prefix: string): string {
  const start = readme.indexOf(`\n${prefix}`);
  expect(start, `the README has no command starting "${prefix}"`).toBeGreaterThan(-1);
  const lines: string[] = [];
  for (const line of readme.slice(start + 1).split('\n')) {
    lines.push(line.replace(/\\$/, '').trim());
    if (!line.endsWith('\\')) break;
  }
  return lines.join(' ');
}

/** Runs `script` with bash in the checkout; never rejects. */
async function shell(script: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('bash', ['-c', script], { cwd: checkout, env: { ...userEnv(), ...env }, timeout: 50_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** `npx lnpr serve --port 0` in the checkout, until stopped. */
async function startFromCheckout(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn('npx', ['lnpr', 'serve', '--port', '0'], { cwd: checkout, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 30 s:\n${output}`)), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
  });
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Milliseconds until nothing accepts connections on `port` (or `limit`, if it never closes). */
async function waitUntilClosed(port: number, limit: number): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < limit) {
    if (!(await accepts(port))) return performance.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return limit;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function ignoreDeleted(error: NodeJS.ErrnoException): void {
  // A tracked file deleted in the working tree and not yet committed: a clone would not have it either.
  if (error.code !== 'ENOENT') throw error;
}
