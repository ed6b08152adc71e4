/** docs/conformance.md's coverage table is the one ALL_CHECKS prints, and every check names its statement. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_CHECKS } from './checks/index.js';
import { COVERAGE_DOC, withCurrentTable } from './coverage-table.js';

describe('the coverage table', () => {
  it('gives every check the spec statement it enforces', () => {
    expect(ALL_CHECKS.filter((check) => !check.statement?.trim()).map((check) => check.id)).toEqual([]);
  });

  it('is up to date in docs/conformance.md (fix: npx tsx conformance/coverage-table.ts --write)', () => {
    const document = readFileSync(COVERAGE_DOC, 'utf8');
    expect(document).toBe(withCurrentTable(document));
  });
});
