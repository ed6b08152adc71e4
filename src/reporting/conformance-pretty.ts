/**
 * The conformance report for people: one line per check as it finishes (`✓ id  title (12 ms)`),
 * then a summary ending in the line CI tooling looks for: `N passed, M failed, K skipped`. Pure
 * functions returning text; whether to colour is the caller's call (`shouldColor`).
 */
import type { CheckReport, ConformanceReport, FootprintReport, ReportedOutcome } from './conformance-report.js';
import { formatDuration, paint, type PrettyOptions } from './pretty-text.js';

/** The line(s) for one finished check: a mark, the id, the title, the time; below, the message, indented. */
export function formatCheckLine(result: CheckReport, options: PrettyOptions = {}): string {
  const name = `${paint(result.id, 'bold', options)}  ${result.title}`;
  const time = paint(`(${formatDuration(result.durationMs)})`, 'dim', options);
  let head: string;
  let showMessage = true;
  switch (result.outcome) {
    case 'passed':
      head = `${paint('✓', 'green', options)} ${name} ${time}`;
      break;
    case 'failed':
      head = `${paint('✗', 'red', options)} ${name} ${time}`;
      break;
    case 'warned':
      head = `${paint('! warned', 'yellow', options)} ${name} ${time}`;
      break;
    case 'skipped':
      head = `${paint('↷ skipped', 'cyan', options)} ${name}${result.message ? ` ${paint(`(${oneLine(result.message)})`, 'dim', options)}` : ''}`;
      showMessage = false;
      break;
    case 'known-failure':
      head = `${paint('✓ (known failure)', 'green', options)} ${name} ${time}`;
      break;
    case 'unexpected-pass':
      head = `${paint('✗ (unexpected pass)', 'red', options)} ${name} ${time}`;
      break;
  }
  if (!showMessage || !result.message) return head;
  return [head, ...indent(result.message, '    ')].join('\n');
}

/** How each outcome is named in the counts line. */
const OUTCOME_LABELS: Array<[ReportedOutcome, string]> = [
  ['passed', 'passed'],
  ['failed', 'failed'],
  ['warned', 'warned'],
  ['skipped', 'skipped'],
  ['known-failure', 'known failures'],
  ['unexpected-pass', 'unexpected passes'],
];

/**
 * The summary after the checks: counts per outcome, the checks that failed the run, the
 * observations, the warnings, the duration, and last, alone on its line, `N passed, M failed, K skipped`
 * (failed counts the unexpected passes too: both fail the run).
 */
export function formatSummary(result: ConformanceReport, options: PrettyOptions = {}): string {
  const lines: string[] = [''];
  const lifecycle = { controls: 'the control API', 'pay-command': 'the pay command', 'nwc-payer': 'an NWC wallet (--payer-nwc-url)', none: 'none' }[result.lifecycle];
  lines.push(`${paint('Conformance', 'bold', options)} of ${result.baseUrl}: profile ${result.profile}, lifecycle via ${lifecycle}, ${result.checks.length} checks`);
  lines.push(`  ${OUTCOME_LABELS.map(([outcome, label]) => `${result.counts[outcome]} ${label}`).join(', ')}`);

  const failing = result.checks.filter((check) => check.outcome === 'failed' || check.outcome === 'unexpected-pass');
  if (failing.length > 0) {
    lines.push('', paint('Failed:', 'red', options));
    for (const check of failing) lines.push(`  ${check.id}${check.outcome === 'unexpected-pass' ? ' (unexpected pass)' : ''}`);
  }

  const observations = Object.entries(result.observations).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (observations.length > 0) {
    const width = Math.max('open point'.length, ...observations.map(([point]) => point.length));
    lines.push('', 'Observations (the reading of each open point of the spec this target follows):');
    lines.push(`  ${'open point'.padEnd(width)}  reading`);
    for (const [point, reading] of observations) lines.push(`  ${point.padEnd(width)}  ${oneLine(reading)}`);
  }

  if (result.warnings.length > 0) {
    lines.push('', paint('Warnings:', 'yellow', options));
    for (const warning of result.warnings) lines.push(...indent(warning, '  ! ', '    '));
  }

  lines.push('', formatFootprint(result.footprint));
  lines.push(`Duration: ${formatDuration(result.durationMs)}`);
  lines.push(formatCountsLine(result));
  return lines.join('\n');
}

/**
 * What the run left behind, in a line: `Accounts: its own (acct_…), deleted after the run.`, or
 * `Left behind: in the account of --api-key 97 payment requests, its clock moved on 61 s; …`.
 */
export function formatFootprint(footprint: FootprintReport): string {
  if (footprint.isolated) {
    const kept = footprint.accounts.filter((account) => !account.deleted);
    const ids = footprint.accounts.map((account) => account.id).join(', ');
    return kept.length === 0
      ? `Accounts: the run's own (${ids}), deleted after it; it left nothing behind.`
      : `Accounts: the run's own (${ids}); NOT deleted: ${kept.map((account) => account.id).join(', ')} (see the warnings).`;
  }
  const flags = { main: '--api-key', nwc: '--nwc-key' } as const;
  const parts = footprint.left.map(({ key, paymentRequests, clockAdvancedSeconds }) => {
    const requests = `${paymentRequests} payment request${paymentRequests === 1 ? '' : 's'}`;
    return `in the account of ${flags[key]} ${requests}${clockAdvancedSeconds > 0 ? `, its clock moved forward ${clockAdvancedSeconds} s` : ''}`;
  });
  return `Left behind: ${parts.join('; ')} (--admin-key runs in an account of its own and deletes it).`;
}

/** The last line: `N passed, M failed, K skipped`. */
export function formatCountsLine(result: Pick<ConformanceReport, 'counts'>): string {
  const { counts } = result;
  return `${counts.passed} passed, ${counts.failed + counts['unexpected-pass']} failed, ${counts.skipped} skipped`;
}

/** The whole report as one text: every check line in report order, then the summary. */
export function formatPretty(result: ConformanceReport, options: PrettyOptions = {}): string {
  return `${[...result.checks.map((check) => formatCheckLine(check, options)), formatSummary(result, options)].join('\n')}\n`;
}

function indent(text: string, first: string, rest = first): string[] {
  return text.split(/\r?\n/).map((line, index) => `${index === 0 ? first : rest}${line}`);
}

function oneLine(text: string): string {
  return text.replace(/\s*\r?\n\s*/g, ' ');
}
