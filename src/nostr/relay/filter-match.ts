/**
 * Whether an event matches a NIP-01 filter: every field present must hold (`ids`, `authors`,
 * `kinds` and each `#x` list name allowed values; an empty list allows none), `since` ≤
 * `created_at` ≤ `until`. One function for both the stored events a REQ reads and the live ones
 * it is sent: @nostr-relay/core's own broadcast match ignores `#x` tag filters, so a wallet
 * subscribed with `#p` would get every wallet's requests.
 */
import type { Event, Filter } from '@nostr-relay/common';

/** True when `event` matches `filter` (its `limit` and `search` aside). */
export function matchesFilter(event: Event, filter: Filter): boolean {
  if (filter.ids !== undefined && !filter.ids.includes(event.id)) return false;
  if (filter.authors !== undefined && !filter.authors.includes(event.pubkey)) return false;
  if (filter.kinds !== undefined && !filter.kinds.includes(event.kind)) return false;
  if (filter.since !== undefined && event.created_at < filter.since) return false;
  if (filter.until !== undefined && event.created_at > filter.until) return false;
  for (const [key, values] of Object.entries(filter)) {
    if (key[0] !== '#' || values === undefined) continue;
    const name = key.slice(1);
    const wanted = values as string[];
    if (!event.tags.some((tag) => tag[0] === name && tag[1] !== undefined && wanted.includes(tag[1]))) return false;
  }
  return true;
}

/** True when `event` matches any of `filters`. */
export function matchesAnyFilter(event: Event, filters: readonly Filter[]): boolean {
  return filters.some((filter) => matchesFilter(event, filter));
}
