/**
 * The engine's `InvoiceIssuer` port over this folder's BOLT #11 encoder and decoder.
 *
 * `paymentHashOf` remembers the payment hash of the invoices it issued and of those it read: it is
 * a pure function of the text, and decoding verifies the signature by recovering the payee's key
 * (~1.8 ms of pure JS secp256k1), which was most of the CPU of settling a payment request (the
 * ledger reads the hash back from the invoice text on every payment).
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import type { InvoiceIssuer, RecoverableSigner } from '../core/ports.js';
import { decodeInvoice } from './bolt11-decode.js';
import { createInvoice } from './invoice.js';
import type { Network } from './networks.js';

/**
 * How many invoices' payment hashes are remembered (oldest forgotten first): enough for the
 * requests a load test settles soon after making them; one forgotten is decoded again, as before.
 */
export const REMEMBERED_INVOICES = 16_384;
/**
 * Invoices read from outside are remembered only up to this length: the sandbox's own are ~400
 * characters, and a client's (a `pay_invoice` of any text) must not make the memory hold 16,384
 * of the largest a relay message can carry. So it stays under ~32 MiB whatever clients send.
 */
const REMEMBERED_INVOICE_CHARS = 1_024;

/** Issues invoices on `network`, signed by `signer`; `remembered` bounds the hashes kept. */
export function createInvoiceIssuer(network: Network, signer: RecoverableSigner, remembered = REMEMBERED_INVOICES): InvoiceIssuer {
  const hashes = new Map<string, string>();
  // The remembered invoices in the order they came, in a ring: its slot at `oldest` is the next to
  // forget. Not the Map's first key: a Map keeps its deleted entries as holes until it next grows,
  // and `keys().next()` walks over them (up to ~16k: ~5 us on every create once full).
  const order: string[] = [];
  let oldest = 0;
  const remember = (invoice: string, paymentHash: string) => {
    if (hashes.has(invoice)) return;
    if (hashes.size >= remembered) {
      hashes.delete(order[oldest]!);
      order[oldest] = invoice;
      oldest = (oldest + 1) % remembered;
    } else {
      order.push(invoice);
    }
    hashes.set(invoice, paymentHash);
  };
  return {
    issue: ({ nodePrivateKey, ...input }) => {
      const invoice = createInvoice({ network, ...input }, nodePrivateKey, signer);
      // What decoding it would give: the encoder writes `p` from this hash, signed by `signer`.
      remember(invoice, bytesToHex(input.paymentHash));
      return invoice;
    },
    paymentHashOf: (invoice) => {
      const known = hashes.get(invoice);
      if (known !== undefined) return known;
      const { paymentHash } = decodeInvoice(invoice);
      if (invoice.length <= REMEMBERED_INVOICE_CHARS) remember(invoice, paymentHash);
      return paymentHash;
    },
  };
}
