/**
 * One process per data file: two writers appending to one journal would interleave and lose
 * acknowledged writes. The lock is a file beside the data file naming its holder; a lock whose
 * holder is gone (a crash, a SIGKILL, a restarted container) is stale and taken over at once.
 *
 * A pid alone cannot tell: a SIGKILLed holder stays a zombie, alive to kill(pid, 0), until its
 * parent reaps it; and a container restarted after a crash runs in a fresh PID namespace, where
 * the recorded pid (often 1) is the new process itself or some other one. So the lock records
 * `{pid, startTime, bootId, hostname, pidNamespace}` (start time: /proc/<pid>/stat field 22,
 * clock ticks since boot) and its holder counts as alive when:
 * - it was written in this boot and PID namespace: the pid is not ours (unless this process
 *   holds the lock), /proc/<pid> exists, is not a zombie, and started at the recorded tick;
 * - it was written on this host (same hostname) in another boot or PID namespace: never. That
 *   is this machine before a reboot, or this container before a restart (Docker and Kubernetes
 *   keep a container's hostname and give each start a new PID namespace), and the holder died
 *   with it. Limit: two live processes with one hostname in different PID namespaces (containers
 *   sharing the host's hostname or given the same one, `unshare -p`) cannot see each other, and
 *   the second takes the lock over;
 * - it was written under another hostname in another boot or PID namespace (another machine or
 *   container on a shared volume, whose processes we cannot see): while it is fresh. A holder
 *   touches its lock every 5 s; such a lock is held until 30 s after its last touch, so a start
 *   after a crash there is refused for up to 30 s;
 * - it is an old plain-pid lock: as in the first case, minus the start time;
 * - /proc is missing (macOS, Windows): the pid is not ours and kill(pid, 0) reaches it.
 * The file appears complete or not at all (written aside, then hard-linked into place), and a
 * stale one is removed only if it is still the one judged stale.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  utimes,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { FILE_MODE } from './file-mode.node.js';

/** How often a holder touches its lock file. */
const TOUCH_EVERY_MS = 5_000;
/** How long after its last touch a lock we cannot check otherwise counts as held. */
const FRESH_FOR_MS = 30_000;

/** Refusal to open a data file that another live process holds. */
export class StoreLockedError extends Error {
  override readonly name = 'StoreLockedError';

  constructor(
    readonly dataFile: string,
    readonly lockFile: string,
    /** The holder's pid; null when the lock file names none. */
    readonly pid: number | null,
    /** The holder's hostname when it is another host or container, whose processes this one cannot see. */
    readonly host: string | null = null,
  ) {
    super(
      pid === null
        ? `${dataFile} is locked: ${lockFile} exists but names no process. ` +
            `If no other lnpr process uses ${dataFile}, delete ${lockFile} and start again.`
        : host === null
          ? `${dataFile} is in use by process ${pid} (lock file ${lockFile}). ` +
            `Stop that process or give this one another data file; if process ${pid} is not lnpr, delete ${lockFile}.`
          : `${dataFile} is in use by process ${pid} (lock file ${lockFile}) on host ${host}, another machine or container. ` +
            `Stop that process or give this one another data file; if it is not running, the lock lapses ${FRESH_FOR_MS / 1000} s after its last refresh.`,
    );
  }
}

/** A held lock. */
export interface FileLock {
  /** Deletes the lock file, unless another process has since taken it over. */
  release(): void;
}

/** A lock file's holder; null where unknown (no /proc, or an old plain-pid lock). */
interface Holder {
  pid: number;
  startTime: number | null;
  bootId: string | null;
  hostname: string | null;
  pidNamespace: string | null;
}

/** A lock file as read: its text, its holder (null if it names none) and when it was last touched. */
interface LockState {
  text: string;
  holder: Holder | null;
  mtimeMs: number;
}

/** Lock files (absolute paths) this process holds: a lock naming our pid is live only if listed here. */
const heldHere = new Set<string>();

/** Takes the lock beside `dataFile`, or throws StoreLockedError if a live process holds it. */
export function acquireLock(dataFile: string, lockFile = `${dataFile}.lock`): FileLock {
  const self = thisProcess();
  const text = JSON.stringify(self);
  // A few rounds: the lock may be released, or a stale one removed, between our steps.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (create(lockFile, text)) return hold(lockFile, text);
    const found = readLock(lockFile);
    if (found === null) continue;
    if (holds(found, self, lockFile)) throw refusal(dataFile, lockFile, found.holder, self);
    removeIfStill(lockFile, found.text);
  }
  // Other processes keep racing us for a stale lock: let the user sort it out.
  const found = readLock(lockFile);
  throw refusal(dataFile, lockFile, found?.holder ?? null, self);
}

/** The state and start time in a `/proc/<pid>/stat` line; null if it is not one. */
export function parseProcStat(text: string): { state: string; startTime: number } | null {
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTime = Number(fields[19]);
  return state && /^[A-Za-z]$/.test(state) && Number.isSafeInteger(startTime) ? { state, startTime } : null;
}

