/**
 * The BOLT #11 reader. It is strict where a paying node is (checksum, case, prefix, amount,
 * signature, required features, a payment secret) and lenient where the spec asks readers to be
 * (fields of an unexpected length and unknown fields are skipped), so the sandbox can tell which
 * invoices a real node would refuse. It also returns the raw fields, so re-encoding is exact.
 */
import { bech32 } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, concatBytes } from '@noble/hashes/utils.js';
import { parseHrpAmount } from './amount.js';
import { SIGNATURE_WORDS, TIMESTAMP_WORDS } from './bolt11-encode.js';
import { InvoiceDecodeError } from './errors.js';
import { featureBitsOf, invoiceFeaturesProblem } from './features.js';
import { networkOfPrefix, type Network } from './networks.js';
import { invoiceSigningHash } from './signing-hash.js';
import { wordsToFields, type TaggedField } from './tagged-fields.js';
import { wordsToBytes, wordsToInt } from './words.js';

/** BOLT #11 default for an invoice without `x`. */
export const DEFAULT_EXPIRY_SECONDS = 3600;

/** BOLT #11 default for an invoice without `c`. */
export const DEFAULT_MIN_FINAL_CLTV_EXPIRY_DELTA = 18;

// Readers skip `p`, `h`, `s` and `n` fields of any other length (BOLT #11, Tagged Fields).
const FIXED_FIELD_WORDS: Readonly<Record<string, number>> = { p: 52, h: 52, s: 52, n: 53 };

/** A verified invoice, its values read from the first usable field of each kind. */
export interface DecodedInvoice {
  network: Network;
  /** `ln` + currency prefix, e.g. `lnbcrt`. */
  prefix: string;
  /** The whole human-readable part in lower case (prefix + amount), as signed. */
  hrp: string;
  amountMsat: bigint | null;
  /** The amount in satoshis when it is a whole number of them, else null. */
  amountSats: number | null;
  timestampSeconds: number;
  /** Hex, 32 bytes. */
  paymentHash: string;
  /** Hex, 32 bytes. */
  paymentSecret: string;
  description?: string;
  /** Hex SHA-256 of the description, when the invoice carries `h` instead of `d`. */
  descriptionHash?: string;
  expirySeconds: number;
  minFinalCltvExpiryDelta: number;
  /** Set feature bits, ascending. */
  featureBits: number[];
  /** Hex, 33-byte compressed key: the `n` field when present (and verified), else recovered from the signature. */
  payeeNodeKey: string;
  /** Hex, 64-byte compact r || s, as found (possibly high-S when recovered without `n`). */
  signature: string;
  recoveryId: number;
  /** Every tagged field in invoice order, raw, unknown and skipped ones included. */
  fields: TaggedField[];
}

/** Decodes and verifies a BOLT #11 invoice; throws InvoiceDecodeError saying what is wrong. */
export function decodeInvoice(text: string): DecodedInvoice {
  const { hrp, words } = decodeBech32(text);
  const { network, prefix, amountMsat } = parseHrp(hrp);
  if (words.length < TIMESTAMP_WORDS + SIGNATURE_WORDS) {
    throw new InvoiceDecodeError(
      `invoice is too short: ${words.length} data words, a timestamp and signature alone take ${TIMESTAMP_WORDS + SIGNATURE_WORDS}`,
    );
  }
  const dataWords = words.slice(0, -SIGNATURE_WORDS);
  const fields = wordsToFields(dataWords.slice(TIMESTAMP_WORDS));
  const values = readFields(fields);

  const paymentHash = values.bytes.get('p');
  if (paymentHash === undefined) throw new InvoiceDecodeError('missing payment hash (no p field of 52 words)');
  const paymentSecret = values.bytes.get('s');
  if (paymentSecret === undefined) throw new InvoiceDecodeError('missing payment secret (no s field of 52 words)');
  const descriptionHash = values.bytes.get('h');
  if (values.description !== undefined && descriptionHash !== undefined) {
    throw new InvoiceDecodeError('invoice has both a description (d) and a description hash (h); exactly one is allowed');
  }
  if (values.description === undefined && descriptionHash === undefined) {
    throw new InvoiceDecodeError('invoice has neither a description (d) nor a description hash (h)');
  }
  const featureProblem = invoiceFeaturesProblem(values.featureBits);
  if (featureProblem !== null) throw new InvoiceDecodeError(featureProblem);

  const signatureBytes = wordsToBytes(words.slice(-SIGNATURE_WORDS), 'trim');
  const signature = signatureBytes.subarray(0, 64);
  const recoveryId = signatureBytes[64] ?? -1;
  if (recoveryId > 3) throw new InvoiceDecodeError(`signature recovery id must be 0..3, got ${recoveryId}`);
  const messageHash = invoiceSigningHash(hrp, dataWords);
  const payeeNodeKey = values.bytes.get('n');
  const nodeKey =
    payeeNodeKey === undefined
      ? recoverNodeKey(signature, recoveryId, messageHash)
      : verifyNodeKey(signature, messageHash, payeeNodeKey);

  const amountSats = amountMsat !== null && amountMsat % 1000n === 0n ? Number(amountMsat / 1000n) : null;
  return {
    network,
    prefix,
    hrp,
    amountMsat,
    amountSats: amountSats !== null && Number.isSafeInteger(amountSats) ? amountSats : null,
    timestampSeconds: wordsToInt(dataWords.slice(0, TIMESTAMP_WORDS)),
    paymentHash: bytesToHex(paymentHash),
    paymentSecret: bytesToHex(paymentSecret),
    ...(values.description !== undefined && { description: values.description }),
    ...(descriptionHash !== undefined && { descriptionHash: bytesToHex(descriptionHash) }),
    expirySeconds: values.expirySeconds ?? DEFAULT_EXPIRY_SECONDS,
    minFinalCltvExpiryDelta: values.minFinalCltvExpiryDelta ?? DEFAULT_MIN_FINAL_CLTV_EXPIRY_DELTA,
    featureBits: values.featureBits,
    payeeNodeKey: bytesToHex(nodeKey),
    signature: bytesToHex(signature),
    recoveryId,
    fields,
  };
}

