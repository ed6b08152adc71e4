/**
 * The spec's fee rules: below 1,000 sats the higher of 10 sats and 0.5 %; from 1,000 sats 0.5 %.
 * Rounding and the percentage shown under the threshold are open points, taken from settings.
 */
import type { FeePercentageBelowThreshold, FeeRounding } from '../settings.js';

/** The fee rate, in percent. */
export const FEE_RATE_PERCENT = 0.5;
/** Below this amount the minimum fee applies. */
export const FEE_THRESHOLD_SATS = 1000;
/** The minimum fee below the threshold, in sats. */
export const MINIMUM_FEE_SATS = 10;

/** The fee of one payment request, as the response shows it. */
export interface Fee {
  feeAmount: number;
  feePercentage: number;
}

/** The fee for `amount` sats under the spec's table. */
export function feeFor(
  amount: number,
  rounding: FeeRounding = 'round',
  percentageBelowThreshold: FeePercentageBelowThreshold = 'rate',
): Fee {
  if (amount < FEE_THRESHOLD_SATS) {
    // 0.5 % of anything under 1,000 is under 5 sats, so the 10-sat floor always wins here.
    const feeAmount = Math.max(MINIMUM_FEE_SATS, halfPercentOf(amount, rounding));
    const feePercentage =
      percentageBelowThreshold === 'rate' ? FEE_RATE_PERCENT : Math.round((feeAmount / amount) * 100 * 100) / 100;
    return { feeAmount, feePercentage };
  }
  return { feeAmount: halfPercentOf(amount, rounding), feePercentage: FEE_RATE_PERCENT };
}

/** 0.5 % = 1/200, in integer arithmetic: `amount * 5` would lose precision above 2^53 / 5. */
function halfPercentOf(amount: number, rounding: FeeRounding): number {
  const remainder = amount % 200;
  const quotient = (amount - remainder) / 200;
  if (remainder === 0 || rounding === 'floor') return quotient;
  if (rounding === 'ceil') return quotient + 1;
  return remainder >= 100 ? quotient + 1 : quotient;
}
