/** What every part of the dashboard shares: the key, the account's clock, and calls made with that key. */
import { callApi } from '../shared/api.js';
import { AccountClock } from '../shared/time.js';

/** A promise that never settles: what a call of an ended session gives, so nothing after it runs. */
const never = <T>(): Promise<T> => new Promise<T>(() => {});

/**
 * The account the dashboard works on, chosen by its key. It ends when the person changes the key:
 * its calls under way are aborted, and an answer that still arrives afterwards is dropped (the
 * promise never settles), so nothing of this account is drawn once another one is shown.
 */
export class Session {
  readonly key: string;
  readonly clock = new AccountClock();
  readonly #abort = new AbortController();

  constructor(key: string) {
    this.key = key;
  }

  /** Whether the person has moved on to another key (or none). */
  get ended(): boolean {
    return this.#abort.signal.aborted;
  }

  /** Ends the session: aborts its calls and stops their answers from reaching the page. */
  end(): void {
    this.#abort.abort();
  }

  /** Calls the API with this session's key; never settles once the session has ended. */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    if (this.ended) return never<T>();
    try {
      const answer = await callApi<T>(method, path, { key: this.key, signal: this.#abort.signal, ...(body !== undefined ? { body } : {}) });
      return this.ended ? never<T>() : answer;
    } catch (error) {
      if (this.ended) return never<T>();
      throw error;
    }
  }
}

/** Shows `text` in a message area: an error, a success, or plain news (empty hides it). */
export function setMessage(element: HTMLElement, text: string, kind: 'error' | 'success' | 'info' = 'info'): void {
  element.className = `message${kind === 'info' ? '' : ` message-${kind}`}`;
  element.textContent = text;
}
