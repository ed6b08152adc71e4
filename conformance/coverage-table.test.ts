/** The site's conformance-checks page is the tables the statement table and ALL_CHECKS print: a row per statement, open point and check. */
import { describe, expect, it } from 'vitest';
import { referencePages } from '../scripts/docs/build-reference.js';
import { readFaultReport } from '../scripts/docs/generated-faults-reference.js';
import { ALL_CHECKS } from './checks/index.js';
import { coverageTable, openPointsTable, statementCounts, statementTable } from './coverage-table.js';
import { OPEN_POINTS, STATEMENTS } from './statements.js';

const page = referencePages().get('conformance-checks.md')!;

describe('the coverage page', () => {
  it('gives every check the spec statement it enforces', () => {
    expect(ALL_CHECKS.filter((check) => !check.statement?.trim()).map((check) => check.id)).toEqual([]);
  });

  it('is the statement table, with a row per statement saying what holds it', () => {
    expect(page).toContain(statementTable());
    const table = statementTable();
    expect(STATEMENTS.filter((statement) => !page.includes(`| \`${statement.id}\` |`)).map((statement) => statement.id)).toEqual([]);
    // Every row ends with its holder: checks, a test file, or a gap with its reason.
    const rows = table.split('\n').slice(2);
    expect(rows.filter((row) => !/\| (`[^`]+`(, `[^`]+`)*|test: `[^`]+`|\*\*gap\*\*: .+) \|$/.test(row))).toEqual([]);
  });

  it('lists the open points apart, with their readings', () => {
    expect(page).toContain(openPointsTable());
    expect(OPEN_POINTS.filter((point) => !page.includes(`| \`${point.id}\` |`)).map((point) => point.id)).toEqual([]);
  });

  it('keeps the per-check table below, with a row per check', () => {
    expect(page).toContain(coverageTable());
    expect(ALL_CHECKS.filter((check) => !page.includes(`| \`${check.id}\` |`)).map((check) => check.id)).toEqual([]);
    expect(page.indexOf(coverageTable())).toBeGreaterThan(page.indexOf(statementTable()));
  });

  it('shows the generated faults\' report: the totals of both sets and a row per statement, with the equivalent mutants and their reasons', () => {
    const [small, large] = [readFaultReport('small'), readFaultReport('large')];
    const section = page.slice(page.indexOf('## Generated faults'));
    expect(section).toContain(`${small.totals.generated} faults, ${small.totals.killed} killed`);
    expect(section).toContain(`${large.totals.generated} faults, ${large.totals.killed} killed`);
    expect(small.statements.filter((row) => !section.includes(`| \`${row.id}\` | ${row.level} | ${row.generated} | ${row.killed} |`)).map((row) => row.id)).toEqual([]);
    expect(small.equivalents.filter((row) => !section.includes(`| \`${row.id}\` |`)).map((row) => row.id)).toEqual([]);
  });

  it('states the counts it is made of', () => {
    const counts = statementCounts();
    expect(counts.spec + counts.contract).toBe(STATEMENTS.length);
    expect(counts.v1 + counts.control + counts.sandbox + counts.notOverHttp).toBe(STATEMENTS.length);
    expect(page).toContain(`${counts.heldByChecks} are held by checks`);
    expect(page).toContain(`${counts.gaps} are gaps`);
  });
});
