/** The retry plan: Svix's gaps, counted from when the failed attempt was due, then no more. */
import { describe, expect, it } from 'vitest';
import { nextAttemptDueMs, RETRY_DELAYS_SECONDS } from './retry-schedule.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('retry schedule', () => {
  it('retries after 5 s, 30 s, 2 min, 10 min, 1 h, 6 h and 24 h', () => {
    expect(RETRY_DELAYS_SECONDS.map((seconds) => seconds * SECOND)).toEqual([5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, HOUR, 6 * HOUR, 24 * HOUR]);
  });

  it("puts each retry that gap after the failed attempt's due moment", () => {
    const dueMs = Date.parse('2025-01-01T00:00:00.000Z');
    expect(nextAttemptDueMs(1, dueMs)).toBe(dueMs + 5 * SECOND);
    expect(nextAttemptDueMs(2, dueMs)).toBe(dueMs + 30 * SECOND);
    expect(nextAttemptDueMs(5, dueMs)).toBe(dueMs + HOUR);
    expect(nextAttemptDueMs(7, dueMs)).toBe(dueMs + 24 * HOUR);
  });

  it('chains: eight attempts in all, the last due 1 d 7 h 12 min 35 s after the first', () => {
    const dues = [0];
    for (let next = nextAttemptDueMs(1, 0); next !== undefined; next = nextAttemptDueMs(dues.length, next)) dues.push(next);
    expect(dues).toHaveLength(8);
    expect(dues.at(-1)).toBe(31 * HOUR + 12 * MINUTE + 35 * SECOND);
  });

  it('has no attempt after the eighth', () => {
    expect(nextAttemptDueMs(8, 0)).toBeUndefined();
    expect(nextAttemptDueMs(9, 0)).toBeUndefined();
  });
});
