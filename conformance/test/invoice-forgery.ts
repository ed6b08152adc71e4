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

/**
 * Where the node keys of accounts made while a run goes come from (`--admin-key` runs make their
 * own NWC account, whose wallet key is random): a faulty implementation signs with its own keys,
 * so the proxy standing in for it may read them from the server behind it. One source per server.
 */
const nodeKeySources = new Set<() => readonly string[]>();

/** Adds a source of private node keys (hex); returns its removal. */
export function signWithKeysOf(source: () => readonly string[]): () => void {
  nodeKeySources.add(source);
  return () => nodeKeySources.delete(source);
}

function keyOfNode(nodeId: string): Uint8Array | undefined {
  const known = KEYS_BY_NODE_ID.get(nodeId);
  if (known !== undefined) return known;
  for (const source of nodeKeySources) {
    for (const hex of source()) {
      const key = parsePrivateKey(hex);
      const id = publicKeyOf(key);
      KEYS_BY_NODE_ID.set(id, key);
      if (id === nodeId) return key;
    }
  }
  return undefined;
}

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
  const key = signWith ?? keyOfNode(decoded.payeeNodeKey);
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
