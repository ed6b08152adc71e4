/**
 * Re-signed invoices for faults: the default node keys are public (SHA-256 of a label, see the
 * README), so a fault can change one thing in an invoice — drop the payment secret, move the
 * timestamp, change the description — and sign it again with the key that signed the original.
 * The result is a valid BOLT #11 invoice that is wrong in exactly that one thing.
 */
import { DEFAULT_ACCOUNTS } from '../../src/sandbox.js';
import { decodeInvoice, type DecodedInvoice } from '../../src/lightning/bolt11-decode.js';
import { encodeInvoice } from '../../src/lightning/bolt11-encode.js';
import { parsePrivateKey, publicKeyOf } from '../../src/lightning/node-key.js';
import { nobleSigner } from '../../src/lightning/signer.js';
import type { TaggedField } from '../../src/lightning/tagged-fields.js';

/** The private keys of the default accounts' invoices, by public key. */
const KEYS_BY_NODE_ID = new Map<string, Uint8Array>(
  [DEFAULT_ACCOUNTS.serviceNodeKey, ...DEFAULT_ACCOUNTS.accounts.map((account) => account.walletNodeKey)]
    .filter((hex): hex is string => typeof hex === 'string')
    .map((hex) => {
      const key = parsePrivateKey(hex);
      return [publicKeyOf(key), key];
    }),
);

/** What a re-signed invoice changes. */
export interface InvoiceEdit {
  hrp?: string;
  timestampSeconds?: number;
  fields?: TaggedField[];
}

/** `invoice` with `edit` applied, signed again by the node that signed it. */
export function resignInvoice(invoice: string, edit: (decoded: DecodedInvoice) => InvoiceEdit): string {
  const decoded = decodeInvoice(invoice);
  const key = KEYS_BY_NODE_ID.get(decoded.payeeNodeKey);
  if (key === undefined) throw new Error(`no known private key for node ${decoded.payeeNodeKey}`);
  const changes = edit(decoded);
  return encodeInvoice(
    {
      hrp: changes.hrp ?? decoded.hrp,
      timestampSeconds: changes.timestampSeconds ?? decoded.timestampSeconds,
      fields: changes.fields ?? decoded.fields,
    },
    key,
    nobleSigner,
  );
}
