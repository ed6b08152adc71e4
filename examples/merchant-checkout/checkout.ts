/**
 * A merchant's checkout, as it should talk to the payment-request API: it survives the API
 * misbehaving and turns one order into exactly one payment request.
 *
 * - A 429 or 5xx answer: nothing was processed. Wait (`Retry-After` when the API says, else
 *   exponential backoff with jitter) and try again.
 * - No answer in time (a hang), or the connection lost (a reset): it is NOT known whether the
 *   create happened. Retrying at once could make a second request for the same order, so first
 *   look for the one that may exist: the API's `payment_request.created` webhook carries
 *   `metadata.orderId`; wait a little for it, adopt that request if it comes, and only create
 *   again if it does not.
 * - Every webhook is verified (Standard Webhooks) before it is believed, and is idempotent: the
 *   same event twice changes nothing.
 *
 * Plain `fetch`, no SDK: copy what you need. The tests beside this file run it against each fault
 * the sandbox can inject (`PUT /sandbox/v1/faults`).
 */
import { Webhook } from 'standardwebhooks';

/** A payment request, as far as the checkout reads it. */
export interface PaymentRequest {
  id: string;
  status: 'pending' | 'completed' | 'expired' | 'failed';
  amount: number;
  invoice: string;
  metadata?: { orderId?: string };
}

/** What the shop sells. */
export interface Order {
  id: string;
  amount: number;
  description: string;
}

export interface CheckoutOptions {
  /** The API's origin, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  apiKey: string;
  /** The secret of the webhook endpoint (`whsec_…`) that sends this checkout its events. */
  webhookSecret: string;
  /** The Lightning address payments go to. */
  destinationWallet: string;
  /** How long one attempt may take before it is given up as a hang; 3 s by default. */
  attemptTimeoutMs?: number;
  /** Attempts at most per order; 5 by default. */
  maxAttempts?: number;
  /** First backoff; doubled each time (with jitter); 100 ms by default. */
  backoffMs?: number;
  /** How long to wait for the `created` webhook after an ambiguous failure; 2 s by default. */
  reconcileWaitMs?: number;
  /** Hears what happens, for logs (e.g. `console.log`). */
  log?: (line: string) => void;
}

/** Why an order could not get a payment request. */
export class CheckoutError extends Error {}

const RETRYABLE = new Set([429, 500, 502, 503, 504]);

export class Checkout {
  readonly #options: Required<Omit<CheckoutOptions, 'log'>> & Pick<CheckoutOptions, 'log'>;
  readonly #webhook: Webhook;
  /** The payment request of each order, from the API's answers and from webhooks. */
  readonly #byOrder = new Map<string, PaymentRequest>();
  /** Who waits for an order's `created` webhook. */
  readonly #waiting = new Map<string, (request: PaymentRequest) => void>();
  /** Payment requests made for an order that already had one (a webhook slower than the wait). */
  readonly duplicates: PaymentRequest[] = [];

  constructor(options: CheckoutOptions) {
    this.#options = { attemptTimeoutMs: 3_000, maxAttempts: 5, backoffMs: 100, reconcileWaitMs: 2_000, ...options };
    this.#webhook = new Webhook(options.webhookSecret);
  }

  /** The payment request of the order: made once, whatever the API does meanwhile. */
  async paymentRequestFor(order: Order): Promise<PaymentRequest> {
    const known = this.#byOrder.get(order.id);
    if (known !== undefined) return known;
    const { maxAttempts } = this.#options;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const outcome = await this.#create(order);
      if (outcome.kind === 'created') return this.#adopt(order.id, outcome.request);
      if (outcome.kind === 'refused') throw new CheckoutError(`the API refused order ${order.id}: ${outcome.status} ${outcome.code}`);
      if (outcome.kind === 'busy') {
        this.#log(`order ${order.id}: ${outcome.status}, retrying in ${outcome.waitMs} ms`);
        await sleep(outcome.waitMs);
        continue;
      }
      // Unknown: the create may have happened. Its webhook says so if it did.
      this.#log(`order ${order.id}: ${outcome.reason}; waiting for a created webhook before trying again`);
      const arrived = this.#byOrder.get(order.id) ?? (await this.#webhookFor(order.id));
      if (arrived !== undefined) {
        this.#log(`order ${order.id}: the create had happened (${arrived.id}); adopted`);
        return arrived;
      }
      await sleep(this.#backoff(attempt));
    }
    throw new CheckoutError(`order ${order.id}: no payment request after ${maxAttempts} attempts`);
  }

