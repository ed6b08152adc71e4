/**
 * The WebhookSender of `lnpr serve`: node:http(s) with keep-alive agents (a delivery per API write
 * must not cost a new connection each, or deliveries would slow the API), a timeout for the whole
 * attempt, redirects never followed, and at most RESPONSE_BYTES_READ of a response read: a receiver
 * that hangs, dribbles or answers with a huge body costs one slot for at most the timeout.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { WebhookResponse, WebhookSender } from '../core/ports.js';
import { RESPONSE_BYTES_READ } from './fetch-webhook-sender.js';

/** Sockets kept per receiver: about the dispatcher's concurrency. */
const SOCKETS_PER_HOST = 16;

/** The node:http sender; `close` destroys its kept-alive sockets. */
export function createHttpWebhookSender(): WebhookSender & { close(): void } {
  const agents = {
    'http:': new HttpAgent({ keepAlive: true, maxSockets: SOCKETS_PER_HOST }),
    'https:': new HttpsAgent({ keepAlive: true, maxSockets: SOCKETS_PER_HOST }),
  };
  return {
    send(webhook, signal) {
      const started = performance.now();
      const elapsed = () => performance.now() - started;
      return new Promise<WebhookResponse>((resolve) => {
        let settled = false;
        const finish = (result: WebhookResponse) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(result);
        };
        const url = new URL(webhook.url);
        const isHttps = url.protocol === 'https:';
        const outgoing = (isHttps ? httpsRequest : httpRequest)(url, {
          method: 'POST',
          agent: agents[isHttps ? 'https:' : 'http:'],
          headers: { ...webhook.headers, 'content-length': String(Buffer.byteLength(webhook.body)) },
        });
        const timer = setTimeout(() => {
          finish({ error: `no answer within ${webhook.timeoutMs / 1000} s`, durationMs: elapsed() });
          outgoing.destroy();
        }, webhook.timeoutMs);
        const onAbort = () => {
          finish({ error: 'the sandbox stopped', durationMs: elapsed() });
          outgoing.destroy();
        };
        signal.addEventListener('abort', onAbort);
        outgoing.on('error', (error) => finish({ error: `could not reach the receiver: ${error.message}`, durationMs: elapsed() }));
        outgoing.on('response', (response: IncomingMessage) => {
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            // Enough to know the answer: drop the connection rather than read a huge body.
            if (read > RESPONSE_BYTES_READ) {
              finish({ status: response.statusCode ?? 0, durationMs: elapsed() });
              response.destroy();
            }
          });
          response.on('end', () => finish({ status: response.statusCode ?? 0, durationMs: elapsed() }));
          response.on('error', () => finish({ status: response.statusCode ?? 0, durationMs: elapsed() }));
          response.on('close', () => finish({ error: 'the receiver closed the connection mid-answer', durationMs: elapsed() }));
        });
        outgoing.end(webhook.body);
      });
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
