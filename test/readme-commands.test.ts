/**
 * The README's and the documentation's commands and snippets, run as a new user runs them: in a
 * fresh copy of the repository (the files git tracks, as a clone has them: no dist/, no
 * node_modules) after `npm ci`, through a shell, python3 or node. The snippets are read from the
 * pages themselves, so a snippet that changes there is the snippet tested here; only the port
 * (8787 → a free one), the receiver's address and the webhook secret are filled in.
 *
 * Every fenced block of a runnable language carries a marker on the line before it, so no snippet
 * is silently skipped: `<!-- run -->` (against a running sandbox), `<!-- run: server -->` (starts
 * its own), `<!-- run: receiver -->` (a webhook receiver, proven with `lnpr webhooks check`),
 * `<!-- run: rules -->` (a rules file, put in force), `<!-- run: tarball -->`,
 * `<!-- run: ci-tarball -->` / `<!-- run: ci-checkout -->` (a CI job's `run:` / `script:` lines;
 * the actions themselves cannot run offline), `<!-- tested-by: test/… -->` (a test that reads or
 * copies it, and names the page), or `<!-- not-run: why -->`. Slow (an `npm ci`, an `npm pack`):
 * one copy serves every case. The copy lives at `<tmp>/lnpr-sandbox`, beside `<tmp>/your-app`,
 * so the pages' `../lnpr-sandbox/…` paths hold as written.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFile, cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { verifyingReceiver, type TestReceiver } from '../src/webhook-check/testing/receivers.node.js';
import { userEnv } from './support/tarball-project.js';
import { freePort } from './support/free-port.js';

const REPO = new URL('..', import.meta.url).pathname;
const run = promisify(execFile);
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
/** Languages whose blocks are commands or code: each must carry a marker. */
const RUNNABLE = new Set(['sh', 'bash', 'shell', 'python', 'py', 'js', 'mjs', 'ts', 'tsx', 'yaml', 'yml']);
/** Pages written elsewhere: the generated reference (and the page it is generated from). */
const NOT_OURS = [/^docs\/reference\//, /^docs\/\.vitepress\//];

interface Block {
  page: string;
  line: number;
  lang: string;
  code: string;
  marker: string | undefined;
}

const PAGES = await docPages();
const BLOCKS = (await Promise.all(PAGES.map(blocksOf))).flat();
const marked = (kind: string) => BLOCKS.filter((block) => block.marker === `run${kind ? `: ${kind}` : ''}`);
const label = (block: Block) => `${block.page}:${block.line} (${block.lang})`;

let root: string;
let checkout: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'lnpr-docs-'));
  checkout = join(root, 'lnpr-sandbox');
  // What a clone holds: the tracked files (and new ones not yet committed, not ignored).
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, maxBuffer: 1 << 26 });
  // Never node_modules: in a git worktree it may be a symlink to another checkout's (the ignore rule
  // `node_modules/` does not match a link), and `npm ci` in the copy would empty that one.
  const files = stdout.split('\0').filter((file) => file !== '' && file !== 'node_modules' && !file.startsWith('node_modules/'));
  for (const file of files) await cp(join(REPO, file), join(checkout, file), { force: true, errorOnExist: false }).catch(ignoreDeleted);
  await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: checkout, env: userEnv(), maxBuffer: 1 << 26 });
  // "Your project", as the pages name it: a package.json and nothing else.
  await mkdir(join(root, 'your-app'));
  await writeFile(join(root, 'your-app', 'package.json'), '{ "name": "your-app", "private": true, "type": "module" }\n');
  await mkdir(join(root, 'ci-project', 'vendor'), { recursive: true });
}, 300_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('every command and snippet in the docs is marked', () => {
  it('finds the pages and their blocks', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'docs/getting-started.md', 'docs/guides/webhooks.md', 'docs/guides/scenarios.md']));
    expect(marked('').length).toBeGreaterThan(10);
    expect(marked('receiver').map((block) => block.lang)).toEqual(expect.arrayContaining(['python', 'js']));
  });

  it.each(BLOCKS.filter((block) => RUNNABLE.has(block.lang)).map((block) => [label(block), block] as const))('%s', async (_, block) => {
    expect(block.marker, `${label(block)} has no <!-- run --> / <!-- tested-by: … --> / <!-- not-run: why --> marker`).toBeDefined();
    const marker = block.marker!;
    if (marker.startsWith('not-run: ')) expect(marker.length, 'a not-run marker says why').toBeGreaterThan(20);
    else if (marker.startsWith('tested-by: ')) {
      const test = marker.slice('tested-by: '.length);
      const source = await readFile(join(REPO, test), 'utf8');
      expect(source, `${test} names the page it tests`).toContain(block.page);
    } else expect(['run', 'run: server', 'run: receiver', 'run: rules', 'run: tarball', 'run: ci-tarball', 'run: ci-checkout']).toContain(marker);
  });

  it('no page installs the package from a registry (it is not published)', () => {
    for (const block of BLOCKS.filter((block) => !block.marker?.startsWith('not-run'))) {
      expect(block.code, label(block)).not.toMatch(/npm (install|i|add)( --save-dev| -D)? lnpr-sandbox\b|npx (--yes )?--package lnpr-sandbox\b/);
    }
  });
});

