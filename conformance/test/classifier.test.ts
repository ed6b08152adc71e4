/**
 * The conformance suite as a classifier: it passes against our server (in memory and with a JSON
 * file) and against implementations that differ only where the spec is open, and fails against
 * every implementation that breaks one rule. Prints both tables and the time of a full run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../test/support/sandbox-server.js';
import type { NodeSandboxOptions } from '../../src/sandbox.node.js';
import { ALL_CHECKS } from '../checks/index.js';
import { sandboxSurfaceChecks } from '../checks/sandbox-surfaces.js';
import { runConformance } from '../run-conformance.js';
import type { ConformanceResult } from '../result.js';
import { buildVariants, type VariantCase } from './conforming-variants.js';
import { buildFaults, SHARED_CATCH, type FaultCase } from './faults.js';
import { startProxy, type Fault } from './faulty-proxy.js';
import { KEYS } from './rewrites.js';
import { pool } from './pool.js';

/** Runs at once; each run is about 100 requests against its own server (and proxy). */
const PARALLEL_RUNS = 24;
const FULL_PROFILE_BUDGET_MS = 15_000;

interface Target {
  url: string;
  /** Our server itself (behind the proxy, if any): where test wallets are made. */
  upstreamUrl: string;
  close(): Promise<void>;
}

/** Starts our server (own clocks and store per run, so runs cannot disturb each other), behind a proxy if given. */
async function startTarget(sandbox: NodeSandboxOptions, dataFile: boolean, proxy: Fault | undefined): Promise<Target> {
  const dir = dataFile ? await mkdtemp(join(tmpdir(), 'lnpr-classifier-')) : undefined;
  const server = await startServer({ ...sandbox, ...(dir ? { dataFile: join(dir, 'sandbox.json') } : {}) });
  const front = proxy ? await startProxy(server.url, proxy) : undefined;
  return {
    url: front?.url ?? server.url,
    upstreamUrl: server.url,
    async close() {
      await front?.close();
      await server.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

type Run = { result: ConformanceResult; error?: undefined } | { result?: undefined; error: Error };

/** A funded test wallet of our server (POST /sandbox/v1/wallets): its NWC URI, for payerNwcUrl. */
async function fundedWalletUrl(serverUrl: string, balance = 1_000_000): Promise<string> {
  const answer = await fetch(`${serverUrl}/sandbox/v1/wallets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.custodial}`, 'content-type': 'application/json' },
    body: JSON.stringify({ balance, name: 'conformance payer' }),
  });
  const body = (await answer.json()) as { nwcUrl?: string };
  if (answer.status !== 201 || typeof body.nwcUrl !== 'string') throw new Error(`POST /sandbox/v1/wallets answered ${answer.status}`);
  return body.nwcUrl;
}

async function run(sandbox: NodeSandboxOptions, dataFile: boolean, proxy: Fault | undefined, payer = false): Promise<Run> {
  const target = await startTarget(sandbox, dataFile, proxy);
  try {
    const result = await runConformance({
      baseUrl: target.url,
      apiKey: KEYS.custodial,
      readOnlyKey: KEYS.readonly,
      nwcKey: KEYS.nwc,
      profile: 'full',
      ...(payer ? { payerNwcUrl: await fundedWalletUrl(target.upstreamUrl) } : {}),
    });
    return { result };
  } catch (error) {
    return { error: error as Error };
  } finally {
    await target.close();
  }
}


function failedIds(result: ConformanceResult): string[] {
  return result.checks.filter((check) => check.outcome === 'failed' || check.outcome === 'unexpected-pass').map((check) => check.id);
}

/** The checks that saw a fault: failed (MUST) or warned (SHOULD). */
function caughtBy(result: ConformanceResult): string[] {
  return result.checks.filter((check) => check.outcome === 'failed' || check.outcome === 'warned' || check.outcome === 'unexpected-pass').map((check) => check.id);
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.min(60, Math.max(title.length, ...rows.map((row) => row[column]!.length))));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('-|-'), ...rows.map(line)].join('\n');
}

/** Whether two readings of an open point agree (an id format's alphabet varies with the random ids drawn; its length does not). */
function sameReading(point: string, a: string | undefined, b: string): boolean {
  if (point === 'idFormat' && a !== undefined) return a.split('×')[0] === b.split('×')[0];
  return a === b;
}

/** Whether a fault keeps requests from settling, so that lifecycle checks poll until their deadlines. */
function isSlow(fault: FaultCase): boolean {
  return fault.payer === true || fault.expect.some((id) => id.startsWith('lifecycle.'));
}

function matchesExpectation(expect: string[], failed: string[]): boolean {
  return failed.some((id) => expect.some((wanted) => (wanted.endsWith('.') ? id.startsWith(wanted) : id === wanted)));
}

