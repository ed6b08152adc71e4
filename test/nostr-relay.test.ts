/**
 * The sandbox's Nostr relay on the real server (127.0.0.1, port 0), driven by independent clients:
 * nostr-tools' Relay, @getalby/sdk's NWC client and wallet service, and raw `ws` for what no
 * client library sends (malformed messages, floods, foreign Host headers).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { finalizeEvent, generateSecretKey, getPublicKey, type Event as NostrToolsEvent } from 'nostr-tools/pure';
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay';
import type { Filter } from 'nostr-tools/filter';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../src/http/server.js';
import { createSandbox } from '../src/sandbox.js';
import { SandboxRelay, BLOCKED_KIND } from '../src/nostr/relay/sandbox-relay.node.js';
import { MemoryEventRepository } from '../src/nostr/relay/event-repository.js';
import { RELAY_LIMITS, type RelayLimits } from '../src/nostr/relay/relay-limits.js';
import type { NostrEvent } from '../src/nostr/relay-session.js';

useWebSocketImplementation(WebSocket);

/** Every wait in these tests ends within this. */
const WAIT_MS = 3_000;
const TEST_MS = 10_000;

interface Running {
  relay: SandboxRelay;
  app: FastifyInstance;
  /** ws://127.0.0.1:port/nostr */
  url: string;
  /** http://127.0.0.1:port/nostr */
  httpUrl: string;
  port: number;
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(limits: Partial<RelayLimits> = {}): Promise<Running> {
  const errors: unknown[] = [];
  const relay = new SandboxRelay({ limits, onError: (error) => errors.push(error) });
  const app = await buildServer({ handle: createSandbox().handle, relay });
  await app.listen({ port: 0, host: '127.0.0.1' });
  cleanups.push(async () => {
    await app.close();
    // Relay failures (not the clients' bad input) would be bugs.
    expect(errors).toEqual([]);
  });
  const url = relay.url!;
  return { relay, app, url, httpUrl: url.replace(/^ws:/, 'http:'), port: Number(new URL(url).port) };
}

async function connect(url: string): Promise<Relay> {
  const relay = await Relay.connect(url);
  cleanups.push(() => relay.close());
  return relay;
}

/** A raw WebSocket client that keeps every message it gets. */
class RawClient {
  readonly messages: unknown[][] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  #waiters: (() => void)[] = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)) as unknown[]);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The first message since `from` that `match` accepts. */
  async next(match: (message: unknown[]) => boolean, from = 0): Promise<unknown[]> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const found = this.messages.slice(from).find(match);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no matching message; got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }
}

async function raw(url: string, options: WebSocket.ClientOptions = {}): Promise<RawClient> {
  const ws = new WebSocket(url, options);
  cleanups.push(() => ws.terminate());
  const client = new RawClient(ws);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
  });
  return client;
}

/** The HTTP status a refused upgrade got. */
async function refusedWith(url: string, options: WebSocket.ClientOptions = {}): Promise<number> {
  const ws = new WebSocket(url, options);
  cleanups.push(() => ws.terminate());
  return new Promise<number>((resolve, reject) => {
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
    ws.once('error', () => {});
    ws.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      response.resume();
    });
    setTimeout(() => reject(new Error('no answer')), WAIT_MS);
  });
}

function sign(kind: number, secret: Uint8Array, tags: string[][] = [], content = '', createdAt = now()): NostrToolsEvent {
  return finalizeEvent({ kind, created_at: createdAt, tags, content }, secret);
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stored events matching `filter`, via a REQ that must end with EOSE. */
async function query(relay: Relay, filter: Filter): Promise<NostrToolsEvent[]> {
  const events: NostrToolsEvent[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no EOSE')), WAIT_MS);
    const sub = relay.subscribe([filter], {
      onevent: (event) => events.push(event),
      oneose: () => {
        clearTimeout(timer);
        sub.close();
        resolve();
      },
    });
  });
  return events;
}

