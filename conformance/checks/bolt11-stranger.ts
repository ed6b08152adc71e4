/**
 * An invoice no target issued: the network and amount of one it did, a random payment hash and
 * secret, signed by a random key (with the `bolt11` package, not this project's encoder). What a
 * control call that pays invoices must answer as unknown.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';
import bolt11 from 'bolt11';
import { networkOf } from './bolt11-reader.js';

/** The network objects the bolt11 package encodes with, by the network's name. */
const NETWORKS: Record<string, { bech32: string; pubKeyHash: number; scriptHash: number; validWitnessVersions: number[] }> = {
  regtest: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  mainnet: { bech32: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, validWitnessVersions: [0, 1] },
  signet: { bech32: 'tbs', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  testnet: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
};

/** A signed invoice like `issued` (its network, regtest if it has none this knows; `sats` as the amount) that nobody issued. */
export function strangerInvoiceLike(issued: string, sats: number): string {
  const network = NETWORKS[networkOf(issued) ?? 'regtest'] ?? NETWORKS.regtest;
  const encoded = bolt11.encode({
    network: network as never,
    satoshis: sats,
    timestamp: Math.floor(Date.now() / 1000),
    tags: [
      { tagName: 'payment_hash', data: bytesToHex(randomBytes(32)) },
      { tagName: 'payment_secret', data: bytesToHex(randomBytes(32)) },
      { tagName: 'description', data: 'lnpr conformance: an invoice nobody issued' },
      { tagName: 'expire_time', data: 3600 },
    ],
  });
  return bolt11.sign(encoded, bytesToHex(secp256k1.utils.randomSecretKey())).paymentRequest!;
}
