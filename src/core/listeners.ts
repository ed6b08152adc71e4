/** Listeners of something the engine announces (events, delivery outcomes, clock moves). */

/** A set of listeners called in turn; one that throws is reported, and breaks neither the others nor the caller. */
export class Listeners<Args extends unknown[]> {
  readonly #listeners = new Set<(...args: Args) => void>();
  readonly #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  /** Adds `listener`; returns the function that removes it. */
  add(listener: (...args: Args) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Calls every listener with `args`. */
  emit(...args: Args): void {
    for (const listener of this.#listeners) {
      try {
        listener(...args);
      } catch (error) {
        this.#onError(error);
      }
    }
  }
}
