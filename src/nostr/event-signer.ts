/**
 * Signing and checking Nostr events, as a port: nostr-tools' pure-JS secp256k1 by default
 * (browser-safe), libsecp256k1 in WASM on Node (`event-signer.node.ts`), about ten times faster;
 * a NIP-47 payment signs about seven events and checks up to thirteen.
 */
import { finalizeEvent, verifyEvent, type EventTemplate } from 'nostr-tools/pure';
import type { NostrEvent } from './relay-session.js';

export interface NostrEventSigner {
  /** The event with its pubkey, id and signature. */
  finalize(template: EventTemplate, secretKey: Uint8Array): NostrEvent;
  /** Whether the id is the event's hash and the signature its pubkey's. */
  verify(event: NostrEvent): boolean;
}

/** nostr-tools' own. */
export const pureEventSigner: NostrEventSigner = {
  finalize: (template, secretKey) => finalizeEvent(template, secretKey),
  // A copy: nostr-tools trusts a mark finalizeEvent leaves on the objects it made.
  verify: (event) => verifyEvent({ ...event }),
};
