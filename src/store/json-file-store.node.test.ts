/**
 * The JSON file store: the shared contract, then what only a file store has to get right
 * (reopening, group commit, the lock, untrusted files, journal recovery, compaction).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatJournalLine } from './journal-entry.js';
import { openJsonFileStore, type JsonFileStore } from './json-file-store.node.js';
import { StoreLockedError } from './lock-file.node.js';
import { emptySnapshot } from './snapshot-format.js';
import { describeStoreContract } from './testing/store-contract.js';
import { StoreFileError } from './store-file-error.js';
import type { StoreNotice } from './store-notice.js';
import { testPaymentRequest } from './testing/payment-request.js';

let directory: string;
let dataFile: string;
let opened: JsonFileStore[];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'lnpr-store-'));
  dataFile = join(directory, 'sandbox.json');
  opened = [];
});

afterEach(async () => {
  await Promise.allSettled(opened.map((store) => store.close()));
  rmSync(directory, { recursive: true, force: true });
});

/** Opens a store that afterEach closes if the test did not. */
async function open(...options: Parameters<typeof openJsonFileStore>[1][]): Promise<JsonFileStore> {
  const store = await openJsonFileStore(dataFile, options[0]);
  opened.push(store);
  return store;
}

/** Resolves once the store has no compaction under way. */
async function compactionSettled(store: JsonFileStore): Promise<void> {
  while (store.stats().compacting) await new Promise((resolve) => setTimeout(resolve, 5));
}

describeStoreContract('JSON file store', () => open());

