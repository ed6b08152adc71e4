/** What every part of the dashboard shares: the key, the account's clock, and calls made with that key. */
import { callApi } from '../shared/api.js';
import { AccountClock } from '../shared/time.js';

/** The account the dashboard works on, chosen by its key. */
export class Session {
  readonly key: string;
  readonly clock = new AccountClock();

  constructor(key: string) {
    this.key = key;
  }

  /** Calls the API with this session's key. */
  call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return callApi<T>(method, path, { key: this.key, ...(body !== undefined ? { body } : {}) });
  }
}

/** Shows `text` in a message area: an error, a success, or plain news (empty hides it). */
export function setMessage(element: HTMLElement, text: string, kind: 'error' | 'success' | 'info' = 'info'): void {
  element.className = `message${kind === 'info' ? '' : ` message-${kind}`}`;
  element.textContent = text;
}
