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

/** An account a run made with an admin key, and whether it was deleted after the run. */
export interface RunAccountReport {
  id: string;
  mode: string;
  deleted: boolean;
}

/**
 * What a run left behind, as the reporters read it: nothing when it ran in accounts of its own
 * (`isolated`, made with `--admin-key` and deleted), otherwise what it added to the account of
 * each key that can create (`main`: `--api-key`, `nwc`: `--nwc-key`).
 */
export type FootprintReport =
  | { isolated: true; accounts: readonly RunAccountReport[] }
  | { isolated: false; left: ReadonlyArray<{ key: 'main' | 'nwc'; paymentRequests: number; clockAdvancedSeconds: number }> };

/** A whole run, as the reporters read it. */
export interface ConformanceReport {
  passed: boolean;
  baseUrl: string;
  profile: string;
  /** How lifecycle checks moved requests: the target's control API, a pay command, an NWC wallet that pays, or not at all. */
  lifecycle: 'controls' | 'pay-command' | 'nwc-payer' | 'none';
  checks: readonly CheckReport[];
  /** The reading of each open point of the spec the target follows. */
  observations: Readonly<Record<string, string>>;
  warnings: readonly string[];
  footprint: FootprintReport;
  counts: Readonly<Record<ReportedOutcome, number>>;
  durationMs: number;
}
