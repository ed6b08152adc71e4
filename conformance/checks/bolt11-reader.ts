/**
 * Reading an invoice independently of the target (and of this project's own encoder): the `bolt11`
 * npm package decodes it, and the signature is verified a second time here with @noble/curves over
 * the BOLT11 signing data (hrp as UTF-8, then the data words before the signature, zero-padded).
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';
import bolt11 from 'bolt11';

/** Networks by their BOLT11 currency prefix; longer prefixes first (`bcrt` before `bc`, `tbs` before `tb`). */
const NETWORKS: ReadonlyArray<[string, string]> = [
  ['bcrt', 'regtest'],
  ['bc', 'mainnet'],
  ['tbs', 'signet'],
  ['tb', 'testnet'],
  ['sb', 'simnet'],
];

/** The bolt11 package knows signet only as a network object. */
const SIGNET = { bech32: 'tbs', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] };

/** What the checks compare, read by the bolt11 package. */
export interface DecodedInvoice {
  prefix: string;
  network: string;
  /** Amount in millisatoshis as a decimal string, or null for an invoice without an amount. */
  millisatoshis: string | null;
  timestamp: number;
  /** 33-byte compressed key recovered from the signature, hex. */
  payeeNodeKey: string;
  paymentHash?: string;
  paymentSecret?: string;
  description?: string;
  descriptionHash?: string;
  /** `x`, or 3600 when absent (BOLT11's default). */
  expireTime: number;
  expireTimeTagged: boolean;
  payeeNodeKeyTag?: string;
}

/** The network of an invoice's human-readable prefix, or undefined for an unknown currency. */
export function networkOf(invoice: string): string | undefined {
  const lower = invoice.toLowerCase();
  if (!lower.startsWith('ln')) return undefined;
  for (const [currency, network] of NETWORKS) {
    // After the currency comes the amount (a digit) or the separator `1`.
    if (lower.startsWith(`ln${currency}`) && /^[0-9]/.test(lower.slice(2 + currency.length))) return network;
  }
  return undefined;
}

/** Decodes with the bolt11 package; throws with its message when it rejects the invoice. */
export function decodeInvoice(invoice: string): DecodedInvoice {
  const network = networkOf(invoice);
  if (network === undefined) throw new Error(`unknown network prefix "${invoice.slice(0, 8)}…" (expected lnbc, lntb, lntbs, lnbcrt or lnsb)`);
  const decoded = bolt11.decode(invoice, network === 'signet' ? (SIGNET as never) : undefined);
  const tag = (name: string): any => decoded.tags.find((t) => t.tagName === name)?.data;
  const expire = tag('expire_time');
  return {
    prefix: decoded.prefix ?? '',
    network,
    millisatoshis: decoded.millisatoshis ?? null,
    timestamp: decoded.timestamp ?? -1,
    payeeNodeKey: decoded.payeeNodeKey ?? '',
    ...(tag('payment_hash') !== undefined ? { paymentHash: tag('payment_hash') } : {}),
    ...(tag('payment_secret') !== undefined ? { paymentSecret: tag('payment_secret') } : {}),
    ...(tag('description') !== undefined ? { description: tag('description') } : {}),
    ...(tag('purpose_commit_hash') !== undefined ? { descriptionHash: tag('purpose_commit_hash') } : {}),
    ...(tag('payee_node_key') !== undefined ? { payeeNodeKeyTag: tag('payee_node_key') } : {}),
    expireTime: typeof expire === 'number' ? expire : 3600,
    expireTimeTagged: typeof expire === 'number',
  };
}

/** 5-bit words to bytes, zero bits appended up to a byte boundary (BOLT11's signing data). */
function wordsToPaddedBytes(words: readonly number[]): Uint8Array {
  const bytes: number[] = [];
  let accumulator = 0;
  let bits = 0;
  for (const word of words) {
    accumulator = (accumulator << 5) | word;
    bits += 5;
    while (bits >= 8) {
      bits -= 8;
      bytes.push((accumulator >> bits) & 0xff);
    }
    accumulator &= (1 << bits) - 1;
  }
  if (bits > 0) bytes.push((accumulator << (8 - bits)) & 0xff);
  return Uint8Array.from(bytes);
}

/**
 * Verifies the signature with @noble/curves: recovers the key from the signing data and returns it
 * (hex). Throws when no key recovers (a signature out of range, a bad recovery flag). A recovered
 * key verifies the signature by construction, so the caller compares it with the key the bolt11
 * package recovered (and the n field names): two decoders, one signer.
 */
export function verifyInvoiceSignature(invoice: string): string {
  const { prefix, words } = bech32.decode(invoice.toLowerCase() as `${string}1${string}`, false);
  if (words.length < 104 + 7) throw new Error(`the data part is too short for a timestamp and a signature (${words.length} words)`);
  const signatureBytes = wordsToPaddedBytes(words.slice(-104)).slice(0, 65);
  const recovery = signatureBytes[64]!;
  if (recovery > 3) throw new Error(`the recovery flag is ${recovery}, expected 0 to 3`);
  const compact = signatureBytes.slice(0, 64);
  const hash = sha256(concatBytes(utf8ToBytes(prefix), wordsToPaddedBytes(words.slice(0, -104))));
  const signature = secp256k1.Signature.fromBytes(compact, 'compact').addRecoveryBit(recovery);
  return bytesToHex(signature.recoverPublicKey(hash).toBytes(true));
}
