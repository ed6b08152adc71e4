import { describe, expect, it } from 'vitest';
import { feeFor } from './fees.js';

describe('feeFor', () => {
  it.each([
    [21, 10],
    [100, 10],
    [500, 10],
    [999, 10],
    [1000, 5],
    [10_000, 50],
  ])('follows the spec table: %i sats → %i', (amount, fee) => {
    expect(feeFor(amount).feeAmount).toBe(fee);
  });

  it.each([
    [1_001, 5, 5, 6],
    [1_099, 5, 5, 6],
    [1_100, 5, 6, 6],
    [1_199, 5, 6, 6],
    [1_200, 6, 6, 6],
  ])('rounds 0.5 %% of %i: floor %i, round %i, ceil %i', (amount, floor, round, ceil) => {
    expect(feeFor(amount, 'floor').feeAmount).toBe(floor);
    expect(feeFor(amount, 'round').feeAmount).toBe(round);
    expect(feeFor(amount, 'ceil').feeAmount).toBe(ceil);
  });

  it('stays exact at 21 million BTC, where amount * 5 would lose precision', () => {
    expect(feeFor(2_100_000_000_000_000).feeAmount).toBe(10_500_000_000_000);
    expect(feeFor(2_100_000_000_000_199, 'floor').feeAmount).toBe(10_500_000_000_000);
  });

  it('shows the rate, or the effective percentage, under 1,000 sats', () => {
    expect(feeFor(100, 'round', 'rate').feePercentage).toBe(0.5);
    expect(feeFor(100, 'round', 'effective').feePercentage).toBe(10);
    expect(feeFor(21, 'round', 'effective').feePercentage).toBe(47.62);
    expect(feeFor(10_000, 'round', 'effective').feePercentage).toBe(0.5);
  });
});
