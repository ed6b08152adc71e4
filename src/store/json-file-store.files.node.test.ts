/**
 * The JSON file store's files as an attacker or a careless hand finds them: created readable by
 * their owner only, every record checked against its schema at start (a hand edit refuses the
 * start, naming the file, the record and the field), a torn last journal line dropped aloud.
 */
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatJournalLine } from './journal-entry.js';
import { openJsonFileStore, type JsonFileStore } from './json-file-store.node.js';
import { nodeSnapshotFs, SnapshotFile } from './snapshot-file.node.js';
import { emptySnapshot } from './snapshot-format.js';
import { StoreFileError } from './store-file-error.js';
import type { StoreNotice } from './store-notice.js';
import { testPaymentRequest } from './testing/payment-request.js';

let directory: string;
let dataFile: string;
let opened: JsonFileStore[];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'lnpr-files-'));
  dataFile = join(directory, 'sandbox.json');
  opened = [];
});

afterEach(async () => {
  await Promise.allSettled(opened.map((store) => store.close()));
  rmSync(directory, { recursive: true, force: true });
});

async function open(options: Parameters<typeof openJsonFileStore>[1] = {}): Promise<JsonFileStore> {
  const store = await openJsonFileStore(dataFile, options);
  opened.push(store);
  return store;
}

