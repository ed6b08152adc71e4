/**
 * The statement table and the checks agree: every statement a client can observe is held by a
 * check or marked as a gap (today's gap list, printed when it fails), every id a check names
 * exists, ids are unique, and a statement held off HTTP or by a sandbox test names a test file
 * that exists.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALL_CHECKS } from './checks/index.js';
import { heldBy, OPEN_POINTS, STATEMENTS } from './statements.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OVER_HTTP = new Set(['v1', 'control']);
const HELD = heldBy(ALL_CHECKS);

describe('the statement table', () => {
  it('gives every statement and open point a unique id', () => {
    const ids = [...STATEMENTS, ...OPEN_POINTS].map((entry) => entry.id);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });

  it('is exhaustive enough to mean it: well over 100 statements, from both sources', () => {
    expect(STATEMENTS.length).toBeGreaterThan(100);
    expect(STATEMENTS.filter((statement) => statement.source === 'spec').length).toBeGreaterThan(50);
    expect(STATEMENTS.filter((statement) => statement.source === 'contract').length).toBeGreaterThan(100);
  });

  it('holds every statement a client observes over HTTP by a check, or says why not (gap)', () => {
    const unheld = STATEMENTS.filter((statement) => OVER_HTTP.has(statement.observable) && !HELD.has(statement.id) && statement.gap === undefined);
    expect(unheld.map((statement) => statement.id)).toEqual([]);
  });

  it('marks no statement as a gap that a check holds (the gap list stays true)', () => {
    expect(STATEMENTS.filter((statement) => statement.gap !== undefined && HELD.has(statement.id)).map((statement) => statement.id)).toEqual([]);
  });

  it('names, for every statement no client check holds, an existing test file (or why none)', () => {
    const offSuite = STATEMENTS.filter((statement) => !OVER_HTTP.has(statement.observable));
    expect(offSuite.filter((statement) => statement.test === undefined && statement.gap === undefined).map((statement) => statement.id)).toEqual([]);
    expect(offSuite.filter((statement) => statement.test !== undefined && !existsSync(`${ROOT}${statement.test}`)).map((statement) => `${statement.id}: ${statement.test}`)).toEqual([]);
    expect(offSuite.filter((statement) => HELD.has(statement.id)).map((statement) => statement.id)).toEqual([]);
  });

  it('gives every open point the readings that conform', () => {
    expect(OPEN_POINTS.filter((point) => point.readings.length === 0).map((point) => point.id)).toEqual([]);
  });
});

describe('the checks', () => {
  it('each name at least one statement they hold', () => {
    expect(ALL_CHECKS.filter((check) => check.holds.length === 0).map((check) => check.id)).toEqual([]);
  });

  it('name only statements of the table, each once', () => {
    const known = new Set(STATEMENTS.map((statement) => statement.id));
    expect(ALL_CHECKS.flatMap((check) => check.holds.filter((id) => !known.has(id)).map((id) => `${check.id}: ${id}`))).toEqual([]);
    expect(ALL_CHECKS.filter((check) => new Set(check.holds).size !== check.holds.length).map((check) => check.id)).toEqual([]);
  });
});
