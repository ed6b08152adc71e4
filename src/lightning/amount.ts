/**
 * Amounts in the invoice's human-readable part: a decimal number of bitcoin with an optional
 * multiplier letter (BOLT #11 "Human-Readable Part"). Millisatoshis are bigint throughout because
 * 21 million BTC is 2.1e18 msat, past Number.MAX_SAFE_INTEGER.
 */
import { InvoiceDecodeError } from './errors.js';

// Value of one unit of each multiplier in tenths of a millisatoshi, so `p` (0.1 msat) is whole.
// Largest first: the first one that divides an amount exactly gives its shortest spelling.
const TENTHS_OF_MSAT_PER_UNIT: ReadonlyArray<readonly [multiplier: string, tenths: bigint]> = [
  ['', 1_000_000_000_000n],
  ['m', 1_000_000_000n],
  ['u', 1_000_000n],
  ['n', 1_000n],
  ['p', 1n],
];

/** The shortest exact BOLT #11 amount for a positive number of millisatoshis, e.g. 250000000n -> "2500u". */
export function msatToHrpAmount(msat: bigint): string {
  if (msat <= 0n) throw new RangeError(`an invoice amount must be positive, got ${msat} msat`);
  const tenths = msat * 10n;
  for (const [multiplier, unit] of TENTHS_OF_MSAT_PER_UNIT) {
    if (tenths % unit === 0n) return `${tenths / unit}${multiplier}`;
  }
  throw new Error('unreachable: the p multiplier divides every amount');
}

/** The shortest exact BOLT #11 amount for a positive whole number of satoshis. */
export function satsToHrpAmount(sats: number | bigint): string {
  if (typeof sats === 'number' && !Number.isSafeInteger(sats)) {
    throw new RangeError(`satoshis must be a whole number, got ${sats}`);
  }
  return msatToHrpAmount(BigInt(sats) * 1000n);
}

/** Millisatoshis of a BOLT #11 amount such as "2500u"; throws InvoiceDecodeError when malformed. */
export function parseHrpAmount(amount: string): bigint {
  const match = /^([0-9]+)([a-z]?)$/.exec(amount);
  if (match === null) throw new InvoiceDecodeError(`amount "${amount}" is not digits followed by an optional multiplier`);
  const digits = match[1] ?? '';
  const multiplier = match[2] ?? '';
  const unit = TENTHS_OF_MSAT_PER_UNIT.find(([letter]) => letter === multiplier)?.[1];
  if (unit === undefined) throw new InvoiceDecodeError(`amount "${amount}" has an invalid multiplier "${multiplier}" (expected m, u, n or p)`);
  // The writer rule "a positive decimal integer with no leading 0s" also rules out "0".
  if (digits.startsWith('0')) throw new InvoiceDecodeError(`amount "${amount}" has a leading zero`);
  if (multiplier === 'p' && !digits.endsWith('0')) {
    throw new InvoiceDecodeError(`amount "${amount}" has sub-millisatoshi precision (a p amount must end in 0)`);
  }
  return (BigInt(digits) * unit) / 10n;
}
