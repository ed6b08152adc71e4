/** Runs the real `lnpr` CLI in a child process, for tests of start-up, signals and restarts. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A running `lnpr` process. */
export interface CliProcess {
  child: ChildProcess;
  /** Everything written to stdout / stderr so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
}

/** Starts `lnpr <args>` from the checkout (through tsx, as `npm run lnpr` does). */
export function runCli(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, output: () => ({ stdout, stderr }), exited };
}

/** Starts `lnpr serve <args>` (on any free port unless PORT is given) and resolves with its URL once it prints its banner. */
export async function startCliServer(args: string[], env: Record<string, string> = {}): Promise<CliProcess & { url: string }> {
  const cli = runCli(['serve', ...(env.PORT === undefined ? ['--port', '0'] : []), '--log-level', 'warn', ...args], env);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 15 s:\n${JSON.stringify(cli.output())}`)), 15_000);
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(cli.output().stdout);
      if (match) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(match[1]!);
      }
    }, 20);
    void cli.exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`lnpr serve exited (${code}) before listening:\n${cli.output().stderr}`));
    });
  });
  return { ...cli, url };
}
