/**
 * The report for tools: the run as pretty JSON under a `format`/`version` header, keys in a
 * fixed order (two reports diff cleanly), headers a case left out as `null`, durations rounded
 * to the microsecond.
 */
import { jsonDocument, roundMs } from '../../reporting/json-document.js';
import type { CaseOutcome, CaseResult, DeliveryRecord, WebhookCheckResult } from '../result.js';

/** What `format` says, and the version of this document's shape. */
export const JSON_REPORT_FORMAT = 'lnpr-webhooks-check';
export const JSON_REPORT_VERSION = 1;

const OUTCOMES: readonly CaseOutcome[] = ['passed', 'failed', 'warned'];

/** The JSON document of a run (ends with a newline). */
export function formatJson(result: WebhookCheckResult): string {
  return jsonDocument(JSON_REPORT_FORMAT, JSON_REPORT_VERSION, {
    passed: result.passed,
    url: result.url,
    durationMs: roundMs(result.durationMs),
    counts: Object.fromEntries(OUTCOMES.map((outcome) => [outcome, result.counts[outcome] ?? 0])),
    cases: result.cases.map(caseEntry),
  });
}

function caseEntry(result: CaseResult): Record<string, unknown> {
  return {
    id: result.id,
    title: result.title,
    level: result.level,
    expect: result.expect,
    outcome: result.outcome,
    ...(result.message !== undefined ? { message: result.message } : {}),
    durationMs: roundMs(result.durationMs),
    deliveries: result.deliveries.map(deliveryEntry),
  };
}

function deliveryEntry(delivery: DeliveryRecord): Record<string, unknown> {
  return {
    eventType: delivery.eventType,
    webhookId: delivery.webhookId ?? null,
    timestamp: delivery.timestamp ?? null,
    note: delivery.note,
    verdict: delivery.verdict,
    status: delivery.status ?? null,
    ...(delivery.location !== undefined ? { location: delivery.location } : {}),
    ...(delivery.error !== undefined ? { error: delivery.error } : {}),
    ...(delivery.responseExcerpt !== undefined ? { responseExcerpt: delivery.responseExcerpt } : {}),
    durationMs: roundMs(delivery.durationMs),
  };
}
