/**
 * A WebhookSender over `fetch`, for browsers and in-process users: any platform with fetch and
 * AbortController. Redirects are not followed (a 3xx is the receiver's answer, and a failure), the
 * response body is read up to a cap and dropped, and an attempt is abandoned after its timeout.
 * Node's `lnpr serve` uses the cheaper node:http sender. `fetch` cannot say which address a name
 * resolves to, so where the address policy asks for that check (a sandbox that refuses private
 * addresses, a URL naming a host) this sender refuses the attempt rather than send it unchecked.
 */
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../core/webhooks/webhook-sender.js';

/** Response bytes read before the rest is dropped: a receiver's answer is not data we keep. */
export const RESPONSE_BYTES_READ = 64 * 1024;

/** The fetch-based sender. */
export function createFetchWebhookSender(fetchFunction: typeof fetch = (...args) => globalThis.fetch(...args)): WebhookSender {
  return {
    async send(request: WebhookRequest, signal): Promise<WebhookResponse> {
      if (request.checkAddress !== undefined) {
        return { error: `cannot check what ${new URL(request.url).hostname} resolves to with fetch: use the Node sandbox (createNodeSandbox), which resolves and checks each name`, durationMs: 0 };
      }
      const started = performance.now();
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), request.timeoutMs);
      const abort = () => timeout.abort();
      signal.addEventListener('abort', abort);
      try {
        const response = await fetchFunction(request.url, {
          method: 'POST',
          headers: request.headers,
          body: request.body,
          redirect: 'manual',
          signal: timeout.signal,
        });
        await drain(response, RESPONSE_BYTES_READ);
        // A browser shows a manual redirect as an opaque response with status 0.
        const status = response.type === 'opaqueredirect' ? 302 : response.status;
        return { status, durationMs: performance.now() - started };
      } catch (error) {
        const durationMs = performance.now() - started;
        if (timeout.signal.aborted && !signal.aborted) return { error: `no answer within ${request.timeoutMs / 1000} s`, durationMs };
        return { error: `could not reach the receiver: ${(error as Error).message}`, durationMs };
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', abort);
      }
    },
  };
}

/** Reads at most `limit` bytes of the body, then cancels the rest. */
async function drain(response: Response, limit: number): Promise<void> {
  const reader = response.body?.getReader();
  if (!reader) return;
  let read = 0;
  while (read < limit) {
    const { done, value } = await reader.read();
    if (done) return;
    read += value.byteLength;
  }
  await reader.cancel();
}
