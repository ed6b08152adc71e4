/**
 * The package as a user gets it: this checkout packed by `npm pack` (its `prepack` builds dist/),
 * and a fresh project that installs the tarball from a file, as `npm install ./lnpr-sandbox-x.tgz`
 * does. The checkout is copied first (node_modules linked, not copied), so the build never
 * rewrites this tree's dist/ under tests that run at the same time.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What a command printed, and how it ended. */
export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** One file of `npm pack --json`'s list. */
export interface PackedFile {
  path: string;
  size: number;
  mode: number;
}

/** What `npm pack` made. */
export interface Tarball {
  /** The .tgz file. */
  file: string;
  /** Its contents, as npm listed them (paths relative to the package root). */
  files: PackedFile[];
}

/**
 * The environment of a child that must behave as in a user's shell: without what `npm test` and
 * Vitest put there (`npm_*` settings of this run, Vitest's worker variables, this checkout's
 * node_modules/.bin on PATH), so a nested npm, tsc or Vitest sees only the project it runs in.
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_|VITEST|__VITEST|TINYPOOL)/i.test(name) || name === 'NODE_ENV' || name === 'TEST') continue;
    env[name] = value;
  }
  // npm run puts node_modules/.bin of the checkout and each folder above it first.
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => !entry.endsWith(`${sep}node_modules${sep}.bin`))
    .join(delimiter);
  return { ...env, ...extra };
}

/** Runs `command args` in `cwd` to its end; never rejects for an exit status (the caller reads `code`). */
export function run(command: string, args: string[], cwd: string, options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: options.env ?? userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Runs the command and throws, with all it printed, unless it exits 0. */
export async function runOk(command: string, args: string[], cwd: string, options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CommandResult> {
  const result = await run(command, args, cwd, options);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) ended with ${result.code ?? result.signal}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  }
  return result;
}

/** Top-level entries of the checkout that are never part of a build: installed, built, or git's. */
const NOT_COPIED = new Set(['node_modules', 'dist', '.git', '.tmp']);

/** Packs a copy of this checkout into `workDir` (a build runs there, in the copy) and lists the tarball. */
export async function packCheckout(workDir: string): Promise<Tarball> {
  const checkout = join(workDir, 'checkout');
  cpSync(ROOT, checkout, {
    recursive: true,
    filter: (source) => !NOT_COPIED.has(relative(ROOT, source).split(sep)[0]!),
  });
  symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'), 'dir');
  const { stdout } = await runOk('npm', ['pack', '--json', '--pack-destination', workDir], checkout);
  // The prepack build prints to stdout too: the JSON report is what follows it.
  const report = JSON.parse(stdout.slice(stdout.search(/^\[\s*\{/m))) as Array<{ filename: string; files: PackedFile[] }>;
  return { file: join(workDir, report[0]!.filename), files: report[0]!.files };
}

/** This checkout's package.json. */
export function ownManifest(): {
  name: string;
  license: string;
  bin: Record<string, string>;
  exports: Record<string, unknown>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
} {
  return JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
}

/** Creates `dir` as a fresh ESM project with these files (path → content) and installs `packages` into it. */
export async function createProject(dir: string, packages: string[], files: Record<string, string>): Promise<CommandResult> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'tarball-user', private: true, type: 'module' }, null, 2)}\n`);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return runOk('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...packages], dir, { timeoutMs: 480_000 });
}

/** Every file path an export map (or one of its conditions) points at, e.g. `./dist/src/index.js`. */
export function exportTargets(map: unknown): string[] {
  if (typeof map === 'string') return [map];
  if (map === null || typeof map !== 'object') return [];
  return Object.values(map).flatMap(exportTargets);
}
