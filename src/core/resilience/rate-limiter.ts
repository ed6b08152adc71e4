/**
 * The rate limit (`lnpr serve --rate-limit N`; the spec shows none, so it is off by default): at
 * most N `/api/v1` calls per second per API key, in fixed one-second windows. Every answer under it
 * carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds until the window
 * ends, rounded up: 1); a call over it gets 429 `rate_limited` with `Retry-After`. Keys are held only while their
 * window is current: at most the keys seen in one second.
 */

/** The verdict on one call. */
export interface RateVerdict {
  allowed: boolean;
  headers: Record<string, string>;
}

export class RateLimiter {
  readonly #limit: number;
  #window = -1;
  /** Calls this window, by key (the directory's holder of the key: one object however the header spells it). */
  readonly #counts = new Map<object, number>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Counts a call of `key` at `nowMs`. */
  take(key: object, nowMs: number): RateVerdict {
    const window = Math.floor(nowMs / 1000);
    if (window !== this.#window) {
      this.#window = window;
      this.#counts.clear();
    }
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, count);
    // Windows are a second long: the next always starts within one.
    const reset = '1';
    const allowed = count <= this.#limit;
    const headers: Record<string, string> = {
      'ratelimit-limit': String(this.#limit),
      'ratelimit-remaining': String(Math.max(0, this.#limit - count)),
      'ratelimit-reset': reset,
    };
    if (!allowed) headers['retry-after'] = reset;
    return { allowed, headers };
  }
}
