/**
 * The data file's writer: what it does to the file system and in which order (a power loss
 * between two steps must leave a whole data file), and that what it writes reads back.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeSnapshotFs, SnapshotFile, type SnapshotFs, type SnapshotHandle } from './snapshot-file.node.js';
import { emptySnapshot, type Snapshot } from './snapshot-format.js';
import { testPaymentRequest } from './testing/payment-request.js';

let directory: string;
let dataFile: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'lnpr-snapshot-'));
  dataFile = join(directory, 'sandbox.json');
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** The real file system, recording each call in `log` and each write's size in `writes`. */
function recordingFs(log: string[], writes: number[] = [], failWriteAt = Infinity): SnapshotFs {
  return {
    async open(path, flags, mode) {
      log.push(`open ${basename(path)}`);
      const handle = await nodeSnapshotFs.open(path, flags, mode);
      const write = (async (bytes: Buffer, offset: number, length: number) => {
        log.push(`write ${basename(path)}`);
        if (writes.push(length) >= failWriteAt) throw new Error('ENOSPC: no space left on device (simulated)');
        return handle.write(bytes, offset, length);
      }) as SnapshotHandle['write'];
      return {
        write,
        async datasync() {
          log.push(`datasync ${basename(path)}`);
          return handle.datasync();
        },
        async close() {
          log.push(`close ${basename(path)}`);
          return handle.close();
        },
      };
    },
    async rename(from, to) {
      log.push(`rename ${basename(from)} ${basename(to)}`);
      return nodeSnapshotFs.rename(from, to);
    },
    async syncDirectory(path) {
      log.push(`syncDirectory ${path === directory ? 'the directory' : path}`);
      return nodeSnapshotFs.syncDirectory(path);
    },
  };
}

/** The log with runs of the same call collapsed into one. */
function steps(log: string[]): string[] {
  return log.filter((entry, index) => entry !== log[index - 1]);
}

function snapshotOf(recordCount: number): Snapshot {
  return {
    ...emptySnapshot(),
    sequence: recordCount,
    paymentRequests: Array.from({ length: recordCount }, () => testPaymentRequest()),
    clocks: { acct_test: { offsetMs: 5, frozenAtMs: null } },
  };
}

describe('SnapshotFile.write', () => {
  it('datasyncs the temp file before renaming it over the data file, then syncs the directory', async () => {
    const log: string[] = [];
    await new SnapshotFile(dataFile, recordingFs(log)).write(snapshotOf(10), true);
    expect(steps(log)).toEqual([
      'open sandbox.json.tmp',
      'write sandbox.json.tmp',
      'datasync sandbox.json.tmp',
      'close sandbox.json.tmp',
      'rename sandbox.json.tmp sandbox.json',
      'syncDirectory the directory',
    ]);
    expect(readdirSync(directory)).toEqual(['sandbox.json']);
  });

  it('without sync, syncs nothing', async () => {
    const log: string[] = [];
    await new SnapshotFile(dataFile, recordingFs(log)).write(snapshotOf(10), false);
    expect(steps(log)).toEqual([
      'open sandbox.json.tmp',
      'write sandbox.json.tmp',
      'close sandbox.json.tmp',
      'rename sandbox.json.tmp sandbox.json',
    ]);
  });

  it('writes in chunks of about a megabyte, never the whole document at once', async () => {
    const writes: number[] = [];
    const snapshot = snapshotOf(12_000);
    await new SnapshotFile(dataFile, recordingFs([], writes)).write(snapshot, false);
    const total = writes.reduce((sum, bytes) => sum + bytes, 0);
    expect(total).toBe(Buffer.byteLength(JSON.stringify(snapshot)));
    expect(total).toBeGreaterThan(4 * 2 ** 20);
    expect(Math.max(...writes)).toBeLessThan(1.5 * 2 ** 20);
  });

  it('round-trips, byte for byte what JSON.stringify would write', async () => {
    const file = new SnapshotFile(dataFile);
    const snapshot = snapshotOf(3_000);
    await file.write(snapshot, true);
    expect(readFileSync(dataFile, 'utf8')).toBe(JSON.stringify(snapshot));
    expect(await file.read()).toEqual(snapshot);
  });

  it('leaves the data file as it was when a write fails, and deletes its temp file (on a full disk, the room the journal needs)', async () => {
    const before = snapshotOf(5);
    await new SnapshotFile(dataFile).write(before, true);
    const failing = new SnapshotFile(dataFile, recordingFs([], [], 3));
    await expect(failing.write(snapshotOf(5_000), true)).rejects.toThrow(/simulated/);
    expect(JSON.parse(readFileSync(dataFile, 'utf8'))).toEqual(before);
    expect(readdirSync(directory)).toEqual(['sandbox.json']);
  });

  it('replaces a stale temp file, and the data file it becomes is readable by its owner only', async () => {
    writeFileSync(`${dataFile}.tmp`, 'x'.repeat(100_000), { mode: 0o644 });
    chmodSync(`${dataFile}.tmp`, 0o644);
    const snapshot = snapshotOf(2);
    await new SnapshotFile(dataFile).write(snapshot, true);
    expect(readFileSync(dataFile, 'utf8')).toBe(JSON.stringify(snapshot));
    expect(statSync(dataFile).mode & 0o777).toBe(0o600);
  });
});

describe('SnapshotFile.checkSpace', () => {
  it('writes the bytes aside and leaves nothing behind', async () => {
    const log: string[] = [];
    const writes: number[] = [];
    await new SnapshotFile(dataFile, recordingFs(log, writes)).checkSpace(65_536, true);
    expect(log).toEqual(['open sandbox.json.tmp', 'write sandbox.json.tmp', 'datasync sandbox.json.tmp', 'close sandbox.json.tmp']);
    expect(writes).toEqual([65_536]);
    expect(readdirSync(directory)).toEqual([]);
  });

  it('rejects as the write does, and leaves nothing behind', async () => {
    await expect(new SnapshotFile(dataFile, recordingFs([], [], 1)).checkSpace(65_536, false)).rejects.toThrow(/ENOSPC/);
    expect(readdirSync(directory)).toEqual([]);
  });
});

describe('SnapshotFile.read', () => {
  it('reads a missing file as null', async () => {
    expect(await new SnapshotFile(dataFile).read()).toBeNull();
  });
});
