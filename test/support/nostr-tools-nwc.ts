/**
 * A NIP-47 client made of nostr-tools alone, speaking NIP-04 as older NWC clients do: no
 * `encryption` tag on its requests (NIP-47's default, nip04), answers (kind 23195) and
 * notifications (kind 23196) decrypted with nip04. Independent of the sandbox's own NWC client.
 */
import { hexToBytes } from '@noble/hashes/utils.js';
import * as nip04 from 'nostr-tools/nip04';
import { finalizeEvent, getPublicKey, type Event } from 'nostr-tools/pure';
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay';
import WebSocket from 'ws';

useWebSocketImplementation(WebSocket);

/** A NIP-47 answer as the wallet sent it. */
export interface Nip47Answer<T = any> {
  result_type: string;
  result?: T | null;
  error?: { code: string; message: string } | null;
}

/** A decrypted notification, with the event that carried it. */
export interface ReceivedNotification {
  kind: number;
  notification_type: string;
  notification: any;
}

/** The parts of `nostr+walletconnect://PUBKEY?relay=…&secret=…`, read with URLSearchParams alone. */
export function parseNwcUrl(nwcUrl: string): { walletPubkey: string; relay: string; secret: string } {
  const match = /^nostr\+walletconnect:\/\/([0-9a-f]{64})\?(.*)$/.exec(nwcUrl);
  if (match === null) throw new Error(`not an NWC URL: ${nwcUrl}`);
  const query = new URLSearchParams(match[2]);
  return { walletPubkey: match[1]!, relay: query.get('relay')!, secret: query.get('secret')! };
}

export interface Nip04NwcClient {
  walletPubkey: string;
  clientPubkey: string;
  relayUrl: string;
  /** Sends one request and waits for its answer; rejects after `timeoutMs`. */
  request<T = any>(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<Nip47Answer<T>>;
  /** The same, resolving `undefined` when no answer came within `timeoutMs`. */
  requestOrSilence<T = any>(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<Nip47Answer<T> | undefined>;
  /** The wallet's info event (kind 13194), once the relay has it. */
  infoEvent(timeoutMs?: number): Promise<Event>;
  /** Follows the wallet's notifications of these kinds (23196: NIP-04, 23197: NIP-44 is left encrypted); resolves once the relay confirmed the subscription. */
  notifications(kinds?: number[]): Promise<{ received: ReceivedNotification[]; close(): void }>;
  close(): void;
}

const seconds = () => Math.floor(Date.now() / 1000);

/** Connects to the relay of `nwcUrl`. */
export async function connectNip04Client(nwcUrl: string): Promise<Nip04NwcClient> {
  const { walletPubkey, relay: relayUrl, secret } = parseNwcUrl(nwcUrl);
  const secretKey = hexToBytes(secret);
  const clientPubkey = getPublicKey(secretKey);
  const relay = await Relay.connect(relayUrl);

  /** Subscribes and resolves once the relay has sent EOSE (it then sees what follows). */
  const subscribe = (filter: Record<string, unknown>, onevent: (event: Event) => void) =>
    new Promise<{ close(): void }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no EOSE within 3 s')), 3_000);
      const sub = relay.subscribe([filter as never], {
        onevent,
        oneose: () => {
          clearTimeout(timer);
          resolve(sub);
        },
      });
    });

  async function requestOrSilence<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 3_000): Promise<Nip47Answer<T> | undefined> {
    const event = finalizeEvent(
      { kind: 23194, created_at: seconds(), tags: [['p', walletPubkey]], content: nip04.encrypt(secretKey, walletPubkey, JSON.stringify({ method, params })) },
      secretKey,
    );
    let answered!: (answer: Event) => void;
    const answer = new Promise<Event>((resolve) => (answered = resolve));
    const sub = await subscribe({ kinds: [23195], authors: [walletPubkey], '#e': [event.id] }, (reply) => answered(reply));
    let timer: Parameters<typeof clearTimeout>[0];
    try {
      await relay.publish(event);
      const reply = await Promise.race([answer, new Promise<undefined>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      if (reply === undefined) return undefined;
      if (!reply.tags.some(([name, value]) => name === 'p' && value === clientPubkey)) throw new Error('answer not addressed to the client');
      return JSON.parse(nip04.decrypt(secretKey, walletPubkey, reply.content)) as Nip47Answer<T>;
    } finally {
      clearTimeout(timer);
      sub.close();
    }
  }

  return {
    walletPubkey,
    clientPubkey,
    relayUrl,
    requestOrSilence,
    async request<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 3_000) {
      const answer = await requestOrSilence<T>(method, params, timeoutMs);
      if (answer === undefined) throw new Error(`no answer to ${method} within ${timeoutMs} ms`);
      return answer;
    },
    async infoEvent(timeoutMs = 3_000) {
      const events: Event[] = [];
      const sub = await Promise.race([
        subscribe({ kinds: [13194], authors: [walletPubkey] }, (event) => events.push(event)),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no info event')), timeoutMs)),
      ]);
      sub.close();
      if (events.length === 0) throw new Error('the relay holds no info event of the wallet');
      return events.sort((a, b) => b.created_at - a.created_at)[0]!;
    },
    async notifications(kinds = [23196]) {
      const received: ReceivedNotification[] = [];
      const sub = await subscribe({ kinds, authors: [walletPubkey], '#p': [clientPubkey] }, (event) => {
        if (event.kind !== 23196) {
          received.push({ kind: event.kind, notification_type: '(nip44)', notification: undefined });
          return;
        }
        const body = JSON.parse(nip04.decrypt(secretKey, walletPubkey, event.content));
        received.push({ kind: event.kind, ...body });
      });
      return { received, close: () => sub.close() };
    },
    close() {
      relay.close();
    },
  };
}
