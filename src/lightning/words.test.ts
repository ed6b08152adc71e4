/** 5-bit word conversions, checked against known BOLT #11 spellings. */
import { describe, expect, it } from 'vitest';
import { bech32 } from '@scure/base';
import { bytesToWords, intToWords, wordsToBytes, wordsToInt } from './words.js';

describe('words', () => {
  it('pads bytes to whole words with zero bits, like bech32.toWords', () => {
    const bytes = Uint8Array.from({ length: 33 }, (_, i) => (i * 37 + 11) & 255);
    expect(bytesToWords(bytes)).toEqual(bech32.toWords(bytes));
    expect(bytesToWords(bytes)).toHaveLength(53);
  });

  it('trims field padding and pads the signed message to a byte', () => {
    // 3 words = 15 bits: one whole byte plus 7 leftover bits.
    expect(Array.from(wordsToBytes([31, 31, 31], 'trim'))).toEqual([255]);
    expect(Array.from(wordsToBytes([31, 31, 31], 'pad'))).toEqual([255, 254]);
  });

  it('spells the spec timestamp 1496314658 as pvjluez', () => {
    const words = intToWords(1_496_314_658, 7);
    expect(bech32.encode('x', words, false).slice(2, 9)).toBe('pvjluez');
    expect(wordsToInt(words)).toBe(1_496_314_658);
  });

  it('writes integers in the fewest words and refuses ones that do not fit', () => {
    expect(intToWords(60)).toEqual([1, 28]);
    expect(intToWords(31)).toEqual([31]);
    expect(intToWords(0)).toEqual([]);
    expect(() => intToWords(1024, 2)).toThrow(RangeError);
    expect(() => wordsToInt(new Array<number>(11).fill(31))).toThrow(RangeError);
  });
});
