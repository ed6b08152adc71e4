/**
 * The ids of the last events the relay relayed without storing (ephemeral kinds: NWC requests,
 * responses, notifications). The same signed event sent again is answered `OK true "duplicate:
 * …"` and not broadcast again, before its signature is even checked: republishing one event costs
 * the relay a set lookup, not a broadcast.
 */

/** A bounded set of ids: past `capacity`, the oldest is forgotten. */
export class RecentEventIds {
  readonly #capacity: number;
  readonly #ids = new Set<string>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  add(id: string): void {
    this.#ids.delete(id);
    this.#ids.add(id);
    if (this.#ids.size > this.#capacity) this.#ids.delete(this.#ids.values().next().value!);
  }

  /** Forgets `id` (an event that was refused after all). */
  delete(id: string): void {
    this.#ids.delete(id);
  }

  clear(): void {
    this.#ids.clear();
  }
}