function decodeBech32(text: string): { hrp: string; words: number[] } {
  if (typeof text !== 'string') throw new InvoiceDecodeError('an invoice must be a string');
  // Checked before bech32 so the message names the actual problem rather than a generic failure.
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) {
    throw new InvoiceDecodeError('invoice mixes upper and lower case');
  }
  if (text.lastIndexOf('1') < 1) throw new InvoiceDecodeError('invoice has no "1" separating its prefix from its data');
  try {
    const { prefix, words } = bech32.decode(text, false);
    return { hrp: prefix, words };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (/checksum/i.test(reason)) throw new InvoiceDecodeError('invoice has an invalid bech32 checksum');
    throw new InvoiceDecodeError(`invoice is not valid bech32: ${reason}`);
  }
}

function parseHrp(hrp: string): { network: Network; prefix: string; amountMsat: bigint | null } {
  // No prefix contains a digit, and every amount starts with one.
  const amountStart = hrp.search(/[0-9]/);
  const prefix = amountStart < 0 ? hrp : hrp.slice(0, amountStart);
  const amount = amountStart < 0 ? '' : hrp.slice(amountStart);
  if (!prefix.startsWith('ln')) throw new InvoiceDecodeError(`"${hrp}" is not a Lightning invoice prefix (it must start with ln)`);
  const network = networkOfPrefix(prefix);
  if (network === undefined) throw new InvoiceDecodeError(`unknown network prefix "${prefix}" (expected lnbc, lntb, lntbs or lnbcrt)`);
  return { network, prefix, amountMsat: amount === '' ? null : parseHrpAmount(amount) };
}

interface FieldValues {
  bytes: Map<string, Uint8Array>;
  description?: string;
  expirySeconds?: number;
  minFinalCltvExpiryDelta?: number;
  featureBits: number[];
}

// The first usable field of each kind wins: BOLT #11 orders repeated fields by preference.
function readFields(fields: readonly TaggedField[]): FieldValues {
  const values: FieldValues = { bytes: new Map(), featureBits: [] };
  let seenFeatures = false;
  for (const { tag, words } of fields) {
    const fixedLength = FIXED_FIELD_WORDS[tag];
    if (fixedLength !== undefined) {
      if (words.length === fixedLength && !values.bytes.has(tag)) values.bytes.set(tag, wordsToBytes(words, 'trim'));
    } else if (tag === 'd' && values.description === undefined) {
      values.description = utf8OfField(words);
    } else if (tag === 'x' && values.expirySeconds === undefined) {
      values.expirySeconds = intOfField(tag, words);
    } else if (tag === 'c' && values.minFinalCltvExpiryDelta === undefined) {
      values.minFinalCltvExpiryDelta = intOfField(tag, words);
    } else if (tag === '9' && !seenFeatures) {
      values.featureBits = featureBitsOf(words);
      seenFeatures = true;
    }
  }
  return values;
}

function utf8OfField(words: readonly number[]): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(wordsToBytes(words, 'trim'));
  } catch {
    throw new InvoiceDecodeError('description (d) is not valid UTF-8');
  }
}

function intOfField(tag: string, words: readonly number[]): number {
  try {
    return wordsToInt(words);
  } catch {
    throw new InvoiceDecodeError(`field ${tag} holds a number larger than 2^53 - 1`);
  }
}

function recoverNodeKey(signature: Uint8Array, recoveryId: number, messageHash: Uint8Array): Uint8Array {
  try {
    // High-S is accepted here on purpose: the spec's valid examples include one (BOLT #11 only
    // demands low-S when an `n` field is used to verify instead of recovering).
    return secp256k1.recoverPublicKey(concatBytes(Uint8Array.of(recoveryId), signature), messageHash, { prehash: false });
  } catch {
    throw new InvoiceDecodeError('signature is not recoverable to a public key');
  }
}

function verifyNodeKey(signature: Uint8Array, messageHash: Uint8Array, nodeKey: Uint8Array): Uint8Array {
  let highS: boolean;
  try {
    highS = secp256k1.Signature.fromBytes(signature, 'compact').hasHighS();
  } catch {
    throw new InvoiceDecodeError('signature is malformed (r or s out of range)');
  }
  if (highS) throw new InvoiceDecodeError('signature is not low-S, which BOLT #11 requires when an n field is present');
  if (!secp256k1.verify(signature, messageHash, nodeKey, { prehash: false, lowS: true })) {
    throw new InvoiceDecodeError('signature does not verify against the payee node key in the n field');
  }
  return nodeKey;
}
