/**
 * What a scenario's webhook receiver got, and how it answers. Transport-free, so it runs in
 * browsers too: a transport (the Node one is `webhook-receiver.node.ts`) hands it each request and
 * sends back the status it decides. Every delivery is verified with the `standardwebhooks` library,
 * as a merchant's receiver would, once the receiver knows its endpoint's secret.
 */
import { Webhook } from 'standardwebhooks';

/** One delivery as the receiver got it, in the shape steps see (`as:` and `expect.events`). */
export interface ReceivedDelivery {
  /** The `webhook-id` header: the event's id on every retry, duplicate and redelivery. */
  webhookId: string | null;
  /** The `webhook-timestamp` header (Unix seconds). */
  timestamp: string | null;
  /** Whether `standardwebhooks` verified it with the endpoint's secret. */
  verified: boolean;
  /** The status the receiver answered. */
  answered: number;
  /** The body parsed as JSON (the event), or its text when it is not JSON. */
  event: unknown;
}

/** A request as a transport hands it over: header names in lower case, the body as text. */
export interface IncomingDelivery {
  headers: Record<string, string | undefined>;
  body: string;
}

/** A started receiver: where the server should send deliveries, and how to stop it. */
export interface ReceiverHandle {
  url: string;
  close(): Promise<void>;
}

/** Starts a transport that feeds `log` (the runner's `startReceiver` option). */
export type StartReceiver = (log: ReceiverLog) => Promise<ReceiverHandle>;

/** What a receiver answers when not told otherwise. */
export const DEFAULT_ANSWER = 204;
/** How long a `received` step waits for deliveries. */
export const RECEIVE_TIMEOUT_MS = 5_000;
/** After the awaited deliveries, how long more may still arrive (a duplicate close behind) and count. */
export const QUIET_MS = 150;

/** The deliveries a receiver got, in arrival order, and the answers it gives. */
export class ReceiverLog {
  readonly #answers: number[];
  readonly #incoming: IncomingDelivery[] = [];
  readonly #deliveries: ReceivedDelivery[] = [];
  readonly #waiters = new Set<() => void>();
  #secret: string | undefined;

  /** `answers`: the status for each delivery in turn; the last one repeats (204 for all by default). */
  constructor(answers: readonly number[] = [DEFAULT_ANSWER]) {
    this.#answers = answers.length > 0 ? [...answers] : [DEFAULT_ANSWER];
  }

  /** Everything received so far, oldest first. */
  get deliveries(): readonly ReceivedDelivery[] {
    return this.#deliveries;
  }

  /** Records a delivery and returns the status to answer it with. */
  record(incoming: IncomingDelivery): number {
    const answered = this.#answers[Math.min(this.#deliveries.length, this.#answers.length - 1)]!;
    this.#incoming.push(incoming);
    this.#deliveries.push({
      webhookId: incoming.headers['webhook-id'] ?? null,
      timestamp: incoming.headers['webhook-timestamp'] ?? null,
      verified: this.#verify(incoming),
      answered,
      event: parse(incoming.body),
    });
    for (const wake of [...this.#waiters]) wake();
    return answered;
  }

  /** The endpoint's secret: deliveries from now on are verified with it, and those already here too. */
  setSecret(secret: string): void {
    this.#secret = secret;
    this.#incoming.forEach((incoming, index) => {
      const delivery = this.#deliveries[index]!;
      if (!delivery.verified) delivery.verified = this.#verify(incoming);
    });
  }

  /**
   * Resolves with every delivery once there are at least `count` and `quietMs` has passed with
   * room for more, or after `timeoutMs` with what came: the caller compares counts.
   */
  async waitFor(count: number, { timeoutMs = RECEIVE_TIMEOUT_MS, quietMs = QUIET_MS } = {}): Promise<ReceivedDelivery[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.#deliveries.length < count && Date.now() < deadline) await this.#nextDelivery(deadline - Date.now());
    if (this.#deliveries.length >= count) await new Promise((resolve) => setTimeout(resolve, quietMs));
    return [...this.#deliveries];
  }

  #nextDelivery(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiters.add(done);
    });
  }

  #verify({ headers, body }: IncomingDelivery): boolean {
    if (this.#secret === undefined) return false;
    const present = Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
    try {
      new Webhook(this.#secret).verify(body, present);
      return true;
    } catch {
      return false;
    }
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
