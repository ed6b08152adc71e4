/**
 * One run of the memory acceptance test (test/webhooks-memory.test.ts), in a process of its own so
 * that its peak RSS is its own: a Node sandbox (memory store, frozen clocks) takes CREATES creates
 * through its API, delivering each event to RECEIVER_URL (or to no endpoint: `none`), then its
 * clock is advanced by two days, which runs every retry of every failed delivery. Prints one JSON
 * line: the peak RSS (the kernel's high-water mark, and the largest sample), what the store kept,
 * and the size of the deliveries list's answer.
 *
 *   node --import tsx test/support/webhook-memory-run.ts RECEIVER_URL|none CREATES
 */
import { readFileSync } from 'node:fs';
import { createNodeSandbox } from '../../src/sandbox.node.js';
import { callSandbox } from './in-process.js';
import { createBody } from './sandbox-server.js';

const [receiverUrl = 'none', createsText = '3000'] = process.argv.slice(2);
const creates = Number(createsText);
const TWO_DAYS_SECONDS = 2 * 24 * 3600;
/** Creates in flight at once, as a few clients would send them. */
const CONCURRENT_CREATES = 16;

let sampledPeak = 0;
const sample = () => (sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss));
const sampler = setInterval(sample, 20);

/** VmHWM of /proc/self/status: the peak resident set size, in bytes (0 where there is no /proc). */
function highWaterMark(): number {
  try {
    const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kib === undefined ? 0 : Number(kib) * 1024;
  } catch {
    return 0;
  }
}

const sandbox = await createNodeSandbox({ clock: 'frozen' });
const call = (method: string, url: string, body?: unknown) => callSandbox(sandbox, method, url, body);
if (receiverUrl !== 'none') {
  const registered = await call('POST', '/sandbox/v1/webhook-endpoints', { url: receiverUrl });
  if (registered.status !== 201) throw new Error(`registering the endpoint: ${JSON.stringify(registered.body)}`);
}
const startedAt = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENT_CREATES }, async () => {
    while (next < creates) {
      next += 1;
      const created = await call('POST', '/api/v1/payment-requests', createBody());
      if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
    }
  }),
);
await sandbox.events.settle();
const createdMs = performance.now() - startedAt;
const advanced = await call('POST', '/sandbox/v1/clock/advance', { seconds: TWO_DAYS_SECONDS });
if (advanced.status !== 200) throw new Error(`advance: ${advanced.status}`);
await sandbox.events.settle();
const advancedMs = performance.now() - startedAt - createdMs;
sample();
clearInterval(sampler);

const accountId = 'acct_custodial';
const listed = await sandbox.handle({ method: 'GET', url: '/sandbox/v1/webhook-deliveries', headers: { authorization: 'Bearer sk_test_custodial' } });
const kept = sandbox.store.deliveriesOf(accountId);
process.stdout.write(
  `${JSON.stringify({
    receiver: receiverUrl !== 'none',
    creates,
    peakRss: Math.max(highWaterMark(), sampledPeak),
    highWaterMark: highWaterMark(),
    sampledPeak,
    createdMs: Math.round(createdMs),
    advancedMs: Math.round(advancedMs),
    keptEvents: sandbox.store.eventsOf(accountId).length,
    keptAttempts: kept.length,
    pendingAttempts: kept.filter((delivery) => delivery.status === 'pending').length,
    listedDeliveries: (JSON.parse(listed.body ?? '{"data":[]}') as { data: unknown[] }).data.length,
    listBytes: listed.body?.length ?? 0,
  })}\n`,
);
sandbox.close();
await sandbox.store.close();
