/**
 * The bench's targets and how its figures are shown. Targets are ratios between servers measured
 * in the same run, because absolute req/s on a noisy 2-core machine say little from one run to
 * the next; a miss is reported, never fatal.
 */
import { median, type CaseFigures } from './load.js';
import type { StartupFigures } from './startup.js';

/** A comparison of two cases, measured in alternating rounds, and the least its ratio should be. */
export interface Comparison {
  name: string;
  /** The case measured (our server), the numerator. */
  of: string;
  /** The case it is compared with (the floor), the denominator, measured before and after each round of `of`. */
  over: string;
  /** The target; null for a figure shown without one. */
  atLeast: number | null;
}

/**
 * One round of `of` and the rounds of `over` just before and just after it: the comparison ran
 * over, of, over, of, ..., over, so each round of `of` has one on either side.
 */
export interface ComparedRound {
  ofReqPerSec: number;
  overBeforeReqPerSec: number;
  overAfterReqPerSec: number;
  /** of / the mean of the two over rounds' req/s: a load that grew or shrank steadily meanwhile cancels. */
  ratio: number;
  /** The mean of the two over rounds' CPU us per request / of's (null: unknown). */
  cpuCostRatio: number | null;
}

/** A comparison as measured. */
export interface RatioResult extends Comparison {
  /**
   * The median of the rounds' ratios: what the target is about. Each round's ratio compares it
   * with the rounds of `over` on either side of it, seconds apart, so other work that comes and
   * goes over tens of seconds weighs on both sides alike; the median then drops a round that a
   * burst hit on one side only. (The ratio of the medians would compare rounds a minute apart.)
   */
  value: number;
  /** Null without a target. */
  pass: boolean | null;
  /**
   * The median of the rounds' ratios of CPU cost per request (null: unknown): the throughput
   * ratio the servers' CPU cost alone predicts, steadier than `value` when other work shares the
   * machine, blind to time spent waiting (fsync).
   */
  cpuCostValue: number | null;
  rounds: ComparedRound[];
}

/** A start-up figure against its limit. */
export interface StartupCheck {
  name: string;
  ms: number;
  atMostMs: number;
  pass: boolean;
}

/**
 * Create on an NWC account (the server asks the account's sandbox-run wallet for the invoice:
 * `make_invoice` over its relay, NIP-44) against create on a custodial account, on one server
 * (`lnpr serve`, the default accounts): issue 17 asks for at least 0.25.
 */
export const NWC_CREATE_COMPARISON: Comparison = { name: 'NWC POST / custodial POST, one server', of: 'nwc NWC POST', over: 'nwc custodial POST', atLeast: 0.25 };

/**
 * The comparisons the bench measures, when it measures both of their cases: our server with the
 * default flags (a log line per request) against the floor (issue 14: at least 0.9), the same
 * quiet (`--log-level warn`), the JSON file's reads (no target) and writes, POST with a webhook
 * endpoint, and create on an NWC account against a custodial one.
 */
export const COMPARISONS: Comparison[] = [
  { name: 'our GET / floor GET', of: 'memory GET', over: 'floor GET', atLeast: 0.9 },
  { name: 'our GET status / floor GET status', of: 'memory GET status', over: 'floor GET status', atLeast: 0.9 },
  { name: 'our POST / floor POST', of: 'memory POST', over: 'floor POST', atLeast: 0.9 },
  { name: 'quiet GET / floor GET', of: 'memory quiet GET', over: 'floor GET', atLeast: 0.9 },
  { name: 'quiet GET status / floor GET status', of: 'memory quiet GET status', over: 'floor GET status', atLeast: 0.9 },
  { name: 'quiet POST / floor POST', of: 'memory quiet POST', over: 'floor POST', atLeast: 0.9 },
  { name: 'JSON-file GET / floor GET', of: 'json-file 100k GET', over: 'floor GET', atLeast: null },
  { name: 'JSON-file GET status / floor GET status', of: 'json-file 100k GET status', over: 'floor GET status', atLeast: null },
  { name: 'JSON-file POST / memory POST', of: 'json-file 100k POST', over: 'memory POST', atLeast: 0.5 },
  { name: 'POST with a webhook endpoint / POST without', of: 'memory webhook POST', over: 'memory POST', atLeast: 0.8 },
  NWC_CREATE_COMPARISON,
];

/** Start to first 200, with the data file holding 100,000 records. */
const STARTUP_LIMIT_MS = 2000;

/** Above this share of the machine taken by other work, wall-clock figures stop meaning much. */
const NOISY_OTHER_LOAD_PERCENT = 20;

const CASE_LEGEND =
  'req/s: the median round; rounds req/s: every round, in order. CPU us/req: the server\'s CPU time per\n' +
  '2xx answer. other load %: the share of all cores other processes took in each round; req/s shrink\n' +
  'as it grows, CPU us/req hardly.';
const RATIO_LEGEND =
  'Rounds alternate, the second case\'s first and last: B A B A ... B. Each round of A gets a ratio:\n' +
  'its req/s over the mean of the B rounds before and after it. req/s: the median of those ratios;\n' +
  'rounds: each one\'s ratio (A req/s / B before, B after), in order. by CPU cost: the same from the\n' +
  'servers\' CPU us/req; steadier under other load, blind to waiting (fsync).';

/** A comparison's result from its rounds (at least one). */
export function ratioOf(comparison: Comparison, rounds: ComparedRound[]): RatioResult {
  const value = round2(median(rounds.map((r) => r.ratio)));
  const cpuRatios = rounds.map((r) => r.cpuCostRatio);
  const cpuCostValue = cpuRatios.every((r) => r !== null) ? round2(median(cpuRatios as number[])) : null;
  return { ...comparison, value, pass: comparison.atLeast === null ? null : value >= comparison.atLeast, cpuCostValue, rounds };
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

/** The ratio table with every round's figures, the targets and verdicts. */
export function ratioTable(results: RatioResult[]): string {
  const rows = table(
    ['ratio', 'req/s', 'rounds: ratio (A / B before, after)', 'target', '', 'by CPU cost', 'rounds by CPU cost'],
    results.map((r) => [
      r.name,
      r.value.toFixed(2),
      r.rounds.map((p) => `${p.ratio.toFixed(2)} (${p.ofReqPerSec}/${p.overBeforeReqPerSec},${p.overAfterReqPerSec})`).join(' '),
      r.atLeast === null ? '-' : `>= ${r.atLeast.toFixed(2)}`,
      r.pass === null ? '' : verdict(r.pass),
      r.cpuCostValue === null ? '?' : r.cpuCostValue.toFixed(2),
      r.rounds.map((p) => (p.cpuCostRatio === null ? '?' : p.cpuCostRatio.toFixed(2))).join(' '),
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

export function verdict(pass: boolean): string {
  return pass ? 'PASS' : 'MISS';
}

/** Rows under a header: names left-aligned, figures right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  // Names left-aligned, figures right-aligned, so columns of numbers read at a glance.
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
