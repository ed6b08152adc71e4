/**
 * A delivery as the sandbox sends one (Standard Webhooks): a POST of the event's JSON with
 * `content-type: application/json`, `webhook-id` (the event id), `webhook-timestamp` (Unix
 * seconds of the attempt) and `webhook-signature` (`v1,` + base64 HMAC-SHA256 with the secret
 * over `id.timestamp.body`). Cases start from this and take something away or change something.
 */
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from './sample-events.js';

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
  const body = JSON.stringify(event);
  return {
    webhookId: event.id,
    eventType: event.type,
    timestamp: timestampSeconds,
    note,
    headers: {
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-timestamp': String(timestampSeconds),
      'webhook-signature': new Webhook(secret).sign(event.id, new Date(timestampSeconds * 1000), body),
    },
    body,
  };
}
