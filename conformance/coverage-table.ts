/**
 * The coverage table of the site's conformance-checks reference (docs/reference/conformance-checks.md,
 * written by scripts/docs/build-reference.ts): which statement of the spec each check enforces,
 * as Markdown, printed from ALL_CHECKS in the order of the spec's sections. `npx tsx
 * conformance/coverage-table.ts` prints it.
 */
import { fileURLToPath } from 'node:url';
import { ALL_CHECKS } from './checks/index.js';
import type { Check } from './check.js';

/** The spec's sections, in its order; a check's section starts with one of them. */
const SPEC_ORDER = ['What the service does', 'Resources', 'Fee rules', 'States and transitions', 'Endpoints', 'Authentication', 'Errors', 'Limits', 'Versioning'];

function rank(section: string): number {
  const index = SPEC_ORDER.findIndex((name) => section.startsWith(name));
  return index === -1 ? SPEC_ORDER.length : index;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, ' ');
}

/** The Markdown table: one row per check, ordered by spec section (then suite order). */
export function coverageTable(checks: readonly Check[] = ALL_CHECKS): string {
  const rows = checks
    .map((check, index) => ({ check, index }))
    .sort((a, b) => rank(a.check.section) - rank(b.check.section) || a.index - b.index)
    .map(({ check }) => `| \`${check.id}\` | ${check.level} | ${check.profile} | ${cell(check.section)} | ${cell(check.statement ?? '')} |`);
  return ['| check | level | profile | spec section | statement it enforces |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) console.log(coverageTable());