describe('the relay relays NWC events', () => {
  it('delivers a request (23194) to a live #p subscription, only to it, and does not store it', async () => {
    const { url, relay: sandboxRelay } = await start();
    const wallet = generateSecretKey();
    const client = generateSecretKey();
    const walletPubkey = getPublicKey(wallet);
    const [listener, publisher] = await Promise.all([connect(url), connect(url)]);
    const got: NostrToolsEvent[] = [];
    await new Promise<void>((resolve) => listener.subscribe([{ kinds: [23194], '#p': [walletPubkey] }], { onevent: (e) => got.push(e), oneose: resolve }));

    const mine = sign(23194, client, [['p', walletPubkey]], 'encrypted request');
    const someoneElses = sign(23194, client, [['p', getPublicKey(generateSecretKey())]], 'not for this wallet');
    await publisher.publish(someoneElses);
    await publisher.publish(mine);
    await vi.waitFor(() => expect(got.map((e) => e.id)).toEqual([mine.id]), { timeout: WAIT_MS });

    // Ephemeral: a later REQ finds nothing stored.
    expect(await query(await connect(url), { kinds: [23194] })).toEqual([]);
    expect(sandboxRelay.stats().storedEvents).toBe(0);
  }, TEST_MS);

  it('keeps the newest info event (13194) per wallet and answers a later REQ with it, then EOSE', async () => {
    const { url } = await start();
    const wallet = generateSecretKey();
    const other = generateSecretKey();
    const publisher = await connect(url);
    const t = now() - 100;
    const older = sign(13194, wallet, [], 'get_info', t);
    const newer = sign(13194, wallet, [['encryption', 'nip44_v2 nip04']], 'get_info pay_invoice', t + 10);
    const otherWallet = sign(13194, other, [], 'get_balance', t + 5);
    await publisher.publish(older);
    await publisher.publish(newer);
    await publisher.publish(otherWallet);
    // An older one arriving late does not replace the newer (accepted as a duplicate, as NIP-01 allows).
    await publisher.publish(sign(13194, wallet, [], 'stale', t + 1));
    // Same created_at: the lower id wins.
    const tieA = sign(13194, other, [], 'tie a', t + 20);
    const tieB = sign(13194, other, [], 'tie b', t + 20);
    await publisher.publish(tieA);
    await publisher.publish(tieB);

    const reader = await raw(url);
    reader.send(['REQ', 'info', { kinds: [13194], authors: [getPublicKey(wallet)] }]);
    await reader.next((m) => m[0] === 'EOSE');
    // (As JSON: nostr-tools marks the events it signed with a symbol.)
    expect(reader.messages).toEqual([['EVENT', 'info', JSON.parse(JSON.stringify(newer))], ['EOSE', 'info']]);

    const [kept] = await query(publisher, { kinds: [13194], authors: [getPublicKey(other)] });
    expect(kept?.id).toBe(tieA.id < tieB.id ? tieA.id : tieB.id);
    expect(await query(publisher, { kinds: [13194] })).toHaveLength(2);
  }, TEST_MS);

  it('refuses other kinds with OK false "blocked: …"', async () => {
    const { url } = await start();
    const publisher = await connect(url);
    await expect(publisher.publish(sign(1, generateSecretKey(), [], 'a note'))).rejects.toThrow(BLOCKED_KIND);
    await expect(publisher.publish(sign(23198, generateSecretKey()))).rejects.toThrow(/^blocked: /);
    await expect(publisher.publish(sign(22242, generateSecretKey()))).rejects.toThrow(/^blocked: /);
  }, TEST_MS);

  it('interoperates with @getalby/sdk: its NWC client gets an answer from its wallet service through the relay', async () => {
    const { url } = await start();
    const { NWCClient, NWCWalletService, NWCWalletServiceKeyPair } = await import('@getalby/sdk/nwc');
    (globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
    // The SDK narrates its subscriptions on the console.
    for (const level of ['info', 'warn', 'error'] as const) cleanups.push(vi.spyOn(console, level).mockImplementation(() => {}).mockRestore);
    const walletSecret = bytesToHex(generateSecretKey());
    const clientSecret = bytesToHex(generateSecretKey());
    const service = new NWCWalletService({ relayUrl: url });
    cleanups.push(() => service.close());
    const keypair = new NWCWalletServiceKeyPair(walletSecret, getPublicKey(hexToBytes(clientSecret)));
    await service.publishWalletServiceInfoEvent(walletSecret, ['get_info'], []);
    const unsubscribe = await service.subscribe(keypair, {
      getInfo: async () => ({ result: { alias: 'sandbox', color: '#000000', pubkey: '', network: 'regtest', block_height: 1, block_hash: '', methods: ['get_info'] }, error: undefined }),
    });
    cleanups.push(unsubscribe);
    const client = new NWCClient({ relayUrls: [url], walletPubkey: keypair.walletPubkey, secret: clientSecret });
    cleanups.push(() => client.close());
    await vi.waitFor(async () => expect((await client.getInfo()).alias).toBe('sandbox'), { timeout: 8_000, interval: 200 });
  }, 15_000);
});

describe('bad input gets NOTICE or OK false, and the connection stays usable', () => {
  it('refuses a bad signature and a bad id with OK false "invalid: …"', async () => {
    const { url } = await start();
    const client = await raw(url);
    const event = sign(23194, generateSecretKey(), [], 'x');
    const badSig = { ...event, sig: (event.sig[0] === 'a' ? 'b' : 'a') + event.sig.slice(1) };
    client.send(['EVENT', badSig]);
    expect(await client.next((m) => m[0] === 'OK')).toEqual(['OK', event.id, false, 'invalid: signature is wrong']);
    const from = client.messages.length;
    client.send(['EVENT', { ...event, content: 'changed' }]);
    expect(await client.next((m) => m[0] === 'OK', from)).toEqual(['OK', event.id, false, 'invalid: id is wrong']);
  }, TEST_MS);

  it('answers malformed messages with NOTICE (or OK false / CLOSED where it can name the event or REQ)', async () => {
    const { url } = await start();
    const client = await raw(url);
    const event = sign(23194, generateSecretKey(), [], 'x');
    const cases: [unknown, (m: unknown[]) => boolean][] = [
      ['not json {', (m) => m[0] === 'NOTICE' && /not JSON/.test(String(m[1]))],
      [{ EVENT: 1 }, (m) => m[0] === 'NOTICE' && /JSON array/.test(String(m[1]))],
      [[], (m) => m[0] === 'NOTICE'],
      [['HELLO', 1], (m) => m[0] === 'NOTICE' && /unknown message type "HELLO"/.test(String(m[1]))],
      [['COUNT', 'c', {}], (m) => m[0] === 'NOTICE' && /^unsupported:/.test(String(m[1]))],
      [['EVENT', { ...event, id: 'xyz' }], (m) => m[0] === 'NOTICE' && /id must be 64/.test(String(m[1]))],
      [['EVENT', { ...event, tags: 'p' }], (m) => m[0] === 'OK' && m[2] === false && m[3] === 'invalid: tags must be an array of arrays of strings'],
      [['EVENT', { ...event, tags: [['p', 1]] }], (m) => m[0] === 'OK' && m[2] === false && /tags must be/.test(String(m[3]))],
      [['EVENT', { ...event, created_at: 1.5 }], (m) => m[0] === 'OK' && m[2] === false && /created_at/.test(String(m[3]))],
      [['EVENT', { ...event, pubkey: event.pubkey.toUpperCase() }], (m) => m[0] === 'OK' && m[2] === false && /pubkey/.test(String(m[3]))],
      [['EVENT', { ...event, sig: 'ab' }], (m) => m[0] === 'OK' && m[2] === false && /sig must be 128/.test(String(m[3]))],
      [['EVENT', { ...event, tags: Array.from({ length: 101 }, () => ['t', 'x']) }], (m) => m[0] === 'OK' && /limited to 100 tags/.test(String(m[3]))],
      [['REQ', 7, {}], (m) => m[0] === 'NOTICE' && /subscription id/.test(String(m[1]))],
      [['REQ', 'bad', { kinds: 'x' }], (m) => m[0] === 'CLOSED' && m[1] === 'bad' && /^invalid: kinds/.test(String(m[2]))],
      [['REQ', 'bad', { authors: ['abc'] }], (m) => m[0] === 'CLOSED' && /^invalid: authors/.test(String(m[2]))],
      [['REQ', 'bad', { '#p': [1] }], (m) => m[0] === 'CLOSED' && /#p must be/.test(String(m[2]))],
      [['REQ', 'bad', { nonsense: 1 }], (m) => m[0] === 'CLOSED' && /unknown filter field/.test(String(m[2]))],
      [['REQ', 'bad', { search: 'x' }], (m) => m[0] === 'CLOSED' && /NIP-50/.test(String(m[2]))],
      [['REQ', 'bad'], (m) => m[0] === 'CLOSED' && /at least one filter/.test(String(m[2]))],
      [['REQ', 'bad', ...Array.from({ length: 11 }, () => ({}))], (m) => m[0] === 'CLOSED' && /10 filters/.test(String(m[2]))],
      [['CLOSE'], (m) => m[0] === 'NOTICE'],
    ];
    for (const [message, expected] of cases) {
      const from = client.messages.length;
      client.send(message);
      await client.next(expected, from);
    }
    // Still usable.
    const from = client.messages.length;
    client.send(['REQ', 'ok', { kinds: [13194] }]);
    expect(await client.next((m) => m[0] === 'EOSE', from)).toEqual(['EOSE', 'ok']);
    client.send(['EVENT', event]);
    expect(await client.next((m) => m[0] === 'OK', from)).toEqual(['OK', event.id, true, '']);
  }, TEST_MS);

  it('closes a connection that sends a message over the size limit (1009, no NOTICE); others are served', async () => {
    const { url } = await start();
    const client = await raw(url);
    const big = sign(23194, generateSecretKey(), [], 'x'.repeat(RELAY_LIMITS.maxMessageBytes));
    client.send(['EVENT', big]);
    expect((await client.closed).code).toBe(1009);
    expect(client.messages).toEqual([]);
    const other = await connect(url);
    await other.publish(sign(23194, generateSecretKey()));
  }, TEST_MS);
});

describe('limits', () => {
  it('a flood gets a NOTICE, then the connection is closed (1008); the relay keeps serving others', async () => {
    const { url } = await start({ maxMessagesPerSecond: 20 });
    const bystander = await connect(url);
    const flooder = await raw(url);
    for (let i = 0; i < 50; i++) flooder.send(['CLOSE', `s${i}`]);
    const notice = await flooder.next((m) => m[0] === 'NOTICE');
    expect(notice[1]).toMatch(/^rate-limited: more than 20 messages a second/);
    expect((await flooder.closed).code).toBe(1008);
    await bystander.publish(sign(23195, generateSecretKey()));
  }, TEST_MS);

  it('caps connections, per address and in all, with HTTP 503 before upgrading; a closed one frees its slot', async () => {
    const { url, relay } = await start({ maxConnections: 3, maxConnectionsPerAddress: 2 });
    const a1 = await raw(url);
    await raw(url);
    expect(await refusedWith(url)).toBe(503);
    // Another loopback address (Linux routes all of 127/8 to lo) is another remote address.
    const b1 = await raw(url, { localAddress: '127.0.0.2' });
    expect(await refusedWith(url, { localAddress: '127.0.0.2' })).toBe(503);
    expect(relay.stats().sockets).toBe(3);
    a1.ws.close();
    await a1.closed;
    await vi.waitFor(() => expect(relay.stats().connections).toBe(2), { timeout: WAIT_MS });
    await raw(url, { localAddress: '127.0.0.2' });
    b1.ws.close();
  }, TEST_MS);

  it('caps open subscriptions per connection with CLOSED; replacing or closing one is fine', async () => {
    const { url } = await start({ maxSubscriptions: 3 });
    const client = await raw(url);
    for (const id of ['s1', 's2', 's3', 's1']) {
      const from = client.messages.length;
      client.send(['REQ', id, { kinds: [13194] }]);
      expect(await client.next((m) => m[0] === 'EOSE' || m[0] === 'CLOSED', from)).toEqual(['EOSE', id]);
    }
    let from = client.messages.length;
    client.send(['REQ', 's4', { kinds: [13194] }]);
    const refused = await client.next((m) => m[1] === 's4', from);
    expect(refused[0]).toBe('CLOSED');
    expect(refused[2]).toMatch(/^blocked: at most 3 open subscriptions/);
    client.send(['CLOSE', 's1']);
    from = client.messages.length;
    client.send(['REQ', 's4', { kinds: [13194] }]);
    expect(await client.next((m) => m[1] === 's4', from)).toEqual(['EOSE', 's4']);
  }, TEST_MS);

  it('cuts a connection that does not read what it is sent (unsent output past maxBufferedBytes)', async () => {
    // Output budgets out of the way: this is about a reader that stops reading.
    const { url, relay } = await start({ maxBytesOutPerSecond: 1e9, maxBytesOutPerSecondPerAddress: 1e9, maxBytesOutPerSecondInAll: 1e9 });
    const reader = await raw(url);
    reader.send(['REQ', 'all', { kinds: [23195] }]);
    await reader.next((m) => m[0] === 'EOSE');
    // The client stops reading: the kernel's buffers fill, then the relay's.
    (reader.ws as unknown as { _socket: import('node:net').Socket })._socket.pause();
    const session = relay.session();
    const wallet = generateSecretKey();
    const content = 'x'.repeat(60 * 1024);
    let sent = 0;
    while (relay.stats().sockets > 0 && sent < 1_000) {
      // Each one new: the same event again would be a duplicate, not sent again.
      await session.publish(sign(23195, wallet, [], `${content}${sent}`));
      sent += 1;
      if (sent % 20 === 0) await sleep(5);
    }
    await vi.waitFor(() => expect(relay.stats().sockets).toBe(0), { timeout: WAIT_MS });
    expect(sent).toBeLessThan(1_000);
  }, TEST_MS);

  it("holds strangers' events to the store's count (the oldest stored is evicted), the sandbox's own apart", async () => {
    const { relay, url } = await start({ maxStoredEvents: 5, maxStoredShare: 1 });
    const session = relay.session();
    const ownSecret = generateSecretKey();
    await session.publish(sign(13194, ownSecret, [], 'get_info'));
    const stranger = await raw(url);
    const secrets = Array.from({ length: 8 }, () => generateSecretKey());
    for (const secret of secrets) {
      const event = sign(13194, secret, [], 'get_info');
      const from = stranger.messages.length;
      stranger.send(['EVENT', event]);
      expect(await stranger.next((m) => m[0] === 'OK', from)).toEqual(['OK', event.id, true, '']);
    }
    expect(relay.stats().storedEvents).toBe(6);
    const kept = await new Promise<string[]>((resolve) => {
      const found: string[] = [];
      session.subscribe([{ kinds: [13194] }], (event) => found.push(event.pubkey));
      setTimeout(() => resolve(found), 100);
    });
    expect(kept.sort()).toEqual([ownSecret, ...secrets.slice(3)].map((secret) => getPublicKey(secret)).sort());
  }, TEST_MS);
});

describe('the transport', () => {
  it('serves the NIP-11 document on GET /nostr with Accept: application/nostr+json, CORS open to any origin', async () => {
    const { httpUrl } = await start();
    const response = await fetch(httpUrl, { headers: { accept: 'application/nostr+json', origin: 'https://wallet.example' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/nostr\+json/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const info = (await response.json()) as Record<string, any>;
    expect(info.name).toBe('lnpr-sandbox relay');
    expect(info.supported_nips).toEqual([1, 11, 47]);
    expect(info.limitation).toMatchObject({
      max_message_length: RELAY_LIMITS.maxMessageBytes,
      max_subscriptions: RELAY_LIMITS.maxSubscriptions,
      max_filters: RELAY_LIMITS.maxFilters,
      max_limit: RELAY_LIMITS.maxLimit,
      max_event_tags: RELAY_LIMITS.maxEventTags,
      auth_required: false,
      payment_required: false,
    });
    const plain = await fetch(httpUrl);
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as any).error.code).toBe('invalid_request');
  }, TEST_MS);

  it('refuses an upgrade with a foreign Host (421) or to another path (404); accepts any Origin', async () => {
    const { url, port } = await start();
    expect(await refusedWith(url, { headers: { host: `rebound.example:${port}` } })).toBe(421);
    expect(await refusedWith(url.replace('/nostr', '/other'))).toBe(404);
    const browserWallet = await raw(url, { origin: 'https://wallet.example' });
    browserWallet.send(['REQ', 'x', { kinds: [13194] }]);
    await browserWallet.next((m) => m[0] === 'EOSE');
    // The HTTP side is unchanged.
    expect((await fetch(url.replace('ws:', 'http:').replace('/nostr', '/healthz'))).status).toBe(200);
  }, TEST_MS);

  it('closes its sockets when the server closes (1001)', async () => {
    const relay = new SandboxRelay();
    const app = await buildServer({ handle: createSandbox().handle, relay });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const client = await raw(relay.url!);
    const started = Date.now();
    await app.close();
    expect((await client.closed).code).toBe(1001);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(() => relay.session()).toThrow(/closed/);
  }, TEST_MS);
});

describe('the in-process session', () => {
  it('exchanges events with a socket client both ways, through the same checks', async () => {
    const { url, relay } = await start();
    const session = relay.session();
    const wallet = generateSecretKey();
    const client = generateSecretKey();
    const walletPubkey = getPublicKey(wallet);
    const clientPubkey = getPublicKey(client);
    const socket = await connect(url);

    // Stored events first: an info event published by the socket is read by the session.
    const info = sign(13194, wallet, [], 'get_info');
    await socket.publish(info);
    const requests: NostrEvent[] = [];
    const infos: NostrEvent[] = [];
    session.subscribe([{ kinds: [13194], authors: [walletPubkey] }], (event) => infos.push(event));
    const subscription = session.subscribe([{ kinds: [23194], '#p': [walletPubkey] }], (event) => requests.push(event));
    await vi.waitFor(() => expect(infos.map((e) => e.id)).toEqual([info.id]), { timeout: WAIT_MS });

    // Socket → session.
    const request = sign(23194, client, [['p', walletPubkey]], 'request');
    await socket.publish(request);
    await vi.waitFor(() => expect(requests.map((e) => e.id)).toEqual([request.id]), { timeout: WAIT_MS });

    // Session → socket.
    const responses: NostrToolsEvent[] = [];
    await new Promise<void>((resolve) => socket.subscribe([{ kinds: [23195], '#p': [clientPubkey] }], { onevent: (e) => responses.push(e), oneose: resolve }));
    const response = sign(23195, wallet, [['p', clientPubkey], ['e', request.id]], 'response');
    await session.publish(response);
    await vi.waitFor(() => expect(responses.map((e) => e.id)).toEqual([response.id]), { timeout: WAIT_MS });

    // The same checks: refusals reject with the relay's reason.
    await expect(session.publish(sign(1, wallet))).rejects.toThrow(BLOCKED_KIND);
    const forged = sign(23195, wallet, [], 'x');
    await expect(session.publish({ ...forged, content: 'y' })).rejects.toThrow('invalid: id is wrong');
    await expect(session.publish({ ...forged, tags: 'p' } as unknown as NostrEvent)).rejects.toThrow('invalid: tags must be');
    expect(() => session.subscribe([{ kinds: ['x'] } as never], () => {})).toThrow(/invalid: kinds/);
    await expect(session.publish(sign(23195, wallet, [], 'x'.repeat(RELAY_LIMITS.maxMessageBytes)))).rejects.toThrow(/limited to 65536 bytes/);

    // Closed: no more events.
    subscription.close();
    await socket.publish(sign(23194, client, [['p', walletPubkey]], 'after close'));
    await sleep(100);
    expect(requests).toHaveLength(1);
    session.close();
    await expect(session.publish(response)).rejects.toThrow(/closed/);
  }, TEST_MS);
});

describe('MemoryEventRepository', () => {
  const limits = { maxStoredEvents: 100, maxStoredBytes: 1 << 20, maxStoredShare: 1, maxLimit: 3 };

  it('answers filters: ids, authors, kinds, since, until, #tags, limit (capped), newest first', () => {
    const repository = new MemoryEventRepository(limits);
    const a = generateSecretKey();
    const b = generateSecretKey();
    const events = [
      sign(13194, a, [['t', 'x']], '', 100),
      sign(13194, b, [['t', 'y']], '', 200),
      sign(1, a, [['t', 'y']], '', 300),
      sign(1, a, [], '', 400),
      sign(1, b, [], '', 500),
    ];
    for (const event of events) repository.upsert(event);
    const ids = (filter: object) => repository.find(filter).map((event) => events.indexOf(event as NostrToolsEvent));
    expect(ids({})).toEqual([4, 3, 2]);
    expect(ids({ limit: 10 })).toEqual([4, 3, 2]);
    expect(ids({ limit: 0 })).toEqual([]);
    expect(ids({ ids: [events[1]!.id, events[3]!.id] })).toEqual([3, 1]);
    expect(ids({ authors: [getPublicKey(a)] })).toEqual([3, 2, 0]);
    expect(ids({ kinds: [13194] })).toEqual([1, 0]);
    expect(ids({ since: 200, until: 300 })).toEqual([2, 1]);
    expect(ids({ '#t': ['y'] })).toEqual([2, 1]);
    expect(ids({ '#t': ['y'], authors: [getPublicKey(b)] })).toEqual([1]);
    expect(ids({ '#t': [] })).toEqual([]);
  });

  it('evicts the oldest stored past its byte budget, and counts replacements as stored anew', () => {
    const oneEventBytes = JSON.stringify(sign(13194, generateSecretKey(), [], 'c')).length;
    const repository = new MemoryEventRepository({ ...limits, maxStoredBytes: oneEventBytes * 3 });
    const [a, b, c, d] = [0, 1, 2, 3].map(() => generateSecretKey());
    repository.upsert(sign(13194, a!, [], 'c', 1));
    repository.upsert(sign(13194, b!, [], 'c', 1));
    repository.upsert(sign(13194, c!, [], 'c', 1));
    repository.upsert(sign(13194, a!, [], 'c', 2)); // a is now the newest stored
    repository.upsert(sign(13194, d!, [], 'c', 1)); // evicts b
    expect(repository.size).toBe(3);
    expect(repository.bytes).toBeLessThanOrEqual(oneEventBytes * 3);
    expect(new Set(repository.find({ limit: 3 }).map((event) => event.pubkey))).toEqual(new Set([a, c, d].map((s) => getPublicKey(s!))));
  });
});

function hexToBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!.map((byte) => parseInt(byte, 16)));
}
