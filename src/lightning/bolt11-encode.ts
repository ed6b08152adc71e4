/**
 * The low-level BOLT #11 writer: hrp, timestamp and an ordered list of raw tagged fields in, a
 * signed invoice out. It takes fields as words rather than values so it can re-emit any decoded
 * invoice byte for byte (the spec vectors are checked that way); `invoice.ts` decides the fields.
 */
import { bech32 } from '@scure/base';
import { concatBytes } from '@noble/hashes/utils.js';
import type { RecoverableSigner } from '../core/ports.js';
import { invoiceSigningHash } from './signing-hash.js';
import { fieldsToWords, type TaggedField } from './tagged-fields.js';
import { bytesToWords, intToWords } from './words.js';

/** Words of the 35-bit timestamp that opens the data part. */
export const TIMESTAMP_WORDS = 7;

/** Words of the signature that closes the data part: 64-byte compact signature + 1 recovery byte. */
export const SIGNATURE_WORDS = 104;

const MAX_TIMESTAMP = 2 ** 35 - 1;

/** What an invoice says before it is signed. */
export interface UnsignedInvoice {
  /** Human-readable part in lower case: prefix and amount, e.g. `lnbc2500u`. */
  readonly hrp: string;
  readonly timestampSeconds: number;
  /** Tagged fields in the order they are written. */
  readonly fields: readonly TaggedField[];
}

/** Signs and bech32-encodes an invoice (lower case, no length limit). */
export function encodeInvoice(invoice: UnsignedInvoice, privateKey: Uint8Array, signer: RecoverableSigner): string {
  const { hrp, timestampSeconds, fields } = invoice;
  if (hrp !== hrp.toLowerCase()) throw new RangeError('the hrp must be lower case: the signature covers it as written');
  if (!Number.isInteger(timestampSeconds) || timestampSeconds < 0 || timestampSeconds > MAX_TIMESTAMP) {
    throw new RangeError(`timestamp must be a whole number of seconds in 0..2^35-1, got ${timestampSeconds}`);
  }
  const dataWords = [...intToWords(timestampSeconds, TIMESTAMP_WORDS), ...fieldsToWords(fields)];
  const { signature, recoveryId } = signer.signRecoverable(invoiceSigningHash(hrp, dataWords), privateKey);
  if (signature.length !== 64 || !Number.isInteger(recoveryId) || recoveryId < 0 || recoveryId > 3) {
    throw new Error('signer returned a malformed recoverable signature');
  }
  const signatureWords = bytesToWords(concatBytes(signature, Uint8Array.of(recoveryId)));
  return bech32.encode(hrp, [...dataWords, ...signatureWords], false);
}
