/**
 * The engine's limits and schedules in the words the document uses, computed from the constants
 * the engine itself runs on: change a retry delay or the event history there and the prose
 * follows. Browser-safe.
 */
import { RETRY_DELAYS_SECONDS } from '../core/due/retry-schedule.js';
import { FEE_RATE_PERCENT, FEE_THRESHOLD_SATS, MINIMUM_FEE_SATS } from '../core/payments/fees.js';
import { ATTEMPT_TIMEOUT_MS } from '../core/webhooks/delivery-dispatcher.js';
import { KEPT_EVENTS_PER_ACCOUNT } from '../core/events/event-log.js';
import { MAX_CREATED_ACCOUNTS } from '../core/accounts/account-registry.js';

/** Big numbers as people read them: 2,100,000,000,000,000. */
export function formatNumber(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A span of seconds in the largest unit that divides it: `30 s`, `2 min`, `24 h`. */
export function formatSeconds(seconds: number): string {
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** The retry delays, `5 s, 30 s, …, 24 h`. */
export const RETRY_DELAYS_TEXT = RETRY_DELAYS_SECONDS.map(formatSeconds);

/** Attempts a delivery gets at most: the first and one per retry delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** Seconds an attempt may take before it has failed. */
export const ATTEMPT_TIMEOUT_SECONDS = ATTEMPT_TIMEOUT_MS / 1_000;

/** Events kept per account (the newest), as `1,000`. */
export const KEPT_EVENTS_TEXT = formatNumber(KEPT_EVENTS_PER_ACCOUNT);

/** Accounts the accounts API may hold at once, as `1,000`. */
export const MAX_CREATED_ACCOUNTS_TEXT = formatNumber(MAX_CREATED_ACCOUNTS);

/** The spec's fee table, as the engine applies it. */
export const FEES = {
  rate: FEE_RATE_PERCENT,
  threshold: formatNumber(FEE_THRESHOLD_SATS),
  minimum: MINIMUM_FEE_SATS,
} as const;
