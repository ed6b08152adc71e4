/**
 * The `duplicate` fault decides from the event id, not from a random draw, so a run that sees the
 * same events sees the same duplicates: a failing receiver test can be repeated.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';

/** A number in [0, 1) fixed by the event id and what is being decided. */
export function eventFraction(eventId: string, decision: string): number {
  const digest = sha256(utf8ToBytes(`${eventId}:${decision}`));
  return (((digest[0]! << 24) | (digest[1]! << 16) | (digest[2]! << 8) | digest[3]!) >>> 0) / 2 ** 32;
}

/** Whether an endpoint with `duplicate: probability` gets a second delivery of this event. */
export function sendsDuplicate(eventId: string, probability: number | undefined): boolean {
  return probability !== undefined && probability > 0 && eventFraction(eventId, 'duplicate') < probability;
}
