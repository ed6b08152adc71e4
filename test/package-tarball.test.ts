/**
 * The published package works from its tarball (CONTRACT.md, "Runtimes"): `npm pack` (whose
 * prepack builds dist/) ships what runs and none of the tests; installed into a fresh project
 * beside msw (3 on Node >= 22.12, else 2), TypeScript, @types/node and Vitest, the `lnpr` bin
 * serves the API, the dashboard and the pay page, every entry point imports as ESM, the types
 * check under `bundler` and `node16` resolution, and a Vitest test runs the MSW handlers under
 * `setupServer`. Slow: the install comes from the registry (npm's cache first), about a minute.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, exportTargets, ownManifest, packCheckout, run, runOk, userEnv, type Tarball } from './support/tarball-project.js';

const manifest = ownManifest();
const [nodeMajor = 0, nodeMinor = 0] = process.versions.node.split('.').map(Number);
/** msw 3 needs Node >= 22.12: the project gets the newest msw this Node runs, in the range we test with. */
const MSW_MAJOR = nodeMajor > 22 || (nodeMajor === 22 && nodeMinor >= 12) ? 3 : 2;
/** msw 3 is pinned by the project of npm test's msw 3 run (scripts/msw3), msw 2 by our dev dependency. */
const MSW_RANGE = MSW_MAJOR === 3 ? (JSON.parse(readFileSync(new URL('../scripts/msw3/package.json', import.meta.url), 'utf8')) as { dependencies: { msw: string } }).dependencies.msw : manifest.devDependencies.msw!;
const KEY = 'sk_test_custodial';
const CREATE = { amount: 1000, description: 'Coffee beans', destinationWallet: 'shop@example.com' };

/** Uses every entry point the way the README shows; compiled under both resolutions. */
const USES_EVERY_ENTRY = `
import { createSandbox, decodeInvoice, type PaymentRequest, type SandboxOptions } from 'lnpr-sandbox';
import { createHandlers, type SandboxHandlers } from 'lnpr-sandbox/msw';
import { runConformance, type ConformanceResult } from 'lnpr-sandbox/conformance';
import { paymentRequestSchema, type CreatePaymentRequestBody } from 'lnpr-sandbox/schemas';
import { setupServer } from 'msw/node';

const options: SandboxOptions = { network: 'regtest', settings: { minAmount: 1 } };
const sandbox = createSandbox(options);
const body: CreatePaymentRequestBody = { amount: 1000, description: 'Coffee beans', destinationWallet: 'shop@example.com' };
export const answer: Promise<{ status: number }> = sandbox.handle({ method: 'POST', url: '/api/v1/payment-requests', headers: {}, body: JSON.stringify(body) });
export const network: string = decodeInvoice('lnbcrt1').network;
const handlers: SandboxHandlers = createHandlers({ baseUrl: 'https://api.example.com' });
export const server = setupServer(...handlers);
export const result: Promise<ConformanceResult> = runConformance({ baseUrl: 'https://api.example.com', apiKey: '${KEY}' });
export const read: (request: PaymentRequest) => string = (request) => request.invoice;
export const schema: object = paymentRequestSchema;
`;

/** What only Node gets (the `node` condition): under node16 resolution these must type too. */
const USES_NODE_ENTRY = `
import { buildServer, createNodeSandbox } from 'lnpr-sandbox';

export const sandbox = await createNodeSandbox({ dataFile: 'sandbox.json' });
export const server = await buildServer({ handle: sandbox.handle });
`;

const tsconfig = (moduleResolution: 'bundler' | 'node16', files: string[]) =>
  JSON.stringify({
    compilerOptions: {
      module: moduleResolution === 'bundler' ? 'esnext' : 'node16',
      moduleResolution,
      target: 'es2022',
      lib: ['es2023', 'dom'],
      types: ['node'],
      strict: true,
      noEmit: true,
      // Our declaration files are checked too, not taken on trust.
      skipLibCheck: false,
    },
    files,
  });

