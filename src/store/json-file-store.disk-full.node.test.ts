/**
 * The JSON file store on a disk that fills up, for real (a 2 MiB tmpfs): refused writes are not
 * kept, not even those queued behind the one that failed; acknowledged ones all are; the store
 * says why, and takes writes again by itself once there is room.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentRequestRecord } from '../core/store/payment-request.js';
import { StorageUnavailableError } from '../core/store/sandbox-store.js';
import { openJsonFileStore, type JsonFileStore } from './json-file-store.node.js';
import { StorageFault } from './storage-fault.js';
import type { StoreNotice } from './store-notice.js';
import { mountSmallDisk, type SmallDisk } from './testing/small-disk.node.js';
import { testPaymentRequest } from './testing/payment-request.js';

const mounted = mountSmallDisk('2m');
const disk: SmallDisk | undefined = 'refused' in mounted ? undefined : mounted;
if (!disk) console.warn(`skipping the full-disk tests: cannot mount a tmpfs (${(mounted as { refused: string }).refused})`);

let dataFile: string;
let files = 0;
let opened: JsonFileStore[] = [];

beforeAll(() => {
  if (disk) dataFile = join(disk.directory, 'sandbox.json');
});

afterEach(async () => {
  await Promise.allSettled(opened.map((store) => store.close()));
  opened = [];
  disk?.free();
});

afterAll(() => disk?.unmount());

async function open(notices: StoreNotice[] = []): Promise<JsonFileStore> {
  dataFile = join(disk!.directory, `sandbox-${++files}.json`);
  const store = await openJsonFileStore(dataFile, { retry: { firstMs: 20, maxMs: 200 }, onNotice: (notice) => notices.push(notice) });
  opened.push(store);
  return store;
}

/** Saves `records` all at once (one group commit or a few); returns which were acknowledged and which refused. */
async function saveAll(store: JsonFileStore, records: PaymentRequestRecord[]) {
  const outcomes = await Promise.allSettled(records.map((record) => store.savePaymentRequest(record)));
  const acknowledged = records.filter((_, index) => outcomes[index]!.status === 'fulfilled');
  const refusals = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
  return { acknowledged, refused: records.filter((_, index) => outcomes[index]!.status === 'rejected'), refusals };
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<number> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - start;
}

describe.skipIf(!disk)('JSON file store on a full disk', () => {
  it('refuses writes the disk refuses, keeps none of them, says why, and takes writes again once there is room', async () => {
    const notices: StoreNotice[] = [];
    const store = await open(notices);
    const before = await saveAll(store, Array.from({ length: 20 }, () => testPaymentRequest()));
    expect(before.refused).toEqual([]);

    disk!.fill();
    // Bursts of concurrent writes until one is refused: the last page of the journal may still
    // take a few. A refused burst refuses every write queued with or behind the failed one.
    const acknowledged = [...before.acknowledged];
    const refused: PaymentRequestRecord[] = [];
    const refusals: unknown[] = [];
    for (let burst = 0; burst < 50 && refused.length === 0; burst++) {
      const outcome = await saveAll(store, Array.from({ length: 40 }, () => testPaymentRequest()));
      acknowledged.push(...outcome.acknowledged);
      refused.push(...outcome.refused);
      refusals.push(...outcome.refusals);
    }
    expect(refused.length).toBeGreaterThan(0);
    for (const refusal of refusals) {
      expect(refusal).toBeInstanceOf(StorageUnavailableError);
      expect(refusal).toMatchObject({ code: 'storage_unavailable', status: 503 });
      expect((refusal as Error).cause).toBeInstanceOf(StorageFault);
      expect((refusal as Error).cause).toMatchObject({ code: 'ENOSPC', path: `${dataFile}.journal` });
    }

    // Nothing refused is visible; everything acknowledged is.
    for (const record of refused) expect(store.getPaymentRequest(record.id)).toBeUndefined();
    for (const record of acknowledged) expect(store.getPaymentRequest(record.id)).toEqual(record);
    expect(store.size()).toBe(acknowledged.length);
    expect(store.health()).toMatchObject({ status: 'unavailable', cause: expect.stringMatching(/ENOSPC/) });
    expect(notices.filter((notice) => notice.level === 'error')).toEqual([
      expect.objectContaining({ code: 'ENOSPC', path: `${dataFile}.journal`, message: expect.stringMatching(/^cannot write .*sandbox-\d+\.json\.journal: ENOSPC: no space left on device/) }),
    ]);

    // While the disk is full, writes are refused at once, unapplied.
    const meanwhile = testPaymentRequest();
    await expect(store.savePaymentRequest(meanwhile)).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(store.getPaymentRequest(meanwhile.id)).toBeUndefined();

    disk!.free();
    await until(() => store.health().status === 'ok');
    expect(notices.at(-1)).toMatchObject({ level: 'info', message: expect.stringMatching(/writes are taken again after .* s refused/) });
    const after = await saveAll(store, Array.from({ length: 40 }, () => testPaymentRequest()));
    expect(after.refused).toEqual([]);
    acknowledged.push(...after.acknowledged);

    // Sequences went on from the last durable one: the journal replays without a gap.
    await store.close();
    const reopened = await openJsonFileStore(dataFile);
    opened.push(reopened);
    expect(reopened.size()).toBe(acknowledged.length);
    for (const record of acknowledged) expect(reopened.getPaymentRequest(record.id)).toEqual(record);
    for (const record of [...refused, meanwhile]) expect(reopened.getPaymentRequest(record.id)).toBeUndefined();
  });

  it('answers /healthz-style health and recovers without any write (a timer checks the disk)', async () => {
    const store = await open();
    await store.savePaymentRequest(testPaymentRequest());
    disk!.fill();
    for (let i = 0; i < 50 && store.health().status === 'ok'; i++) await saveAll(store, Array.from({ length: 40 }, () => testPaymentRequest()));
    expect(store.health().status).toBe('unavailable');
    disk!.free();
    const waited = await until(() => store.health().status === 'ok');
    expect(waited).toBeLessThan(2_000);
  });

  it('closes cleanly after an outage, leaving no failed write behind in the journal', async () => {
    const store = await open();
    const kept = testPaymentRequest();
    await store.savePaymentRequest(kept);
    disk!.fill();
    for (let i = 0; i < 50 && store.health().status === 'ok'; i++) await saveAll(store, Array.from({ length: 40 }, () => testPaymentRequest()));
    disk!.free();
    await store.close();
    const notices: StoreNotice[] = [];
    const reopened = await openJsonFileStore(dataFile, { onNotice: (notice) => notices.push(notice) });
    opened.push(reopened);
    expect(reopened.getPaymentRequest(kept.id)).toEqual(kept);
    expect(notices).toEqual([]);
  });
});
