/**
 * A conformance run as its reporters read it. Stated here, not imported, because nothing in src/
 * but the CLI may import the suite (conformance/ is a black box, and the product borrows nothing
 * from it). The suite's `ConformanceResult` has this shape; `lnpr conformance`, which hands one to
 * the reporters, is where the compiler checks that it still does.
 */

/** How one check ended; the suite's `CheckOutcome`, in report order. */
export type ReportedOutcome = 'passed' | 'failed' | 'warned' | 'skipped' | 'known-failure' | 'unexpected-pass';

/** One check's result, as the reporters read it. */
export interface CheckReport {
  id: string;
  title: string;
  /** The spec section: the JUnit report has one `<testsuite>` per section. */
  section: string;
  /** `MUST` or `SHOULD`. */
  level: string;
  profile: string;
  outcome: ReportedOutcome;
  /** Why it failed, warned or was skipped. */
  message?: string;
  durationMs: number;
}

/** A whole run, as the reporters read it. */
export interface ConformanceReport {
  passed: boolean;
  baseUrl: string;
  profile: string;
  /** How lifecycle checks moved requests: the target's control API, a pay command, or not at all. */
  lifecycle: 'controls' | 'pay-command' | 'none';
  checks: readonly CheckReport[];
  /** The reading of each open point of the spec the target follows. */
  observations: Readonly<Record<string, string>>;
  warnings: readonly string[];
  counts: Readonly<Record<ReportedOutcome, number>>;
  durationMs: number;
}