/** A user's Vitest test: MSW's setupServer with our handlers, through the global fetch. */
const VITEST_TEST = `
import { createHandlers } from 'lnpr-sandbox/msw';
import { setupServer } from 'msw/node';
import mswManifest from 'msw/package.json' with { type: 'json' };
import { afterAll, beforeAll, expect, it } from 'vitest';

const handlers = createHandlers({ baseUrl: 'https://api.example.com' });
const server = setupServer(...handlers);
// msw 3 renamed onUnhandledRequest to onUnhandledFrame (and ignores the old name).
beforeAll(() => server.listen({ ${MSW_MAJOR === 3 ? 'onUnhandledFrame' : 'onUnhandledRequest'}: 'error' }));
afterAll(() => server.close());

it('creates, reads and completes a payment request through the handlers (msw ' + mswManifest.version + ')', async () => {
  expect(mswManifest.version.split('.')[0]).toBe('${MSW_MAJOR}');
  const headers = { authorization: 'Bearer ${KEY}', 'content-type': 'application/json' };
  const created = await fetch('https://api.example.com/api/v1/payment-requests', { method: 'POST', headers, body: JSON.stringify(${JSON.stringify(CREATE)}) });
  expect(created.status).toBe(201);
  const { id, invoice } = await created.json();
  expect(invoice).toMatch(/^lnbcrt10u1/);
  const completed = await fetch('https://api.example.com/sandbox/v1/payment-requests/' + id + '/complete', { method: 'POST', headers });
  expect((await completed.json()).status).toBe('completed');
  const status = await fetch('https://api.example.com/api/v1/payment-requests/' + id + '/status', { headers });
  expect(await status.json()).toEqual({ status: 'completed' });
});
`;

