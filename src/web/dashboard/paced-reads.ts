/**
 * How the dashboard's polled panels (Wallets, Requests and faults) read: never two reads at once,
 * never two starts less than `minGapMs` apart, a refresh asked during a read runs once it ends, a
 * poll every `pollMs` while the tab is visible, nothing after `stop()` or once the session ended.
 * The panels say what a read is; this says when.
 */

/** What the pacing needs of a panel. */
export interface PacedReadOptions {
  /** One read of the panel's data; what it throws goes to `onError` (refreshes) or the caller (`load`). */
  read(): Promise<void>;
  onError(error: unknown): void;
  /** Whether the session the panel reads for has ended (a changed key). */
  ended(): boolean;
  minGapMs: number;
  pollMs: number;
}

export class PacedReads {
  readonly #options: PacedReadOptions;
  #lastReadAt = -Infinity;
  #reading = false;
  #readAgain = false;
  #inFlight: Promise<void> | undefined;
  #loadPending = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #poll: ReturnType<typeof setInterval>;
  #stopped = false;

  constructor(options: PacedReadOptions) {
    this.#options = options;
    this.#poll = setInterval(() => {
      if (document.visibilityState === 'visible') this.refresh();
    }, options.pollMs);
  }

  /**
   * Reads everything (the first read, after a reset or a reconnection): after the read under way,
   * if any, and `minGapMs` after the last one began at the earliest. Throws what the read threw.
   */
  async load(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    // Until this read starts, a refresh asked for is this read.
    this.#loadPending = true;
    try {
      await this.#inFlight?.catch(() => {});
      const wait = this.#lastReadAt + this.#options.minGapMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    } finally {
      this.#loadPending = false;
    }
    if (this.#options.ended()) return;
    this.#lastReadAt = performance.now();
    await this.#read();
  }

  /** Reads again soon: at once if the last read began over `minGapMs` ago, else once that time is up. */
  refresh(): void {
    if (this.#stopped || this.#options.ended() || this.#loadPending) return;
    if (this.#reading) {
      this.#readAgain = true;
      return;
    }
    if (this.#timer !== undefined) return;
    const wait = Math.max(0, this.#lastReadAt + this.#options.minGapMs - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#lastReadAt = performance.now();
      this.#read().catch((error: unknown) => this.#options.onError(error));
    }, wait);
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#poll);
    clearTimeout(this.#timer);
  }

  #read(): Promise<void> {
    const read = this.#readOnce();
    this.#inFlight = read;
    return read;
  }

  async #readOnce(): Promise<void> {
    this.#reading = true;
    try {
      await this.#options.read();
    } finally {
      this.#reading = false;
      if (this.#readAgain) {
        this.#readAgain = false;
        this.refresh();
      }
    }
  }
}