describe('JSON file store', () => {
  it('serves every write after a reopen, from the data file alone', async () => {
    const store = await open();
    const kept = testPaymentRequest({ accountId: 'acct_a' });
    const deleted = testPaymentRequest({ accountId: 'acct_b' });
    await Promise.all([kept, deleted].map((record) => store.savePaymentRequest(record)));
    await store.saveClock('acct_a', { offsetMs: 42, frozenAtMs: null });
    await store.deletePaymentRequestsOf('acct_b');
    await store.close();

    expect(readdirSync(directory)).toEqual(['sandbox.json']);
    const file = JSON.parse(readFileSync(dataFile, 'utf8'));
    expect(file).toMatchObject({ format: 'lnpr-sandbox', version: 1, sequence: 4, paymentRequests: [kept] });

    const reopened = await open();
    expect(reopened.getPaymentRequest(kept.id)).toEqual(kept);
    expect(reopened.findPaymentRequestByHash(kept.paymentHash)).toEqual(kept);
    expect(reopened.getPaymentRequest(deleted.id)).toBeUndefined();
    expect(reopened.getClock('acct_a')).toEqual({ offsetMs: 42, frozenAtMs: null });
    expect(reopened.size()).toBe(1);
  });

  it('creates a missing data file empty, in compact JSON', async () => {
    await open();
    expect(readFileSync(dataFile, 'utf8')).toBe(JSON.stringify(emptySnapshot()));
  });

  it('acknowledges writes only once they are in the journal, replayed without a clean close', async () => {
    const store = await open();
    const record = testPaymentRequest();
    await store.savePaymentRequest(record);
    expect(readFileSync(`${dataFile}.journal`, 'utf8')).toBe(formatJournalLine({ seq: 1, op: 'put', record }));

    const copy = crashCopy();
    const recovered = await openJsonFileStore(copy);
    expect(recovered.getPaymentRequest(record.id)).toEqual(record);
    await recovered.close();
  });

  it('shares flushes between concurrent writes (group commit)', async () => {
    const store = await open();
    const records = Array.from({ length: 500 }, () => testPaymentRequest());
    await Promise.all(records.map((record) => store.savePaymentRequest(record)));
    expect(store.stats().flushes).toBeLessThan(records.length / 10);
    expect(store.size()).toBe(500);
  });

  it("with durability 'write', keeps writes across a reopen", async () => {
    const store = await open({ durability: 'write' });
    const record = testPaymentRequest();
    await store.savePaymentRequest(record);
    await store.close();
    expect((await open({ durability: 'write' })).getPaymentRequest(record.id)).toEqual(record);
  });

  it('refuses writes after close', async () => {
    const store = await open();
    await store.close();
    await expect(store.savePaymentRequest(testPaymentRequest())).rejects.toThrow(/closed/);
  });

  describe('lock', () => {
    it('refuses a second open while the first is open, naming the file and the pid', async () => {
      const store = await open();
      const refusal = await openJsonFileStore(dataFile).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(StoreLockedError);
      expect((refusal as StoreLockedError).pid).toBe(process.pid);
      expect((refusal as Error).message).toContain(dataFile);
      expect((refusal as Error).message).toContain(`process ${process.pid}`);
      expect((refusal as Error).message).toContain(`${dataFile}.lock`);

      await store.close();
      expect(existsSync(`${dataFile}.lock`)).toBe(false);
      await open();
    });

    it('takes over a lock whose process is gone', async () => {
      const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
      writeFileSync(`${dataFile}.lock`, String(deadPid));
      await open();
      expect(JSON.parse(readFileSync(`${dataFile}.lock`, 'utf8')).pid).toBe(process.pid);
    });

    it('does not take over a lock that names no process', async () => {
      writeFileSync(`${dataFile}.lock`, '');
      await expect(open()).rejects.toThrow(/names no process.*delete/);
    });
  });

  describe('refuses a data file it cannot trust, and leaves it untouched', () => {
    const cases = {
      'another version': JSON.stringify({ ...emptySnapshot(), version: 2 }),
      'another format': JSON.stringify({ posts: [] }),
      'garbage': 'not json {',
      'a record without an id': JSON.stringify({ ...emptySnapshot(), paymentRequests: [{ accountId: 'a' }] }),
    };
    const messages = {
      'another version': /version 2 is not supported/,
      'another format': /not an lnpr-sandbox data file/,
      'garbage': /not a JSON file/,
      'a record without an id': /paymentRequests\[0\]/,
    };

    for (const [name, content] of Object.entries(cases)) {
      it(name, async () => {
        writeFileSync(dataFile, content);
        const refusal = await openJsonFileStore(dataFile).catch((error: unknown) => error);
        expect(refusal).toBeInstanceOf(StoreFileError);
        expect((refusal as Error).message).toContain(dataFile);
        expect((refusal as Error).message).toMatch(messages[name as keyof typeof messages]);
        expect(readFileSync(dataFile, 'utf8')).toBe(content);
        expect(readdirSync(directory)).toEqual(['sandbox.json']);
      });
    }
  });

  it('deletes a temp snapshot that a crash left behind', async () => {
    writeFileSync(dataFile, JSON.stringify(emptySnapshot()));
    writeFileSync(`${dataFile}.tmp`, '{"format":"lnpr-sandbox","version":1,"seq');
    await open();
    expect(existsSync(`${dataFile}.tmp`)).toBe(false);
  });

  describe('journal recovery', () => {
    const records = [testPaymentRequest(), testPaymentRequest(), testPaymentRequest()];
    const lines = records.map((record, index) => formatJournalLine({ seq: index + 1, op: 'put', record }));

    it('ignores a torn last line and appends after the last complete one', async () => {
      writeFileSync(`${dataFile}.journal`, lines[0]! + lines[1]! + lines[2]!.slice(0, 40));
      const store = await open();
      expect(store.size()).toBe(2);
      expect(store.getPaymentRequest(records[2]!.id)).toBeUndefined();

      await store.savePaymentRequest(records[2]!);
      expect(readFileSync(`${dataFile}.journal`, 'utf8').split('\n')).toHaveLength(4);
      await store.close();
      expect((await open()).size()).toBe(3);
    });

    it('refuses a damaged line before the last one', async () => {
      const content = lines[0]! + '{"seq":2,"op":"put"\n' + lines[2]!;
      writeFileSync(`${dataFile}.journal`, content);
      await expect(open()).rejects.toThrow(/sandbox\.json\.journal: line 2 is damaged/);
      expect(readFileSync(`${dataFile}.journal`, 'utf8')).toBe(content);
    });

    it('refuses a journal with entries missing', async () => {
      writeFileSync(`${dataFile}.journal`, lines[0]! + lines[2]!);
      await expect(open()).rejects.toThrow(/line 2 has sequence 3 but the last one before it is 1/);
    });

    it('skips entries the data file already holds', async () => {
      writeFileSync(dataFile, JSON.stringify({ ...emptySnapshot(), sequence: 1, paymentRequests: [records[0]] }));
      writeFileSync(`${dataFile}.journal`, lines[0]! + lines[1]!);
      const store = await open();
      expect(store.size()).toBe(2);
      expect(store.stats().journalEntries).toBe(1);
    });
  });

  describe('compaction', () => {
    it('folds the journal into the data file in the background and keeps every write', async () => {
      const store = await open({ compactAfterEntries: 20 });
      const records = Array.from({ length: 200 }, () => testPaymentRequest());
      for (const record of records.slice(0, 100)) await store.savePaymentRequest(record);
      await Promise.all(records.slice(100).map((record) => store.savePaymentRequest(record)));
      await compactionSettled(store);

      const stats = store.stats();
      expect(stats.compactions).toBeGreaterThan(0);
      expect(stats.journalEntries).toBeLessThan(200);
      const file = JSON.parse(readFileSync(dataFile, 'utf8'));
      expect(file.sequence).toBe(200 - stats.journalEntries);
      expect(file.paymentRequests).toHaveLength(file.sequence);

      const copy = crashCopy();
      const recovered = await openJsonFileStore(copy);
      expect(records.every((record) => recovered.getPaymentRequest(record.id))).toBe(true);
      await recovered.close();

      await store.close();
      const reopened = await open();
      expect(records.every((record) => reopened.getPaymentRequest(record.id))).toBe(true);
    });

    it('starts once the journal outgrows a tenth of the data file (or compactAfterEntries), bounding replay', async () => {
      const first = await open({ compactAfterEntries: 5 });
      await Promise.all(Array.from({ length: 200 }, () => first.savePaymentRequest(testPaymentRequest())));
      await first.close();

      const store = await open({ compactAfterEntries: 5 });
      for (let i = 0; i < 20; i++) await store.savePaymentRequest(testPaymentRequest());
      expect(store.stats()).toMatchObject({ compacting: false, compactions: 0, journalEntries: 20 });
      await store.savePaymentRequest(testPaymentRequest());
      expect(store.stats().compacting).toBe(true);
      await compactionSettled(store);
      expect(store.stats()).toMatchObject({ compactions: 1, journalEntries: 0 });
    });

    it('keeps acknowledging writes while it runs', async () => {
      const store = await open({ compactAfterEntries: 100 });
      const before = Array.from({ length: 20_000 }, () => testPaymentRequest());
      await Promise.all(before.map((record) => store.savePaymentRequest(record)));
      await compactionSettled(store);
      // The journal now holds far more entries than the first snapshot (taken at entry 101) has
      // records, so the next write starts a compaction of 20,000 records.
      const during = testPaymentRequest();
      await store.savePaymentRequest(during);
      expect(store.stats().compacting).toBe(true);
      await store.close();
      const reopened = await open();
      expect(reopened.size()).toBe(20_001);
      expect([...before, during].every((record) => reopened.getPaymentRequest(record.id))).toBe(true);
    });
  });

  describe('failures', () => {
    it('reports a failed compaction, keeps acknowledging writes, and retries later', async () => {
      const notices: StoreNotice[] = [];
      const store = await open({ compactAfterEntries: 5, onNotice: (notice) => notices.push(notice) });
      // A directory where the snapshot's temp file goes makes the snapshot write fail.
      const blocker = join(directory, 'sandbox.json.tmp');
      mkdirSync(join(blocker, 'occupied'), { recursive: true });
      const records = Array.from({ length: 20 }, () => testPaymentRequest());
      for (const record of records.slice(0, 10)) await store.savePaymentRequest(record);
      await compactionSettled(store);
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ level: 'warn', path: dataFile });
      expect(notices[0]?.message).toMatch(/could not fold the journal into .*sandbox\.json .*tried again later/);
      expect(store.stats()).toMatchObject({ compactions: 0, journalEntries: 10 });
      expect(store.health()).toEqual({ status: 'ok' });

      rmSync(blocker, { recursive: true });
      for (const record of records.slice(10)) await store.savePaymentRequest(record);
      await compactionSettled(store);
      expect(store.stats().compactions).toBeGreaterThan(0);
      await store.close();
      expect(records.every((record) => JSON.parse(readFileSync(dataFile, 'utf8')).paymentRequests.some(
        (stored: { id: string }) => stored.id === record.id,
      ))).toBe(true);
    });

    it('keeps appending to the journal when it cannot be rotated out, and folds it in later', async () => {
      const notices: StoreNotice[] = [];
      const store = await open({ compactAfterEntries: 5, onNotice: (notice) => notices.push(notice) });
      // The name the active journal will be rotated to at the sixth write, taken by a directory.
      mkdirSync(join(directory, 'sandbox.json.journal.6', 'occupied'), { recursive: true });
      const records = Array.from({ length: 20 }, () => testPaymentRequest());
      for (const record of records.slice(0, 6)) await store.savePaymentRequest(record);
      await compactionSettled(store);
      expect(notices[0]?.message).toMatch(/could not fold the journal/);
      expect(store.health()).toEqual({ status: 'ok' });

      rmSync(join(directory, 'sandbox.json.journal.6'), { recursive: true });
      for (const record of records.slice(6)) await store.savePaymentRequest(record);
      await compactionSettled(store);
      expect(store.stats().compactions).toBeGreaterThan(0);
      await store.close();
      const reopened = await open();
      expect(records.every((record) => reopened.getPaymentRequest(record.id))).toBe(true);
      expect(reopened.size()).toBe(20);
    });
  });

  it('round-trips __proto__ and constructor keys as plain data, polluting nothing', async () => {
    const metadata = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}');
    const record = testPaymentRequest({ metadata, accountId: '__proto__' });
    const store = await open();
    await store.savePaymentRequest(record);
    await store.saveClock('__proto__', { offsetMs: 7, frozenAtMs: null });
    await store.saveClock('constructor', { offsetMs: 8, frozenAtMs: null });

    const fromJournal = await openJsonFileStore(crashCopy());
    await fromJournal.close();
    await store.close();
    const fromSnapshot = await open();

    for (const reread of [fromJournal, fromSnapshot]) {
      const stored = reread.getPaymentRequest(record.id);
      expect(JSON.stringify(stored)).toBe(JSON.stringify(record));
      expect(Object.keys(stored?.metadata ?? {})).toEqual(['__proto__', 'constructor']);
      expect(Object.getPrototypeOf(stored?.metadata)).toBe(Object.prototype);
      expect(reread.getClock('__proto__')).toEqual({ offsetMs: 7, frozenAtMs: null });
      expect(reread.getClock('constructor')).toEqual({ offsetMs: 8, frozenAtMs: null });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});

/** Copies the store's files as a crash would leave them (minus the lock); returns the copy's data file. */
function crashCopy(): string {
  const copy = mkdtempSync(join(directory, 'crash-'));
  for (const name of readdirSync(directory)) {
    if (name.startsWith('sandbox.json') && !name.endsWith('.lock')) cpSync(join(directory, name), join(copy, name));
  }
  return join(copy, 'sandbox.json');
}
