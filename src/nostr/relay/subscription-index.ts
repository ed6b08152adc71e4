/**
 * The relay's open subscriptions, indexed so that an event is checked only against the filters
 * that could match it, not against every open filter: each filter is filed under one thing an
 * event must have to match it — one of its `authors`, else one of its `#p` values (NWC's wallet
 * services and clients name one or the other), else one of its `kinds`, else "any event". An
 * event then looks in the bins of its author, of each of its `p` tags, of its kind and "any".
 *
 * `workOf(event)` says, before matching, at most how much matching work (`filter-match.ts`) the
 * event will cost: the relay charges it to the publisher's budget first and refuses the event
 * when it would go beyond.
 */
import type { Event, Filter } from '@nostr-relay/common';
import { compileFilter, matches, type CompiledFilter } from './filter-match.js';

/** One open subscription of a client. */
export interface Subscription<C> {
  readonly client: C;
  readonly id: string;
  readonly filters: readonly CompiledFilter[];
}

interface Entry<C> {
  subscription: Subscription<C>;
  filter: CompiledFilter;
}

/** Filters filed under one key, and how many `#x` lists they have in all (each costs per tag). */
interface Bin<C> {
  entries: Set<Entry<C>>;
  tagged: number;
}

const ANY = 'any';

/** Open subscriptions by client and id, indexed for matching. */
export class SubscriptionIndex<C> {
  readonly #byClient = new Map<C, Map<string, { subscription: Subscription<C>; filed: Array<[string, Entry<C>]> }>>();
  readonly #bins = new Map<string, Bin<C>>();

  /** Open subscriptions of `client`. */
  countOf(client: C): number {
    return this.#byClient.get(client)?.size ?? 0;
  }

  has(client: C, id: string): boolean {
    return this.#byClient.get(client)?.has(id) === true;
  }

  /** Opens (or replaces) the subscription `id` of `client`. */
  add(client: C, id: string, filters: readonly Filter[]): Subscription<C> {
    this.remove(client, id);
    const subscription: Subscription<C> = { client, id, filters: filters.map(compileFilter) };
    const filed: Array<[string, Entry<C>]> = [];
    for (const filter of subscription.filters) {
      const entry = { subscription, filter };
      for (const key of keysOf(filter)) {
        let bin = this.#bins.get(key);
        if (bin === undefined) this.#bins.set(key, (bin = { entries: new Set(), tagged: 0 }));
        bin.entries.add(entry);
        bin.tagged += filter.tags.size;
        filed.push([key, entry]);
      }
    }
    let ofClient = this.#byClient.get(client);
    if (ofClient === undefined) this.#byClient.set(client, (ofClient = new Map()));
    ofClient.set(id, { subscription, filed });
    return subscription;
  }

  /** Closes the subscription `id` of `client`; false when there was none. */
  remove(client: C, id: string): boolean {
    const ofClient = this.#byClient.get(client);
    const open = ofClient?.get(id);
    if (ofClient === undefined || open === undefined) return false;
    for (const [key, entry] of open.filed) {
      const bin = this.#bins.get(key);
      if (bin === undefined || !bin.entries.delete(entry)) continue;
      bin.tagged -= entry.filter.tags.size;
      if (bin.entries.size === 0) this.#bins.delete(key);
    }
    ofClient.delete(id);
    if (ofClient.size === 0) this.#byClient.delete(client);
    return true;
  }

  /** Closes every subscription of `client`. */
  removeClient(client: C): void {
    for (const id of [...(this.#byClient.get(client)?.keys() ?? [])]) this.remove(client, id);
  }

  /** At most the matching work (`workOf` of filter-match.ts, summed) `subscriptionsFor(event)` will do. */
  workOf(event: Event): number {
    let work = 0;
    for (const bin of this.#binsOf(event)) work += bin.entries.size + bin.tagged * event.tags.length;
    return work;
  }

  /** The subscriptions with a filter `event` matches, each once. */
  subscriptionsFor(event: Event): Subscription<C>[] {
    const found = new Set<Subscription<C>>();
    for (const bin of this.#binsOf(event)) {
      for (const { subscription, filter } of bin.entries) {
        if (!found.has(subscription) && matches(event, filter)) found.add(subscription);
      }
    }
    return [...found];
  }

  /** The bins an event looks in: its author's, each distinct `p` tag's, its kind's, "any". */
  *#binsOf(event: Event): Iterable<Bin<C>> {
    const keys = new Set([`a:${event.pubkey}`, `k:${event.kind}`, ANY]);
    for (const tag of event.tags) if (tag[0] === 'p' && tag[1] !== undefined) keys.add(`p:${tag[1]}`);
    for (const key of keys) {
      const bin = this.#bins.get(key);
      if (bin !== undefined) yield bin;
    }
  }
}

/** Where a filter is filed: under each of its authors, else its `#p` values, else its kinds, else "any". */
function keysOf(filter: CompiledFilter): string[] {
  if (filter.authors !== undefined) return [...filter.authors].map((author) => `a:${author}`);
  const p = filter.tags.get('p');
  if (p !== undefined) return [...p].map((value) => `p:${value}`);
  if (filter.kinds !== undefined) return [...filter.kinds].map((kind) => `k:${kind}`);
  return [ANY];
}
