/**
 * Splitting a text/event-stream into its messages (the WHATWG rules), shared by the dashboard's
 * streams (`sse.ts`) and `lnpr listen` (`src/cli/event-stream.ts`). Pure: no DOM, no Node.
 */

/** One message of a stream. */
export interface StreamMessage {
  /** `event:`, or `message` when the message names none. */
  event: string;
  data: string;
  /** `id:`, when the stream sends one (the sandbox's streams do not). */
  id?: string;
}

/** Splits a text/event-stream into messages, whatever the chunking (the WHATWG rules: comments, `\r\n`, multi-line data). */
export class SseParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];
  #id: string | undefined;

  /** Feeds a chunk; returns the messages it completed. */
  feed(chunk: string): StreamMessage[] {
    this.#buffer += chunk;
    const messages: StreamMessage[] = [];
    let end: number;
    while ((end = this.#buffer.search(/\r\n|\r|\n/)) !== -1) {
      // A `\r` at the very end may be half of a `\r\n` split across chunks: wait for the next one.
      if (this.#buffer[end] === '\r' && end === this.#buffer.length - 1) break;
      const line = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + (this.#buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (this.#data.length > 0) messages.push({ event: this.#event || 'message', data: this.#data.join('\n'), ...(this.#id !== undefined ? { id: this.#id } : {}) });
        this.#event = '';
        this.#data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') this.#event = value;
      else if (field === 'data') this.#data.push(value);
      else if (field === 'id' && !value.includes('\0')) this.#id = value;
    }
    return messages;
  }
}