describe('the conformance suite as a classifier', () => {
  it(`runs the full profile against a local server in under ${FULL_PROFILE_BUDGET_MS / 1000} s`, async () => {
    const target = await startTarget({}, false, undefined);
    try {
      const started = performance.now();
      const result = await runConformance({
        baseUrl: target.url,
        apiKey: KEYS.custodial,
        readOnlyKey: KEYS.readonly,
        nwcKey: KEYS.nwc,
        profile: 'full',
      });
      const elapsedMs = performance.now() - started;
      const counts = Object.entries(result.counts)
        .filter(([, count]) => count > 0)
        .map(([outcome, count]) => `${count} ${outcome}`)
        .join(', ');
      console.log(`full profile against our server (in memory): ${(elapsedMs / 1000).toFixed(2)} s, ${result.checks.length} checks (${counts})`);
      expect(failedIds(result), JSON.stringify(result.checks.filter((c) => c.outcome === 'failed'), null, 2)).toEqual([]);
      expect(result.passed).toBe(true);
      expect(elapsedMs).toBeLessThan(FULL_PROFILE_BUDGET_MS);
    } finally {
      await target.close();
    }
  });

  it('passes against every conforming variant', { timeout: 180_000 }, async () => {
    const variants: VariantCase[] = buildVariants();
    expect(variants.length).toBeGreaterThanOrEqual(8);
    const started = performance.now();
    const runs = await pool(variants, PARALLEL_RUNS, async (variant) => {
      const proxy = variant.proxy ? { name: variant.name, description: variant.description, ...variant.proxy } : undefined;
      const startedAt = performance.now();
      const outcome = await run(variant.sandbox ?? {}, variant.dataFile ?? false, proxy, variant.payer ?? false);
      return { variant, outcome, ms: performance.now() - startedAt };
    });
    const problems: string[] = [];
    // Observations are shown where they differ from our defaults (the first variant's).
    const reference = runs[0]?.outcome.result?.observations ?? {};
    const rows = runs.map(({ variant, outcome, ms }) => {
      const time = `${(ms / 1000).toFixed(1)} s`;
      if (outcome.error) {
        problems.push(`${variant.name}: the run threw ${outcome.error.message}`);
        return [variant.name, 'ERROR', outcome.error.message.slice(0, 70), '', time];
      }
      const { result } = outcome;
      for (const check of result.checks.filter((c) => c.outcome === 'failed' || c.outcome === 'unexpected-pass')) {
        problems.push(`${variant.name}: ${check.id} failed: ${check.message ?? ''}`);
      }
      for (const [point, reading] of Object.entries(variant.observe ?? {})) {
        if (result.observations[point] !== reading) {
          problems.push(`${variant.name}: observation ${point} is ${JSON.stringify(result.observations[point])}, expected ${JSON.stringify(reading)}`);
        }
      }
      if (variant.warning && !result.warnings.some((warning) => variant.warning!.test(warning))) {
        problems.push(`${variant.name}: expected a warning matching ${variant.warning}, got ${JSON.stringify(result.warnings)}`);
      }
      const readings = Object.entries(result.observations)
        .filter(([point, reading]) => variant === runs[0]!.variant || !sameReading(point, reference[point], reading))
        .map(([point, reading]) => `${point}=${reading}`);
      const notes = [
        ...result.checks.filter((c) => c.outcome === 'warned' || c.outcome === 'skipped').map((c) => `${c.outcome} ${c.id}`),
        ...result.warnings.map((warning) => `warning: ${warning}`),
      ];
      const verdict = result.passed ? 'pass' : `FAIL (${failedIds(result).join(' ')})`;
      return [variant.name, verdict, readings.join('; ') || '(as ours)', notes.join('; ') || '-', time];
    });
    console.log(
      `\nConforming variants (${variants.length}, ${((performance.now() - started) / 1000).toFixed(1)} s; readings shown where they differ from ours):\n` +
        table(['variant', 'suite', 'readings (observations)', 'warnings, skips', 'time'], rows),
    );
    expect(problems).toEqual([]);
  });

  it('fails against every faulty implementation', { timeout: 600_000 }, async () => {
    const faults: FaultCase[] = buildFaults();
    expect(faults.length).toBeGreaterThanOrEqual(30);
    const started = performance.now();
    // Faults that stop requests from settling make the lifecycle checks poll for seconds: start them first.
    const slowFirst = [...faults].sort((a, b) => Number(isSlow(b)) - Number(isSlow(a)));
    const timed = await pool(slowFirst, PARALLEL_RUNS, async (fault) => {
      const startedAt = performance.now();
      const outcome = await run(fault.sandbox ?? {}, false, fault.fault, fault.payer ?? false);
      return { fault, outcome, ms: performance.now() - startedAt };
    });
    const runs = faults.map((fault) => timed.find((entry) => entry.fault === fault)!);
    const uncaught: string[] = [];
    const rows = runs.map(({ fault, outcome, ms }) => {
      const time = `${(ms / 1000).toFixed(1)} s`;
      if (outcome.error) {
        uncaught.push(`${fault.fault.name}: the run threw (${outcome.error.message}); breaks ${fault.rule}`);
        return [fault.fault.name, 'ERROR', outcome.error.message.slice(0, 70), fault.expect.join(' '), time];
      }
      const failed = failedIds(outcome.result);
      const seen = caughtBy(outcome.result);
      if (fault.deviation === 'SHOULD') {
        // A deviation from a SHOULD: the run passes, and the expected check warns.
        if (!outcome.result.passed) uncaught.push(`${fault.fault.name}: a SHOULD deviation failed the run (${failed.join(', ')})`);
        if (!matchesExpectation(fault.expect, seen)) uncaught.push(`${fault.fault.name}: not warned about; breaks ${fault.rule}; expected ${fault.expect.join(', ')}`);
      } else if (outcome.result.passed) {
        uncaught.push(`${fault.fault.name}: not caught; breaks ${fault.rule}; expected ${fault.expect.join(', ')}`);
      }
      const verdict = fault.deviation === 'SHOULD' ? (matchesExpectation(fault.expect, seen) ? 'warned' : 'NOT WARNED') : outcome.result.passed ? 'NOT CAUGHT' : matchesExpectation(fault.expect, failed) ? 'caught' : 'caught*';
      return [fault.fault.name, verdict, seen.join(' ') || '-', fault.expect.join(' '), time];
    });
    console.log(
      `\nFaulty implementations (${faults.length}, ${((performance.now() - started) / 1000).toFixed(1)} s; caught* = caught, not by the expected checks):\n` +
        table(['fault', 'suite', 'failed (or warned) checks', 'expected', 'time'], rows),
    );
    const knownIds = ALL_CHECKS.map((check) => check.id);
    const unknownExpected = [...new Set(faults.flatMap((fault) => fault.expect))].filter((wanted) => !knownIds.some((id) => matchesExpectation([wanted], [id])));
    if (unknownExpected.length > 0) console.log(`expected check ids that name no check (renamed?): ${unknownExpected.join(', ')}`);

    // Each check should be the only one to catch some fault: that fault is why the check exists.
    // Counted within each surface: a check of the control surface (profile full: the control and
    // accounts APIs' own promises) reads through another door what a v1 check may read too, and a
    // check of the sandbox surfaces (the events list, whose data is every request as GET answered it)
    // through a third door what both read.
    const sets = runs.map(({ fault, outcome }) => ({ name: fault.fault.name, seen: outcome.result ? caughtBy(outcome.result) : [] }));
    const sandboxSurface = new Set(sandboxSurfaceChecks.map((check) => check.id));
    const surfaceOf = (id: string) => (sandboxSurface.has(id) ? 'sandbox' : ALL_CHECKS.find((check) => check.id === id)?.profile === 'full' ? 'control' : 'api');
    const uniqueRows = knownIds.map((id) => {
      const only = sets
        .filter((entry) => {
          const sameSurface = entry.seen.filter((seen) => surfaceOf(seen) === surfaceOf(id));
          return sameSurface.length === 1 && sameSurface[0] === id;
        })
        .map((entry) => entry.name);
      const among = sets.filter((entry) => entry.seen.includes(id)).length;
      return { id, only, among };
    });
    const unique = uniqueRows.filter((row) => row.only.length > 0);
    console.log(
      `\nChecks that are the only one to catch some fault: ${unique.length} of ${knownIds.length}\n` +
        table(
          ['check', 'faults only it catches', 'faults it catches'],
          uniqueRows.map((row) => [row.id, row.only.join('; ') || (SHARED_CATCH[row.id] ? `— shared: ${SHARED_CATCH[row.id]}` : '— NONE'), String(row.among)]),
        ),
    );
    const undocumented = uniqueRows.filter((row) => row.only.length === 0 && SHARED_CATCH[row.id] === undefined).map((row) => `${row.id} (catches ${row.among} faults, none alone)`);
    // An entry marked "(timing)" is a check whose fault another check catches in some runs only (a
    // read that lands before or after a change): kept, whichever way this run went.
    const stale = Object.keys(SHARED_CATCH).filter((id) => !knownIds.includes(id) || (unique.some((row) => row.id === id) && !SHARED_CATCH[id]!.startsWith('(timing)')));
    expect(undocumented, 'checks with no fault of their own and no documented reason (SHARED_CATCH in faults.ts)').toEqual([]);
    // An entry whose check caught a fault alone this run documents an overlap that did not happen this time: which
    // checks meet a fault varies a little with timing, so it is reported, not failed. A check that no longer exists fails.
    if (stale.length > 0) console.warn(`SHARED_CATCH entries whose check caught a fault alone this run (take them off if it lasts): ${stale.join(', ')}`);
    expect(Object.keys(SHARED_CATCH).filter((id) => !knownIds.includes(id)), 'SHARED_CATCH entries for checks that no longer exist').toEqual([]);
    expect(uncaught).toEqual([]);
  });
});
