/**
 * What a check throws to say how it ended other than by passing. A leaf, so the lifecycle driver,
 * the checks and the runner can all throw and catch them without importing each other.
 */

/** Thrown by a check whose expectation does not hold. */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
}

/** Thrown by a check that cannot run against this target (it is reported as skipped). */
export class CheckSkipped extends Error {
  override readonly name = 'CheckSkipped';
}
