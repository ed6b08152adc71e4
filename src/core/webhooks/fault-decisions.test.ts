/**
 * The `duplicate` fault, decided from the event id: the expected fractions are the first four
 * bytes of SHA-256("<event id>:<decision>") over 2^32, computed apart from the code under test.
 */
import { describe, expect, it } from 'vitest';
import { eventFraction, sendsDuplicate } from './fault-decisions.js';

describe('fault decisions', () => {
  it('draws a fraction fixed by the event id and the decision', () => {
    expect(eventFraction('evt_0001', 'duplicate')).toBeCloseTo(0.441961488686502, 12);
    expect(eventFraction('evt_0002', 'duplicate')).toBeCloseTo(0.9202421829104424, 12);
    expect(eventFraction('evt_0001', 'other')).toBeCloseTo(0.707335703773424, 12);
    expect(eventFraction('evt_0001', 'duplicate')).toBe(eventFraction('evt_0001', 'duplicate'));
  });

  it('sends a duplicate when the fraction is below the probability', () => {
    expect(sendsDuplicate('evt_0001', 0.45)).toBe(true); // 0.4419…
    expect(sendsDuplicate('evt_0001', 0.44)).toBe(false);
    expect(sendsDuplicate('evt_0003', 0.36)).toBe(true); // 0.3521…
    expect(sendsDuplicate('evt_0002', 0.9)).toBe(false); // 0.9202…
  });

  it('never without the fault or at probability 0, always at 1', () => {
    for (const id of ['evt_0001', 'evt_0002', 'evt_0003', 'evt_abc']) {
      expect(sendsDuplicate(id, undefined)).toBe(false);
      expect(sendsDuplicate(id, 0)).toBe(false);
      expect(sendsDuplicate(id, 1)).toBe(true);
    }
  });

  it('duplicates about the share of events asked for', () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => `evt_${i}`);
    const share = ids.filter((id) => sendsDuplicate(id, 0.25)).length / ids.length;
    expect(share).toBeGreaterThan(0.22);
    expect(share).toBeLessThan(0.28);
  });
});
