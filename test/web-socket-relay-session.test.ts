/**
 * webSocketRelaySession against a real relay on 127.0.0.1 (the test harness relay): publish waits
 * for the relay's OK and carries its refusal, a silent relay times out, and subscriptions come back
 * after the connection is cut.
 */
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import type { NostrEvent } from '../src/nostr/relay-session.js';
import { webSocketRelaySession, type WebSocketRelaySession } from '../src/nostr/web-socket-relay-session.node.js';
import { startNostrTestRelay, type NostrTestRelay } from './support/nostr-test-relay.js';

const key = generateSecretKey();
const note = (kind: number, content: string) => finalizeEvent({ kind, created_at: Math.floor(Date.now() / 1000), tags: [], content }, key);

describe('webSocketRelaySession', () => {
  let relay: NostrTestRelay;
  let session: WebSocketRelaySession | undefined;

  beforeEach(async () => {
    relay = await startNostrTestRelay({ refuse: (event) => (event.kind === 1 ? 'blocked: kind 1 is not served here' : undefined) });
  });
  afterEach(async () => {
    session?.close();
    await relay.close();
  });

  it('publishes (OK true), and a subscription gets stored events, then live ones', async () => {
    session = webSocketRelaySession(relay.url, { publishTimeoutMs: 2_000 });
    const stored = note(13194, 'get_info');
    await session.publish(stored);
    const received: NostrEvent[] = [];
    session.subscribe([{ kinds: [13194, 23195] }], (event) => received.push(event));
    await relay.waitForSubscription((filters) => filters[0]?.kinds?.includes(23195) === true);
    const live = note(23195, 'live');
    await session.publish(live);
    await expect.poll(() => received.map((event) => event.id), { timeout: 2_000 }).toEqual([stored.id, live.id]);
  });

  it("rejects with the relay's reason on OK false", async () => {
    session = webSocketRelaySession(relay.url, { publishTimeoutMs: 2_000 });
    await expect(session.publish(note(1, 'hello'))).rejects.toThrow('blocked: kind 1 is not served here');
  });

  it('rejects when the relay never answers, within publishTimeoutMs', async () => {
    const silent = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => silent.once('listening', resolve));
    try {
      session = webSocketRelaySession(`ws://127.0.0.1:${(silent.address() as { port: number }).port}`, { publishTimeoutMs: 300 });
      const started = Date.now();
      await expect(session.publish(note(23194, 'anyone?'))).rejects.toThrow(/within 300 ms|timed out/);
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      session?.close();
      for (const client of silent.clients) client.terminate();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  // nostr-tools' connect timeout closes a socket still in its handshake after dropping its own
  // `error` listener; `ws` then emits `error` with nobody listening, which ends the process (seen
  // as a replica's crash when its own relay door stopped answering while the database hung).
  it.each([
    ['without', undefined],
    ['with', () => ({ 'x-test': '1' })],
  ])('a handshake that never ends (%s upgrade headers) times out and is tried again, never crashing the process', async (_, headers) => {
    const sockets = new Set<Socket>();
    const mute = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const crashes: unknown[] = [];
    const onCrash = (error: unknown) => crashes.push(error);
    process.on('uncaughtException', onCrash);
    try {
      session = webSocketRelaySession(`ws://127.0.0.1:${(mute.address() as { port: number }).port}/nostr`, {
        connectTimeoutMs: 150,
        reconnectDelaysMs: [50],
        ...(headers === undefined ? {} : { headers }),
      });
      // Three timed-out handshakes at least: each is a new connection to the mute server.
      await expect.poll(() => sockets.size, { timeout: 3_000 }).toBeGreaterThanOrEqual(3);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(crashes.map(String)).toEqual([]);
      expect(session.connected).toBe(false);
    } finally {
      process.off('uncaughtException', onCrash);
      session?.close();
      session = undefined;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => mute.close(() => resolve()));
    }
  });

  it('reconnects after the connection is cut and subscribes again', async () => {
    session = webSocketRelaySession(relay.url, { publishTimeoutMs: 2_000, reconnectDelaysMs: [50] });
    const received: string[] = [];
    session.subscribe([{ kinds: [23196] }], (event) => received.push(event.content));
    const isOurs = (filters: { kinds?: number[] }[]) => filters[0]?.kinds?.includes(23196) === true;
    await relay.waitForSubscription(isOurs);
    relay.dropConnections();
    await relay.waitForSubscription(isOurs, { count: 2 });
    // Published from another session: the event reaches the subscriber only if the REQ came back.
    const other = webSocketRelaySession(relay.url, { publishTimeoutMs: 2_000 });
    try {
      await other.publish(note(23196, 'after the cut'));
    } finally {
      other.close();
    }
    await expect.poll(() => received, { timeout: 2_000 }).toEqual(['after the cut']);
  });

  it('publishes made while disconnected wait for the connection; close() ends everything', async () => {
    session = webSocketRelaySession(relay.url, { publishTimeoutMs: 3_000, reconnectDelaysMs: [100] });
    await session.publish(note(23195, 'first'));
    relay.dropConnections();
    await expect.poll(() => session!.connected, { timeout: 2_000 }).toBe(false);
    await session.publish(note(23195, 'while reconnecting'));
    session.close();
    await expect(session.publish(note(23195, 'after close'))).rejects.toThrow('closed');
  });
});
