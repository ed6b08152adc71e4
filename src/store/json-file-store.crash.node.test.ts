/**
 * Crash safety, for real: a child process writes until SIGKILL, then every write it saw
 * acknowledged must be there when the store is reopened.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openJsonFileStore } from './json-file-store.node.js';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));
const writerScript = fileURLToPath(new URL('./testing/crash-writer.node.ts', import.meta.url));

let directory: string;
let dataFile: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'lnpr-crash-'));
  dataFile = join(directory, 'sandbox.json');
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

/**
 * Runs the writer (see testing/crash-writer.node.ts) on the data file until it dies of SIGKILL:
 * its own, or ours once `acks` reach `killAt`. Resolves with the ids it acknowledged, from
 * complete stdout lines only: a line cut short by the kill proves nothing.
 */
function writeUntilKilled(args: { compactAfterEntries: number; killAt?: number; selfKillAfter?: number }) {
  const { compactAfterEntries, killAt = Infinity, selfKillAfter = Infinity } = args;
  return new Promise<string[]>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', writerScript, dataFile, String(compactAfterEntries), String(selfKillAfter)],
      { cwd: repositoryRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const acks: string[] = [];
    let partial = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      acks.push(...lines.map((line) => line.slice('ack '.length)));
      if (acks.length >= killAt && !child.killed) child.kill('SIGKILL');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(acks);
      else reject(new Error(`the writer exited without being killed:\n${stderr}`));
    });
  });
}

async function expectAllPresent(acks: string[]): Promise<void> {
  const store = await openJsonFileStore(dataFile);
  try {
    expect(acks.filter((id) => store.getPaymentRequest(id) === undefined)).toEqual([]);
    expect(store.size()).toBeGreaterThanOrEqual(acks.length);
  } finally {
    await store.close();
  }
}

describe('JSON file store killed with SIGKILL', () => {
  it('keeps every acknowledged write', async () => {
    const acks = await writeUntilKilled({ compactAfterEntries: 1_000_000, killAt: 2_000 });
    expect(acks.length).toBeGreaterThanOrEqual(2_000);
    await expectAllPresent(acks);
  });

  it('keeps every acknowledged write when killed during compactions, again and again', async () => {
    const acks: string[] = [];
    const leftovers: string[] = [];
    // Each round starts from what the last kill left: rotated journals, a stale temp snapshot.
    for (let round = 0; round < 6; round += 1) {
      acks.push(...(await writeUntilKilled({ compactAfterEntries: 50, selfKillAfter: 200 })));
      leftovers.push(...readdirSync(directory).filter((name) => /\.journal\.\d+$/.test(name)));
    }
    await expectAllPresent(acks);
    // Evidence that some kill landed between the journal's rotation and the snapshot's rename.
    expect(leftovers.length).toBeGreaterThan(0);
  });
});
