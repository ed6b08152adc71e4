/**
 * Server-Sent Events read with `fetch`, so the API key goes in the Authorization header as on
 * every other call (an EventSource cannot send one, and a key in a URL ends up in logs and
 * history). Reconnects after a dropped stream, waiting longer each time; never polls.
 */
import { SseParser, type StreamMessage } from './sse-parser.js';

export { SseParser };

export type { StreamMessage };

/** How a stream is doing, for the page to show. */
export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'refused';

/** Callbacks of `openStream`. */
export interface StreamHandlers {
  onMessage(message: StreamMessage): void;
  onState(state: StreamState, detail?: string): void;
}

/** Reads `url` as an event stream with `headers`, reconnecting until the returned function is called. */
export function openStream(url: string, headers: Record<string, string>, handlers: StreamHandlers): () => void {
  const abort = new AbortController();
  let delayMs = 1_000;
  const run = async (): Promise<void> => {
    while (!abort.signal.aborted) {
      handlers.onState('connecting');
      try {
        const response = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal: abort.signal, cache: 'no-store' });
        if (response.status === 401 || response.status === 404) {
          handlers.onState('refused', `${response.status}`);
          return;
        }
        if (!response.ok || response.body === null) throw new Error(`the stream answered ${response.status}`);
        handlers.onState('open');
        delayMs = 1_000;
        const parser = new SseParser();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const message of parser.feed(value)) handlers.onMessage(message);
        }
      } catch {
        if (abort.signal.aborted) return;
      }
      if (abort.signal.aborted) return;
      handlers.onState('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, 30_000);
    }
  };
  void run();
  return () => abort.abort();
}
