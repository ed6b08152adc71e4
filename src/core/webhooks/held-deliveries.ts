/**
 * The `reorder` fault holds a request's `created` delivery back (`scheduledAt: null`) until the
 * request's next event has been tried. The change log looks them up when it plans that event's
 * deliveries, the dispatcher when it has made that event's first attempt.
 */
import type { SandboxStore } from '../store/sandbox-store.js';
import type { DeliveryRecord } from '../store/webhook-records.js';

/** The endpoint's deliveries in `store` held for the payment request's next event. */
export function heldDeliveriesIn(store: Pick<SandboxStore, 'deliveriesOf'>) {
  return (endpoint: { id: string; accountId: string }, paymentRequestId: string): DeliveryRecord[] =>
    store.deliveriesOf(endpoint.accountId).filter((d) => d.endpoint === endpoint.id && d.heldFor === paymentRequestId && d.status === 'pending');
}
