/** Human-readable amounts: shortest exact spelling, and the reader's rejections. */
import { describe, expect, it } from 'vitest';
import { msatToHrpAmount, parseHrpAmount, satsToHrpAmount } from './amount.js';
import { InvoiceDecodeError } from './errors.js';

describe('satsToHrpAmount / msatToHrpAmount', () => {
  const cases: ReadonlyArray<readonly [sats: number, hrp: string]> = [
    [1, '10n'],
    [21, '210n'],
    [999, '9990n'],
    [1000, '10u'],
    [250_000, '2500u'],
    [100_000, '1m'],
    [100_000_000, '1'],
    [150_000_000, '1500m'],
    [2_100_000_000_000_000, '21000000'],
  ];
  for (const [sats, hrp] of cases) {
    it(`${sats} sats -> ${hrp}`, () => {
      expect(satsToHrpAmount(sats)).toBe(hrp);
      expect(parseHrpAmount(hrp)).toBe(BigInt(sats) * 1000n);
    });
  }

  it('uses p only for amounts that are not whole hundreds of msat, ending in 0', () => {
    expect(msatToHrpAmount(1n)).toBe('10p');
    expect(msatToHrpAmount(967_878_534n)).toBe('9678785340p');
    expect(msatToHrpAmount(100n)).toBe('1n');
  });

  it('refuses zero, negative and fractional amounts', () => {
    expect(() => msatToHrpAmount(0n)).toThrow(RangeError);
    expect(() => satsToHrpAmount(-1)).toThrow(RangeError);
    expect(() => satsToHrpAmount(1.5)).toThrow(RangeError);
  });
});

describe('parseHrpAmount', () => {
  it('reads every multiplier', () => {
    expect(parseHrpAmount('2500u')).toBe(250_000_000n);
    expect(parseHrpAmount('20m')).toBe(2_000_000_000n);
    expect(parseHrpAmount('2')).toBe(200_000_000_000n);
    expect(parseHrpAmount('9678785340p')).toBe(967_878_534n);
  });

  const rejected: ReadonlyArray<readonly [amount: string, reason: RegExp]> = [
    ['2500x', /invalid multiplier "x"/],
    ['2500000001p', /sub-millisatoshi/],
    ['0250u', /leading zero/],
    ['0', /leading zero/],
    ['25u0', /not digits followed by/],
    ['u', /not digits followed by/],
    ['1mm', /not digits followed by/],
  ];
  for (const [amount, reason] of rejected) {
    it(`rejects "${amount}"`, () => {
      expect(() => parseHrpAmount(amount)).toThrow(InvoiceDecodeError);
      expect(() => parseHrpAmount(amount)).toThrow(reason);
    });
  }
});
