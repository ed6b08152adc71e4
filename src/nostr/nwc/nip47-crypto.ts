/**
 * Encryption of NIP-47 contents, in the scheme the `encryption` tag names: NIP-44 v2 (preferred)
 * or NIP-04 (legacy, for wallets and clients that predate NIP-44).
 *
 * A NIP-44 conversation key costs an ECDH and an HKDF; a wallet answers every request of a
 * connection with the same pair of keys, so the key is kept per (secret key, peer) pair. The cache
 * hangs off the secret key's Uint8Array (a WeakMap), so it goes when the connection that holds the
 * key goes. NIP-04 goes through nostr-tools as is (one ECDH per message): it is the legacy path.
 */
import * as nip04 from 'nostr-tools/nip04';
import * as nip44 from 'nostr-tools/nip44';
import type { Nip47Encryption } from './nip47.js';

/** Peers remembered per secret key; a wallet connection has one, a client one per wallet. */
const MAX_PEERS_PER_KEY = 256;

const conversationKeys = new WeakMap<Uint8Array, Map<string, Uint8Array>>();

/** The NIP-44 v2 conversation key of `secretKey` and `peerPubkey`, computed once per pair. */
export function nip44ConversationKey(secretKey: Uint8Array, peerPubkey: string): Uint8Array {
  let peers = conversationKeys.get(secretKey);
  if (!peers) {
    peers = new Map();
    conversationKeys.set(secretKey, peers);
  }
  const cached = peers.get(peerPubkey);
  if (cached) return cached;
  const key = nip44.v2.utils.getConversationKey(secretKey, peerPubkey);
  if (peers.size >= MAX_PEERS_PER_KEY) peers.delete(peers.keys().next().value!);
  peers.set(peerPubkey, key);
  return key;
}

export function nip47Encrypt(encryption: Nip47Encryption, secretKey: Uint8Array, peerPubkey: string, plaintext: string): string {
  return encryption === 'nip04'
    ? nip04.encrypt(secretKey, peerPubkey, plaintext)
    : nip44.v2.encrypt(plaintext, nip44ConversationKey(secretKey, peerPubkey));
}

/** Throws when the payload is not one `encryption` made between these keys. */
export function nip47Decrypt(encryption: Nip47Encryption, secretKey: Uint8Array, peerPubkey: string, payload: string): string {
  return encryption === 'nip04'
    ? nip04.decrypt(secretKey, peerPubkey, payload)
    : nip44.v2.decrypt(payload, nip44ConversationKey(secretKey, peerPubkey));
}