/** The Vitest set-up of docs/guides/msw-front-ends.md, verbatim: the `// test/setup.ts` block and the `afterEach` reset after it. */
function frontendSetupFile(): string {
  const docs = readFileSync(new URL('../docs/guides/msw-front-ends.md', import.meta.url), 'utf8');
  const blocks = [...docs.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const setup = blocks.findIndex((block) => block.startsWith('// test/setup.ts'));
  expect(setup, 'docs/guides/msw-front-ends.md has no `// test/setup.ts` block').toBeGreaterThan(-1);
  expect(blocks[setup + 1]).toMatch(/^afterEach\(/);
  return `${blocks[setup]}\n${blocks[setup + 1]}`;
}

/** A test that relies on the docs' set-up alone: its server answers, and its afterEach empties the sandbox. */
const DOCS_SETUP_TEST = `
import { expect, it } from 'vitest';

const headers = { authorization: 'Bearer ${KEY}', 'content-type': 'application/json' };
const list = async () => (await (await fetch('https://api.example.com/sandbox/v1/payment-requests', { headers })).json()).data;

it('creates through the handlers of the set-up file', async () => {
  const created = await fetch('https://api.example.com/api/v1/payment-requests', { method: 'POST', headers, body: JSON.stringify(${JSON.stringify(CREATE)}) });
  expect(created.status).toBe(201);
  expect(await list()).toHaveLength(1);
});

it("starts empty: the set-up's afterEach reset the account", async () => {
  expect(await list()).toEqual([]);
});
`;

let work: string;
let tarball: Tarball;
let project: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'lnpr-tarball-'));
  tarball = await packCheckout(work);
  project = join(work, 'project');
  await createProject(
    project,
    [tarball.file, `msw@${MSW_RANGE}`, `typescript@${manifest.devDependencies.typescript}`, `vitest@${manifest.devDependencies.vitest}`, `@types/node@${manifest.devDependencies['@types/node']}`],
    {
      'uses-every-entry.ts': USES_EVERY_ENTRY,
      'uses-node-entry.ts': USES_NODE_ENTRY,
      'tsconfig.bundler.json': tsconfig('bundler', ['uses-every-entry.ts']),
      'tsconfig.node16.json': tsconfig('node16', ['uses-every-entry.ts', 'uses-node-entry.ts']),
      'sandbox.test.ts': VITEST_TEST,
      // docs/guides/msw-front-ends.md's set-up, in a Vitest root of its own (its server must not meet sandbox.test.ts's).
      'docs-setup/test/setup.ts': frontendSetupFile(),
      'docs-setup/vitest.config.ts': "export default { test: { setupFiles: ['./test/setup.ts'] } };\n",
      'docs-setup/checkout.test.ts': DOCS_SETUP_TEST,
    },
  );
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe(`the package from its tarball (Node ${process.version}, msw ${MSW_MAJOR})`, { timeout: 120_000 }, () => {
  it('ships the build, the README, the LICENSE and the data the CLI reads, and no tests or sources', () => {
    const paths = tarball.files.map((file) => file.path);
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'fixtures/accounts.json', 'dist/fixtures/accounts.json']));
    expect(readFileSync(join(project, 'node_modules', manifest.name, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(manifest.license).toBe('MIT');
    // Every file the export map and the bin name is there.
    const targets = [...exportTargets(manifest.exports), ...Object.values(manifest.bin)].map((target) => target.replace(/^\.\//, ''));
    expect(targets.filter((target) => !paths.includes(target))).toEqual([]);
    // The pages `lnpr serve` shows, built: the dashboard and the pay page (their scripts and styles).
    expect(paths).toEqual(expect.arrayContaining(['dist/web/dashboard.html', 'dist/web/dashboard.js', 'dist/web/pay.html', 'dist/web/pay.js']));
    // The documentation site, built, with its CSP hashes and the generated reference.
    expect(paths).toEqual(expect.arrayContaining(['dist/docs/index.html', 'dist/docs/csp.json', 'dist/docs/reference/cli.html', 'dist/docs/reference/http-api.html']));
    // The scenario scripts, worked examples for `lnpr scenario run`.
    expect(paths).toContain('scenarios/happy-path.yaml');
    expect(paths.filter((path) => /\.test\.[cm]?[jt]s$|\.test\.d\.[cm]?ts$|(^|\/)(testing|test)\//.test(path))).toEqual([]);
    expect(paths.filter((path) => /\.[cm]?ts$/.test(path) && !/\.d\.[cm]?ts$/.test(path))).toEqual([]);
    expect(paths.filter((path) => !/^(dist|fixtures|scenarios)\/|^(package\.json|README\.md|LICENSE|src\/cli\/lnpr\.js)$/.test(path))).toEqual([]);
  });

  it('`npx lnpr serve --port 0` serves the API, the dashboard, the pay page and the docs; `npx lnpr conformance` passes it', async () => {
    // Detached: npx does not pass SIGTERM on to the server, so the whole group is stopped at the end.
    const serve = spawn('npx', ['--no', 'lnpr', 'serve', '--port', '0'], { cwd: project, env: userEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    serve.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    serve.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((resolve) => serve.on('exit', () => resolve()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner within 30 s:\n${stdout}\n${stderr}`)), 30_000);
        serve.stdout.on('data', () => {
          const match = /listening on (http:\/\/\S+)/.exec(stdout);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        void exited.then(() => reject(new Error(`lnpr serve exited before listening:\n${stdout}\n${stderr}`)));
      });

      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const created = await fetch(`${url}/api/v1/payment-requests`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(CREATE),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };

      const home = await fetch(`${url}/`, { redirect: 'manual' });
      expect([home.status, home.headers.get('location')?.replace(url, '')]).toEqual([302, '/dashboard']);
      for (const page of ['/dashboard', `/pay/${id}`]) {
        const response = await fetch(`${url}${page}`);
        expect({ page, status: response.status, type: response.headers.get('content-type') }).toEqual({ page, status: 200, type: expect.stringMatching(/^text\/html/) });
        // Every script, stylesheet and icon the page links to, from the installed package.
        const assets = [...(await response.text()).matchAll(/(?:src|href)="(\/[^"#?]+)"/g)].map((match) => match[1]!).filter((path) => path !== page);
        expect(assets.length).toBeGreaterThan(0);
        for (const asset of assets) expect({ asset, status: (await fetch(`${url}${asset}`)).status }).toEqual({ asset, status: 200 });
      }
      // The documentation site, from the installed package, with its own CSP.
      for (const page of ['/docs/', '/docs/reference/cli.html']) {
        const response = await fetch(`${url}${page}`);
        expect({ page, status: response.status, csp: response.headers.get('content-security-policy') }).toEqual({ page, status: 200, csp: expect.stringContaining("default-src 'self'") });
        const assets = [...(await response.text()).matchAll(/(?:src|href)="(\/docs\/[^"#?]+)"/g)].map((match) => match[1]!);
        expect(assets.length).toBeGreaterThan(0);
        for (const asset of assets) expect({ asset, status: (await fetch(`${url}${asset}`)).status }).toEqual({ asset, status: 200 });
      }

      const conformance = await run('npx', ['--no', 'lnpr', 'conformance', '--base-url', url, '--api-key', KEY, '--read-only-key', 'sk_test_readonly', '--nwc-key', 'sk_test_nwc', '--profile', 'full'], project, { timeoutMs: 90_000 });
      expect({ code: conformance.code, stderr: conformance.stderr.replace(/^npm warn .*\n/gm, ''), tail: conformance.stdout.split('\n').slice(-4) }).toMatchObject({ code: 0, stderr: '' });
    } finally {
      if (serve.exitCode === null) process.kill(-serve.pid!, 'SIGTERM');
      await exited;
    }
  });

  it('imports every entry point as an ES module, the Node entries where Node resolves them', async () => {
    const script = `
      const entries = {};
      for (const entry of ['lnpr-sandbox', 'lnpr-sandbox/msw', 'lnpr-sandbox/conformance', 'lnpr-sandbox/schemas']) entries[entry] = Object.keys(await import(entry)).sort();
      const { createSandbox } = await import('lnpr-sandbox');
      const answer = await createSandbox().handle({ method: 'POST', url: '/api/v1/payment-requests', headers: { authorization: 'Bearer ${KEY}', 'content-type': 'application/json' }, body: ${JSON.stringify(JSON.stringify(CREATE))} });
      console.log(JSON.stringify({ entries, status: answer.status }));
    `;
    const { stdout } = await runOk(process.execPath, ['--input-type=module', '--eval', script], project);
    const { entries, status } = JSON.parse(stdout) as { entries: Record<string, string[]>; status: number };
    expect(status).toBe(201);
    expect(entries['lnpr-sandbox']).toEqual(expect.arrayContaining(['createSandbox', 'createNodeSandbox', 'buildServer', 'decodeInvoice', 'feeFor', 'DEFAULT_ACCOUNTS']));
    expect(entries['lnpr-sandbox/msw']).toEqual(expect.arrayContaining(['createHandlers']));
    expect(entries['lnpr-sandbox/conformance']).toEqual(expect.arrayContaining(['runConformance', 'ALL_CHECKS', 'parseKnownFailing']));
    expect(entries['lnpr-sandbox/schemas']).toEqual(expect.arrayContaining(['paymentRequestSchema', 'createPaymentRequestBodySchema', 'errorBodySchema']));
  });

  it.for(['bundler', 'node16'] as const)('type-checks a file using every entry point under moduleResolution %s', async (resolution) => {
    const tsc = await run(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', `tsconfig.${resolution}.json`], project);
    expect({ code: tsc.code, errors: tsc.stdout.split('\n').filter(Boolean) }).toEqual({ code: 0, errors: [] });
  });

  it("runs docs/guides/msw-front-ends.md's Vitest set-up verbatim under a default Vitest config", async () => {
    const vitest = await run(process.execPath, [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter', 'verbose', '--root', 'docs-setup'], project, { env: userEnv({ NO_COLOR: '1' }) });
    expect({ code: vitest.code, output: vitest.stdout + vitest.stderr }).toMatchObject({ code: 0, output: expect.stringMatching(/Tests {2}2 passed/) });
  });

  it(`runs a user's Vitest test of the MSW handlers under setupServer (msw ${MSW_MAJOR})`, async () => {
    const vitest = await run(process.execPath, [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter', 'verbose', '--exclude', 'docs-setup/**'], project, { env: userEnv({ NO_COLOR: '1' }) });
    expect({ code: vitest.code, output: vitest.stdout + vitest.stderr }).toMatchObject({ code: 0, output: expect.stringMatching(/Tests {2}1 passed/) });
  });
});
