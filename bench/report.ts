/**
 * The bench's targets and how its figures are shown. Targets are ratios between servers measured
 * in the same run, because absolute req/s on a noisy 2-core machine say little from one run to
 * the next; a miss is reported, never fatal.
 */
import type { CaseFigures } from './load.js';
import type { StartupFigures } from './startup.js';

/** A throughput ratio between two cases and the least it should be. */
export interface RatioTarget {
  name: string;
  of: string;
  over: string;
  atLeast: number;
}

/** A ratio as measured. */
export interface RatioResult extends RatioTarget {
  /** Of the median req/s: what the target is about. */
  value: number;
  pass: boolean;
  /**
   * The throughput ratio the servers' CPU cost per request alone predicts (null: unknown):
   * steadier than `value` when other work shares the machine, blind to time spent waiting (fsync).
   */
  cpuCostValue: number | null;
}

/** A start-up figure against its limit. */
export interface StartupCheck {
  name: string;
  ms: number;
  atMostMs: number;
  pass: boolean;
}

/**
 * The targets of the issue, over the case names `run.ts` measures: our server with the default
 * flags (a log line per request) against the floor, and the same quiet (`--log-level warn`).
 */
const RATIO_TARGETS: RatioTarget[] = [
  { name: 'our GET / floor GET', of: 'memory GET', over: 'floor GET', atLeast: 0.8 },
  { name: 'our GET status / floor GET status', of: 'memory GET status', over: 'floor GET status', atLeast: 0.8 },
  { name: 'our POST / floor POST', of: 'memory POST', over: 'floor POST', atLeast: 0.8 },
  { name: 'quiet GET / floor GET', of: 'memory quiet GET', over: 'floor GET', atLeast: 0.8 },
  { name: 'quiet GET status / floor GET status', of: 'memory quiet GET status', over: 'floor GET status', atLeast: 0.8 },
  { name: 'quiet POST / floor POST', of: 'memory quiet POST', over: 'floor POST', atLeast: 0.8 },
  { name: 'JSON-file POST / memory POST', of: 'json-file 100k POST', over: 'memory POST', atLeast: 0.5 },
  { name: 'POST with a webhook endpoint / POST without', of: 'memory webhook POST', over: 'memory POST', atLeast: 0.8 },
];

/** Start to first 200, with the data file holding 100,000 records. */
const STARTUP_LIMIT_MS = 2000;

/** Above this share of the machine taken by other work, wall-clock figures stop meaning much. */
const NOISY_OTHER_LOAD_PERCENT = 20;

const CASE_LEGEND =
  'req/s: the median round. CPU us/req: the server\'s CPU time per 2xx answer. other load %: the share\n' +
  'of all cores other processes took in each round; req/s shrink as it grows, CPU us/req hardly.';
const RATIO_LEGEND =
  'by CPU cost: the ratio the CPU us/req predict; steadier under other load, blind to waiting (fsync).';

/** Each target's measured ratio. */
export function ratios(cases: Record<string, CaseFigures>): RatioResult[] {
  return RATIO_TARGETS.map((target) => {
    const of = cases[target.of];
    const over = cases[target.over];
    if (!of || !over) throw new Error(`ratio ${target.name}: case ${of ? target.over : target.of} was not measured`);
    const value = round2(of.reqPerSec / over.reqPerSec);
    const cpuCostValue = of.cpuUsPerRequest && over.cpuUsPerRequest ? round2(over.cpuUsPerRequest / of.cpuUsPerRequest) : null;
    return { ...target, value, pass: value >= target.atLeast, cpuCostValue };
  });
}

/** The start-up figures that have a target. */
export function startupChecks(startup: StartupFigures): StartupCheck[] {
  const checks: Array<[string, number | undefined]> = [
    ['start to first 200 GET /healthz', startup.firstHealthzMs],
    ['start to first 200 GET of a record', startup.firstRecordMs],
  ];
  return checks.flatMap(([name, ms]) => (ms === undefined ? [] : [{ name, ms, atMostMs: STARTUP_LIMIT_MS, pass: ms < STARTUP_LIMIT_MS }]));
}

/** The case table: one row per case, in measuring order, with each round's req/s and other load. */
export function caseTable(cases: Record<string, CaseFigures>): string {
  const rows = table(
    ['case', 'req/s', 'rounds req/s', 'p50 ms', 'p99 ms', 'CPU us/req', 'non-2xx', 'errors', 'other load %'],
    Object.entries(cases).map(([name, c]) => [
      name,
      String(c.reqPerSec),
      c.roundsReqPerSec.join(' '),
      c.p50Ms.toFixed(2),
      c.p99Ms.toFixed(2),
      c.cpuUsPerRequest === null ? '?' : String(c.cpuUsPerRequest),
      String(c.non2xx),
      String(c.errors + c.timeouts),
      c.otherLoadPercent.map((p) => (p === null ? '?' : String(p))).join(' '),
    ]),
  );
  return `${rows}\n${CASE_LEGEND}`;
}

/** The ratio table with targets and verdicts. */
export function ratioTable(results: RatioResult[]): string {
  const rows = table(
    ['ratio', 'req/s', 'target', '', 'by CPU cost'],
    results.map((r) => [
      r.name,
      r.value.toFixed(2),
      `>= ${r.atLeast.toFixed(2)}`,
      verdict(r.pass),
      r.cpuCostValue === null ? '?' : r.cpuCostValue.toFixed(2),
    ]),
  );
  return `${rows}\n${RATIO_LEGEND}`;
}

/** Start-up of each server that was timed; targets apply to the JSON file with 100,000 records. */
export function startupTable(startups: Record<string, StartupFigures>, checks: StartupCheck[]): string {
  const rows = Object.entries(startups).map(([name, s]) => [
    name,
    String(s.bannerMs),
    String(s.firstHealthzMs),
    s.firstRecordMs === undefined ? '-' : String(s.firstRecordMs),
    s.cpuMs === null ? '?' : String(s.cpuMs),
    s.otherLoadPercent === null ? '?' : String(s.otherLoadPercent),
  ]);
  const lines = table(
    ['server', 'banner ms', 'first 200 /healthz ms', 'first 200 record ms', 'server CPU ms', 'other load %'],
    rows,
  );
  const verdicts = checks.map((c) => `${c.name}: ${c.ms} ms (target < ${c.atMostMs} ms) ${verdict(c.pass)}`);
  return [lines, ...verdicts].join('\n');
}

/** The most other work took of the machine in any round or start-up, if that spoils the figures. */
export function noiseWarning(cases: Record<string, CaseFigures>, startups: Record<string, StartupFigures>): string | undefined {
  const shares = [
    ...Object.values(cases).flatMap((c) => c.otherLoadPercent),
    ...Object.values(startups).map((s) => s.otherLoadPercent),
  ].filter((share): share is number => share !== null);
  const worst = Math.max(0, ...shares);
  if (worst <= NOISY_OTHER_LOAD_PERCENT) return undefined;
  return (
    `WARNING: other processes took up to ${worst}% of the machine during this run, so req/s, their ratios and ` +
    'start-up times are unreliable: read the CPU-cost ratios, or run again on a quiet machine.'
  );
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function verdict(pass: boolean): string {
  return pass ? 'PASS' : 'MISS';
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  // Names left-aligned, figures right-aligned, so columns of numbers read at a glance.
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
