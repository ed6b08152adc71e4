/**
 * Sends one delivery the way the sandbox's sender does: `fetch`, a timeout, and never a
 * redirect followed (a 3xx is the answer, and counts as a refusal). Keeps the status, the
 * time to it and the first 512 bytes of the body; never throws: no answer is a verdict too.
 */
import type { DeliveryRecord, DeliveryVerdict } from './result.js';
import type { OutgoingDelivery } from './outgoing-delivery.js';

/** How much of a response body the report keeps. */
export const RESPONSE_EXCERPT_BYTES = 512;

/** Where and how to send. */
export interface SendOptions {
  url: string;
  timeoutMs: number;
  fetch: typeof fetch;
}

/** POSTs `delivery` to the receiver and records what came back. */
export async function sendDelivery(delivery: OutgoingDelivery, options: SendOptions): Promise<DeliveryRecord> {
  const sent = { webhookId: delivery.webhookId, eventType: delivery.eventType, timestamp: delivery.timestamp, note: delivery.note };
  // One timeout for the status and the excerpt: a receiver that stalls mid-body still answers within it.
  const signal = AbortSignal.timeout(options.timeoutMs);
  const started = performance.now();
  let response: Response;
  try {
    response = await options.fetch(options.url, { method: 'POST', headers: delivery.headers, body: delivery.body, redirect: 'manual', signal });
  } catch (error) {
    return { ...sent, verdict: 'no-answer', error: reasonOf(error, options.timeoutMs), durationMs: performance.now() - started };
  }
  const durationMs = performance.now() - started;
  const verdict = verdictOf(response.status);
  const location = response.headers.get('location');
  return {
    ...sent,
    verdict,
    status: response.status,
    ...(verdict === 'redirected' && location !== null ? { location } : {}),
    responseExcerpt: await readExcerpt(response),
    durationMs,
  };
}

/** 2xx accepts; 3xx redirects (a refusal, since it is not followed); anything else refuses. */
function verdictOf(status: number): Exclude<DeliveryVerdict, 'no-answer'> {
  if (status >= 200 && status < 300) return 'accepted';
  if (status >= 300 && status < 400) return 'redirected';
  return 'refused';
}

/** The first RESPONSE_EXCERPT_BYTES of the body as text; the rest is never read. */
async function readExcerpt(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    while (length < RESPONSE_EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.length;
    }
  } catch {
    // Timed out or reset mid-body: the status is the answer; keep what arrived.
  } finally {
    // Frees the connection without reading a large or endless body.
    void reader.cancel().catch(() => {});
  }
  const bytes = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES);
  return new TextDecoder().decode(bytes);
}

/** Why there was no answer, in words a person can act on. */
function reasonOf(error: unknown, timeoutMs: number): string {
  if ((error as Error).name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  const { cause } = error as { cause?: { code?: string; message?: string } };
  return cause?.message ?? cause?.code ?? (error as Error).message;
}
