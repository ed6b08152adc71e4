/**
 * Bounded waits for replica tests, where a process may die mid-call: a promise given up on after a
 * time, a request (sandbox-server.ts `api`) given up on after 15 s, a retry loop until a deadline
 * that keeps the failures it saw, and a wallet's kind-13194 info events read from a relay (REQ
 * until EOSE, with nostr-tools). Every wait here ends.
 */
import type { Event } from 'nostr-tools/pure';
import { Relay } from 'nostr-tools/relay';
import { api, type ApiInit } from './sandbox-server.js';
import { sleep } from './waiting.js';

/** `promise`, or a rejection naming `what` after `ms`. */
export function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A thrown thing as a short line (nostr-tools rejects with plain strings or events too). */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error) ?? String(error);
  return text.slice(0, 200);
}

/** One request (sandbox-server.ts `api`), given up on after 15 s. */
export function boundedApi(baseUrl: string, path: string, init: ApiInit = {}): ReturnType<typeof api> {
  return bounded(api(baseUrl, path, init), 15_000, `${init.method ?? (init.body === undefined ? 'GET' : 'POST')} ${path}`);
}

/** Tries `attempt` until it resolves or `deadline` (epoch ms) passes; resolves with its value and the failures seen. */
export async function retryUntil<T>(deadline: number, attempt: (msLeft: number) => Promise<T>): Promise<{ value: T; failures: string[] }> {
  const failures: string[] = [];
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`not before the deadline (${failures.length} failed tries; the last: ${failures.at(-1)})`);
    try {
      return { value: await attempt(left), failures };
    } catch (error) {
      failures.push(describeError(error));
      await sleep(200);
    }
  }
}

/** The wallet's newest kind-13194 info events on the relay at `relayUrl` (REQ until EOSE). */
export async function infoEvents(relayUrl: string, walletPubkey: string, ms: number): Promise<Event[]> {
  const relay = await bounded(Relay.connect(relayUrl), ms, `connecting to ${relayUrl}`);
  try {
    return await bounded(
      new Promise<Event[]>((resolve, reject) => {
        const events: Event[] = [];
        let done = false;
        const sub = relay.subscribe([{ kinds: [13194], authors: [walletPubkey] }], {
          onevent: (event) => events.push(event),
          oneose: () => {
            done = true;
            sub.close();
            resolve(events);
          },
          // Closed before its EOSE (the socket closed, or CLOSED from the relay): a failed try.
          onclose: (reason) => done || reject(new Error(`REQ closed before EOSE: ${reason}`)),
        });
      }),
      ms,
      'REQ kind 13194',
    );
  } finally {
    relay.close();
  }
}