describe('from a fresh clone after npm ci', () => {
  it('npx lnpr --version prints the package version', async () => {
    const { version } = JSON.parse(await readFile(join(checkout, 'package.json'), 'utf8')) as { version: string };
    expect(await shell('npx lnpr --version')).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('npm start & then kill $! leaves nothing listening within 3 s', async () => {
    // The scenarios guide's own words, with a port of the test's choosing.
    expect(await readFile(join(REPO, 'docs/guides/scenarios.md'), 'utf8')).toContain('npm start &');
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
    let server: { url: string; port: number; stop(): Promise<void> };
    let receiver: TestReceiver;

    beforeAll(async () => {
      server = await startFromCheckout();
      receiver = await verifyingReceiver(SECRET);
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
      await receiver?.close();
    });

    it.each(marked('').map((block) => [label(block), block] as const))('%s runs as written', async (_, block) => {
      let code = block.code.replaceAll('8787', String(server.port));
      if (code.includes('webhooks check')) code = code.replace(/http:\/\/127\.0\.0\.1:3000\/\S+/, receiver.url);
      const result = await runSnippet(block.lang, code, block.line);
      expect(result.code, `${label(block)}\n${result.stdout}\n${result.stderr}`).toBe(0);
      if (code.includes('lnpr conformance') && code.includes('--output conformance.xml')) {
        expect(await readFile(join(checkout, 'conformance.xml'), 'utf8')).toMatch(/<testsuites[^>]* failures="0"/);
      }
      if (code.includes('webhooks check')) expect(receiver.received.length).toBeGreaterThanOrEqual(12);
    }, 90_000);

    it.each(marked('rules').map((block) => [label(block), block] as const))('%s is a rules file the sandbox puts in force', async (_, block) => {
      const account = await post(server.url, '/sandbox/v1/accounts', 'sk_test_admin', { mode: 'custodial', name: 'docs rules' });
      const key = (account.body as { keys: { secret: string } }).keys.secret;
      const { rules } = parseYaml(block.code) as { rules: unknown[] };
      const answer = await fetch(`${server.url}/sandbox/v1/rules`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ rules }),
      });
      expect(answer.status, await answer.clone().text()).toBe(200);
      expect(((await answer.json()) as { rules: unknown[] }).rules).toHaveLength(rules.length);
    });
  });

  it.each(marked('receiver').map((block) => [label(block), block] as const))('%s passes lnpr webhooks check', async (_, block) => {
    const port = await freePort();
    const file = block.lang === 'python' ? join(root, `receiver-${block.line}.py`) : join(checkout, `receiver-${block.line}.mjs`);
    await writeFile(file, block.code);
    const child = spawn(block.lang === 'python' ? 'python3' : process.execPath, [file], {
      cwd: checkout,
      env: userEnv({ PORT: String(port), LNPR_WEBHOOK_SECRET: SECRET }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      expect(await waitUntilOpen(port, 20_000), `the receiver never listened:\n${output}`).toBe(true);
      const result = await shell(`npx lnpr webhooks check --url http://127.0.0.1:${port}/webhooks --secret "$LNPR_WEBHOOK_SECRET"`, { LNPR_WEBHOOK_SECRET: SECRET });
      expect(result.code, result.stdout + result.stderr + output).toBe(0);
      expect(result.stdout).toMatch(/12 passed, 0 failed/);
    } finally {
      await stop(child);
    }
  }, 90_000);

  it.each(marked('server').map((block) => [label(block), block] as const))('%s starts its server and runs as written', async (_, block) => {
    const port = await freePort();
    const result = await runServerScript(block.code.replaceAll('8787', String(port)), checkout, port, !block.code.includes('kill $!'));
    expect(result.code, `${label(block)}\n${result.output}`).toBe(0);
    if (block.code.includes('scenario run')) expect(result.output).toMatch(/\d+ passed, 0 failed/);
  }, 120_000);

  // Last: the tarball (an npm pack) and the CI jobs that use it, and the job that runs from a checkout.
  describe('the tarball and the CI jobs', () => {
    const tarballBlocks = marked('tarball');
    const packing = tarballBlocks.filter((block) => block.code.startsWith('npm pack'));

    it('a page packs the tarball and installs it', () => {
      expect(packing.length).toBeGreaterThan(0);
    });

    it.each([...packing, ...tarballBlocks.filter((block) => !packing.includes(block))].map((block) => [label(block), block] as const))(
      '%s runs as written',
      async (_, block) => {
        // The block that packs starts in the checkout (and goes to ../your-app); the others run in your project.
        const cwd = packing.includes(block) ? checkout : join(root, 'your-app');
        const result = await shell(block.code, {}, cwd, 280_000);
        expect(result.code, `${label(block)}\n${result.stdout}\n${result.stderr}`).toBe(0);
        if (block.code.includes('npx lnpr --version')) expect(result.stdout).toMatch(/^\d+\.\d+\.\d+$/m);
      },
      300_000,
    );

    it.each(marked('ci-tarball').map((block) => [label(block), block] as const))("%s: the job's lines pass from the tarball", async (_, block) => {
      const project = join(root, 'ci-project');
      const tarball = (await readdir(checkout)).find((file) => /^lnpr-sandbox-.*\.tgz$/.test(file));
      expect(tarball, 'npm pack made no tarball').toBeDefined();
      await copyFile(join(checkout, tarball!), join(project, 'vendor', tarball!));
      await rm(join(project, 'conformance.xml'), { force: true });
      const port = await freePort();
      const lines = jobLines(block.code);
      expect(lines.join('\n')).toContain('lnpr conformance');
      const result = await runServerScript(lines.join('\n').replaceAll('8787', String(port)), project, port, false);
      expect(result.code, `${label(block)}\n${result.output}`).toBe(0);
      expect(await readFile(join(project, 'conformance.xml'), 'utf8')).toMatch(/<testsuites[^>]* failures="0"/);
    }, 300_000);

    it.each(marked('ci-checkout').map((block) => [label(block), block] as const))("%s: the job's lines pass from a checkout", async (_, block) => {
      await rm(join(root, 'conformance.xml'), { force: true });
      const port = await freePort();
      // The copy was made by exactly `npm ci` in the checkout (above): that line is not run twice.
      const lines = jobLines(block.code).filter((line) => line !== 'cd lnpr-sandbox && npm ci');
      expect(lines.length).toBe(jobLines(block.code).length - 1);
      const result = await runServerScript(lines.join('\n').replaceAll('8787', String(port)), root, port, false);
      expect(result.code, `${label(block)}\n${result.output}`).toBe(0);
      expect(await readFile(join(root, 'conformance.xml'), 'utf8')).toMatch(/<testsuites[^>]* failures="0"/);
    }, 200_000);
  });
});

/** README.md and every Markdown page of docs/ written by hand. */
async function docPages(): Promise<string[]> {
  const pages = ['README.md'];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(join(REPO, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (NOT_OURS.some((pattern) => pattern.test(path))) continue;
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  await walk('docs');
  return pages.sort();
}

/** The fenced blocks of `page`, each with the marker comment on the last non-blank line before it. */
async function blocksOf(page: string): Promise<Block[]> {
  const lines = (await readFile(join(REPO, page), 'utf8')).split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^( *)```(\w*)/.exec(lines[index]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const end = lines.findIndex((line, at) => at > index && line.trim() === '```');
    expect(end, `${page}:${index + 1} has an unclosed block`).toBeGreaterThan(index);
    let before = index - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const marker = /^\s*<!-- (run(?:: [a-z-]+)?|tested-by: \S+|not-run: .+) -->$/.exec(lines[before] ?? '')?.[1];
    const code = lines.slice(index + 1, end).map((line) => line.slice(indent)).join('\n') + '\n';
    blocks.push({ page, line: index + 1, lang: open[2]!, code, marker });
    index = end;
  }
  return blocks;
}

/** A CI job's shell lines: GitHub Actions' `run:` steps, GitLab CI's `script:` lists, in order. */
function jobLines(yaml: string): string[] {
  const document = parseYaml(yaml) as Record<string, unknown>;
  const lines: string[] = [];
  const jobs = (document.jobs ?? document) as Record<string, { steps?: Array<{ run?: string }>; script?: string[] }>;
  for (const job of Object.values(jobs)) {
    if (typeof job !== 'object' || job === null) continue;
    for (const step of job.steps ?? []) if (step.run) lines.push(step.run.trim());
    for (const line of job.script ?? []) lines.push(line.trim());
  }
  return lines;
}

/** Runs a snippet: sh with bash (-e, pipefail), python with python3, js with node in the checkout. */
async function runSnippet(lang: string, code: string, line: number): Promise<{ code: number; stdout: string; stderr: string }> {
  if (lang === 'sh' || lang === 'bash') return shell(code, { LNPR_WEBHOOK_SECRET: SECRET });
  const file = lang === 'python' ? join(root, `snippet-${line}.py`) : join(checkout, `snippet-${line}.mjs`);
  await writeFile(file, code);
  return exec(lang === 'python' ? 'python3' : process.execPath, [file], checkout, {}, 60_000);
}

/** Runs `script` with bash (-e, pipefail) in `cwd` (the checkout by default); never rejects. */
function shell(script: string, env: Record<string, string> = {}, cwd = checkout, timeout = 80_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return exec('bash', ['-e', '-o', 'pipefail', '-c', script], cwd, env, timeout);
}

async function exec(file: string, args: string[], cwd: string, env: Record<string, string>, timeout: number): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env: userEnv(env), timeout, maxBuffer: 1 << 26 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/**
 * Runs a script that starts a server on `port` (in the background, or for good), in its own process
 * group. Done when the script ends (its exit code counts) or, for a server left running
 * (`leftRunning`), once it answers /healthz; then everything it started is stopped.
 */
async function runServerScript(script: string, cwd: string, port: number, leftRunning: boolean): Promise<{ code: number | null; output: string }> {
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd, env: userEnv({ PORT: String(port) }), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exitCode: number | null | undefined;
  child.on('exit', (code) => (exitCode = code));
  const deadline = Date.now() + 180_000;
  try {
    while (Date.now() < deadline) {
      if (exitCode !== undefined) return { code: exitCode, output };
      if (leftRunning && (await healthy(port))) return { code: 0, output };
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return { code: null, output: `${output}\n(still running after 180 s)` };
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // The group has ended already.
    }
    await waitUntilClosed(port, 5_000);
  }
}

async function healthy(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) })).ok;
  } catch {
    return false;
  }
}

async function post(url: string, path: string, key: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const answer = await fetch(url + path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: answer.status, body: await answer.json() };
}

/** `npx lnpr serve --port 0` in the checkout, until stopped. */
async function startFromCheckout(): Promise<{ url: string; port: number; stop(): Promise<void> }> {
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
  return { url, port: Number(new URL(url).port), stop: () => stop(child) };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function waitUntilOpen(port: number, limit: number): Promise<boolean> {
  const start = performance.now();
  while (performance.now() - start < limit) {
    if (await accepts(port)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
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

