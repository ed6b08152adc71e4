/**
 * A delivery as the sandbox sends one: built by the engine's own signer (Standard Webhooks: a POST
 * of the event's JSON with `content-type`, `user-agent`, `webhook-id`, `webhook-timestamp` and
 * `webhook-signature`), so the check cannot drift from the sandbox. Cases start from this and
 * take something away or change something after signing.
 */
import { signDelivery } from '../core/webhooks/signed-delivery.js';
import type { WebhookEvent } from '../schemas/webhooks.js';

/** One POST to make: its headers and body, and what the report says about it. */
export interface OutgoingDelivery {
  /** The `webhook-id` sent, if any. */
  webhookId: string | undefined;
  eventType: string;
  /** The `webhook-timestamp` sent (Unix seconds), if any. */
  timestamp: number | undefined;
  /** What the case did to it, in a few words. */
  note: string;
  headers: Record<string, string>;
  body: string;
}

/** Unix seconds: what `webhook-timestamp` carries. */
export function unixSeconds(ms: number = Date.now()): number {
  return Math.floor(ms / 1000);
}

/** `event` signed with `secret` for `timestampSeconds`, exactly as the sandbox delivers it. */
export function signedDelivery(event: WebhookEvent, secret: string, timestampSeconds: number, note = 'correctly signed'): OutgoingDelivery {
  return { webhookId: event.id, eventType: event.type, timestamp: timestampSeconds, note, ...signDelivery(event, secret, timestampSeconds * 1000) };
}
