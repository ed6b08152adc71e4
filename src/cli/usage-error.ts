/** A mistake in how the CLI was called (or a target it cannot reach): exit status 2, no stack trace. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
