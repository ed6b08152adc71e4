/**
 * One delivery of an event, signed per Standard Webhooks: the event's JSON as the body, and the
 * headers a receiver verifies it with (`webhook-signature` is `v1,` and the base64 HMAC-SHA256,
 * with the `whsec_` secret, of `webhook-id.webhook-timestamp.body`). The engine's dispatcher and
 * `lnpr webhooks check` both send what this builds, so the check sends exactly what the sandbox
 * does. Signed by the `standardwebhooks` library (pure JS, browser-safe), as receivers verify.
 */
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from '../../schemas/webhooks.js';

/** What a delivery POSTs: Standard Webhooks headers and the event's JSON. */
export interface SignedDelivery {
  headers: {
    'content-type': 'application/json';
    'user-agent': string;
    /** The event id: the same on every attempt, so a receiver can drop duplicates. */
    'webhook-id': string;
    /** Unix seconds of the attempt. */
    'webhook-timestamp': string;
    'webhook-signature': string;
  };
  body: string;
}

/** `event` as one attempt sent at `sentAtMs` (wall time), signed with the endpoint's secret. */
export function signDelivery(event: WebhookEvent, secret: string, sentAtMs: number): SignedDelivery {
  const body = JSON.stringify(event);
  return {
    headers: {
      'content-type': 'application/json',
      'user-agent': 'lnpr-sandbox-webhooks',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(sentAtMs / 1000)),
      'webhook-signature': new Webhook(secret).sign(event.id, new Date(sentAtMs), body),
    },
    body,
  };
}
