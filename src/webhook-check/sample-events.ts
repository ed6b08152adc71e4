/**
 * The events the check delivers, made by the sandbox's own engine in this process: real payment
 * requests with real BOLT11 invoices, completed through the control API and read back as
 * `GET /api/v1/payment-requests/{id}` answers. So `data` is exactly what the sandbox's own
 * deliveries carry, and a receiver that validates it (or decodes the invoice) sees nothing odd.
 */
import { newId } from '../core/ids.js';
import { cryptoRandom } from '../core/random.js';
import type { PaymentRequest } from '../schemas/payment-request.js';
import { createSandbox, type Sandbox } from '../sandbox.js';

/** The event types the check sends (the sandbox also has `failed` and `expired`). */
export type SampleEventType = 'payment_request.created' | 'payment_request.completed';

/** An event as a delivery's body carries it, keys in this order. */
export interface WebhookEvent {
  id: string;
  type: SampleEventType;
  /** When the change happened (ISO-8601 with milliseconds). */
  timestamp: string;
  /** The payment request as it was then. */
  data: PaymentRequest;
}

/** A payment request's two events: created (pending) and completed (with its preimage). */
export interface RequestEvents {
  created: WebhookEvent;
  completed: WebhookEvent;
}

/** Every event a run sends, one payment request per role. */
export interface SampleEvents {
  /** Delivered as they happened, then `completed` again as a duplicate. */
  first: RequestEvents;
  /** Delivered newest first. */
  second: RequestEvents;
  /** What forged, stale and altered deliveries claim: a payment never genuinely delivered. */
  forgeryTarget: RequestEvents;
}

/** The key of a default account of the in-process sandbox; it never leaves this process. */
const SANDBOX_KEY = 'sk_test_custodial';

/** A new `evt_` id: the same 24 base62 characters as the sandbox's ids. */
export function newEventId(): string {
  return newId('evt_', cryptoRandom);
}

/** `event` under a new id: the same change, announced as an event never seen before. */
export function withNewId(event: WebhookEvent): WebhookEvent {
  return { ...event, id: newEventId() };
}

/** The events of three payment requests, created and completed in a sandbox of this process. */
export async function makeSampleEvents(): Promise<SampleEvents> {
  const sandbox = createSandbox();
  return {
    first: await paidRequestEvents(sandbox, { amount: 21_000, description: 'Order #1042 — 2× Espresso, 1× Croissant', metadata: { orderId: '1042' } }),
    second: await paidRequestEvents(sandbox, { amount: 5_000, description: 'Tip for Satoshi’s Café' }),
    forgeryTarget: await paidRequestEvents(sandbox, { amount: 2_100_000, description: 'Order #1043 — Hardware wallet', metadata: { orderId: '1043' } }),
  };
}

interface NewRequest {
  amount: number;
  description: string;
  metadata?: Record<string, unknown>;
}

async function paidRequestEvents(sandbox: Sandbox, request: NewRequest): Promise<RequestEvents> {
  const { id } = await call<PaymentRequest>(sandbox, 'POST', '/api/v1/payment-requests', { ...request, destinationWallet: 'merchant@example.com' });
  const pending = await call<PaymentRequest>(sandbox, 'GET', `/api/v1/payment-requests/${id}`);
  await call(sandbox, 'POST', `/sandbox/v1/payment-requests/${id}/complete`);
  const completed = await call<PaymentRequest>(sandbox, 'GET', `/api/v1/payment-requests/${id}`);
  return {
    created: { id: newEventId(), type: 'payment_request.created', timestamp: pending.createdAt, data: pending },
    completed: { id: newEventId(), type: 'payment_request.completed', timestamp: completed.updatedAt, data: completed },
  };
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
