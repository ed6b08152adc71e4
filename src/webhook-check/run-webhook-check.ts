/**
 * `runWebhookCheck`: sends every case's deliveries to a receiver, one at a time (a receiver is
 * one merchant's endpoint, not a load test; and order is what some cases test), and judges each
 * case from the verdicts. The secret never appears in the result: the receiver's answers are
 * redacted before they are kept, in case it echoes what it was configured with.
 */
import { EVENT_TYPES } from '../schemas/webhooks.js';
import { WEBHOOK_CASES, type WebhookCase } from './cases.js';
import { unixSeconds } from './outgoing-delivery.js';
import { deliveryHeld, type CaseOutcome, type CaseResult, type DeliveryRecord, type Expectation, type WebhookCheckResult } from './result.js';
import { makeSampleEvents } from './sample-events.js';
import { sendDelivery } from './send-delivery.js';
import { parseWebhookSecret, randomWebhookSecret, redactor, secretForms } from './webhook-secret.js';

/** The sandbox's own delivery timeout: a receiver gets as long from the check as from it. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** No HTTP answer to the very first delivery: exit status 2, not twelve failed cases. */
export class ReceiverUnreachable extends Error {
  override readonly name = 'ReceiverUnreachable';
}

/** What a run needs. */
export interface WebhookCheckOptions {
  /** The receiver's URL, POSTed to as is. */
  url: string;
  /** `whsec_…`: the secret the receiver verifies with. */
  secret: string;
  /** Per delivery; DELIVERY_TIMEOUT_MS by default. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Called as each case finishes (for live output). */
  onCase?: (result: CaseResult) => void;
}

/** Runs the cases against the receiver. Throws InvalidWebhookSecret or ReceiverUnreachable. */
export async function runWebhookCheck(options: WebhookCheckOptions): Promise<WebhookCheckResult> {
  const started = performance.now();
  const secret = parseWebhookSecret(options.secret);
  const redact = redactor(secretForms(secret));
  const send = { url: options.url, timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS, fetch: options.fetch ?? globalThis.fetch };
  const kit = { secret, otherSecret: randomWebhookSecret(), events: await makeSampleEvents() };

  const results: CaseResult[] = [];
  for (const check of WEBHOOK_CASES) {
    const caseStarted = performance.now();
    const deliveries: DeliveryRecord[] = [];
    for (const plan of check.plan(kit)) {
      const record = redactRecord(await sendDelivery(plan(unixSeconds()), send), redact);
      if (results.length === 0 && deliveries.length === 0 && record.verdict === 'no-answer') {
        throw new ReceiverUnreachable(`${options.url}: ${record.error}`);
      }
      deliveries.push(record);
    }
    const result = judge(check, deliveries, performance.now() - caseStarted);
    results.push(result);
    options.onCase?.(result);
  }

  const counts: Record<CaseOutcome, number> = { passed: 0, failed: 0, warned: 0 };
  for (const result of results) counts[result.outcome]++;
  return { passed: counts.failed === 0, url: options.url, cases: results, counts, durationMs: performance.now() - started };
}

/**
 * A case passes when every one of its deliveries got what it expects. Otherwise its message says
 * which event types missed and how, then (when other types were refused) that the receiver
 * treats types differently, then what that exposes.
 */
function judge(check: WebhookCase, deliveries: DeliveryRecord[], durationMs: number): CaseResult {
  const base = { id: check.id, title: check.title, level: check.level, expect: check.expect, deliveries, durationMs };
  const misses = deliveries.filter((delivery) => !deliveryHeld(check.expect, delivery));
  if (misses.length === 0) return { ...base, outcome: 'passed' };
  return {
    ...base,
    outcome: check.level === 'required' ? 'failed' : 'warned',
    message: [...describeMisses(check.expect, misses), ...refusedOnlyFor(check.expect, deliveries, misses), check.consequence].join('\n'),
  };
}

/** One line per way of missing; deliveries that missed alike (same note, same answer) share it, naming their event types. */
function describeMisses(expect: Expectation, misses: DeliveryRecord[]): string[] {
  const typesByMiss = new Map<string, Set<string>>();
  for (const delivery of misses) {
    const miss = describeMiss(expect, delivery);
    typesByMiss.set(miss, (typesByMiss.get(miss) ?? new Set()).add(delivery.eventType));
  }
  return [...typesByMiss].map(([miss, types]) => `${EVENT_TYPES.every((type) => types.has(type)) ? 'every event type' : [...types].join(', ')} ${miss}`);
}

/** When deliveries to refuse were refused for some event types only: which, since verifying by type is the mistake to name. */
function refusedOnlyFor(expect: Expectation, deliveries: DeliveryRecord[], misses: DeliveryRecord[]): string[] {
  if (expect === 'accept' || misses.length === deliveries.length) return [];
  const refused = new Set(deliveries.filter((delivery) => !misses.includes(delivery)).map((delivery) => delivery.eventType));
  return [`Refused for ${[...refused].join(', ')} only: the receiver treats event types differently. Verify every delivery the same way, before acting on its type.`];
}

/** How one delivery missed, after its event type: `(note): accepted (200), expected a refusal (4xx)`. */
function describeMiss(expect: Expectation, delivery: DeliveryRecord): string {
  const what = `(${delivery.note})`;
  switch (delivery.verdict) {
    case 'no-answer':
      return `${what}: no answer (${delivery.error}), expected ${expect === 'accept' ? 'a 2xx' : 'a refusal'}`;
    case 'accepted':
      return `${what}: accepted (${delivery.status}), expected a refusal (4xx)`;
    case 'redirected':
      return `${what}: redirected (${delivery.status}${delivery.location !== undefined ? ` to ${delivery.location}` : ''}), expected a 2xx; deliveries do not follow redirects, so give the final URL`;
    case 'refused':
      return `${what}: refused (${delivery.status}), expected a 2xx`;
  }
}

function redactRecord(record: DeliveryRecord, redact: (text: string) => string): DeliveryRecord {
  return {
    ...record,
    ...(record.responseExcerpt !== undefined ? { responseExcerpt: redact(record.responseExcerpt) } : {}),
    ...(record.location !== undefined ? { location: redact(record.location) } : {}),
    ...(record.error !== undefined ? { error: redact(record.error) } : {}),
  };
}
