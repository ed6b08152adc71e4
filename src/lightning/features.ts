/**
 * The `9` field's feature vector (BOLT #9, context `9`): a big-endian bit field whose bit 0 is
 * the least significant bit of the last word. Real nodes reject a padded field, so the writer
 * always uses the fewest words that hold the highest set bit.
 */

/** Feature bit: variable-size onion payloads, required (ASSUMED by every node today). */
export const VAR_ONION_OPTIN_REQUIRED = 8;

/** Feature bit: the invoice carries an `s` payment secret, required. */
export const PAYMENT_SECRET_REQUIRED = 14;

const PAYMENT_SECRET_OPTIONAL = 15;
const BASIC_MPP_REQUIRED = 16;
const BASIC_MPP_OPTIONAL = 17;

// Features BOLT #9 allows in invoices (context 9), both bits of each pair. An even bit outside
// this set is a requirement this reader cannot meet.
const KNOWN_INVOICE_FEATURE_BITS: ReadonlySet<number> = new Set([
  8, 9, // var_onion_optin
  14, 15, // payment_secret
  16, 17, // basic_mpp
  24, 25, // option_route_blinding
  48, 49, // option_payment_metadata
]);

/** The minimal `9` field words with exactly the given bits set. */
export function featureBitsToWords(bits: readonly number[]): number[] {
  if (bits.some((bit) => !Number.isInteger(bit) || bit < 0)) throw new RangeError('feature bits must be non-negative integers');
  if (bits.length === 0) return [];
  const words = new Array<number>(Math.floor(Math.max(...bits) / 5) + 1).fill(0);
  for (const bit of bits) {
    const index = words.length - 1 - Math.floor(bit / 5);
    words[index] = (words[index] ?? 0) | (1 << (bit % 5));
  }
  return words;
}

/** The set bits of a `9` field, ascending. */
export function featureBitsOf(words: readonly number[]): number[] {
  const bits: number[] = [];
  for (let bit = 0; bit < words.length * 5; bit++) {
    const word = words[words.length - 1 - Math.floor(bit / 5)] ?? 0;
    if ((word >> (bit % 5)) & 1) bits.push(bit);
  }
  return bits;
}

/** Why a payer must refuse these invoice features (an unknown required bit, a missing dependency), or null. */
export function invoiceFeaturesProblem(bits: readonly number[]): string | null {
  // "It's OK to be odd": unknown odd bits are optional and ignored; unknown even ones are not.
  const unknownRequired = bits.filter((bit) => bit % 2 === 0 && !KNOWN_INVOICE_FEATURE_BITS.has(bit));
  if (unknownRequired.length > 0) return `unknown required feature bit(s) ${unknownRequired.join(', ')}`;
  const has = (bit: number) => bits.includes(bit);
  if ((has(BASIC_MPP_REQUIRED) || has(BASIC_MPP_OPTIONAL)) && !has(PAYMENT_SECRET_REQUIRED) && !has(PAYMENT_SECRET_OPTIONAL)) {
    return 'feature basic_mpp is set without its dependency payment_secret';
  }
  return null;
}
