/**
 * Re-signed invoices for faults: the default node keys are public (SHA-256 of a label, see the
 * README), so a fault can change one thing in an invoice — drop the payment secret, move the
 * timestamp, change the description — and sign it again with the key that signed the original.
 * The result is a valid BOLT #11 invoice that is wrong in exactly that one thing (or signed by
 * another node: the service's, or one made up).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
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

/** The private key of the service's node: the signer of the default sandbox's custodial invoices. */
export const SERVICE_NODE_KEY = parsePrivateKey(DEFAULT_ACCOUNTS.serviceNodeKey!);

/** The private key of the default NWC account's connected wallet: the signer of its invoices. */
export const NWC_WALLET_NODE_KEY = parsePrivateKey(DEFAULT_ACCOUNTS.accounts.find((account) => account.id === 'acct_nwc')!.walletNodeKey!);

/** A private key derived from `label` (SHA-256), for invoices signed by a node nobody runs. */
export function labelledNodeKey(label: string): Uint8Array {
  return parsePrivateKey(bytesToHex(sha256(utf8ToBytes(label))));
}

/** `invoice` with `edit` applied, signed again by the node that signed it, or by `signWith`. */
export function resignInvoice(invoice: string, edit: (decoded: DecodedInvoice) => InvoiceEdit, signWith?: Uint8Array): string {
  const decoded = decodeInvoice(invoice);
  const key = signWith ?? KEYS_BY_NODE_ID.get(decoded.payeeNodeKey);
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
