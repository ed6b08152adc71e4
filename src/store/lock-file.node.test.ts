/**
 * The data-file lock across crashes and containers: a dead holder's lock never blocks a start
 * (a SIGKILLed holder not yet reaped, a pid reused, this very pid in an earlier life, an earlier
 * boot, a restarted container's PID namespace), and a live holder always does.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, createBody } from '../../test/support/sandbox-server.js';
import { acquireLock, parseProcStat, StoreLockedError } from './lock-file.node.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const onLinux = process.platform === 'linux';

let directory: string;
let dataFile: string;
let lockFile: string;
/** Processes a test started; killed after it (a killed sleeper's zombie child is then reaped by init). */
const started: ChildProcess[] = [];
/** Holders a test started in the background of a sleeper (see spawnUnreaped), by pid; killed after it. */
const holders: number[] = [];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'lnpr-lock-'));
  dataFile = join(directory, 'sandbox.json');
  lockFile = `${dataFile}.lock`;
});

afterEach(() => {
  for (const pid of holders.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(directory, { recursive: true, force: true });
});

/** `/proc/<pid>/stat`'s state and start time, read independently of the code under test. */
function procStat(pid: number): { state: string; startTime: number } {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0]!, startTime: Number(fields[19]) };
}

/** The pid in the lock file, noted as a holder to kill after the test. */
function lockHolderPid(): number {
  const { pid } = JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number };
  holders.push(pid);
  return pid;
}

/** The lock record this process writes, to build other holders' records from. */
function ourRecord(): Record<string, unknown> {
  const lock = acquireLock(dataFile);
  const record = JSON.parse(readFileSync(lockFile, 'utf8')) as Record<string, unknown>;
  lock.release();
  return record;
}

function writeLock(content: string | Record<string, unknown>, ageMs = 0): void {
  writeFileSync(lockFile, typeof content === 'string' ? content : JSON.stringify(content));
  if (ageMs > 0) {
    const then = new Date(Date.now() - ageMs);
    utimesSync(lockFile, then, then);
  }
}

function refusal(): StoreLockedError {
  try {
    acquireLock(dataFile).release();
  } catch (error) {
    if (error instanceof StoreLockedError) return error;
    throw error;
  }
  throw new Error(`the lock was taken over from ${readFileSync(lockFile, 'utf8')}`);
}

function expectTakenOver(): void {
  const lock = acquireLock(dataFile);
  expect(JSON.parse(readFileSync(lockFile, 'utf8'))).toMatchObject({ pid: process.pid });
  lock.release();
  expect(readdirSync(directory)).toEqual([]);
}

/** Resolves with the first stdout line of `child` matching `pattern`, or rejects when it exits first. */
function lineOf(child: ChildProcess, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const done = (error: Error | null, match?: RegExpExecArray) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(match!);
    };
    const onData = (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = pattern.exec(stdout);
      if (match) done(null, match);
    };
    const onExit = () => done(new Error(`exited before printing ${pattern}:\n${stdout}\n${stderr}`));
    const timer = setTimeout(() => done(new Error(`no ${pattern} within ${timeoutMs} ms:\n${stdout}\n${stderr}`)), timeoutMs);
    child.stdout!.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', onExit);
  });
}

/**
 * Runs `command` in the background of a shell that then becomes `sleep`: the command's parent
 * never reaps it, so once killed it stays a zombie, as a crashed server does until its
 * supervisor gets round to waiting for it.
 */
