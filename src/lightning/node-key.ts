/**
 * Node keys: the secp256k1 keys invoices are signed with. Default keys derive from a label so
 * they are stable across runs and machines (fixtures and recorded invoices stay valid) without
 * shipping a secret; configured keys are parsed with errors that never echo the key.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/** The node id of a private key: its 33-byte compressed public key, hex. */
export function publicKeyOf(privateKey: Uint8Array): string {
  return bytesToHex(secp256k1.getPublicKey(privateKey, true));
}

/** A deterministic private key for a label: SHA-256 of its UTF-8 bytes. */
export function nodeKeyFromSeed(label: string): Uint8Array {
  const key = sha256(utf8ToBytes(label));
  // A hash is out of range (0 or >= n) with probability ~2^-128; refuse rather than alter it silently.
  if (!secp256k1.utils.isValidSecretKey(key)) throw new Error(`the seed "${label}" does not give a valid secp256k1 key`);
  return key;
}

/** A private key from 64 hex characters; throws an Error naming the problem (never the key). */
export function parsePrivateKey(hex: string): Uint8Array {
  if (typeof hex !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new Error('a node private key must be 64 hex characters (32 bytes)');
  }
  const key = hexToBytes(hex.toLowerCase());
  if (!secp256k1.utils.isValidSecretKey(key)) throw new Error('a node private key must be in 1..n-1 of secp256k1 (not zero, below the curve order)');
  return key;
}
