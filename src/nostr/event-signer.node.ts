/**
 * Nostr events signed and checked with libsecp256k1 in WASM (tiny-secp256k1, already the invoices'
 * signer on Node): BIP-340 Schnorr, the same signatures any implementation checks.
 */
import { randomBytes } from 'node:crypto';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { getEventHash } from 'nostr-tools/pure';
import { signSchnorr, verifySchnorr, xOnlyPointFromScalar } from 'tiny-secp256k1';
import type { NostrEventSigner } from './event-signer.js';

const HEX_64 = /^[0-9a-f]{64}$/;
const HEX_128 = /^[0-9a-f]{128}$/;
/** Pubkeys of the secret keys used, so each is derived once; the sandbox's wallets are few. */
const pubkeys = new Map<string, string>();
const MAX_CACHED_PUBKEYS = 10_000;

function pubkeyOf(secretKey: Uint8Array): string {
  const secret = bytesToHex(secretKey);
  let pubkey = pubkeys.get(secret);
  if (pubkey === undefined) {
    if (pubkeys.size >= MAX_CACHED_PUBKEYS) pubkeys.clear();
    pubkeys.set(secret, (pubkey = bytesToHex(xOnlyPointFromScalar(secretKey))));
  }
  return pubkey;
}

export const wasmEventSigner: NostrEventSigner = {
  finalize(template, secretKey) {
    const unsigned = { kind: template.kind, created_at: template.created_at, tags: template.tags, content: template.content, pubkey: pubkeyOf(secretKey) };
    const id = getEventHash(unsigned);
    return { ...unsigned, id, sig: bytesToHex(signSchnorr(hexToBytes(id), secretKey, randomBytes(32))) };
  },
  verify(event) {
    if (!HEX_64.test(event.id) || !HEX_64.test(event.pubkey) || !HEX_128.test(event.sig)) return false;
    if (getEventHash(event) !== event.id) return false;
    try {
      return verifySchnorr(hexToBytes(event.id), hexToBytes(event.pubkey), hexToBytes(event.sig));
    } catch {
      return false; // not a point on the curve
    }
  },
};
