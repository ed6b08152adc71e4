/**
 * The Nostr and node keys of the sandbox's wallets. A test wallet draws its keys at creation and
 * stores them; an NWC account's sandbox-run connected wallet derives its own from the account's
 * `walletNodeKey`, so its NWC connection stays the same across restarts without being stored.
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/** The x-only public key (hex) of a Nostr secret key (hex), as NIP-01 writes pubkeys. */
export function nostrPubkeyOf(secretHex: string): string {
  return bytesToHex(schnorr.getPublicKey(hexToBytes(secretHex)));
}

/** A key derived from another for one purpose: SHA-256 of a label and the key. */
function derived(label: string, key: Uint8Array): string {
  return bytesToHex(sha256(concatBytes(utf8ToBytes(`lnpr-sandbox/${label}`), key)));
}

/** The keys of an NWC account's sandbox-run connected wallet. */
export function merchantWalletKeys(walletNodeKey: Uint8Array): { serviceSecret: string; clientSecret: string } {
  return { serviceSecret: derived('nwc-wallet-service', walletNodeKey), clientSecret: derived('nwc-client', walletNodeKey) };
}

/** A test wallet's node key (its invoices' signer), derived from its service secret. */
export function testWalletNodeKey(serviceSecret: string): Uint8Array {
  return hexToBytes(derived('test-wallet-node', hexToBytes(serviceSecret)));
}
