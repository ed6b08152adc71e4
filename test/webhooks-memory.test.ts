/**
 * The acceptance test of issue 16, finding 5: 3,000 creates with a receiver that always fails and
 * a 2-day clock advance (which runs every retry) keep peak RSS under 2.5x the same run without a
 * receiver, and the deliveries list answers one page. Each run is a process of its own
 * (test/support/webhook-memory-run.ts), so that its peak is its own; the receiver is a loopback
 * server in this process answering 500.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETRY_DELAYS_SECONDS } from '../src/core/due/retry-schedule.js';
import { KEPT_EVENTS_PER_ACCOUNT, KEPT_FINISHED_ATTEMPTS_PER_ACCOUNT } from '../src/core/events/event-log.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CREATES = 3_000;
const RUN_TIMEOUT_MS = 100_000;

/** What a run prints. */
interface RunFigures {
  receiver: boolean;
  peakRss: number;
  createdMs: number;
  advancedMs: number;
  keptEvents: number;
  keptAttempts: number;
  pendingAttempts: number;
  listedDeliveries: number;
  listBytes: number;
}

function run(receiverUrl: string): Promise<RunFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/webhook-memory-run.ts', receiverUrl, String(CREATES)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`run ${receiverUrl} ended with ${code ?? signal}:\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as RunFigures);
    });
  });
}

let receiver: Server;
let received = 0;
beforeAll(async () => {
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(500, { 'content-type': 'text/plain' }).end('no');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describe('a receiver that always fails', () => {
  it(`${CREATES.toLocaleString('en')} creates and a 2-day advance: peak RSS under 2.5x the run without a receiver, and the deliveries list answers one page`, async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const [failing, none] = await Promise.all([run(url), run('none')]);
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
    console.log(
      `peak RSS: ${mb(failing.peakRss)} with a failing receiver, ${mb(none.peakRss)} without (x${(failing.peakRss / none.peakRss).toFixed(2)}); ` +
        `${received} attempts received; creates ${failing.createdMs} ms, advance ${failing.advancedMs} ms; ` +
        `kept ${failing.keptEvents} events, ${failing.keptAttempts} attempts; the list answered ${failing.listedDeliveries} (${failing.listBytes} bytes)`,
    );
    // Each request's two events (created, then expired by the advance) were tried the first time
    // and at each retry: the advance ran them all.
    expect(received).toBe(2 * CREATES * (RETRY_DELAYS_SECONDS.length + 1));
    expect(failing.pendingAttempts).toBe(0);
    expect(failing.peakRss).toBeLessThan(2.5 * none.peakRss);
    expect(failing.listedDeliveries).toBe(100);
    expect(failing.listBytes).toBeLessThan(64 * 1024);
    expect(failing.keptEvents).toBe(KEPT_EVENTS_PER_ACCOUNT);
    expect(failing.keptAttempts).toBeLessThanOrEqual(KEPT_FINISHED_ATTEMPTS_PER_ACCOUNT);
  }, RUN_TIMEOUT_MS + 10_000);
});
