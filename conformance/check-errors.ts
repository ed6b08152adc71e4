/**
 * What a check throws to say how it ended other than by passing, and what a run throws when it
 * cannot start. A leaf, so the lifecycle driver, the checks and the runner can all throw and catch
 * them without importing each other.
 */

/** Thrown by a check whose expectation does not hold. */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
}

/** Thrown by a check that cannot run against this target (it is reported as skipped). */
export class CheckSkipped extends Error {
  override readonly name = 'CheckSkipped';
}

/** A run that cannot start: bad options, or a target that refuses what they ask (exit status 2, like an unreachable target). */
export class ConformanceUsageError extends Error {
  override readonly name = 'ConformanceUsageError';
}
