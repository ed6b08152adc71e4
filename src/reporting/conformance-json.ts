/**
 * The conformance report for tools: the run as pretty JSON under a `format`/`version` header, keys
 * in a fixed order (so two reports diff cleanly), durations rounded to the microsecond.
 */
import type { CheckReport, ConformanceReport, FootprintReport, ReportedOutcome } from './conformance-report.js';
import { jsonDocument, roundMs } from './json-document.js';

/** What `format` says, and the version of this document's shape. */
export const JSON_REPORT_FORMAT = 'lnpr-conformance';
export const JSON_REPORT_VERSION = 1;

const OUTCOMES: readonly ReportedOutcome[] = ['passed', 'failed', 'warned', 'skipped', 'known-failure', 'unexpected-pass'];

/** The JSON document of a run (ends with a newline). */
export function formatJson(result: ConformanceReport): string {
  return jsonDocument(JSON_REPORT_FORMAT, JSON_REPORT_VERSION, {
    passed: result.passed,
    baseUrl: result.baseUrl,
    profile: result.profile,
    lifecycle: result.lifecycle,
    durationMs: roundMs(result.durationMs),
    counts: Object.fromEntries(OUTCOMES.map((outcome) => [outcome, result.counts[outcome] ?? 0])),
    observations: Object.fromEntries(Object.keys(result.observations).sort().map((point) => [point, result.observations[point]])),
    warnings: [...result.warnings],
    footprint: footprintEntry(result.footprint),
    checks: result.checks.map(checkEntry),
  });
}

/** `{"isolated": true, "accounts": [{"id", "mode", "deleted"}]}` or `{"isolated": false, "left": [{"key", "paymentRequests", "clockAdvancedSeconds"}]}`, keys in that order. */
function footprintEntry(footprint: FootprintReport): Record<string, unknown> {
  return footprint.isolated
    ? { isolated: true, accounts: footprint.accounts.map(({ id, mode, deleted }) => ({ id, mode, deleted })) }
    : { isolated: false, left: footprint.left.map(({ key, paymentRequests, clockAdvancedSeconds }) => ({ key, paymentRequests, clockAdvancedSeconds })) };
}

function checkEntry(result: CheckReport): Record<string, unknown> {
  return {
    id: result.id,
    title: result.title,
    section: result.section,
    level: result.level,
    profile: result.profile,
    outcome: result.outcome,
    ...(result.message !== undefined ? { message: result.message } : {}),
    durationMs: roundMs(result.durationMs),
  };
}
