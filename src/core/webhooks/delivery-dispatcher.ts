/**
 * Makes delivery attempts as they fall due: signs each per Standard Webhooks (signed-delivery.ts),
 * hands it to the WebhookSender port, and records the outcome with the next attempt it calls for
 * in one write. Attempts run in the background with bounded concurrency, overall and per
 * endpoint: no API request ever waits on one, and a receiver that hangs holds its own few slots
 * for at most the attempt timeout while other endpoints' deliveries go on. While the API is busy
 * (ApiLoad: a load test, 1,000 requests a second or more) attempts give way to it: one starts
 * every BUSY_TRICKLE_MS, the rest wait for the load to pass and then go out at full speed.
 * Before each attempt the address policy is applied again (address-policy.ts): a URL showing a
 * refused address fails without a connection, and a name goes to the sender with the check of
 * what it resolves to.
 */
import type { WebhookDelivery } from '../../schemas/webhooks.js';
import type { DueSchedule } from '../due/due-schedule.js';
import { nextAttemptDueMs } from '../due/retry-schedule.js';
import { Listeners } from '../listeners.js';
import type { AccountClocks, Timers, WallClock } from '../ports.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import type { WebhookRequest, WebhookResponse, WebhookSender } from './webhook-sender.js';
import { attemptGuard, refusalMessage } from './address-policy.js';
import type { WebhookAddressPolicy } from '../settings.js';
import { released } from './delivery-plan.js';
import { heldDeliveriesIn } from './held-deliveries.js';
import type { PendingDeliveries } from './pending-deliveries.js';
import { deliveryKey, toDeliveryView, toEventView, type DeliveryRecord, type EndpointRecord, type EventRecord } from '../store/webhook-records.js';
import { signDelivery } from './signed-delivery.js';

/** Sees each delivery attempt's recorded outcome (and any attempt it schedules), with its account. */
export type DeliveryListener = (delivery: WebhookDelivery, accountId: string) => void;

/** An attempt without a complete 2xx answer in this long has failed. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Attempts in flight at once, all endpoints. */
const DELIVERY_CONCURRENCY = 64;
/** Attempts in flight at once to one endpoint. */
export const ENDPOINT_CONCURRENCY = 8;
/** While the API is busy, one waiting attempt starts this often (so none waits for ever). */
const BUSY_TRICKLE_MS = 100;

/** What the dispatcher needs. */
export interface DispatcherDeps {
  store: SandboxStore;
  clocks: AccountClocks;
  wall: WallClock;
  sender: WebhookSender;
  /** Takes the retries and released deliveries an attempt's outcome calls for. */
  due: Pick<DueSchedule, 'scheduleDeliveries'>;
  timers: Timers;
  /** Counts what the outbox owes (each write of attempts is noted). */
  pending: Pick<PendingDeliveries, 'note'>;
  /** Where attempts may go; `any` by default. */
  addressPolicy?: WebhookAddressPolicy;
  /** Whether the API is under load; attempts wait while it is. */
  apiLoad?: { readonly busy: boolean };
  onError(error: unknown): void;
  concurrency?: number;
}

/** Sends due delivery attempts and records how they went. */
export class DeliveryDispatcher {
  readonly #deps: DispatcherDeps;
  readonly #concurrency: number;
  /** Waiting attempts per endpoint, in the order they fell due. */
  readonly #waiting = new Map<string, DeliveryRecord[]>();
  readonly #activeByEndpoint = new Map<string, number>();
  #waitingCount = 0;
  readonly #queued = new Set<string>();
  readonly #abort = new AbortController();
  #active = 0;
  #idle: Array<() => void> = [];
  /** The timer that starts the next attempt while the API is busy. */
  #trickle: unknown;
  readonly #listeners: Listeners<Parameters<DeliveryListener>>;

  constructor(deps: DispatcherDeps) {
    this.#deps = deps;
    this.#concurrency = deps.concurrency ?? DELIVERY_CONCURRENCY;
    this.#listeners = new Listeners(deps.onError);
  }

  /** Calls `listener` with every attempt recorded from now on; returns the function that stops it. */
  subscribe(listener: DeliveryListener): () => void {
    return this.#listeners.add(listener);
  }

