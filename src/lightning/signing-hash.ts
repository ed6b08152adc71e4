/**
 * The message an invoice signature covers, shared by the writer and the reader so both hash the
 * same bytes: SHA-256 of the human-readable part as UTF-8, then the data part (without the
 * signature) with zero bits appended up to a byte boundary.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { wordsToBytes } from './words.js';

/** The 32-byte hash an invoice signature signs, for a lower-case hrp and the data words before the signature. */
export function invoiceSigningHash(hrp: string, dataWords: readonly number[]): Uint8Array {
  return sha256(concatBytes(utf8ToBytes(hrp), wordsToBytes(dataWords, 'pad')));
}
