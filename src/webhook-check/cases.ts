/**
 * The cases of `lnpr webhooks check`, in sending order. Each is data plus a plan of deliveries:
 * what is sent, what the receiver should do with it (accept with a 2xx, or refuse), whether that
 * decides the exit status (`required`) or is only reported (`advisory`), and what a receiver
 * that gets it wrong exposes. A case of deliveries that must be refused sends one of every event
 * type, since receivers commonly read `type` first and verify only the types they act on; each
 * carries an event id never sent before, so a receiver's duplicate detection cannot answer for
 * its signature check.
 */
import { EVENT_TYPES, type WebhookEvent } from '../schemas/webhooks.js';
import type { CaseLevel, Expectation } from './result.js';
import { signedDelivery, type OutgoingDelivery } from './outgoing-delivery.js';
import { withNewId, type SampleEvents } from './sample-events.js';

/** What the plans draw on. */
export interface CaseKit {
  /** The receiver's secret. */
  secret: string;
  /** A secret unrelated to the receiver's, as a forger would have. */
  otherSecret: string;
  events: SampleEvents;
}

/** One delivery, built when it is sent: `nowSeconds` is the attempt's real time. */
export type DeliveryPlan = (nowSeconds: number) => OutgoingDelivery;

/** One case. */
export interface WebhookCase {
  /** Stable: reports and CI refer to it. The part before the dot is its group. */
  id: string;
  title: string;
  level: CaseLevel;
  expect: Expectation;
  /** What a receiver that gets this case wrong exposes, and what to do (sentences); shown when it does. */
  consequence: string;
  /** The deliveries, in sending order. */
  plan(kit: CaseKit): DeliveryPlan[];
}

/** Outside Standard Webhooks' 5-minute tolerance, with room for clock skew. */
const STALE_SECONDS = 10 * 60;

const FORGERY =
  'it does not verify webhook-signature, so anyone who learns the URL can announce a payment that never happened. Verify every delivery with the secret (any Standard Webhooks library does) and answer 4xx when it fails.';

