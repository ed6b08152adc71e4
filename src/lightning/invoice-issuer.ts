/** The engine's `InvoiceIssuer` port over this folder's BOLT #11 encoder and decoder. */
import type { InvoiceIssuer, RecoverableSigner } from '../core/ports.js';
import { decodeInvoice } from './bolt11-decode.js';
import { createInvoice } from './invoice.js';
import type { Network } from './networks.js';

/** Issues invoices on `network`, signed by `signer`. */
export function createInvoiceIssuer(network: Network, signer: RecoverableSigner): InvoiceIssuer {
  return {
    issue: ({ nodePrivateKey, ...input }) => createInvoice({ network, ...input }, nodePrivateKey, signer),
    paymentHashOf: (invoice) => decodeInvoice(invoice).paymentHash,
  };
}
