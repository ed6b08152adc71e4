/**
 * A Server-Sent Events stream of the sandbox read with `fetch`, for `lnpr listen`: the key goes
 * in the Authorization header as on every other call (the sandbox's `GET /sandbox/v1/stream`
 * takes no key in the URL). One connection, no reconnecting: the caller decides what a drop
 * means. A stream on which nothing arrives for `idleMs` (the sandbox sends a comment every 15 s)
 * counts as dropped, so a connection that died without a FIN is noticed.
 */
import { SseParser, type StreamMessage } from '../web/shared/sse-parser.js';
import { httpError, unreachable, type SandboxTarget } from './sandbox-client.js';

export type { StreamMessage };

/** An open stream. */
export interface EventStreamConnection {
  /** The messages as they come; ends when the server ends the stream, throws when it drops or goes idle. */
  messages(): AsyncGenerator<StreamMessage, void, undefined>;
  /** Closes the connection (also done when `messages()` is left). */
  close(): void;
}

/** A stream that stopped without the server ending it: a reset, an idle connection. */
export class StreamDropped extends Error {
  override readonly name = 'StreamDropped';
}

/**
 * Opens `GET path` as an event stream. Rejects with `SandboxUnreachable` when nothing answers
 * and `SandboxHttpError` for an answer other than 200; `signal` closes it at any time.
 */
export async function openEventStream(
  target: SandboxTarget,
  path: string,
  options: { signal?: AbortSignal; idleMs?: number; connectTimeoutMs?: number } = {},
): Promise<EventStreamConnection> {
  const { idleMs = 45_000, connectTimeoutMs = 30_000 } = options;
  const url = target.baseUrl + path;
  const abort = new AbortController();
  const onStop = () => abort.abort();
  options.signal?.addEventListener('abort', onStop, { once: true });
  const close = () => {
    options.signal?.removeEventListener('abort', onStop);
    abort.abort();
  };
  const connectTimer = setTimeout(() => abort.abort(new DOMException('connect timeout', 'TimeoutError')), connectTimeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${target.apiKey}`, accept: 'text/event-stream' },
      cache: 'no-store',
      signal: abort.signal,
    });
  } catch (error) {
    close();
    if (options.signal?.aborted) throw error;
    throw unreachable(url, abort.signal.reason?.name === 'TimeoutError' ? abort.signal.reason : error, connectTimeoutMs);
  } finally {
    clearTimeout(connectTimer);
  }
  if (response.status !== 200 || response.body === null) {
    const text = await response.text().catch(() => '');
    close();
    throw httpError('GET', path, response.status, text);
  }
  const body = response.body;

  async function* messages(): AsyncGenerator<StreamMessage, void, undefined> {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    const parser = new SseParser();
    let idle = false;
    try {
      for (;;) {
        // The idle timer runs only while waiting for the server, never while the caller works.
        const timer = setTimeout(() => ((idle = true), abort.abort()), idleMs);
        let chunk: ReadableStreamReadResult<string>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (options.signal?.aborted) throw error;
          throw new StreamDropped(idle ? `nothing received for ${idleMs / 1000} s` : dropReason(error), { cause: error });
        } finally {
          clearTimeout(timer);
        }
        if (chunk.done) return;
        for (const message of parser.feed(chunk.value)) yield message;
      }
    } finally {
      close();
      void reader.cancel().catch(() => {});
    }
  }

  return { messages, close };
}

/** Why a stream broke off, in a few words. */
function dropReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}
