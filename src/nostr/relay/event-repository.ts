/**
 * The relay's event store: in memory, bounded. @nostr-relay/core hands it every event it keeps
 * (ephemeral kinds 20000–29999, NWC's requests, responses and notifications, it only
 * broadcasts), so with the kind policy in front only NWC info events (13194) reach it.
 *
 * Replaceable events (NIP-01: kinds 0, 3 and 10000–19999) are kept one per author and kind, the
 * newest winning: a later `created_at`, or on a tie the lower `id`. Addressable ones (30000–39999)
 * one per author, kind and `d` tag; any other by id. The store holds at most `maxStoredEvents`
 * events and `maxStoredBytes` characters of their JSON (bytes, for the ASCII they are): past either, the oldest stored goes first (a
 * replaced event counts as stored anew).
 */
import { EventRepository, type Event, type EventRepositoryUpsertResult, type Filter } from '@nostr-relay/common';
import { matchesFilter } from './filter-match.js';
import type { RelayLimits } from './relay-limits.js';

interface Stored {
  event: Event;
  /** Its JSON's length in characters: what it costs against `maxStoredBytes`. */
  bytes: number;
}

/** An in-memory EventRepository with the limits above. */
export class MemoryEventRepository extends EventRepository {
  readonly #limits: Pick<RelayLimits, 'maxStoredEvents' | 'maxStoredBytes' | 'maxLimit'>;
  /** By replacement key, in the order stored: the first is the oldest, evicted first. */
  readonly #byKey = new Map<string, Stored>();
  /** Event id → replacement key. */
  readonly #keyOfId = new Map<string, string>();
  /** Author → replacement keys, for the filters that name authors (as NWC clients' do). */
  readonly #keysOfAuthor = new Map<string, Set<string>>();
  #bytes = 0;

  constructor(limits: Pick<RelayLimits, 'maxStoredEvents' | 'maxStoredBytes' | 'maxLimit'>) {
    super();
    this.#limits = limits;
  }

  /** Events stored now. */
  get size(): number {
    return this.#byKey.size;
  }

  /** Characters of the stored events' JSON now. */
  get bytes(): number {
    return this.#bytes;
  }

  override isSearchSupported(): boolean {
    return false;
  }

  /** Stores `event` unless the same or a newer replacement is stored; a duplicate is not broadcast. */
  override upsert(event: Event): EventRepositoryUpsertResult {
    const key = replacementKey(event);
    const current = this.#byKey.get(key);
    if (current !== undefined) {
      if (!isNewer(event, current.event)) return { isDuplicate: true };
      this.#remove(key, current);
    }
    const stored = { event, bytes: JSON.stringify(event).length };
    this.#byKey.set(key, stored);
    this.#keyOfId.set(event.id, key);
    let keys = this.#keysOfAuthor.get(event.pubkey);
    if (keys === undefined) this.#keysOfAuthor.set(event.pubkey, (keys = new Set()));
    keys.add(key);
    this.#bytes += stored.bytes;
    this.#evict();
    return { isDuplicate: false };
  }

  /** The stored events matching `filter`, newest first, at most its `limit` (capped at `maxLimit`). */
  override find(filter: Filter): Event[] {
    const limit = Math.min(filter.limit ?? this.#limits.maxLimit, this.#limits.maxLimit);
    if (limit <= 0) return [];
    const found: Event[] = [];
    for (const stored of this.#candidates(filter)) {
      if (matchesFilter(stored.event, filter)) found.push(stored.event);
    }
    found.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return found.length > limit ? found.slice(0, limit) : found;
  }

  override async destroy(): Promise<void> {
    this.#byKey.clear();
    this.#keyOfId.clear();
    this.#keysOfAuthor.clear();
    this.#bytes = 0;
  }

  /** The stored events a filter can match, narrowed by its ids or authors when it names them. */
  *#candidates(filter: Filter): Iterable<Stored> {
    if (filter.ids !== undefined) {
      for (const id of new Set(filter.ids)) {
        const key = this.#keyOfId.get(id);
        const stored = key === undefined ? undefined : this.#byKey.get(key);
        if (stored !== undefined) yield stored;
      }
    } else if (filter.authors !== undefined) {
      for (const author of new Set(filter.authors)) {
        for (const key of this.#keysOfAuthor.get(author) ?? []) {
          const stored = this.#byKey.get(key);
          if (stored !== undefined) yield stored;
        }
      }
    } else {
      yield* this.#byKey.values();
    }
  }

  #evict(): void {
    while (this.#byKey.size > this.#limits.maxStoredEvents || this.#bytes > this.#limits.maxStoredBytes) {
      const oldest = this.#byKey.entries().next();
      if (oldest.done === true) return;
      this.#remove(oldest.value[0], oldest.value[1]);
    }
  }

  #remove(key: string, stored: Stored): void {
    this.#byKey.delete(key);
    this.#keyOfId.delete(stored.event.id);
    const keys = this.#keysOfAuthor.get(stored.event.pubkey);
    keys?.delete(key);
    if (keys?.size === 0) this.#keysOfAuthor.delete(stored.event.pubkey);
    this.#bytes -= stored.bytes;
  }
}

/** What a newer event replaces: author and kind for replaceable kinds, plus `d` for addressable ones, else the id. */
function replacementKey(event: Event): string {
  const { kind, pubkey } = event;
  if (kind === 0 || kind === 3 || (kind >= 10_000 && kind < 20_000)) return `${kind}:${pubkey}`;
  if (kind >= 30_000 && kind < 40_000) {
    const d = event.tags.find((tag) => tag[0] === 'd')?.[1] ?? '';
    return `${kind}:${pubkey}:${d}`;
  }
  return event.id;
}

/** NIP-01: the later `created_at` wins; on a tie, the lower id. */
function isNewer(event: Event, than: Event): boolean {
  return event.created_at > than.created_at || (event.created_at === than.created_at && event.id < than.id);
}
