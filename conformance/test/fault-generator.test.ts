/**
 * The fault generator's table and output, without running anything (fast; the runs are in
 * generated-faults.test.ts, a slow suite): every statement a client observes over HTTP has
 * targets, every one a check holds gets at least one generated fault (equivalent mutants do not
 * count), every operator makes faults, ids are unique, equivalents say why, the seed fixes the set,
 * and every open point's readings are built or say why not.
 */
import { describe, expect, it } from 'vitest';
import { ALL_CHECKS } from '../checks/index.js';
import { heldBy, OPEN_POINTS } from '../statements.js';
import { DEFAULT_SEED, generateFaults, generateVariants, observableStatements } from './fault-generator.js';
import { OPERATOR_NAMES } from './mutation-operators.js';
import { TARGETS } from './statement-targets.js';

const HELD = heldBy(ALL_CHECKS);

describe.each(['small', 'large'] as const)('the generated fault set (%s)', (size) => {
  const faults = generateFaults(size);
  const live = faults.filter((f) => f.equivalent === undefined);

  it('has targets for every statement a client observes over HTTP, and only for those', () => {
    expect(observableStatements().filter((s) => (TARGETS[s.id] ?? []).length === 0).map((s) => s.id)).toEqual([]);
    const known = new Set(observableStatements().map((s) => s.id));
    expect(Object.keys(TARGETS).filter((id) => !known.has(id))).toEqual([]);
  });

  it('generates a fault for every observable statement held by a check (MAYs aside: not doing a MAY conforms)', () => {
    const withFault = new Set(live.map((f) => f.statement));
    expect(observableStatements().filter((s) => s.level !== 'MAY' && HELD.has(s.id) && !withFault.has(s.id)).map((s) => s.id)).toEqual([]);
  });

  it('generates a fault for every statement of the gap list too (their survivors are the next increment\'s input)', () => {
    const withFault = new Set(live.map((f) => f.statement));
    expect(observableStatements().filter((s) => s.level !== 'MAY' && !withFault.has(s.id)).map((s) => s.id)).toEqual([]);
  });

  it('makes faults with every operator, hundreds in all', () => {
    expect(OPERATOR_NAMES.filter((operator) => !live.some((f) => f.operator === operator))).toEqual([]);
    expect(live.length).toBeGreaterThan(300);
  });

  it('gives unique ids, and a reason for every equivalent mutant', () => {
    const ids = faults.map((f) => f.id);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    expect(faults.filter((f) => f.equivalent !== undefined && f.equivalent.length < 20).map((f) => f.id)).toEqual([]);
  });

  it('is fixed by its seed', () => {
    expect(generateFaults(size, DEFAULT_SEED).map((f) => `${f.id} ${f.key}`)).toEqual(faults.map((f) => `${f.id} ${f.key}`));
  });
});

describe('the generated conforming variants', () => {
  it('cover every reading of every open point, built or with the reason why not', () => {
    const variants = generateVariants();
    expect(new Set(variants.map((v) => `${v.point} ${v.reading}`)).size).toBe(OPEN_POINTS.reduce((sum, point) => sum + point.readings.length, 0));
    expect(variants.filter((v) => v.notGenerated === undefined && v.proxy === undefined && v.sandbox === undefined).map((v) => v.id)).toEqual([]);
    expect(variants.filter((v) => v.notGenerated === 'no builder for this reading yet').map((v) => v.id)).toEqual([]);
    expect(variants.filter((v) => v.notGenerated === undefined).length).toBeGreaterThanOrEqual(15);
  });
});
