/**
 * The invoice the engine issues: the field choices that make real nodes (Core Lightning, LND)
 * accept it, not just lenient JS decoders. Always a payment secret; features 8 and 14 in the
 * minimal three words; an explicit `c`; exactly one of `d`/`h`; an explicit `x`.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { InvoiceInput as EngineInvoiceInput, RecoverableSigner } from '../core/ports.js';
import { satsToHrpAmount } from './amount.js';
import { encodeInvoice } from './bolt11-encode.js';
import { featureBitsToWords, PAYMENT_SECRET_REQUIRED, VAR_ONION_OPTIN_REQUIRED } from './features.js';
import { INVOICE_PREFIXES, NETWORKS, type Network } from './networks.js';
import type { TaggedField } from './tagged-fields.js';
import { bytesToWords, intToWords } from './words.js';

/** The `c` the sandbox writes: a common node default, well above the BOLT #11 floor of 18. */
export const MIN_FINAL_CLTV_EXPIRY_DELTA = 80;

/** Longest description (UTF-8 bytes) that fits a `d` field's 1023 words; longer ones go as `h`. */
export const MAX_DESCRIPTION_BYTES = 639;

/** 21 million BTC in satoshis: no invoice can ask for more bitcoin than exists. */
export const MAX_AMOUNT_SATS = 2_100_000_000_000_000;

/** The engine's invoice input (its port), with the network and without the key, which `createInvoice` takes apart. */
export type InvoiceInput = Omit<EngineInvoiceInput, 'nodePrivateKey'> & { network: Network };

/** Issues a signed BOLT #11 invoice (fields p, s, d|h, x, c, 9, in that order). */
export function createInvoice(input: InvoiceInput, nodePrivateKey: Uint8Array, signer: RecoverableSigner): string {
  const { network, amountSats, timestampSeconds, paymentHash, paymentSecret, description, expirySeconds } = input;
  if (!NETWORKS.includes(network)) throw new RangeError(`unknown network "${network}"`);
  if (!Number.isSafeInteger(amountSats) || amountSats < 1 || amountSats > MAX_AMOUNT_SATS) {
    throw new RangeError(`amountSats must be a whole number in 1..${MAX_AMOUNT_SATS}, got ${amountSats}`);
  }
  if (paymentHash.length !== 32) throw new RangeError(`paymentHash must be 32 bytes, got ${paymentHash.length}`);
  if (paymentSecret.length !== 32) throw new RangeError(`paymentSecret must be 32 bytes, got ${paymentSecret.length}`);
  if (!Number.isSafeInteger(expirySeconds) || expirySeconds < 1) {
    throw new RangeError(`expirySeconds must be a positive whole number, got ${expirySeconds}`);
  }
  const { descriptionHash } = input;
  if (descriptionHash !== undefined && descriptionHash.length !== 32) throw new RangeError(`descriptionHash must be 32 bytes, got ${descriptionHash.length}`);
  const descriptionBytes = utf8ToBytes(description);
  // Exactly one of d/h (BOLT #11): a given hash wins; a description too long for `d` goes as its hash.
  const descriptionField: TaggedField =
    descriptionHash !== undefined
      ? { tag: 'h', words: bytesToWords(descriptionHash) }
      : descriptionBytes.length <= MAX_DESCRIPTION_BYTES
        ? { tag: 'd', words: bytesToWords(descriptionBytes) }
        : { tag: 'h', words: bytesToWords(sha256(descriptionBytes)) };
  const fields: TaggedField[] = [
    { tag: 'p', words: bytesToWords(paymentHash) },
    { tag: 's', words: bytesToWords(paymentSecret) },
    descriptionField,
    { tag: 'x', words: intToWords(expirySeconds) },
    { tag: 'c', words: intToWords(MIN_FINAL_CLTV_EXPIRY_DELTA) },
    { tag: '9', words: featureBitsToWords([VAR_ONION_OPTIN_REQUIRED, PAYMENT_SECRET_REQUIRED]) },
  ];
  const hrp = INVOICE_PREFIXES[network] + satsToHrpAmount(amountSats);
  return encodeInvoice({ hrp, timestampSeconds, fields }, nodePrivateKey, signer);
}
