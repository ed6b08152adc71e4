/**
 * A server under test in its own process: load generation (autocannon, in the bench's process)
 * must not share an event loop or a core's time slices with the server it measures. Servers
 * announce themselves with a `... listening on http://...` line, as `lnpr serve` does.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The checkout's root: children resolve `src/...`, `bench/...` and `fixtures/...` from it. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

const BANNER = /listening on (http:\/\/\S+)/;
/**
 * Enough of a child's output to explain its failure: the start of stderr (where a crash's stack
 * goes) and the end of stdout (whose start, with the default flags, is soon buried under request
 * log lines).
 */
const MAX_OUTPUT_CHARS = 8_000;

/** A running (or starting) server process. */
export interface ServerProcess {
  readonly name: string;
  /** Its process id, for CPU accounting. */
  readonly pid: number;
  /** The URL from its banner; rejects if the process ends before printing one. */
  readonly url: Promise<string>;
  /** Rejects as soon as the process ends without having been asked to. */
  readonly crashed: Promise<never>;
  /** Sends SIGTERM and waits for the exit; rejects unless it exits 0. */
  stop(): Promise<void>;
}

/**
 * Starts `node [nodeFlags] --import tsx <args>` in the checkout, or plain `node [nodeFlags] <args>`
 * for compiled JavaScript (`viaTsx: false`).
 */
export function spawnServer(name: string, args: string[], nodeFlags: string[] = [], viaTsx = true): ServerProcess {
  const child = spawn(process.execPath, [...nodeFlags, ...(viaTsx ? ['--import', 'tsx'] : []), ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdoutTail = '';
  let stderrHead = '';
  let stopping = false;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    child.once('error', (error) => resolve(error.message));
  });
  const failure = (what: string, status: number | string) => {
    const output = [stderrHead && `stderr:\n${stderrHead}`, stdoutTail && `stdout (its end):\n${stdoutTail}`].filter(Boolean).join('\n');
    return new Error(`${name}: ${what} (exit ${status})${output ? `; its output:\n${output}` : ''}`);
  };

  const url = new Promise<string>((resolve, reject) => {
    let banner = '';
    const readBanner = (chunk: Buffer) => {
      banner += chunk.toString();
      const match = BANNER.exec(banner);
      if (!match) return;
      child.stdout.off('data', readBanner);
      resolve(match[1]!);
    };
    child.stdout.on('data', readBanner);
    void exited.then((status) => reject(failure('ended before listening', status)));
  });
  child.stdout.on('data', (chunk: Buffer) => {
    stdoutTail = (stdoutTail + chunk.toString()).slice(-MAX_OUTPUT_CHARS);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderrHead.length < MAX_OUTPUT_CHARS) stderrHead += chunk.toString();
  });
  const crashed = exited.then((status) => {
    if (!stopping) throw failure('ended during the bench', status);
    return new Promise<never>(() => {});
  });
  // Callers race against `crashed`; this keeps an unobserved rejection from ending the bench abruptly.
  crashed.catch(() => {});

  return {
    name,
    pid: child.pid!,
    url,
    crashed,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const status = await exited;
      if (status !== 0) throw failure('did not stop cleanly', status);
    },
  };
}
