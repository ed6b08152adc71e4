/**
 * The WebhookSender of `lnpr serve`: node:http(s) with keep-alive agents (a delivery per API write
 * must not cost a new connection each, or deliveries would slow the API), a timeout for the whole
 * attempt, redirects never followed, and at most RESPONSE_BYTES_READ of a response read: a receiver
 * that hangs, dribbles or answers with a huge body costs one slot for at most the timeout.
 *
 * Where the engine's address policy asks (a request with `checkAddress`: a sandbox that listens
 * beyond loopback, a URL that names a host), each attempt resolves the name itself, refuses it
 * unless an address it resolves to is allowed, and connects to that address and no other (the
 * socket's lookup is pinned to it): no gap between the check and the connection for a name that
 * resolves differently the next time.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIpLiteral, refusalMessage, type AddressRefusal } from '../core/webhooks/address-policy.js';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../core/webhooks/webhook-sender.js';
import { RESPONSE_BYTES_READ } from './fetch-webhook-sender.js';

/** One address a name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (node:dns `lookup`, all of them, by default; tests inject their own). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Options of the node:http sender. */
export interface HttpWebhookSenderOptions {
  resolve?: HostResolver;
}

const systemResolver: HostResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/** Sockets kept per receiver: about the dispatcher's concurrency. */
const SOCKETS_PER_HOST = 16;

/** The node:http sender; `close` destroys its kept-alive sockets. */
export function createHttpWebhookSender(options: HttpWebhookSenderOptions = {}): WebhookSender & { close(): void } {
  const resolveHost = options.resolve ?? systemResolver;
  const agents = {
    'http:': new HttpAgent({ keepAlive: true, maxSockets: SOCKETS_PER_HOST }),
    'https:': new HttpsAgent({ keepAlive: true, maxSockets: SOCKETS_PER_HOST }),
  };
  return {
    async send(webhook: WebhookRequest, signal) {
      const started = performance.now();
      const elapsed = () => performance.now() - started;
      let pinned: LookupFunction | undefined;
      if (webhook.checkAddress !== undefined) {
        const checked = await checkedAddress(new URL(webhook.url).hostname, webhook.checkAddress, resolveHost);
        if ('error' in checked) return { error: checked.error, durationMs: elapsed() };
        pinned = checked.lookup;
      }
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
          ...(pinned ? { lookup: pinned } : {}),
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

/**
 * The address an attempt to `hostname` may connect to, as a lookup pinned to it, or why none:
 * an address literal is checked as it is, a name is resolved and the first allowed address taken.
 */
async function checkedAddress(
  hostname: string,
  check: (address: string) => AddressRefusal | undefined,
  resolveHost: HostResolver,
): Promise<{ lookup: LookupFunction | undefined } | { error: string }> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIpLiteral(bare)) {
    const refusal = check(bare);
    return refusal ? { error: refusalMessage(refusal) } : { lookup: undefined };
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolveHost(bare);
  } catch (error) {
    return { error: `could not resolve ${bare}: ${(error as Error).message}` };
  }
  const allowed = addresses.find(({ address }) => check(address) === undefined);
  if (allowed === undefined) {
    const refusal = addresses.length > 0 ? check(addresses[0]!.address) : undefined;
    return { error: refusal ? `${refusalMessage(refusal)}, which ${bare} resolves to` : `could not resolve ${bare}: no address` };
  }
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: allowed.address, family: allowed.family }]);
    else callback(null, allowed.address, allowed.family);
  };
  return { lookup };
}