/** The cases, in the order they are sent. The first delivery also tells whether the receiver is there at all. */
export const WEBHOOK_CASES: readonly WebhookCase[] = [
  {
    id: 'valid.created',
    title: 'payment_request.created, correctly signed: accepted',
    level: 'required',
    expect: 'accept',
    consequence:
      'Genuine deliveries are refused: the sandbox retries them for a day, then gives up. Is --secret the secret the receiver verifies with, and --url the exact URL it listens on? Answer 2xx to every verified event, even one about a payment request the receiver does not know.',
    plan: ({ secret, events }) => [(now) => signedDelivery(events.first.created, secret, now)],
  },
  {
    id: 'valid.completed',
    title: 'payment_request.completed of the same request, correctly signed: accepted',
    level: 'required',
    expect: 'accept',
    consequence: 'A genuine payment is refused: the merchant never learns it was paid, and the sandbox retries for a day.',
    plan: ({ secret, events }) => [(now) => signedDelivery(events.first.completed, secret, now)],
  },
  {
    id: 'duplicate.redelivered',
    title: 'the same completed event again (same webhook-id and body, signed anew): accepted',
    level: 'advisory',
    expect: 'accept',
    consequence:
      'Deliveries come at least once: a sender that saw no 2xx in time sends the event again with the same webhook-id. Answer 2xx to an event already handled, and handle it only once (keep the webhook-ids seen).',
    plan: ({ secret, events }) => [(now) => signedDelivery(events.first.completed, secret, now, 'a duplicate: same webhook-id and body, signed anew')],
  },
  {
    id: 'order.completed-before-created',
    title: "a second request's completed event, then its created event: both accepted",
    level: 'advisory',
    expect: 'accept',
    consequence:
      'Events can arrive in any order (a retried one is overtaken by the next): accept each, and never let a late created event undo a completed one (compare updatedAt, or fetch the request).',
    plan: ({ secret, events }) => [
      (now) => signedDelivery(events.second.completed, secret, now, 'sent before its created event'),
      (now) => signedDelivery(events.second.created, secret, now, 'sent after its completed event'),
    ],
  },
  {
    id: 'forged.other-secret',
    title: 'signed with another secret (each event type): refused',
    level: 'required',
    expect: 'refuse',
    consequence: `The receiver accepted a forged signature: ${FORGERY}`,
    plan: ({ otherSecret, events }) => ofEveryType(events, (event, now) => signedDelivery(event, otherSecret, now, 'signed with another secret')),
  },
  {
    id: 'forged.no-signature',
    title: 'no webhook-signature header (each event type): refused',
    level: 'required',
    expect: 'refuse',
    consequence: `The receiver accepted an unsigned delivery: ${FORGERY}`,
    plan: ({ secret, events }) => ofEveryType(events, (event, now) => withoutHeaders(signedDelivery(event, secret, now), ['webhook-signature'], 'no webhook-signature header')),
  },
  {
    id: 'forged.no-webhook-headers',
    title: 'none of the webhook-id, webhook-timestamp and webhook-signature headers (each event type): refused',
    level: 'required',
    expect: 'refuse',
    consequence: `The receiver accepted a plain POST of an event: ${FORGERY}`,
    plan: ({ secret, events }) =>
      ofEveryType(events, (event, now) => withoutHeaders(signedDelivery(event, secret, now), ['webhook-id', 'webhook-timestamp', 'webhook-signature'], 'no webhook-* headers')),
  },
  {
    id: 'forged.unknown-version',
    title: 'the right HMAC, but only as an unknown version, v2,… (each event type): refused',
    level: 'advisory',
    expect: 'refuse',
    consequence:
      "The receiver ignores the signature's version: Standard Webhooks says to check only the versions a receiver knows (v1) and skip the others, so that a signature of another scheme is never taken for a v1 one.",
    plan: ({ secret, events }) => ofEveryType(events, (event, now) => withUnknownVersion(signedDelivery(event, secret, now))),
  },
  {
    id: 'stale.past',
    title: 'correctly signed, but webhook-timestamp 10 minutes old (each event type): refused',
    level: 'required',
    expect: 'refuse',
    consequence:
      'The receiver does not check webhook-timestamp: a delivery captured once (from a log or a proxy) can be replayed for ever. Refuse timestamps more than 5 minutes from now (Standard Webhooks libraries do).',
    plan: ({ secret, events }) => ofEveryType(events, (event, now) => signedDelivery(event, secret, now - STALE_SECONDS, 'signed for a timestamp 10 minutes old')),
  },
  {
    id: 'stale.future',
    title: 'correctly signed, but webhook-timestamp 10 minutes ahead (each event type): refused',
    level: 'required',
    expect: 'refuse',
    consequence:
      'The receiver does not check that webhook-timestamp is not in the future: a delivery signed ahead of time stays replayable until then. Refuse timestamps more than 5 minutes from now either way.',
    plan: ({ secret, events }) => ofEveryType(events, (event, now) => signedDelivery(event, secret, now + STALE_SECONDS, 'signed for a timestamp 10 minutes ahead')),
  },
  {
    id: 'altered.amount',
    title: 'amount changed after signing (each event type): refused',
    level: 'required',
    expect: 'refuse',
    consequence:
      'The receiver does not verify the signature over the body it received: whoever can touch a delivery on its way can change what it says. Verify the raw body, byte for byte, before parsing it.',
    plan: ({ secret, events }) => ofEveryType(events, (event, now) => withAmountChanged(signedDelivery(event, secret, now))),
  },
  {
    id: 'altered.whitespace',
    title: 'whitespace added after signing, the same JSON value (each event type): refused',
    level: 'required',
    expect: 'refuse',
    consequence:
      'The receiver accepted a body that is not the one signed. If it refuses the other forgeries, it verifies a re-serialization of the parsed JSON instead of the raw body: the signature covers the exact bytes sent, and genuine deliveries from a sender that writes JSON differently (key order, escapes, spacing) would be refused. Verify the raw body before parsing it.',
    plan: ({ secret, events }) => ofEveryType(events, (event, now) => withWhitespaceAdded(signedDelivery(event, secret, now))),
  },
];

/** One delivery of each event type, in EVENT_TYPES order, each a change never genuinely delivered and under an event id never sent. */
function ofEveryType(events: SampleEvents, deliver: (event: WebhookEvent, nowSeconds: number) => OutgoingDelivery): DeliveryPlan[] {
  return EVENT_TYPES.map((type) => (now) => deliver(withNewId(events.forgeryTargets[type]), now));
}

function withoutHeaders(delivery: OutgoingDelivery, names: string[], note: string): OutgoingDelivery {
  const headers = Object.fromEntries(Object.entries(delivery.headers).filter(([name]) => !names.includes(name)));
  return {
    ...delivery,
    headers,
    note,
    webhookId: headers['webhook-id'],
    timestamp: headers['webhook-timestamp'] === undefined ? undefined : delivery.timestamp,
  };
}

function withUnknownVersion(delivery: OutgoingDelivery): OutgoingDelivery {
  const signature = delivery.headers['webhook-signature']!.replace(/^v1,/, 'v2,');
  return { ...delivery, headers: { ...delivery.headers, 'webhook-signature': signature }, note: 'the correct HMAC labelled v2 instead of v1' };
}

function withAmountChanged(delivery: OutgoingDelivery): OutgoingDelivery {
  const event = JSON.parse(delivery.body) as WebhookEvent;
  const amount = event.data.amount * 100;
  return {
    ...delivery,
    body: JSON.stringify({ ...event, data: { ...event.data, amount } }),
    note: `data.amount changed from ${event.data.amount} to ${amount} after signing`,
  };
}

function withWhitespaceAdded(delivery: OutgoingDelivery): OutgoingDelivery {
  return { ...delivery, body: JSON.stringify(JSON.parse(delivery.body), null, 2), note: 'the body re-indented after signing' };
}
