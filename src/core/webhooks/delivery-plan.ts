/**
 * What an event owes the account's endpoints: a delivery to each endpoint whose filter takes its
 * type, shaped by the endpoint's faults (a late first attempt, a duplicate, a `created` event held
 * back for `reorder`). Pure: the change log writes the result together with the event.
 */
import { firstAttemptDueMs } from '../due/due-schedule.js';
import type { RandomSource } from '../ports.js';
import { newId } from '../ids.js';
import { sendsDuplicate } from './fault-decisions.js';
import type { DeliveryRecord, EndpointRecord, EventRecord } from '../store/webhook-records.js';

/** A first attempt of `event` to `endpoint`, due at `dueMs` (null: held). */
export function firstAttempt(event: EventRecord, endpoint: EndpointRecord, dueMs: number | null, random: RandomSource): DeliveryRecord {
  return {
    id: newId('wd_', random),
    accountId: event.accountId,
    event: event.id,
    endpoint: endpoint.id,
    attempt: 1,
    status: 'pending',
    responseStatus: null,
    error: null,
    scheduledAt: dueMs === null ? null : new Date(dueMs).toISOString(),
    attemptedAt: null,
    durationMs: null,
  };
}

/**
 * The deliveries `event` owes, and held deliveries it releases: a `reorder` endpoint's held
 * `created` delivery is released by the request's next event only once that one has been tried
 * (the dispatcher does it), unless the endpoint does not take the next event's type, in which
 * case nothing else would release it and it goes now.
 */
export function planDeliveries(
  event: EventRecord,
  endpoints: EndpointRecord[],
  heldDeliveries: (endpoint: EndpointRecord, paymentRequestId: string) => DeliveryRecord[],
  random: RandomSource,
  nowMs: number,
): DeliveryRecord[] {
  const eventMs = firstAttemptDueMs(event.timestamp, nowMs);
  const planned: DeliveryRecord[] = [];
  for (const endpoint of endpoints) {
    const { faults } = endpoint;
    if (!endpoint.events.includes(event.type)) {
      if (faults.reorder) {
        for (const held of heldDeliveries(endpoint, event.data.id)) planned.push(released(held, eventMs));
      }
      continue;
    }
    const dueMs = firstAttemptDueMs(event.timestamp, nowMs, faults.delaySeconds);
    // The faults compose: a held `created` event that is also duplicated is held twice, and both
    // copies go when the request's next event releases them.
    const held = faults.reorder === true && event.type === 'payment_request.created';
    const copies = sendsDuplicate(event.id, faults.duplicate) ? 2 : 1;
    for (let copy = 0; copy < copies; copy++) {
      planned.push(held ? { ...firstAttempt(event, endpoint, null, random), heldFor: event.data.id } : firstAttempt(event, endpoint, dueMs, random));
    }
  }
  return planned;
}

/** A held delivery, now due at `dueMs`. */
export function released(held: DeliveryRecord, dueMs: number): DeliveryRecord {
  const { heldFor: _released, ...rest } = held;
  return { ...rest, scheduledAt: new Date(dueMs).toISOString() };
}
