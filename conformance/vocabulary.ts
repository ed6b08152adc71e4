/**
 * The suite's words, stated once: how strict a check is, which profile it belongs to, how a run
 * moves requests on, and how a check ended. A leaf: every other module of the suite may import it,
 * and it imports nothing, so the types that describe checks, options and results never go round
 * in a circle.
 */

/** MUST fails the run; SHOULD only warns. */
export type CheckLevel = 'MUST' | 'SHOULD';

/** The profiles a run can select: `core` (black box), `lifecycle` (moves requests on), `full` (both). */
export const PROFILES = ['core', 'lifecycle', 'full'] as const;

/** Which checks run: `core` (black box), `lifecycle` (needs controls or a pay command), `full` (both). */
export type Profile = (typeof PROFILES)[number];

/**
 * The profile a check belongs to: `core` checks are black-box; `lifecycle` checks need a way to
 * move requests on; `full` checks hold the control API's own promises and run in `full` only.
 */
export type CheckProfile = Profile;

/**
 * How lifecycle checks move a payment request on: the target's control API, a pay command, or an
 * NWC wallet that pays (`nwc-payer`; failing and expiring then go through the control API where the
 * target has one).
 */
export type LifecycleKind = 'controls' | 'pay-command' | 'nwc-payer';

/**
 * How one check can end, in report order. `warned`: a SHOULD check did not hold. `known-failure`:
 * failed as the known-failing list expects. `unexpected-pass`: listed as known-failing but passed —
 * a failure of the run, so the list stays honest.
 */
export const CHECK_OUTCOMES = ['passed', 'failed', 'warned', 'skipped', 'known-failure', 'unexpected-pass'] as const;

/** How one check ended (see CHECK_OUTCOMES). */
export type CheckOutcome = (typeof CHECK_OUTCOMES)[number];
