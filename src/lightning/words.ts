/**
 * Conversions between bytes, integers and the 5-bit words BOLT #11 is written in. Kept apart from
 * bech32 itself because the invoice needs two paddings bech32 libraries do not offer together:
 * signing pads the data part with zero bits to a whole byte, while field data drops its padding.
 */

/** Splits bytes into 5-bit words, padding the last word with zero bits (BOLT #11 field data). */
export function bytesToWords(bytes: Uint8Array): number[] {
  const words: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((buffer >> bits) & 31);
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) words.push((buffer << (5 - bits)) & 31);
  return words;
}

/**
 * Joins 5-bit words into bytes. `pad` appends zero bits to complete the last byte (the signed
 * message); `trim` drops the leftover bits (a field's padding, which carries no data).
 */
export function wordsToBytes(words: readonly number[], leftover: 'pad' | 'trim'): Uint8Array {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const word of words) {
    buffer = (buffer << 5) | word;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 255);
    }
    buffer &= (1 << bits) - 1;
  }
  if (leftover === 'pad' && bits > 0) bytes.push((buffer << (8 - bits)) & 255);
  return Uint8Array.from(bytes);
}

/** Big-endian 5-bit words of a non-negative integer, left-padded to `length` words when given. */
export function intToWords(value: number, length?: number): number[] {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a non-negative integer: ${value}`);
  const words: number[] = [];
  for (let rest = value; rest > 0; rest = Math.floor(rest / 32)) words.unshift(rest % 32);
  if (length !== undefined) {
    if (words.length > length) throw new RangeError(`${value} does not fit in ${length} words`);
    while (words.length < length) words.unshift(0);
  }
  return words;
}

/** The integer that big-endian 5-bit words spell; throws past Number.MAX_SAFE_INTEGER. */
export function wordsToInt(words: readonly number[]): number {
  let value = 0;
  for (const word of words) {
    value = value * 32 + word;
    if (!Number.isSafeInteger(value)) throw new RangeError('integer field exceeds 2^53 - 1');
  }
  return value;
}
