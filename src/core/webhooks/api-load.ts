/**
 * How hard the API is being driven, so delivery attempts can give way to it: under a load test a
 * delivery per write would otherwise cost the API about as much CPU as the write itself (an
 * outgoing HTTP exchange per incoming one). Counted from the requests the engine handles, over
 * short windows of real time (not an account's clock, which may be frozen). Browser-safe.
 */

/** The length of a counting window. */
export const LOAD_WINDOW_MS = 100;
/** API requests in one window from which the API counts as busy: 1,000 a second. */
const BUSY_REQUESTS_PER_WINDOW = 100;

/** Counts API requests per window; `busy` while this window or the last one reached the threshold. */
export class ApiLoad {
  readonly #now: () => number;
  readonly #threshold: number;
  #windowStartMs: number;
  #count = 0;
  #previousCount = 0;

  constructor(now: () => number = () => performance.now(), threshold = BUSY_REQUESTS_PER_WINDOW) {
    this.#now = now;
    this.#threshold = threshold;
    this.#windowStartMs = now();
  }

  /** Notes one API request. */
  noteRequest(): void {
    this.#roll();
    this.#count += 1;
  }

  /** Whether the API is handling requests at the busy rate now. */
  get busy(): boolean {
    this.#roll();
    return this.#count >= this.#threshold || this.#previousCount >= this.#threshold;
  }

  #roll(): void {
    const elapsed = this.#now() - this.#windowStartMs;
    if (elapsed < LOAD_WINDOW_MS) return;
    // A gap of two windows or more means the window before this one saw no request at all.
    this.#previousCount = elapsed < 2 * LOAD_WINDOW_MS ? this.#count : 0;
    this.#count = 0;
    this.#windowStartMs += elapsed < 2 * LOAD_WINDOW_MS ? LOAD_WINDOW_MS : elapsed;
  }
}
