/**
 * Test support for ../json-file-store.crash.node.test.ts, run as a child process: saves records
 * as fast as it can and prints `ack <id>` the moment each save resolves, until killed.
 * Usage: node --import tsx crash-writer.node.ts DATA_FILE COMPACT_AFTER_ENTRIES [KILL_AFTER_ACKS]
 * With KILL_AFTER_ACKS, once that many writes are acknowledged it SIGKILLs itself at a random
 * acknowledgement made during a compaction: a kill from the parent would land milliseconds
 * late, after a small compaction has finished.
 */
import { openJsonFileStore } from '../json-file-store.node.js';
import { testPaymentRequest } from './payment-request.js';

const [dataFile, compactAfterEntries, killAfterAcks = 'Infinity'] = process.argv.slice(2);
if (!dataFile || !compactAfterEntries) throw new Error('usage: crash-writer DATA_FILE COMPACT_AFTER_ENTRIES');

const store = await openJsonFileStore(dataFile, { compactAfterEntries: Number(compactAfterEntries) });
const CONCURRENT_WRITERS = 32;
let acks = 0;

async function writeForever(): Promise<never> {
  for (;;) {
    const record = testPaymentRequest();
    await store.savePaymentRequest(record);
    process.stdout.write(`ack ${record.id}\n`);
    acks += 1;
    if (acks >= Number(killAfterAcks) && store.stats().compacting && Math.random() < 0.25) {
      process.kill(process.pid, 'SIGKILL');
    }
  }
}

await Promise.all(Array.from({ length: CONCURRENT_WRITERS }, writeForever));
