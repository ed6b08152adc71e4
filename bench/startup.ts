/**
 * Start-up time as a user sees it: from spawning `lnpr serve` to its first 200. The port is
 * chosen up front so polling can begin at the spawn, before the server could print its URL. The
 * server's CPU time until then is kept too: other work on the machine stretches the wall time.
 */
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { otherLoadPercent, processCpuMs, sampleCpu } from './machine-load.js';
import { spawnServer, type ServerProcess } from './server-process.js';

const POLL_EVERY_MS = 10;
const GIVE_UP_AFTER_MS = 60_000;

/** Milliseconds from spawn to each event; `firstRecordMs` only when a record path was polled. */
export interface StartupFigures {
  bannerMs: number;
  firstHealthzMs: number;
  firstRecordMs?: number;
  /** CPU time of the server process (all its threads) until the last first 200; null: unknown. */
  cpuMs: number | null;
  /** Share of the machine other processes took meanwhile; null: unknown. */
  otherLoadPercent: number | null;
}

/** The CLI as `npm run build` compiles it, relative to the checkout. */
export const COMPILED_CLI = 'dist/src/cli/main.js';

/**
 * Starts `lnpr serve <serveArgs>` as installed users run it (the compiled CLI in dist/, which the
 * bench builds first) and times it; the server keeps running for the bench. From a checkout,
 * `npm start` goes through tsx, whose loader adds ~0.8 s to a start on this machine.
 */
export async function startTimed(
  name: string,
  serveArgs: string[],
  poll: { authorization: string; recordPath?: string },
  nodeFlags: string[] = [],
): Promise<{ server: ServerProcess; url: string; startup: StartupFigures }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const start = performance.now();
  const server = spawnServer(name, [COMPILED_CLI, 'serve', '--port', String(port), ...serveArgs], nodeFlags, false);
  const cpuBefore = sampleCpu([server.pid]);
  const elapsed = () => Math.round(performance.now() - start);
  const banner = server.url.then(elapsed);
  const healthz = firstOk(`${origin}/healthz`, {}, start);
  const record =
    poll.recordPath === undefined ? undefined : firstOk(origin + poll.recordPath, { authorization: poll.authorization }, start);
  let figures: [number, number, number | undefined];
  try {
    figures = await Promise.race([Promise.all([banner, healthz, record]), server.crashed]);
  } catch (error) {
    // A server that never answered is still running: it must not outlive the bench.
    await server.stop().catch(() => {});
    throw error;
  }
  const cpuAfter = sampleCpu([server.pid]);
  const [bannerMs, firstHealthzMs, firstRecordMs] = figures;
  return {
    server,
    url: await server.url,
    startup: {
      bannerMs,
      firstHealthzMs,
      ...(firstRecordMs === undefined ? {} : { firstRecordMs }),
      cpuMs: processCpuMs(cpuBefore, cpuAfter, server.pid) ?? null,
      otherLoadPercent: otherLoadPercent(cpuBefore, cpuAfter) ?? null,
    },
  };
}

/** Polls `url` until it answers 200; returns milliseconds since `start`. */
async function firstOk(url: string, headers: Record<string, string>, start: number): Promise<number> {
  while (performance.now() - start < GIVE_UP_AFTER_MS) {
    try {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      if (response.status === 200) return Math.round(performance.now() - start);
    } catch {
      // Refused: the server is not listening yet.
    }
    await sleep(POLL_EVERY_MS);
  }
  throw new Error(`no 200 from ${url} within ${GIVE_UP_AFTER_MS / 1000} s`);
}

/** A port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
