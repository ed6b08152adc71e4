/**
 * The relay's event store: in memory, bounded. @nostr-relay/core hands it every event it keeps
 * (ephemeral kinds 20000–29999, NWC's requests, responses and notifications, it only
 * broadcasts), so with the kind policy in front only NWC info events (13194) reach it.
 *
 * Replaceable events (NIP-01: kinds 0, 3 and 10000–19999) are kept one per author and kind, the
 * newest winning: a later `created_at`, or on a tie the lower `id`. Addressable ones (30000–39999)
 * one per author, kind and `d` tag; any other by id.
 *
 * Two parts, so that no stranger can push the sandbox's own wallets off the relay:
 * - the sandbox's own events (published through its in-process sessions, and any later event of
 *   an author it published for) are kept apart: never evicted, not counted against the limits
 *   (there is one per wallet the sandbox serves);
 * - everyone else's hold at most `maxStoredEvents` events and `maxStoredBytes` characters of JSON
 *   (bytes, for the ASCII they are), and no remote address and no author more than
 *   `maxStoredShare` of either: past an address's or author's share its own oldest goes first
 *   (never the event just stored, so each keeps its newest), past the whole the oldest stored.
 *   A replaced event counts as stored anew.
 */
import { EventRepository, type Event, type EventRepositoryUpsertResult, type Filter } from '@nostr-relay/common';
import { compileFilter, matches, workOf } from './filter-match.js';
import type { RelayLimits } from './relay-limits.js';

/** Who published an event: the sandbox itself, or a client at a remote address. */
export type EventOrigin = { own: true } | { own: false; address?: string };

interface Stored {
  key: string;
  event: Event;
  /** Its JSON's length in characters: what it costs against `maxStoredBytes`. */
  bytes: number;
  own: boolean;
  address: string | undefined;
}

/** Events of one author or one address, oldest first, and their bytes. */
interface Group {
  keys: Set<string>;
  bytes: number;
}

type StoreLimits = Pick<RelayLimits, 'maxStoredEvents' | 'maxStoredBytes' | 'maxStoredShare' | 'maxLimit'>;

/** An in-memory EventRepository with the limits above. */
export class MemoryEventRepository extends EventRepository {
  readonly #limits: StoreLimits;
  readonly #originOf: (event: Event) => EventOrigin;
  /** The sandbox's own events, by replacement key. */
  readonly #own = new Map<string, Stored>();
  /** Everyone else's, by replacement key, in the order stored: the first is the oldest, evicted first. */
  readonly #others = new Map<string, Stored>();
  /** Authors the sandbox publishes for: their events are its own. */
  readonly #ownAuthors = new Set<string>();
  /** Event id → replacement key. */
  readonly #keyOfId = new Map<string, string>();
  /** Author → replacement keys (both parts), for the filters that name authors (as NWC clients' do). */
  readonly #keysOfAuthor = new Map<string, Set<string>>();
  /** Kind → replacement keys (both parts), for the filters that name kinds. */
  readonly #keysOfKind = new Map<number, Set<string>>();
  /** Strangers' events by author and by address, for their shares. */
  readonly #othersOfAuthor = new Map<string, Group>();
  readonly #othersOfAddress = new Map<string, Group>();
  #othersBytes = 0;
  #ownBytes = 0;

  /** `originOf` says who published the event being stored (a stranger without address by default). */
  constructor(limits: StoreLimits, originOf: (event: Event) => EventOrigin = () => ({ own: false })) {
    super();
    this.#limits = limits;
    this.#originOf = originOf;
  }

  /** Events stored now (both parts). */
  get size(): number {
    return this.#own.size + this.#others.size;
  }

  /** Characters of the stored events' JSON now (both parts). */
  get bytes(): number {
    return this.#ownBytes + this.#othersBytes;
  }

  /** Of them, the sandbox's own (never evicted). */
  get ownSize(): number {
    return this.#own.size;
  }

  override isSearchSupported(): boolean {
    return false;
  }

