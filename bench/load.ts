/**
 * Load runs with autocannon and what they add up to. A case is measured in several short rounds
 * (each beside a round of the case it is compared with, by the caller), and its req/s is the
 * median round: on a shared machine a neighbour's burst spoils a round, not the case. The
 * server's CPU time per request is kept too, a cost that such bursts barely change. Latency
 * percentiles are computed from each response's own time, because autocannon's histogram keeps
 * whole milliseconds.
 */
import autocannon, { type Request } from 'autocannon';
import { otherLoadPercent, processCpuMs, sampleCpu } from './machine-load.js';

/** A server to load: where it listens and its process, whose CPU time is measured. */
export interface Target {
  url: string;
  pid: number;
}

/** One load run's raw figures. */
export interface LoadRun {
  seconds: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Of 2xx answers only, as autocannon counts them. */
  latenciesMs: number[];
  /** Share of the machine other processes took meanwhile; undefined where it cannot be read. */
  otherLoadPercent: number | undefined;
  /** CPU time the server spent meanwhile; undefined where it cannot be read. */
  serverCpuMs: number | undefined;
  /** When the run started and ended on the monotonic clock V8's CPU profiles use, in microseconds. */
  startUs: number;
  endUs: number;
}

/** A case's figures over its rounds. Only 2xx answers count towards req/s and latency. */
export interface CaseFigures {
  /** Median of the rounds' req/s. */
  reqPerSec: number;
  roundsReqPerSec: number[];
  p50Ms: number;
  p99Ms: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Server CPU microseconds per 2xx answer over all rounds (null: unknown). */
  cpuUsPerRequest: number | null;
  /** Each round's share of the machine taken by other processes (null: unknown). */
  otherLoadPercent: Array<number | null>;
}

const COLLECTION = '/api/v1/payment-requests';

/** GETs of `ids` in turn, each followed by `suffix` ('' or '/status'). */
export function cycledGets(ids: readonly string[], authorization: string, suffix: string): Request {
  let next = 0;
  return {
    method: 'GET',
    headers: { authorization },
    setupRequest: (request) => ({ ...request, path: `${COLLECTION}/${ids[next++ % ids.length]!}${suffix}` }),
  };
}

/** POSTs of one valid create body. */
export function creates(authorization: string, body: string): Request {
  return { method: 'POST', path: COLLECTION, headers: { authorization, 'content-type': 'application/json' }, body };
}

/**
 * Loads `target` with `request` from `connections` connections for `seconds`; `ownPids` are all
 * the bench's server processes, whose CPU time is not counted as other load.
 */
export async function runLoad(
  target: Target,
  request: Request,
  connections: number,
  seconds: number,
  ownPids: readonly number[],
): Promise<LoadRun> {
  const before = sampleCpu(ownPids);
  const startUs = monotonicUs();
  // autocannon stops at its first sample tick after `duration`: ticks every 100 ms (not its
  // default second) keep a 1.2 s round from lasting 2 s.
  const run = autocannon({ url: target.url, connections, duration: seconds, sampleInt: 100, requests: [request] });
  const latenciesMs: number[] = [];
  run.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
    if (statusCode >= 200 && statusCode < 300) latenciesMs.push(responseTimeMs);
  });
  const result = await run;
  const endUs = monotonicUs();
  const after = sampleCpu(ownPids);
  return {
    seconds: result.duration,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
    latenciesMs,
    otherLoadPercent: otherLoadPercent(before, after),
    serverCpuMs: processCpuMs(before, after, target.pid),
    startUs,
    endUs,
  };
}

/** Req/s of a run's 2xx answers. */
export function reqPerSecOf(run: LoadRun): number {
  return Math.round(run.ok / run.seconds);
}

/** Server CPU microseconds per 2xx answer of a run; undefined when unknown. */
export function cpuUsPerRequestOf(run: LoadRun): number | undefined {
  return run.serverCpuMs === undefined || run.ok === 0 ? undefined : (run.serverCpuMs * 1000) / run.ok;
}

/** The median of `values` (the mean of the middle two for an even count); NaN when there are none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The figures of a case measured in `rounds`. */
export function summarize(rounds: readonly LoadRun[]): CaseFigures {
  const roundsReqPerSec = rounds.map(reqPerSecOf);
  const latencies = rounds.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const statusCodes: Record<string, number> = {};
  for (const round of rounds) {
    for (const [code, count] of Object.entries(round.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  const sum = (pick: (r: LoadRun) => number) => rounds.reduce((total, r) => total + pick(r), 0);
  const cpuKnown = rounds.every((r) => r.serverCpuMs !== undefined) && sum((r) => r.ok) > 0;
  return {
    reqPerSec: Math.round(median(roundsReqPerSec)),
    roundsReqPerSec,
    p50Ms: round2(percentile(latencies, 0.5)),
    p99Ms: round2(percentile(latencies, 0.99)),
    ok: sum((r) => r.ok),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes,
    cpuUsPerRequest: cpuKnown ? Math.round((sum((r) => r.serverCpuMs!) * 1000) / sum((r) => r.ok)) : null,
    otherLoadPercent: rounds.map((r) => r.otherLoadPercent ?? null),
  };
}

/** Nearest-rank percentile of sorted values; NaN when there are none. */
function percentile(sorted: readonly number[], fraction: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** Now on the monotonic clock (CLOCK_MONOTONIC, as V8's profiler), in microseconds. */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