/** Creates the lock file holding `text`, complete; false if one exists. */
function create(lockFile: string, text: string): boolean {
  const aside = `${lockFile}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(aside, 'wx', FILE_MODE);
  try {
    writeFileSync(fd, text);
    // Else a power cut could leave an empty lock file, naming no one, for the next boot.
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(aside, lockFile);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    // A file system without hard links (FAT, some network shares): create it in place.
    return createInPlace(lockFile, text);
  } finally {
    rmSync(aside, { force: true });
  }
}

function createInPlace(lockFile: string, text: string): boolean {
  try {
    writeFileSync(lockFile, text, { flag: 'wx', mode: FILE_MODE });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function hold(lockFile: string, text: string): FileLock {
  const key = resolve(lockFile);
  heldHere.add(key);
  // Lets processes that cannot see ours (another host or container) know we are alive.
  const toucher = setInterval(() => {
    const now = new Date();
    utimes(lockFile, now, now, () => {});
  }, TOUCH_EVERY_MS);
  toucher.unref();
  return {
    release() {
      clearInterval(toucher);
      heldHere.delete(key);
      if (readLock(lockFile)?.text === text) rmSync(lockFile, { force: true });
    },
  };
}

/** The lock file's state; null if there is none. */
function readLock(lockFile: string): LockState | null {
  let fd: number;
  try {
    fd = openSync(lockFile, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    // Through the open file: on NFS, opening revalidates the cached times a bare stat may serve.
    const { mtimeMs } = fstatSync(fd);
    const text = readFileSync(fd, 'utf8');
    return { text, holder: parseHolder(text), mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/** The holder a lock file names: JSON, or an old plain pid; null if it names none. */
function parseHolder(text: string): Holder | null {
  const unknown = { startTime: null, bootId: null, hostname: null, pidNamespace: null };
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return isPid(Number(trimmed)) ? { pid: Number(trimmed), ...unknown } : null;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || !isPid((value as { pid?: unknown }).pid)) return null;
  const fields = value as Record<string, unknown>;
  const string = (name: string) => (typeof fields[name] === 'string' ? fields[name] : null);
  return {
    pid: fields.pid as number,
    startTime: Number.isSafeInteger(fields.startTime) ? (fields.startTime as number) : null,
    bootId: string('bootId'),
    hostname: string('hostname'),
    pidNamespace: string('pidNamespace'),
  };
}

function isPid(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/** Whether the lock is held by a live process (see the file comment). */
function holds(lock: LockState, self: Holder, lockFile: string): boolean {
  const { holder } = lock;
  if (holder === null) {
    // An empty lock that stays empty is from a writer that died between creating and writing
    // it (an older version, or a file system without hard links). Anything else is not ours.
    return lock.text.trim() !== '' || Date.now() - lock.mtimeMs <= FRESH_FOR_MS;
  }
  if (samePidSpace(holder, self)) return processLives(holder, lockFile);
  if (holder.hostname === self.hostname) return false;
  return Date.now() - lock.mtimeMs < FRESH_FOR_MS;
}

/** Whether the holder's pid means a process we can look at (assumed for locks that do not say). */
function samePidSpace(holder: Holder, self: Holder): boolean {
  const comparable = [holder.bootId, holder.pidNamespace, self.bootId, self.pidNamespace].every((value) => value !== null);
  if (comparable) return holder.bootId === self.bootId && holder.pidNamespace === self.pidNamespace;
  return holder.hostname === null || holder.hostname === self.hostname;
}

function processLives(holder: Holder, lockFile: string): boolean {
  // A lock naming our pid is one we hold now, or one an earlier process with our pid left.
  if (holder.pid === process.pid) return heldHere.has(resolve(lockFile));
  const stat = procIsOurs() ? readProcStat(holder.pid) : null;
  // No /proc, or no entry: hidden (hidepid) processes of other users still answer signals.
  if (stat === null) return signalReaches(holder.pid);
  // Z: a zombie, dead but not yet reaped; X: being reaped.
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false;
  return holder.startTime === null || stat.startTime === holder.startTime;
}

function signalReaches(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Deletes the lock file if it still holds `staleText`: another process may have just replaced it. */
function removeIfStill(lockFile: string, staleText: string): void {
  const aside = `${lockFile}.${randomBytes(6).toString('hex')}.stale`;
  try {
    renameSync(lockFile, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    if (readFileSync(aside, 'utf8') !== staleText) putBack(aside, lockFile);
  } finally {
    rmSync(aside, { force: true });
  }
}

/** Returns a live lock moved aside by mistake to its place, unless yet another process has taken that. */
function putBack(aside: string, lockFile: string): void {
  try {
    linkSync(aside, lockFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') renameSync(aside, lockFile);
  }
}

function refusal(dataFile: string, lockFile: string, holder: Holder | null, self: Holder): StoreLockedError {
  const elsewhere = holder !== null && !samePidSpace(holder, self) && holder.hostname !== self.hostname;
  return new StoreLockedError(dataFile, lockFile, holder?.pid ?? null, elsewhere ? holder.hostname : null);
}

/** This process, as its lock records it. */
function thisProcess(): Holder {
  const proc = procIsOurs();
  return {
    pid: process.pid,
    startTime: proc ? (readProcStat(process.pid)?.startTime ?? null) : null,
    bootId: readOrNull(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
    hostname: hostname(),
    pidNamespace: proc ? readOrNull(() => readlinkSync('/proc/self/ns/pid')) : null,
  };
}

/** Whether /proc shows processes as this process numbers them (not so without /proc, or under `unshare -p` without a /proc of its own). */
function procIsOurs(): boolean {
  return readOrNull(() => readlinkSync('/proc/self')) === String(process.pid);
}

function readProcStat(pid: number): { state: string; startTime: number } | null {
  const text = readOrNull(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return text === null ? null : parseProcStat(text);
}

function readOrNull(read: () => string): string | null {
  try {
    return read();
  } catch {
    return null;
  }
}
