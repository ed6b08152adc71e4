/**
 * The `bolt11` npm package as an independent decoder: what our invoices must satisfy besides our
 * own decoder. It knows mainnet, testnet and regtest; signet is passed as a network object.
 */
import bolt11 from 'bolt11';

const SIGNET = { bech32: 'tbs', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] };

/** What the package reads from an invoice, flattened to the fields the tests compare. */
export interface IndependentDecode {
  prefix: string;
  satoshis: number | null;
  timestamp: number;
  payeeNodeKey: string;
  paymentHash: string;
  paymentSecret: string;
  description?: string;
  descriptionHash?: string;
  expireTime: number;
  minFinalCltvExpiry?: number;
}

/** Decodes `invoice` with the bolt11 package (throws when it rejects it). */
export function decodeIndependently(invoice: string): IndependentDecode {
  const decoded = bolt11.decode(invoice, invoice.startsWith('lntbs') ? (SIGNET as never) : undefined);
  const tag = (name: string) => decoded.tags.find((t) => t.tagName === name)?.data as never;
  return {
    prefix: decoded.prefix ?? '',
    satoshis: decoded.satoshis ?? null,
    timestamp: decoded.timestamp ?? -1,
    // Recovered from the signature: equal to the signer's public key only if the signature is sound.
    payeeNodeKey: decoded.payeeNodeKey ?? '',
    paymentHash: tag('payment_hash'),
    paymentSecret: tag('payment_secret'),
    ...(tag('description') !== undefined ? { description: tag('description') } : {}),
    ...(tag('purpose_commit_hash') !== undefined ? { descriptionHash: tag('purpose_commit_hash') } : {}),
    expireTime: tag('expire_time') ?? 3600,
    minFinalCltvExpiry: tag('min_final_cltv_expiry'),
  };
}
