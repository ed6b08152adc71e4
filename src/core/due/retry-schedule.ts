/**
 * When a delivery is tried again, as Standard Webhooks senders (Svix) do: after 5 s, 30 s, 2 min,
 * 10 min, 1 h, 6 h and 24 h, then it has failed. Gaps are measured on the account's clock from when
 * the failed attempt was due, so advancing the clock by a day runs every retry that falls due in
 * that day, in order, rather than one.
 */

/** Seconds from one attempt's due moment to the next, after each failure. */
export const RETRY_DELAYS_SECONDS = [5, 30, 120, 600, 3_600, 21_600, 86_400] as const;

/** When the attempt after a failed `attempt` (due at `dueMs`) is due; undefined after the last. */
export function nextAttemptDueMs(attempt: number, dueMs: number): number | undefined {
  const delay = RETRY_DELAYS_SECONDS[attempt - 1];
  return delay === undefined ? undefined : dueMs + delay * 1000;
}
