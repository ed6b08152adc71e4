/**
 * What `lnpr webhooks check` reports: every case with what it expected of the receiver, what
 * each of its deliveries got back, and whether that held. Reporters (pretty, JUnit, JSON) and
 * the exit status are computed from this alone.
 */

/** `required` cases decide the exit status; `advisory` ones are reported only. */
export type CaseLevel = 'required' | 'advisory';

/** What the receiver should do with every delivery of a case. */
export type Expectation = 'accept' | 'refuse';

/**
 * What became of one delivery. `accepted`: a 2xx. `refused`: any other status but 3xx.
 * `redirected`: a 3xx, which counts as a refusal (deliveries never follow redirects, like the
 * sandbox's). `no-answer`: no HTTP status at all (timeout, connection reset).
 */
export type DeliveryVerdict = 'accepted' | 'refused' | 'redirected' | 'no-answer';

/** `passed`: the expectation held. `failed`: a required case did not hold. `warned`: an advisory one did not. */
export type CaseOutcome = 'passed' | 'failed' | 'warned';

/** One POST the check sent, and its answer. */
export interface DeliveryRecord {
  /** The `webhook-id` header (also the event's `id`), or undefined when the case leaves it out. */
  webhookId: string | undefined;
  /** The event's `type`. */
  eventType: string;
  /** The `webhook-timestamp` header as sent (Unix seconds), if sent. */
  timestamp: number | undefined;
  /** What the case did to this delivery, in a few words (e.g. `signed with another secret`). */
  note: string;
  verdict: DeliveryVerdict;
  /** The HTTP status, when there was one. */
  status?: number;
  /** The `location` header of a redirect. */
  location?: string;
  /** Why there was no answer (`no-answer` only). */
  error?: string;
  /** The first 512 bytes of the response body, as UTF-8 text. */
  responseExcerpt?: string;
  /** From sending the request to the response's status line (or to the error). */
  durationMs: number;
}

/** One case's result. */
export interface CaseResult {
  /** Stable: reports and CI refer to it (e.g. `forged.other-secret`). */
  id: string;
  title: string;
  level: CaseLevel;
  expect: Expectation;
  outcome: CaseOutcome;
  /** Why it failed or warned. */
  message?: string;
  deliveries: DeliveryRecord[];
  durationMs: number;
}

/** The whole run. */
export interface WebhookCheckResult {
  /** True when every required case passed: exit status 0. */
  passed: boolean;
  /** The receiver's URL. */
  url: string;
  cases: CaseResult[];
  counts: Record<CaseOutcome, number>;
  durationMs: number;
}

/** Whether a delivery got what its case expects. A refusal is any answer but a 2xx; no answer at all is neither, so it never holds. */
export function deliveryHeld(expect: Expectation, delivery: DeliveryRecord): boolean {
  if (delivery.verdict === 'no-answer') return false;
  return (delivery.verdict === 'accepted') === (expect === 'accept');
}
