/**
 * The report for tools: the run as pretty JSON under a `format`/`version` header, keys in a fixed
 * order (so two reports diff cleanly), durations rounded to the microsecond.
 */
import type { CheckOutcome, CheckResult, ConformanceResult } from '../result.js';

/** What `format` says, and the version of this document's shape. */
export const JSON_REPORT_FORMAT = 'lnpr-conformance';
export const JSON_REPORT_VERSION = 1;

const OUTCOMES: readonly CheckOutcome[] = ['passed', 'failed', 'warned', 'skipped', 'known-failure', 'unexpected-pass'];

/** The JSON document of a run (ends with a newline). */
export function formatJson(result: ConformanceResult): string {
  const document = {
    format: JSON_REPORT_FORMAT,
    version: JSON_REPORT_VERSION,
    passed: result.passed,
    baseUrl: result.baseUrl,
    profile: result.profile,
    lifecycle: result.lifecycle,
    durationMs: round(result.durationMs),
    counts: Object.fromEntries(OUTCOMES.map((outcome) => [outcome, result.counts[outcome] ?? 0])),
    observations: Object.fromEntries(Object.keys(result.observations).sort().map((point) => [point, result.observations[point]])),
    warnings: [...result.warnings],
    checks: result.checks.map(check),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

function check(result: CheckResult): Record<string, unknown> {
  return {
    id: result.id,
    title: result.title,
    section: result.section,
    level: result.level,
    profile: result.profile,
    outcome: result.outcome,
    ...(result.message !== undefined ? { message: result.message } : {}),
    durationMs: round(result.durationMs),
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
