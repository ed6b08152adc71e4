/**
 * The coverage tables of the site's conformance-checks reference (docs/reference/conformance-checks.md,
 * written by scripts/docs/build-reference.ts), as Markdown: per statement of the spec and
 * CONTRACT.md (conformance/statements.ts), the checks that hold it, or the test that holds it
 * instead, or why nothing does yet (a gap); the open points with the readings that conform; and
 * per check, the statements it holds. `npx tsx conformance/coverage-table.ts` prints them.
 */
import { fileURLToPath } from 'node:url';
import { ALL_CHECKS } from './checks/index.js';
import type { Check } from './check.js';
import { heldBy, OPEN_POINTS, STATEMENTS, type OpenPoint, type Statement, type StatementObservable } from './statements.js';

/** The spec's sections, in its order; a check's section starts with one of them. */
const SPEC_ORDER = ['What the service does', 'Resources', 'Fee rules', 'States and transitions', 'Endpoints', 'Authentication', 'Errors', 'Limits', 'Versioning'];

/** How the page names the ways a client sees a statement. */
const SEEN: Record<StatementObservable, string> = { v1: 'v1', control: 'control API', sandbox: 'sandbox (HTTP)', 'not-over-http': 'not over HTTP' };

function rank(section: string): number {
  const index = SPEC_ORDER.findIndex((name) => section.startsWith(name));
  return index === -1 ? SPEC_ORDER.length : index;
}

/** Text (which may hold `code spans`) safe in one table cell: markup escaped outside code spans, pipes everywhere. */
function cell(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');
}

const ids = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(', ');

/** The counts the page (and a report) gives: statements per source and how they are held. */
export function statementCounts(statements: readonly Statement[] = STATEMENTS, checks: readonly Check[] = ALL_CHECKS) {
  const held = heldBy(checks);
  const overHttp = statements.filter((statement) => statement.observable === 'v1' || statement.observable === 'control');
  return {
    spec: statements.filter((statement) => statement.source === 'spec').length,
    contract: statements.filter((statement) => statement.source === 'contract').length,
    v1: statements.filter((statement) => statement.observable === 'v1').length,
    control: statements.filter((statement) => statement.observable === 'control').length,
    sandbox: statements.filter((statement) => statement.observable === 'sandbox').length,
    notOverHttp: statements.filter((statement) => statement.observable === 'not-over-http').length,
    heldByChecks: overHttp.filter((statement) => held.has(statement.id)).length,
    gaps: overHttp.filter((statement) => !held.has(statement.id)).length,
    heldByTests: statements.filter((statement) => statement.test !== undefined).length,
    offSuiteGaps: statements.filter((statement) => !overHttp.includes(statement) && statement.gap !== undefined).length,
  };
}

/** One row per statement, in the sources' order: what holds it. */
export function statementTable(statements: readonly Statement[] = STATEMENTS, checks: readonly Check[] = ALL_CHECKS): string {
  const held = heldBy(checks);
  const holder = (statement: Statement): string => {
    const by = held.get(statement.id);
    if (by !== undefined) return ids(by);
    if (statement.test !== undefined) return `test: \`${statement.test}\``;
    return `**gap**: ${cell(statement.gap ?? 'none named')}`;
  };
  const rows = statements.map(
    (statement) => `| \`${statement.id}\` | ${statement.level} | ${SEEN[statement.observable]} | ${cell(`${statement.source === 'spec' ? 'Spec' : 'CONTRACT.md'} › ${statement.section}`)} | ${cell(statement.text)} | ${holder(statement)} |`,
  );
  return ['| statement | level | seen through | where | what it says | held by |', '| --- | --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** One row per open point: the readings that conform (none of them is a fault). */
export function openPointsTable(points: readonly OpenPoint[] = OPEN_POINTS): string {
  const rows = points.map((point) => `| \`${point.id}\` | ${cell(`${point.source === 'spec' ? 'Spec' : 'CONTRACT.md'} › ${point.section}`)} | ${cell(point.text)} | ${cell(point.readings.join('; '))} |`);
  return ['| open point | where | left open | readings that conform |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** The Markdown table: one row per check, ordered by spec section (then suite order), with the statements it holds. */
export function coverageTable(checks: readonly Check[] = ALL_CHECKS): string {
  const rows = checks
    .map((check, index) => ({ check, index }))
    .sort((a, b) => rank(a.check.section) - rank(b.check.section) || a.index - b.index)
    .map(({ check }) => `| \`${check.id}\` | ${check.level} | ${check.profile} | ${cell(check.section)} | ${ids(check.holds)} | ${cell(check.statement ?? '')} |`);
  return ['| check | level | profile | spec section | statements it holds | the words it enforces |', '| --- | --- | --- | --- | --- | --- |', ...rows].join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log([statementTable(), openPointsTable(), coverageTable()].join('\n\n'));
}