  /** Stores `event` unless the same or a newer replacement is stored; a duplicate is not broadcast. */
  override upsert(event: Event): EventRepositoryUpsertResult {
    const key = replacementKey(event);
    const current = this.#own.get(key) ?? this.#others.get(key);
    if (current !== undefined) {
      if (!isNewer(event, current.event)) return { isDuplicate: true };
      this.#remove(current);
    }
    const origin = this.#originOf(event);
    if (origin.own) this.#ownAuthors.add(event.pubkey);
    const own = this.#ownAuthors.has(event.pubkey);
    const address = origin.own ? undefined : origin.address;
    const stored: Stored = { key, event, bytes: JSON.stringify(event).length, own, address };
    (own ? this.#own : this.#others).set(key, stored);
    this.#keyOfId.set(event.id, key);
    addTo(this.#keysOfAuthor, event.pubkey, key);
    addTo(this.#keysOfKind, event.kind, key);
    if (own) {
      this.#ownBytes += stored.bytes;
    } else {
      this.#othersBytes += stored.bytes;
      join(this.#othersOfAuthor, event.pubkey, stored);
      if (address !== undefined) join(this.#othersOfAddress, address, stored);
      this.#evict(stored);
    }
    return { isDuplicate: false };
  }

  /** The stored events matching `filter`, newest first, at most its `limit` (capped at `maxLimit`). */
  override find(filter: Filter): Event[] {
    return this.search(filter, Infinity).events;
  }

  /**
   * `find`, doing at most `maxWork` matching work (`workOf` per stored event checked): `complete`
   * false when it stopped there, `work` what it did.
   */
  search(filter: Filter, maxWork: number): { events: Event[]; work: number; complete: boolean } {
    const limit = Math.min(filter.limit ?? this.#limits.maxLimit, this.#limits.maxLimit);
    if (limit <= 0) return { events: [], work: 0, complete: true };
    const compiled = compileFilter(filter);
    const found: Event[] = [];
    let work = 0;
    for (const stored of this.#candidates(filter)) {
      work += workOf(compiled, stored.event.tags.length);
      if (work > maxWork) return { events: [], work, complete: false };
      if (matches(stored.event, compiled)) found.push(stored.event);
    }
    found.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { events: found.length > limit ? found.slice(0, limit) : found, work, complete: true };
  }

  override async destroy(): Promise<void> {
    for (const map of [this.#own, this.#others, this.#keyOfId, this.#keysOfAuthor, this.#keysOfKind, this.#othersOfAuthor, this.#othersOfAddress]) map.clear();
    this.#ownAuthors.clear();
    this.#ownBytes = 0;
    this.#othersBytes = 0;
  }

  #get(key: string): Stored | undefined {
    return this.#own.get(key) ?? this.#others.get(key);
  }

  /** The stored events a filter can match, narrowed by its ids, authors or kinds when it names them. */
  *#candidates(filter: Filter): Iterable<Stored> {
    let keys: Iterable<string> | undefined;
    if (filter.ids !== undefined) {
      keys = [...new Set(filter.ids)].flatMap((id) => this.#keyOfId.get(id) ?? []);
    } else if (filter.authors !== undefined) {
      keys = [...new Set(filter.authors)].flatMap((author) => [...(this.#keysOfAuthor.get(author) ?? [])]);
    } else if (filter.kinds !== undefined) {
      keys = [...new Set(filter.kinds)].flatMap((kind) => [...(this.#keysOfKind.get(kind) ?? [])]);
    }
    if (keys === undefined) {
      yield* this.#own.values();
      yield* this.#others.values();
      return;
    }
    for (const key of keys) {
      const stored = this.#get(key);
      if (stored !== undefined) yield stored;
    }
  }

  /** Holds strangers to their shares, then to the whole; `just` (the event just stored) stays if its group's share allows one. */
  #evict(just: Stored): void {
    const share = this.#limits.maxStoredShare;
    const maxEvents = Math.max(1, Math.floor(this.#limits.maxStoredEvents * share));
    const maxBytes = Math.floor(this.#limits.maxStoredBytes * share);
    for (const group of [just.address === undefined ? undefined : this.#othersOfAddress.get(just.address), this.#othersOfAuthor.get(just.event.pubkey)]) {
      while (group !== undefined && group.keys.size > 1 && (group.keys.size > maxEvents || group.bytes > maxBytes)) {
        const oldest = this.#others.get(group.keys.values().next().value!);
        if (oldest === undefined || oldest === just) break;
        this.#remove(oldest);
      }
    }
    while (this.#others.size > this.#limits.maxStoredEvents || this.#othersBytes > this.#limits.maxStoredBytes) {
      const oldest = this.#others.values().next();
      if (oldest.done === true) return;
      this.#remove(oldest.value);
    }
  }

  #remove(stored: Stored): void {
    const { key, event } = stored;
    (stored.own ? this.#own : this.#others).delete(key);
    this.#keyOfId.delete(event.id);
    removeFrom(this.#keysOfAuthor, event.pubkey, key);
    removeFrom(this.#keysOfKind, event.kind, key);
    if (stored.own) {
      this.#ownBytes -= stored.bytes;
      return;
    }
    this.#othersBytes -= stored.bytes;
    leave(this.#othersOfAuthor, event.pubkey, stored);
    if (stored.address !== undefined) leave(this.#othersOfAddress, stored.address, stored);
  }
}

function addTo<K>(map: Map<K, Set<string>>, at: K, key: string): void {
  let keys = map.get(at);
  if (keys === undefined) map.set(at, (keys = new Set()));
  keys.add(key);
}

function removeFrom<K>(map: Map<K, Set<string>>, at: K, key: string): void {
  const keys = map.get(at);
  keys?.delete(key);
  if (keys?.size === 0) map.delete(at);
}

function join(groups: Map<string, Group>, at: string, stored: Stored): void {
  let group = groups.get(at);
  if (group === undefined) groups.set(at, (group = { keys: new Set(), bytes: 0 }));
  group.keys.add(stored.key);
  group.bytes += stored.bytes;
}

function leave(groups: Map<string, Group>, at: string, stored: Stored): void {
  const group = groups.get(at);
  if (group === undefined || !group.keys.delete(stored.key)) return;
  group.bytes -= stored.bytes;
  if (group.keys.size === 0) groups.delete(at);
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
