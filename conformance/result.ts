/** What a conformance run reports, for people (pretty), CI (JUnit XML) and tools (JSON). */
import type { CheckLevel, CheckProfile } from './check.js';

/**
 * How one check ended. `warned`: a SHOULD check did not hold. `known-failure`: failed as the
 * known-failing list expects. `unexpected-pass`: listed as known-failing but passed — a failure
 * of the run, so the list stays honest.
 */
export type CheckOutcome = 'passed' | 'failed' | 'warned' | 'skipped' | 'known-failure' | 'unexpected-pass';

/** One check's result. */
export interface CheckResult {
  id: string;
  title: string;
  section: string;
  level: CheckLevel;
  profile: CheckProfile;
  outcome: CheckOutcome;
  /** Why it failed, warned or was skipped. */
  message?: string;
  durationMs: number;
}

/** The whole run. */
export interface ConformanceResult {
  /** True when no required check failed: exit status 0. */
  passed: boolean;
  baseUrl: string;
  profile: 'core' | 'lifecycle' | 'full';
  /** How lifecycle checks moved requests: the target's control API, a pay command, or not at all. */
  lifecycle: 'controls' | 'pay-command' | 'none';
  checks: CheckResult[];
  /** The reading of each open point of the spec the target follows. */
  observations: Record<string, string>;
  /** Things worth knowing that are not failures (e.g. mainnet invoices). */
  warnings: string[];
  counts: Record<CheckOutcome, number>;
  durationMs: number;
}
