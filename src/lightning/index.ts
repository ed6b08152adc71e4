/**
 * The browser-safe Lightning API: BOLT #11 invoices, node keys, preimages. The faster Node signer
 * lives in `signer.node.ts` and is imported from there, so browser bundles never pull in WASM.
 */
export { msatToHrpAmount, parseHrpAmount, satsToHrpAmount } from './amount.js';
export {
  decodeInvoice,
  DEFAULT_EXPIRY_SECONDS,
  DEFAULT_MIN_FINAL_CLTV_EXPIRY_DELTA,
  type DecodedInvoice,
} from './bolt11-decode.js';
export { encodeInvoice, type UnsignedInvoice } from './bolt11-encode.js';
export { InvoiceDecodeError } from './errors.js';
export {
  createInvoice,
  MAX_AMOUNT_SATS,
  MAX_DESCRIPTION_BYTES,
  MIN_FINAL_CLTV_EXPIRY_DELTA,
  type InvoiceInput,
} from './invoice.js';
export { INVOICE_PREFIXES, NETWORKS, networkOfPrefix, type Network } from './networks.js';
export { nodeKeyFromSeed, parsePrivateKey, publicKeyOf } from './node-key.js';
export { newPaymentSecret, newPreimage, paymentHashOf, type RandomBytes } from './preimage.js';
export { nobleSigner } from './signer.js';
export type { TaggedField } from './tagged-fields.js';