function spawnUnreaped(command: string[]): ChildProcess {
  const child = spawn('sh', ['-c', '"$0" "$@" & exec sleep 120', ...command], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  return child;
}

/** A process that opens the store on the data file and prints `locked-ok <pid>` (or `refused <message>`), then idles. */
const HOLDER = `
import { openJsonFileStore } from './src/store/json-file-store.node.ts';
try {
  await openJsonFileStore(process.argv[1]);
  console.log('locked-ok ' + process.pid);
  setInterval(() => {}, 1 << 30);
} catch (error) {
  console.log('refused ' + error.message);
  process.exit(2);
}`;
const holderCommand = (file: string) => [process.execPath, '--import', 'tsx', '--input-type=module', '-e', HOLDER, file];
const serveArgs = (file: string) => ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--log-level', 'warn', '--data', file];

describe('parseProcStat', () => {
  it('reads the state and the start time, whatever the command name holds', () => {
    const tail = '1 4242 4242 0 -1 4194560 5000 0 0 0 10 5 0 0 20 0 11 0 987654 1133441024 13000 18446744073709551615 1 1 0';
    expect(parseProcStat(`4242 (node) S ${tail}`)).toEqual({ state: 'S', startTime: 987654 });
    expect(parseProcStat(`4242 (a) Z (b c) ) R ${tail}`)).toEqual({ state: 'R', startTime: 987654 });
    expect(parseProcStat(`4242 (lnpr serve) Z ${tail}`)).toEqual({ state: 'Z', startTime: 987654 });
    expect(parseProcStat('4242 (node) S 1 2')).toBeNull();
    expect(parseProcStat('')).toBeNull();
  });
});

describe.skipIf(!onLinux)('acquireLock', () => {
  it('records who holds it: pid, start time, boot id, hostname and pid namespace; release removes it', () => {
    const lock = acquireLock(dataFile);
    expect(JSON.parse(readFileSync(lockFile, 'utf8'))).toEqual({
      pid: process.pid,
      startTime: procStat(process.pid).startTime,
      bootId: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      hostname: hostname(),
      pidNamespace: readlinkSync('/proc/self/ns/pid'),
    });
    lock.release();
    expect(readdirSync(directory)).toEqual([]);
  });

  it('refuses while this process holds it, naming this process', () => {
    const lock = acquireLock(dataFile);
    const error = refusal();
    expect(error.pid).toBe(process.pid);
    expect(error.message).toContain(`${dataFile} is in use by process ${process.pid} (lock file ${lockFile})`);
    lock.release();
  });

  it('refuses a live holder, in the old plain-pid format and in the new one', () => {
    const sleeper = spawn('sleep', ['60']);
    started.push(sleeper);
    const pid = sleeper.pid!;
    for (const content of [String(pid), { ...ourRecord(), pid, startTime: procStat(pid).startTime }]) {
      writeLock(content);
      const error = refusal();
      expect(error.pid).toBe(pid);
      expect(error.message).toContain(`${dataFile} is in use by process ${pid} (lock file ${lockFile})`);
    }
  });

  it('takes over from a zombie (killed, not yet reaped), in both formats', async () => {
    // `sleep 0`'s parent becomes `sleep 60`, which never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    started.push(parent);
    const pid = Number((await lineOf(parent, /^(\d+)\n/))[1]);
    await vi.waitFor(() => expect(procStat(pid).state).toBe('Z'));
    const startTime = procStat(pid).startTime;
    for (const content of [String(pid), { ...ourRecord(), pid, startTime }]) {
      writeLock(content);
      expectTakenOver();
    }
    expect(procStat(pid).state).toBe('Z');
  });

  it("takes over a lock naming this process's pid that this process does not hold (an earlier life of the pid)", () => {
    for (const content of [String(process.pid), { ...ourRecord(), startTime: 1 }]) {
      writeLock(content);
      expectTakenOver();
    }
  });

  it('takes over a lock whose pid now belongs to another process (another start time)', () => {
    const sleeper = spawn('sleep', ['60']);
    started.push(sleeper);
    writeLock({ ...ourRecord(), pid: sleeper.pid!, startTime: procStat(sleeper.pid!).startTime - 1 });
    expectTakenOver();
  });

  it('takes over a lock from an earlier boot of this host, even if its pid is alive now', () => {
    writeLock({ ...ourRecord(), pid: 1, startTime: procStat(1).startTime, bootId: '00000000-0000-4000-8000-000000000000' });
    expectTakenOver();
  });

  it('takes over a lock from another pid namespace of this host (a container restarted)', () => {
    writeLock({ ...ourRecord(), pid: 1, startTime: procStat(1).startTime, pidNamespace: 'pid:[1]' });
    expectTakenOver();
  });

  it('holds a lock from another host while its holder keeps it fresh, and takes it over once it goes stale', () => {
    const elsewhere = { ...ourRecord(), pid: 7, hostname: 'lnpr-elsewhere', bootId: '00000000-0000-4000-8000-000000000000' };
    writeLock(elsewhere, 5_000);
    const error = refusal();
    expect(error.pid).toBe(7);
    expect(error.message).toContain(`${dataFile} is in use by process 7 (lock file ${lockFile})`);
    expect(error.message).toContain('lnpr-elsewhere');
    writeLock(elsewhere, 60_000);
    expectTakenOver();
  });

  it('keeps its lock file fresh while it holds it', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const lock = acquireLock(dataFile);
      const then = new Date(Date.now() - 60_000);
      utimesSync(lockFile, then, then);
      vi.advanceTimersByTime(10_000);
      await vi.waitFor(() => expect(Date.now() - statSync(lockFile).mtimeMs).toBeLessThan(5_000));
      lock.release();
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not take over a lock that names no process, unless it is empty and old (its writer died before writing)', () => {
    for (const content of ['', 'not a lock {']) {
      writeLock(content);
      expect(refusal().message).toMatch(/names no process.*delete/);
    }
    writeLock('not a lock {', 60_000);
    expect(refusal().message).toMatch(/names no process/);
    writeLock('', 60_000);
    expectTakenOver();
  });

  it('release leaves alone a lock that is no longer its own', () => {
    const lock = acquireLock(dataFile);
    writeLock('4242');
    lock.release();
    expect(readFileSync(lockFile, 'utf8')).toBe('4242');
  });
});

