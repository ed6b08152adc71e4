/** What a conformance run reports, for people (pretty), CI (JUnit XML) and tools (JSON). */
import type { CheckLevel, CheckOutcome, CheckProfile, LifecycleKind, Profile } from './vocabulary.js';

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
  profile: Profile;
  /** How lifecycle checks moved requests: the target's control API, a pay command, or not at all. */
  lifecycle: LifecycleKind | 'none';
  checks: CheckResult[];
  /** The reading of each open point of the spec the target follows. */
  observations: Record<string, string>;
  /** Things worth knowing that are not failures (e.g. mainnet invoices). */
  warnings: string[];
  counts: Record<CheckOutcome, number>;
  durationMs: number;
}
