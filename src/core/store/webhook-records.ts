/**
 * Events, webhook endpoints and delivery attempts as the engine stores them: the public objects
 * of `src/schemas/webhooks.ts` plus the owning account (and, for a delivery held by the `reorder`
 * fault, the request whose next event releases it). Records are values, replaced and never mutated.
 */
import type { WebhookDelivery, WebhookEndpoint, WebhookEvent } from '../../schemas/webhooks.js';
import { Secret, type WithSecrets } from '../secret.js';

/** An event as stored. */
export interface EventRecord extends WebhookEvent {
  accountId: string;
}

/** A webhook endpoint as stored. */
export interface EndpointRecord extends WebhookEndpoint {
  accountId: string;
  /** Always stored; shown only to keys that may create. */
  secret: string;
}

/** One attempt of a delivery as stored. */
export interface DeliveryRecord extends WebhookDelivery {
  accountId: string;
  /** `reorder`: the payment request whose next event releases this held (`scheduledAt: null`) delivery. */
  heldFor?: string;
}

/** A delivery attempt's key: a delivery's attempts share its id. */
export function deliveryKey(delivery: Pick<DeliveryRecord, 'id' | 'attempt'>): string {
  return `${delivery.id}#${delivery.attempt}`;
}

/** What the control API shows of an event (and what each delivery's body is). */
export function toEventView({ id, type, timestamp, data }: EventRecord): WebhookEvent {
  return { id, type, timestamp, data };
}

/** What the control API shows of an endpoint; its signing secret for keys that may see secrets only (`core/pipeline/secret.ts`). */
export function toEndpointView({ id, url, events, faults, secret, createdAt }: EndpointRecord): WithSecrets<Required<WebhookEndpoint>, 'secret'> {
  return { id, url, events, faults, secret: new Secret(secret), createdAt };
}

/** What the control API shows of a delivery attempt. */
export function toDeliveryView(record: DeliveryRecord): WebhookDelivery {
  const { id, event, endpoint, attempt, status, responseStatus, error, scheduledAt, attemptedAt, durationMs } = record;
  return { id, event, endpoint, attempt, status, responseStatus, error, scheduledAt, attemptedAt, durationMs };
}
