/**
 * A lingering close for a request answered before its body was read (over the body limit): the
 * rest of the body is read and thrown away, then the answer goes out and the connection closes.
 * Closing while the client is still sending makes its next write fail (EPIPE, or a reset that
 * discards the answer in its buffers), so most clients (Node's `fetch`) would never see the 413;
 * curl, which waits, would. Bounded: after `maxBytes` more bytes or `maxMs`, whichever comes
 * first, the answer goes out anyway and the connection is closed under a client still sending.
 */
import type { IncomingMessage } from 'node:http';

/** How much of an oversized body is read and thrown away, and for how long, before closing anyway. */
export interface LingerLimits {
  maxBytes: number;
  maxMs: number;
}

/** 16 MiB or 10 s: far past the 1 MiB limit, and under the 30 s a whole request may take. */
export const DEFAULT_LINGER: LingerLimits = { maxBytes: 16 * 1024 * 1024, maxMs: 10_000 };

/**
 * Reads and discards the rest of `request`'s body, then calls `answer` once: when the body has
 * ended, or past the limits (`answer` is then told the connection must be cut), or when `cutShort`
 * is called (a closing server). Returns `cutShort`.
 */
export function discardRestThen(request: IncomingMessage, limits: LingerLimits, answer: (cut: boolean) => void): () => void {
  let discarded = 0;
  let done = false;
  const finish = (cut: boolean) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    request.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onError);
    answer(cut);
  };
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limits.maxBytes) finish(true);
  };
  const onEnd = () => finish(false);
  // A client that went away: nothing to answer, but the answer's bookkeeping (the log) still runs.
  const onError = () => finish(true);
  const timer = setTimeout(() => finish(true), limits.maxMs);
  request.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onError);
  request.resume();
  // A declared length past what would be read anyway (999999999999 bytes): no wait can help, so
  // the answer goes out at once and the connection is cut.
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared - request.socket.bytesRead > limits.maxBytes) queueMicrotask(() => finish(true));
  return () => finish(true);
}
