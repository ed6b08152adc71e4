/** The site's conformance-checks page is the table ALL_CHECKS prints, and every check names its statement. */
import { describe, expect, it } from 'vitest';
import { referencePages } from '../scripts/docs/build-reference.js';
import { ALL_CHECKS } from './checks/index.js';
import { coverageTable } from './coverage-table.js';

describe('the coverage table', () => {
  it('gives every check the spec statement it enforces', () => {
    expect(ALL_CHECKS.filter((check) => !check.statement?.trim()).map((check) => check.id)).toEqual([]);
  });

  it('is the table of docs/reference/conformance-checks.md, with a row per check', () => {
    const page = referencePages().get('conformance-checks.md')!;
    expect(page).toContain(coverageTable());
    expect(ALL_CHECKS.filter((check) => !page.includes(`| \`${check.id}\` |`)).map((check) => check.id)).toEqual([]);
  });
});
