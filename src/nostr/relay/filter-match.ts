/**
 * Whether an event matches a NIP-01 filter: every field present must hold (`ids`, `authors`,
 * `kinds` and each `#x` list name allowed values; an empty list allows none), `since` ≤
 * `created_at` ≤ `until`. One matcher for both the stored events a REQ reads and the live ones
 * it is sent: @nostr-relay/core's own broadcast match ignores `#x` tag filters, so a wallet
 * subscribed with `#p` would get every wallet's requests.
 *
 * A filter is compiled once (its lists made sets), so checking an event costs one step plus one
 * per tag of the event when the filter has `#x` lists, whatever the lists' lengths: that is the
 * "matching work" the relay budgets (`workOf`).
 */
import type { Event, Filter } from '@nostr-relay/common';

/** A filter ready to match: its lists as sets. */
export interface CompiledFilter {
  readonly filter: Filter;
  readonly ids: ReadonlySet<string> | undefined;
  readonly authors: ReadonlySet<string> | undefined;
  readonly kinds: ReadonlySet<number> | undefined;
  readonly since: number | undefined;
  readonly until: number | undefined;
  /** The `#x` lists: tag name → allowed values. */
  readonly tags: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Compiles `filter` (its `limit` and `search` aside). */
export function compileFilter(filter: Filter): CompiledFilter {
  const tags = new Map<string, ReadonlySet<string>>();
  for (const [key, values] of Object.entries(filter)) {
    if (key[0] === '#' && Array.isArray(values)) tags.set(key.slice(1), new Set(values as string[]));
  }
  return {
    filter,
    ids: filter.ids === undefined ? undefined : new Set(filter.ids),
    authors: filter.authors === undefined ? undefined : new Set(filter.authors),
    kinds: filter.kinds === undefined ? undefined : new Set(filter.kinds),
    since: filter.since,
    until: filter.until,
    tags,
  };
}

/** True when `event` matches the compiled filter. */
export function matches(event: Event, compiled: CompiledFilter): boolean {
  if (compiled.ids !== undefined && !compiled.ids.has(event.id)) return false;
  if (compiled.authors !== undefined && !compiled.authors.has(event.pubkey)) return false;
  if (compiled.kinds !== undefined && !compiled.kinds.has(event.kind)) return false;
  if (compiled.since !== undefined && event.created_at < compiled.since) return false;
  if (compiled.until !== undefined && event.created_at > compiled.until) return false;
  for (const [name, wanted] of compiled.tags) {
    if (wanted.size === 0 || !event.tags.some((tag) => tag[0] === name && tag[1] !== undefined && wanted.has(tag[1]))) return false;
  }
  return true;
}

/** The matching work of checking an event with `tagCount` tags against the filter, at most. */
export function workOf(compiled: CompiledFilter, tagCount: number): number {
  return compiled.tags.size === 0 ? 1 : 1 + tagCount * compiled.tags.size;
}

/** True when `event` matches `filter` (compiled for this one check). */
export function matchesFilter(event: Event, filter: Filter): boolean {
  return matches(event, compileFilter(filter));
}
