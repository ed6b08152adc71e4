/**
 * The Bitcoin networks an invoice can name, and the BOLT #11 prefix of each. One table serves
 * both directions so the encoder and decoder can never disagree on a prefix.
 */

/** A Bitcoin network the sandbox issues invoices for. */
export type Network = 'mainnet' | 'testnet' | 'signet' | 'regtest';

/** Every supported network, mainnet first. */
export const NETWORKS: readonly Network[] = ['mainnet', 'testnet', 'signet', 'regtest'];

/** The invoice prefix (`ln` + BIP-0173 currency prefix) of each network. */
export const INVOICE_PREFIXES: Readonly<Record<Network, string>> = {
  mainnet: 'lnbc',
  testnet: 'lntb',
  signet: 'lntbs',
  regtest: 'lnbcrt',
};

/** The network whose invoice prefix is exactly `prefix` (lower case), or undefined. */
export function networkOfPrefix(prefix: string): Network | undefined {
  // Exact match only: `lntb` is a prefix of `lntbs` and `lnbc` of `lnbcrt`.
  return NETWORKS.find((network) => INVOICE_PREFIXES[network] === prefix);
}