  /** The checkout's view of an order's payment, kept up to date by webhooks. */
  paymentOf(orderId: string): PaymentRequest | undefined {
    return this.#byOrder.get(orderId);
  }

  /**
   * Takes a webhook delivery (the raw body and its headers, as received): verified, then applied.
   * Throws (answer 400) when the signature does not hold; answer 2xx otherwise, even for events
   * already seen.
   */
  receiveWebhook(body: string, headers: Record<string, string>): void {
    const event = this.#webhook.verify(body, headers) as { type: string; data: PaymentRequest };
    const orderId = event.data.metadata?.orderId;
    if (orderId === undefined) return;
    const known = this.#byOrder.get(orderId);
    if (known !== undefined && known.id !== event.data.id) {
      // A second request for one order: keep the first, remember the other to be looked at.
      if (!this.duplicates.some((request) => request.id === event.data.id)) this.duplicates.push(event.data);
      return;
    }
    this.#byOrder.set(orderId, event.data);
    this.#waiting.get(orderId)?.(event.data);
  }

  async #create(order: Order): Promise<
    | { kind: 'created'; request: PaymentRequest }
    | { kind: 'busy'; status: number; waitMs: number }
    | { kind: 'refused'; status: number; code: string }
    | { kind: 'unknown'; reason: string }
  > {
    const { baseUrl, apiKey, destinationWallet, attemptTimeoutMs } = this.#options;
    let response: Response;
    try {
      response = await fetch(`${baseUrl}/api/v1/payment-requests`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: order.amount, description: order.description, destinationWallet, metadata: { orderId: order.id } }),
        signal: AbortSignal.timeout(attemptTimeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      return { kind: 'unknown', reason: timedOut ? `no answer within ${attemptTimeoutMs} ms` : `connection lost (${(error as Error).message})` };
    }
    // The body may be cut too: a connection lost while reading it is as unknown as one lost before.
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      return { kind: 'unknown', reason: `answer cut short (${(error as Error).message})` };
    }
    if (response.status === 201) return { kind: 'created', request: body as PaymentRequest };
    if (RETRYABLE.has(response.status)) {
      const retryAfter = Number(response.headers.get('retry-after'));
      return { kind: 'busy', status: response.status, waitMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : this.#backoff(1) };
    }
    return { kind: 'refused', status: response.status, code: (body as { error?: { code?: string } }).error?.code ?? 'unknown' };
  }

  #adopt(orderId: string, request: PaymentRequest): PaymentRequest {
    // A webhook may have told of it first; the answer is the same request.
    const known = this.#byOrder.get(orderId);
    if (known !== undefined && known.id !== request.id) {
      this.duplicates.push(request);
      return known;
    }
    this.#byOrder.set(orderId, request);
    return request;
  }

  /** The order's request if its `created` webhook comes within the wait; undefined otherwise. */
  #webhookFor(orderId: string): Promise<PaymentRequest | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(orderId);
        resolve(undefined);
      }, this.#options.reconcileWaitMs);
      this.#waiting.set(orderId, (request) => {
        clearTimeout(timer);
        this.#waiting.delete(orderId);
        resolve(request);
      });
    });
  }

  /** Exponential backoff with full jitter, so many checkouts do not retry in step. */
  #backoff(attempt: number): number {
    return Math.round(Math.random() * this.#options.backoffMs * 2 ** (attempt - 1));
  }

  #log(line: string): void {
    this.#options.log?.(line);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
