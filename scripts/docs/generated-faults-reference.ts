/**
 * The generated-faults part of the conformance-checks page: the classifier's report
 * (docs/data/generated-faults.json, the set CI runs; generated-faults-large.json, `npm run
 * test:classifier`'s) as tables: per operator, per statement (faults generated, killed, equivalent
 * mutants), the equivalent mutants with the reason each cannot be told from conforming behaviour,
 * and the conforming variants made from the open points.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { prose, table } from './markdown.js';

interface Counts {
  generated: number;
  killed: number;
  survived: number;
  equivalent: number;
}

/** The parts of a report (conformance/test/generated-faults.test.ts writes it) the page shows. */
export interface FaultReport {
  size: 'small' | 'large';
  seed: number;
  totals: Counts;
  operators: Array<Counts & { operator: string }>;
  statements: Array<Counts & { id: string; level: string; byOperator: Record<string, Counts> }>;
  survivors: Array<{ id: string; describe: string }>;
  equivalents: Array<{ id: string; describe: string; reason: string }>;
  variants: Array<{ id: string; reading: string; describe: string; passed?: boolean; failed: string[]; notGenerated?: string }>;
}

/** A report as committed in docs/data. */
export function readFaultReport(size: 'small' | 'large'): FaultReport {
  const file = fileURLToPath(new URL(`../../docs/data/generated-faults${size === 'large' ? '-large' : ''}.json`, import.meta.url));
  return JSON.parse(readFileSync(file, 'utf8')) as FaultReport;
}

const percent = (part: number, whole: number) => (whole === 0 ? '—' : `${((part / whole) * 100).toFixed(1)} %`);
const code = (text: string) => `\`${text}\``;

/** The section: totals of both sets, then the CI set's tables. */
export function generatedFaultsSection(small: FaultReport, large: FaultReport): string {
  const totals = (report: FaultReport) =>
    `${report.totals.generated} faults, ${report.totals.killed} killed (${percent(report.totals.killed, report.totals.generated)}), ${report.totals.survived} surviving; ${report.totals.equivalent} equivalent mutants listed apart`;
  const built = small.variants.filter((variant) => variant.passed !== undefined);
  return [
    'The suite is measured as a classifier on faulty implementations nobody wrote by hand: ten mutation operators (drop, duplicate, retype, boundary, re-encode, stale, leak, side-effect, loosen, break) applied to what each statement is about, through a proxy in front of this sandbox, and run with the `full` profile in accounts of the run\'s own (`--admin-key`). A fault is killed when the run fails. An equivalent mutant (a change no client can tell from conforming behaviour) is listed with the reason, not counted.',
    '',
    `- The set CI runs (one mutant per statement and operator, seed ${small.seed}): ${totals(small)}.`,
    `- The large set (\`npm run test:classifier\`, every mutant): ${totals(large)}.`,
    `- Conforming variants, one per reading of an open point the proxy can make: ${built.filter((variant) => variant.passed).length} of ${built.length} pass.`,
    '',
    '### By operator',
    '',
    table(
      ['operator', 'generated', 'killed', 'surviving', 'equivalent'],
      small.operators.map((row) => [code(row.operator), String(row.generated), String(row.killed), String(row.survived), String(row.equivalent)]),
    ),
    '',
    '### By statement',
    '',
    'Every statement a client observes over `/api/v1` or the control API has a generated fault at least (a test fails when one has none).',
    '',
    table(
      ['statement', 'level', 'generated', 'killed', 'equivalent', 'operators'],
      small.statements.map((row) => [code(row.id), row.level, String(row.generated), String(row.killed), String(row.equivalent), Object.keys(row.byOperator).join(', ')]),
    ),
    '',
    '### Surviving faults',
    '',
    small.survivors.length === 0 ? 'None.' : table(['fault', 'what it does'], small.survivors.map((row) => [code(row.id), prose(row.describe, { cell: true })])),
    '',
    '### Equivalent mutants',
    '',
    table(['mutant', 'what it does', 'why no client can tell'], small.equivalents.map((row) => [code(row.id), prose(row.describe, { cell: true }), prose(row.reason, { cell: true })])),
    '',
    '### Conforming variants',
    '',
    table(
      ['variant', 'reading', 'outcome'],
      small.variants.map((row) => [code(row.id), prose(row.reading, { cell: true }), row.passed === undefined ? `not generated: ${prose(row.notGenerated ?? '', { cell: true })}` : row.passed ? 'passes' : `fails: ${row.failed.map(code).join(', ')}`]),
    ),
  ].join('\n');
}
