/**
 * The tagged fields of an invoice's data part: a 5-bit type, a 10-bit length in words, then the
 * data. Fields are kept as raw words in their original order, unknown ones included, because the
 * signature covers them exactly: anything that re-encodes an invoice must not reinterpret them.
 */
import { InvoiceDecodeError } from './errors.js';
import { intToWords, wordsToInt } from './words.js';

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

/** The most data words a field can carry: its length is 10 bits. */
export const MAX_FIELD_WORDS = 1023;

/** One tagged field: its type as the bech32 letter BOLT #11 names it by (`p`, `s`, `d`...) and its data words. */
export interface TaggedField {
  readonly tag: string;
  readonly words: readonly number[];
}

/** Serializes fields in the given order into data-part words. */
export function fieldsToWords(fields: readonly TaggedField[]): number[] {
  const words: number[] = [];
  for (const { tag, words: data } of fields) {
    const type = tag.length === 1 ? BECH32_CHARSET.indexOf(tag) : -1;
    if (type < 0) throw new RangeError(`field tag must be one bech32 character, got "${tag}"`);
    if (data.length > MAX_FIELD_WORDS) {
      throw new RangeError(`field ${tag} has ${data.length} words; at most ${MAX_FIELD_WORDS} fit its 10-bit length`);
    }
    if (data.some((word) => !Number.isInteger(word) || word < 0 || word > 31)) {
      throw new RangeError(`field ${tag} has a word outside 0..31`);
    }
    words.push(type, ...intToWords(data.length, 2), ...data);
  }
  return words;
}

/** Splits data-part words (after the timestamp, before the signature) into fields, in order. */
export function wordsToFields(words: readonly number[]): TaggedField[] {
  const fields: TaggedField[] = [];
  let at = 0;
  while (at < words.length) {
    if (at + 3 > words.length) throw new InvoiceDecodeError('a tagged field header is cut short before the signature');
    const tag = BECH32_CHARSET.charAt(words[at] ?? 0);
    const length = wordsToInt(words.slice(at + 1, at + 3));
    const start = at + 3;
    if (start + length > words.length) {
      throw new InvoiceDecodeError(`field ${tag} declares ${length} words but runs into the signature`);
    }
    fields.push({ tag, words: words.slice(start, start + length) });
    at = start + length;
  }
  return fields;
}
