/**
 * What a conformance check is: a stable id, the spec section it comes from, a level (MUST fails the
 * run, SHOULD warns), the profile it belongs to, and what it needs from the target. Checks are data
 * plus one async function, so the runner, the reporters and `--known-failing` treat them alike.
 */
import type { ApiClient } from './client.js';
import type { LifecycleDriver } from './lifecycle-driver.js';
import type { ConformanceOptions } from './options.js';
import type { CheckLevel, CheckProfile } from './vocabulary.js';

/**
 * What a check may need beyond the main key: another key (`adminKey`: one with the `accounts`
 * permission, for checks that make scratch accounts of their own), the target's control API, or an
 * NWC wallet that pays (`payerNwcUrl`).
 */
export type CheckNeed = 'readOnlyKey' | 'nwcKey' | 'adminKey' | 'controls' | 'nwcPayer' | 'httpServer';

/** One check of the suite. */
export interface Check {
  /** Stable: CI known-failing files and reports refer to it. */
  id: string;
  /** The statements of conformance/statements.ts this check holds (a fault breaking one of them must fail it). */
  holds: readonly string[];
  title: string;
  /** The spec section the check comes from. */
  section: string;
  /** The spec's words the check enforces (quoted or closely paraphrased), for the coverage table. */
  statement?: string;
  level: CheckLevel;
  profile: CheckProfile;
  needs?: CheckNeed[];
  /** Runs after every other check of the run, so it can review every answer they received. */
  last?: boolean;
  /**
   * For a `last` check: what it asks the target before the reviews start (e.g. a read it shares),
   * so that every `last` check's review sees those answers too. Its errors surface in `run`.
   */
  ask?(context: CheckContext): Promise<unknown>;
  /**
   * What it reads before any check of the run starts (a snapshot of what the target held then),
   * through `context.shared`; its errors surface in `run`.
   */
  before?(context: CheckContext): Promise<unknown>;
  run(context: CheckContext): Promise<void>;
}

/** What a check gets. */
export interface CheckContext {
  client: ApiClient;
  options: Readonly<ResolvedKeys & Pick<ConformanceOptions, 'minAmount' | 'inPage'>>;
  /** Moves payment requests on (controls, a pay command or an NWC wallet); absent in the core profile. */
  lifecycle: LifecycleDriver | undefined;
  /** Records which reading of an open point the target follows (shown as an observation). */
  observe(point: string, reading: string): void;
  /** Memoizes a value shared by several checks (e.g. one created payment request), per run. */
  shared<T>(name: string, make: () => Promise<T>): Promise<T>;
}

/** The keys a run has. */
export interface ResolvedKeys {
  apiKey: string;
  readOnlyKey?: string;
  nwcKey?: string;
  /** The key with the `accounts` permission, when the run was given one (`--admin-key`). */
  adminKey?: string;
}
