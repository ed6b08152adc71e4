/** What a conformance run reports, for people (pretty), CI (JUnit XML) and tools (JSON). */
import type { CheckLevel, CheckOutcome, CheckProfile, LifecycleKind, Profile } from './vocabulary.js';

/** An account a run made (with an admin key). */
export interface RunAccount {
  id: string;
  mode: 'custodial' | 'nwc';
  /** Whether it was deleted after the run. */
  deleted: boolean;
}

/**
 * What a run left behind. `isolated`: it ran in accounts of its own (`accounts`, deleted after it
 * unless `deleted` says otherwise). Otherwise `left` says, per key of the run that can create,
 * what it added to that key's account: payment requests, and how far it moved the clock on.
 */
export type RunFootprint =
  | { isolated: true; accounts: RunAccount[] }
  | { isolated: false; left: Array<{ key: 'main' | 'nwc'; paymentRequests: number; clockAdvancedSeconds: number }> };

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
  /** How lifecycle checks moved requests: the target's control API, a pay command, an NWC wallet that pays, or not at all. */
  lifecycle: LifecycleKind | 'none';
  checks: CheckResult[];
  /** The reading of each open point of the spec the target follows. */
  observations: Record<string, string>;
  /** Things worth knowing that are not failures (e.g. mainnet invoices). */
  warnings: string[];
  /** What the run left behind: nothing (accounts of its own, deleted), or what it added to its keys' accounts. */
  footprint: RunFootprint;
  counts: Record<CheckOutcome, number>;
  durationMs: number;
}
