/**
 * The events the check delivers, made by the sandbox's own engine in this process: real payment
 * requests with real BOLT11 invoices, driven through the control API, and their events read back
 * from `GET /sandbox/v1/events`. So every body is exactly what the sandbox's own deliveries carry,
 * and a receiver that validates it (or decodes the invoice) sees nothing odd.
 */
import { newId } from '../core/ids.js';
import type { Transition } from '../core/store/payment-request.js';
import { cryptoRandom } from '../core/random.js';
import { EVENT_TYPES, type EventType, type WebhookEvent } from '../schemas/webhooks.js';
import { createSandbox, type Sandbox } from '../sandbox.js';

/** A payment request's created (pending) and completed (with its preimage) events. */
export interface RequestEvents {
  created: WebhookEvent;
  completed: WebhookEvent;
}

/** Every event a run sends. */
export interface SampleEvents {
  /** Delivered as they happened, then `completed` again as a duplicate. */
  first: RequestEvents;
  /** Delivered newest first. */
  second: RequestEvents;
  /** What forged, stale and altered deliveries claim, one event of each type: changes never genuinely delivered. */
  forgeryTargets: Readonly<Record<EventType, WebhookEvent>>;
}

/** The key of a default account of the in-process sandbox; it never leaves this process. */
const SANDBOX_KEY = 'sk_test_custodial';

/** `event` under a new `evt_` id (made as the sandbox makes them): the same change, announced as an event never seen before. */
export function withNewId(event: WebhookEvent): WebhookEvent {
  return { ...event, id: newId('evt_', cryptoRandom) };
}

/** The events of five payment requests, created and ended in a sandbox of this process. */
export async function makeSampleEvents(): Promise<SampleEvents> {
  const sandbox = createSandbox();
  return {
    first: paid(await eventsOf(sandbox, { amount: 21_000, description: 'Order #1042 — 2× Espresso, 1× Croissant', metadata: { orderId: '1042' } }, 'complete')),
    second: paid(await eventsOf(sandbox, { amount: 5_000, description: 'Tip for Satoshi’s Café' }, 'complete')),
    forgeryTargets: await oneOfEachType(sandbox),
  };
}

interface NewRequest {
  amount: number;
  description: string;
  metadata?: Record<string, unknown>;
}

function paid(events: WebhookEvent[]): RequestEvents {
  return { created: ofType(events, 'payment_request.created'), completed: ofType(events, 'payment_request.completed') };
}

/** An event of every type in EVENT_TYPES, from one order's payment requests: the first expired, the next failed, the last paid. */
async function oneOfEachType(sandbox: Sandbox): Promise<Record<EventType, WebhookEvent>> {
  const order: NewRequest = { amount: 2_100_000, description: 'Order #1043 — Hardware wallet', metadata: { orderId: '1043' } };
  const events: WebhookEvent[] = [];
  for (const ending of ['expire', 'fail', 'complete'] as const) events.push(...(await eventsOf(sandbox, order, ending)));
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, ofType(events, type)])) as Record<EventType, WebhookEvent>;
}

/** Creates a payment request, ends it with `ending`, and answers its events as the sandbox recorded them. */
async function eventsOf(sandbox: Sandbox, request: NewRequest, ending: Transition): Promise<WebhookEvent[]> {
  const { id } = await call<{ id: string }>(sandbox, 'POST', '/api/v1/payment-requests', { ...request, destinationWallet: 'merchant@example.com' });
  await call(sandbox, 'POST', `/sandbox/v1/payment-requests/${id}/${ending}`);
  return (await call<{ data: WebhookEvent[] }>(sandbox, 'GET', `/sandbox/v1/events?paymentRequest=${id}`)).data;
}

function ofType(events: WebhookEvent[], type: EventType): WebhookEvent {
  const event = events.find((candidate) => candidate.type === type);
  // A type the engine gained without a way here to make it: a bug of ours, caught by the tests.
  if (event === undefined) throw new Error(`the in-process sandbox recorded no ${type} event: make one in sample-events.ts`);
  return event;
}

async function call<T = unknown>(sandbox: Sandbox, method: string, url: string, body?: unknown): Promise<T> {
  const response = await sandbox.handle({
    method,
    url,
    headers: { authorization: `Bearer ${SANDBOX_KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  // The sandbox answering anything else is a bug of ours, not of the receiver under test.
  if (response.status >= 300) throw new Error(`the in-process sandbox answered ${method} ${url} with ${response.status}: ${response.body}`);
  return JSON.parse(response.body) as T;
}