describe.skipIf(!onLinux)('restarts right after a SIGKILL, the killed holder still a zombie', () => {
  it('20 of 20 restarts start', async () => {
    let holder = spawnUnreaped(holderCommand(dataFile));
    let pid = Number((await lineOf(holder, /(?:locked-ok (\d+)|refused .*)\n/))[1]);
    holders.push(pid);
    for (let round = 0; round < 20; round += 1) {
      process.kill(pid, 'SIGKILL');
      holder = spawnUnreaped(holderCommand(dataFile));
      const line = await lineOf(holder, /(?:locked-ok (\d+)|refused .*)\n/);
      expect(line[0], `round ${round + 1}`).toMatch(/^locked-ok/);
      // The start really happened inside the zombie window.
      expect(procStat(pid).state).toBe('Z');
      pid = Number(line[1]);
      holders.push(pid);
    }
  }, 60_000);

  it('lnpr serve restarts and serves; a second server beside a live one is refused with the holder named', async () => {
    let server = spawnUnreaped([process.execPath, ...serveArgs(dataFile)]);
    let url = (await lineOf(server, /listening on (http:\/\/\S+)/))[1]!;
    for (let round = 0; round < 2; round += 1) {
      const pid = lockHolderPid();
      process.kill(pid, 'SIGKILL');
      server = spawnUnreaped([process.execPath, ...serveArgs(dataFile)]);
      url = (await lineOf(server, /listening on (http:\/\/\S+)/))[1]!;
      expect(procStat(pid).state).toBe('Z');
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    }
    const pid = lockHolderPid();
    const second = spawnSync(process.execPath, serveArgs(dataFile), { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    expect(second.status).toBe(2);
    expect(second.stderr).toContain(`${dataFile} is in use by process ${pid} (lock file ${lockFile})`);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  }, 60_000);
});

/** Why the PID-namespace tests cannot run here, or null if they can. */
function namespacesUnavailable(): string | null {
  if (!onLinux) return 'not Linux';
  if (process.getuid?.() !== 0) return 'needs root for unshare -p';
  const probe = spawnSync('unshare', ['-fp', '--mount-proc', 'true'], { encoding: 'utf8' });
  if (probe.error) return `no unshare (${probe.error.message})`;
  return probe.status === 0 ? null : `unshare -fp --mount-proc fails: ${probe.stderr.trim()}`;
}
const skipNamespaces = namespacesUnavailable();

describe.skipIf(skipNamespaces !== null)(`lnpr serve as PID 1 of a fresh PID namespace (a container)${skipNamespaces ? ` — skipped: ${skipNamespaces}` : ''}`, () => {
  /** `lnpr serve` as PID 1 of a new PID namespace, optionally with its own hostname; SIGKILL the returned process to end the namespace. */
  async function serveInContainer(containerHostname?: string): Promise<{ unshare: ChildProcess; url: string }> {
    const namespaces = containerHostname ? ['-fpu'] : ['-fp'];
    const enter = containerHostname ? ['sh', '-c', `hostname ${containerHostname} && exec "$0" "$@"`] : [];
    const unshare = spawn('unshare', [...namespaces, '--kill-child', '--mount-proc', ...enter, process.execPath, ...serveArgs(dataFile)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(unshare);
    const url = (await lineOf(unshare, /listening on (http:\/\/\S+)/))[1]!;
    return { unshare, url };
  }

  it('restarts at once after a SIGKILL, as PID 1 again over a lock naming PID 1, and has its data', async () => {
    const first = await serveInContainer();
    expect(JSON.parse(readFileSync(lockFile, 'utf8'))).toMatchObject({ pid: 1 });
    const created: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await api(first.url, '/api/v1/payment-requests', { body: createBody({ amount: 1000 + i }) });
      expect(response.status).toBe(201);
      created.push(response.text);
    }
    first.unshare.kill('SIGKILL');

    const second = await serveInContainer();
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    for (const text of created) {
      const { id } = JSON.parse(text) as { id: string };
      expect((await api(second.url, `/api/v1/payment-requests/${id}`)).text).toBe(text);
    }
  }, 60_000);

  it('starts over an old plain-pid lock naming PID 1', async () => {
    writeLock('1');
    const server = await serveInContainer();
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 60_000);

  it('a live server in another container (its own hostname) keeps its lock', async () => {
    await serveInContainer('lnpr-other');
    const second = spawnSync('unshare', ['-fp', '--kill-child', '--mount-proc', process.execPath, ...serveArgs(dataFile)], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(second.status).toBe(2);
    expect(second.stderr).toContain(`${dataFile} is in use by process 1 (lock file ${lockFile})`);
    expect(second.stderr).toContain('lnpr-other');
  }, 60_000);
});