  /** Queues the attempt (once, however often its due moment is reported). */
  enqueue(delivery: DeliveryRecord): void {
    const key = deliveryKey(delivery);
    if (this.#queued.has(key) || this.#abort.signal.aborted) return;
    this.#queued.add(key);
    const queue = this.#waiting.get(delivery.endpoint);
    if (queue) queue.push(delivery);
    else this.#waiting.set(delivery.endpoint, [delivery]);
    this.#waitingCount += 1;
    this.#pump();
  }

  /** Attempts queued or in flight. */
  get busy(): number {
    return this.#waitingCount + this.#active;
  }

  /** Resolves when no attempt is queued or in flight (for tests and graceful stops). */
  idle(): Promise<void> {
    return this.busy === 0 ? Promise.resolve() : new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Aborts attempts in flight (they stay pending, to be made again after a restart) and takes no more. */
  close(): void {
    this.#abort.abort();
    if (this.#trickle !== undefined) this.#deps.timers.clearTimeout(this.#trickle);
    this.#trickle = undefined;
    this.#waiting.clear();
    this.#waitingCount = 0;
  }

  #pump(): void {
    if (this.#waitingCount === 0) return;
    if (this.#deps.apiLoad?.busy) {
      this.#trickleLater();
      return;
    }
    this.#startWaiting(this.#concurrency);
  }

  /** Starts up to `limit` waiting attempts, within the overall and per-endpoint bounds. */
  #startWaiting(limit: number): void {
    let started = 0;
    for (const [endpointId, queue] of this.#waiting) {
      let active = this.#activeByEndpoint.get(endpointId) ?? 0;
      while (started < limit && this.#active < this.#concurrency && active < ENDPOINT_CONCURRENCY && queue.length > 0) {
        active += 1;
        started += 1;
        this.#start(queue.shift()!);
      }
      if (queue.length === 0) this.#waiting.delete(endpointId);
      if (this.#active >= this.#concurrency || started >= limit) return;
    }
  }

  #trickleLater(): void {
    if (this.#trickle !== undefined || this.#abort.signal.aborted) return;
    this.#trickle = this.#deps.timers.setTimeout(() => {
      this.#trickle = undefined;
      if (this.#deps.apiLoad?.busy) {
        this.#startWaiting(1);
        if (this.#waitingCount > 0) this.#trickleLater();
      } else {
        this.#pump();
      }
    }, BUSY_TRICKLE_MS);
  }

  #start(delivery: DeliveryRecord): void {
    const { endpoint } = delivery;
    this.#waitingCount -= 1;
    this.#active += 1;
    this.#activeByEndpoint.set(endpoint, (this.#activeByEndpoint.get(endpoint) ?? 0) + 1);
    void this.#attempt(delivery)
      .catch(this.#deps.onError)
      .finally(() => {
        this.#active -= 1;
        const left = this.#activeByEndpoint.get(endpoint)! - 1;
        if (left === 0) this.#activeByEndpoint.delete(endpoint);
        else this.#activeByEndpoint.set(endpoint, left);
        this.#queued.delete(deliveryKey(delivery));
        this.#pump();
        if (this.busy === 0) for (const resolve of this.#idle.splice(0)) resolve();
      });
  }

  async #attempt(queued: DeliveryRecord): Promise<void> {
    const { store, clocks } = this.#deps;
    const delivery = store.getDelivery(queued.id, queued.attempt);
    if (delivery === undefined || delivery.status !== 'pending' || delivery.scheduledAt === null) return;
    const endpoint = store.getEndpoint(delivery.endpoint);
    const event = store.getEvent(delivery.event);
    const attemptedAtMs = clocks.now(delivery.accountId);
    if (endpoint === undefined || event === undefined) {
      const error = endpoint === undefined ? 'the endpoint was deleted' : 'the event is no longer kept';
      const failed: DeliveryRecord = { ...delivery, status: 'failed', error, attemptedAt: iso(attemptedAtMs), durationMs: 0 };
      const durable = store.commit({ deliveries: [failed] });
      this.#deps.pending.note([failed]);
      await durable;
      this.#announce([failed]);
      return;
    }
    const response = await this.#send(endpoint, event);
    if (this.#abort.signal.aborted) return;
    await this.#record(delivery, endpoint, event, attemptedAtMs, response);
  }

  /** Signs and sends one attempt, or refuses it without a connection where the address policy does. */
  #send(endpoint: EndpointRecord, event: EventRecord): Promise<WebhookResponse> {
    const guard = attemptGuard(endpoint.url, this.#deps.addressPolicy ?? 'any');
    if ('refused' in guard) return Promise.resolve({ error: refusalMessage(guard.refused), durationMs: 0 });
    const { headers, body } = signDelivery(toEventView(event), endpoint.secret, this.#deps.wall.now());
    const request: WebhookRequest = { url: endpoint.url, headers, body, timeoutMs: ATTEMPT_TIMEOUT_MS, ...guard };
    return this.#deps.sender.send(request, this.#abort.signal);
  }

  /** Writes the attempt's outcome, the retry it calls for, and any delivery it releases. */
  async #record(delivery: DeliveryRecord, endpoint: EndpointRecord, event: EventRecord, attemptedAtMs: number, response: WebhookResponse): Promise<void> {
    const { store, clocks, due } = this.#deps;
    const succeeded = 'status' in response && response.status >= 200 && response.status < 300;
    const outcome: DeliveryRecord = {
      ...delivery,
      status: succeeded ? 'succeeded' : 'failed',
      responseStatus: 'status' in response ? response.status : null,
      error: succeeded ? null : 'error' in response ? response.error : `the receiver answered ${response.status}`,
      attemptedAt: iso(attemptedAtMs),
      durationMs: Math.max(0, Math.round(response.durationMs)),
    };
    const written = [outcome];
    const retryDueMs = succeeded ? undefined : nextAttemptDueMs(delivery.attempt, Date.parse(delivery.scheduledAt!));
    if (retryDueMs !== undefined) {
      written.push({ ...delivery, attempt: delivery.attempt + 1, scheduledAt: iso(retryDueMs) });
    }
    // `reorder`: the newer event has now been tried, so the held `created` one may follow it.
    if (endpoint.faults.reorder && delivery.attempt === 1 && event.type !== 'payment_request.created') {
      const nowMs = clocks.now(delivery.accountId);
      for (const held of heldDeliveriesIn(store)(endpoint, event.data.id)) written.push(released(held, nowMs));
    }
    const durable = store.commit({ deliveries: written });
    this.#deps.pending.note(written);
    await durable;
    due.scheduleDeliveries(written.slice(1));
    this.#announce(written);
  }

  #announce(deliveries: DeliveryRecord[]): void {
    for (const delivery of deliveries) this.#listeners.emit(toDeliveryView(delivery), delivery.accountId);
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