function modeOf(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

describe('files readable by their owner only (0600)', () => {
  it('the data file, the journal and the lock', async () => {
    const store = await open();
    await store.savePaymentRequest(testPaymentRequest());
    expect(modeOf(dataFile)).toBe('600');
    expect(modeOf(`${dataFile}.journal`)).toBe('600');
    expect(modeOf(`${dataFile}.lock`)).toBe('600');
    await store.close();
    expect(modeOf(dataFile)).toBe('600');
  });

  it('a rotated journal and the journal that replaces it', async () => {
    const store = await open({ compactAfterEntries: 2, onNotice: () => {} });
    // The snapshot's temp file blocked by a directory: the journal is rotated, the snapshot fails.
    mkdirSync(join(`${dataFile}.tmp`, 'occupied'), { recursive: true });
    for (let i = 0; i < 3; i++) await store.savePaymentRequest(testPaymentRequest());
    while (store.stats().compacting) await new Promise((resolve) => setTimeout(resolve, 5));
    await store.savePaymentRequest(testPaymentRequest());
    const rotated = readdirSync(directory).filter((name) => /\.journal\.\d+$/.test(name));
    expect(rotated).toHaveLength(1);
    expect(modeOf(join(directory, rotated[0]!))).toBe('600');
    expect(modeOf(`${dataFile}.journal`)).toBe('600');
    rmSync(`${dataFile}.tmp`, { recursive: true });
  });

  it('the temp file a snapshot is written to', async () => {
    const modes: string[] = [];
    const fs = { ...nodeSnapshotFs, rename: async (from: string, to: string) => (modes.push(modeOf(from)), nodeSnapshotFs.rename(from, to)) };
    await new SnapshotFile(dataFile, fs).write(emptySnapshot(), true);
    expect(modes).toEqual(['600']);
  });

  it('takes group and other access away from files an older version made', async () => {
    writeFileSync(dataFile, JSON.stringify(emptySnapshot()));
    writeFileSync(`${dataFile}.journal`, '');
    chmodSync(dataFile, 0o644);
    chmodSync(`${dataFile}.journal`, 0o664);
    await open();
    expect(modeOf(dataFile)).toBe('600');
    expect(modeOf(`${dataFile}.journal`)).toBe('600');
  });
});

describe('records checked against their schemas at start', () => {
  const record = testPaymentRequest();

  it('refuses a data file with a record whose status was edited, naming the file, the record and the field', async () => {
    const content = JSON.stringify({ ...emptySnapshot(), sequence: 1, paymentRequests: [{ ...record, status: 'hacked' }] });
    writeFileSync(dataFile, content);
    const refusal = await openJsonFileStore(dataFile).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(StoreFileError);
    expect((refusal as Error).message).toBe(
      `${dataFile}: paymentRequests[0] is not a valid payment request: payment request ${record.id}: ` +
        'status must be one of pending, completed, expired, failed (it is "hacked"). The file was left untouched.',
    );
    expect(readFileSync(dataFile, 'utf8')).toBe(content);
  });

  it.each([
    ['amount', '1000', /amount must be a whole number \(it is "1000"\)/],
    ['paymentHash', 'xyz', /paymentHash is not in the expected format \(it is "xyz"\)/],
    ['createdAt', 'yesterday', /createdAt is not in the expected format/],
    ['isNwc', 'no', /isNwc must be true or false/],
    ['accountId', 7, /accountId must be a string/],
    ['preimage', undefined, /preimage is required/],
  ])('refuses a record whose %s is %j', async (field, value, message) => {
    writeFileSync(dataFile, JSON.stringify({ ...emptySnapshot(), sequence: 1, paymentRequests: [{ ...record, [field]: value }] }));
    await expect(openJsonFileStore(dataFile)).rejects.toThrow(message);
  });

  it('refuses an edited event, endpoint or delivery attempt too', async () => {
    const event = { id: 'evt_1', accountId: 'acct_test', type: 'payment_request.hacked', timestamp: '2025-01-01T00:00:00.000Z', data: {} };
    writeFileSync(dataFile, JSON.stringify({ ...emptySnapshot(), events: [event] }));
    await expect(openJsonFileStore(dataFile)).rejects.toThrow(/events\[0\] is not a valid event: event evt_1: type must be one of/);
  });

  it('refuses a journal line with an edited record, naming the journal, the line, the record and the field', async () => {
    writeFileSync(`${dataFile}.journal`, formatJournalLine({ seq: 1, op: 'put', record: { ...record, status: 'hacked' as 'pending' } }));
    await expect(openJsonFileStore(dataFile)).rejects.toThrow(
      `${dataFile}.journal: line 1 is damaged: not a valid "put" entry: payment request ${record.id}: status must be one of pending, completed, expired, failed (it is "hacked")`,
    );
  });

  it('accepts every record the engine writes, after a reopen from the journal and from the data file', async () => {
    const scheduled = testPaymentRequest({ scheduledOutcome: { transition: 'fail', at: '2025-01-01T00:00:05.000Z', rule: 'r' }, metadata: { a: [1] } });
    const nwc = testPaymentRequest({ isNwc: true, nwcRelay: 'wss://relay.example', status: 'completed' });
    const store = await open();
    await store.savePaymentRequest(scheduled);
    await store.savePaymentRequest(nwc);
    // A copy as a crash would leave it: the records are in the journal only.
    const copy = join(mkdtempSync(join(directory, 'copy-')), 'sandbox.json');
    for (const suffix of ['', '.journal']) cpSync(`${dataFile}${suffix}`, `${copy}${suffix}`);
    const fromJournal = await openJsonFileStore(copy);
    expect(fromJournal.getPaymentRequest(scheduled.id)).toEqual(scheduled);
    await fromJournal.close();
    await store.close();
    const reopened = await open();
    expect(reopened.getPaymentRequest(scheduled.id)).toEqual(scheduled);
    expect(reopened.getPaymentRequest(nwc.id)).toEqual(nwc);
  });
});

describe('a torn last journal line', () => {
  it('is dropped with a notice naming the file, the line and the bytes dropped', async () => {
    const records = [testPaymentRequest(), testPaymentRequest()];
    const lines = records.map((record, index) => formatJournalLine({ seq: index + 1, op: 'put', record }));
    const torn = lines[1]!.slice(0, 57);
    writeFileSync(`${dataFile}.journal`, lines[0]! + torn);
    const notices: StoreNotice[] = [];
    const store = await open({ onNotice: (notice) => notices.push(notice) });
    expect(store.size()).toBe(1);
    expect(notices).toEqual([
      {
        level: 'warn',
        path: `${dataFile}.journal`,
        message: `${dataFile}.journal: dropped a torn last line (line 2, 57 bytes): a write cut short by a crash or a failed write, never acknowledged`,
      },
    ]);
    expect(readFileSync(`${dataFile}.journal`, 'utf8')).toBe(lines[0]);
  });
});
