/**
 * The relay under attack (issue 21, findings 2, 3 and 4), through the real server on 127.0.0.1
 * and raw WebSocket clients from other loopback addresses (127.0.0.2, 127.0.0.3), at a modest
 * load: the HTTP API keeps answering (a generous bound: a busy CI machine; the exact figures are
 * in `BENCH_ONLY=relay npm run bench`), the attacker is held to the relay's budgets, and the
 * sandbox's wallets keep working for an independent client (@getalby/sdk 7's NWCClient).
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RELAY_LIMITS } from '../src/nostr/relay/relay-limits.js';
import { matchingFlood, outputFlood, storeFlood, type Attack } from './support/relay-attacks.js';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
const { NWCClient } = await import('@getalby/sdk/nwc');

/** The attackers' addresses: loopback, but not the address the tests' own clients use. */
const ATTACKERS = ['127.0.0.2', '127.0.0.3'];
const ATTACK_MS = 3_000;
const TEST_MS = 15_000;

let server: RunningServer;
let relayUrl: string;
let requestId: string;
beforeAll(async () => {
  for (const method of ['info', 'warn', 'error'] as const) vi.spyOn(console, method).mockImplementation(() => {});
  server = await startServer();
  relayUrl = server.sandbox.relay!.url!;
  requestId = (await server.create()).id;
});
afterAll(async () => {
  await server?.close();
  vi.restoreAllMocks();
});

async function testWallet(balance: number): Promise<{ id: string; nwcUrl: string }> {
  const made = await server.api('/sandbox/v1/wallets', { key: KEYS.custodial, body: { balance } });
  expect(made.status, made.text).toBe(201);
  return made.body;
}

/** Latencies (ms) of back-to-back `GET /api/v1/payment-requests/{id}` for `ms` ms; one that takes over 5 s counts as 5 s. */
async function getLatencies(ms: number): Promise<number[]> {
  const latencies: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const start = performance.now();
    try {
      const response = await fetch(`${server.url}/api/v1/payment-requests/${requestId}`, {
        headers: { authorization: `Bearer ${KEYS.custodial}` },
        signal: AbortSignal.timeout(5_000),
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    } catch (error) {
      if (!(error instanceof Error && error.name === 'TimeoutError')) throw error;
    }
    latencies.push(performance.now() - start);
  }
  return latencies;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Infinity;
}

/** Runs `attack` for ATTACK_MS while GETs are timed; stops it whatever happens. */
async function during(attack: Attack): Promise<{ latencies: number[]; seconds: number }> {
  const start = performance.now();
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const latencies = await getLatencies(ATTACK_MS);
    return { latencies, seconds: (performance.now() - start) / 1000 };
  } finally {
    await attack.stop();
  }
}

/** A pay_invoice from a test wallet through @getalby/sdk, which first reads the wallet's info event. */
async function payWithSdk(nwcUrl: string): Promise<void> {
  const request = await server.create({ amount: 100 });
  const client = new NWCClient({ nostrWalletConnectUrl: nwcUrl });
  try {
    const paid = await client.payInvoice({ invoice: request.invoice });
    expect(paid.preimage).toMatch(/^[0-9a-f]{64}$/);
    expect((await client.getInfo()).methods).toContain('pay_invoice');
  } finally {
    client.close();
  }
}

describe('the relay under attack', () => {
  it("strangers' big info events (13194) cannot push the sandbox's wallets' info events off the relay (finding 2)", async () => {
    const wallet = await testWallet(10_000);
    // Past the store's 8 MiB: before, the oldest stored (the wallets' own) were evicted.
    const tally = await storeFlood({ url: relayUrl, count: 180, bytes: 60_000, connections: 9, addresses: ATTACKERS });
    expect(tally.accepted).toBe(180);
    await payWithSdk(wallet.nwcUrl);
    // Two addresses, a tenth of the store each (the sandbox's own info events apart).
    expect(server.sandbox.relay!.stats().storedBytes).toBeLessThanOrEqual(ATTACKERS.length * RELAY_LIMITS.maxStoredBytes * RELAY_LIMITS.maxStoredShare + 100_000);
  }, TEST_MS);

  it('a flood of subscribers and 4 KB events (finding 3): the API answers, the attacker gets at most its budget, wallets work', async () => {
    const wallet = await testWallet(10_000);
    const quiet = await getLatencies(500);
    const attack = await outputFlood({ url: relayUrl, seconds: 4, subscribers: 10, perSecond: 80, fresh: true, addresses: ATTACKERS });
    const paying = new Promise((resolve) => setTimeout(resolve, 1_000)).then(() => payWithSdk(wallet.nwcUrl));
    const { latencies, seconds } = await during(attack);
    await paying;
    const bound = (seconds + 1) * ATTACKERS.length * RELAY_LIMITS.maxBytesOutPerSecondPerAddress;
    console.log(`finding 3: quiet p90 ${percentile(quiet, 90).toFixed(1)} ms, attacked p90 ${percentile(latencies, 90).toFixed(1)} ms; attacker got ${attack.tally.bytesReceived} bytes (bound ${Math.round(bound)})`);
    expect(percentile(latencies, 90)).toBeLessThan(500);
    expect(attack.tally.bytesReceived).toBeLessThan(bound);
    expect(attack.tally.firstClosed).toMatch(/^rate-limited: /);
  }, TEST_MS);

  it('the same event republished is a duplicate, not broadcast again (finding 3 as measured)', async () => {
    const attack = await outputFlood({ url: relayUrl, seconds: 2, subscribers: 2, perSecond: 80, fresh: false, addresses: ATTACKERS });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await attack.stop();
    expect(attack.tally.accepted).toBeGreaterThan(40);
    // One broadcast to 2 × 20 subscriptions: about 40 × 4 KB, and the OKs.
    expect(attack.tally.bytesReceived).toBeLessThan(40 * 4_500 + attack.tally.accepted * 200);
  }, TEST_MS);

  it('filters of 190 values and events of 100 tags (finding 4): the API answers, the events are refused "rate-limited"', async () => {
    const wallet = await testWallet(10_000);
    const attack = await matchingFlood({ url: relayUrl, seconds: 4, subscribers: 10, perSecond: 20, addresses: ATTACKERS });
    const paying = new Promise((resolve) => setTimeout(resolve, 1_000)).then(() => payWithSdk(wallet.nwcUrl));
    const { latencies } = await during(attack);
    await paying;
    console.log(`finding 4: attacked p90 ${percentile(latencies, 90).toFixed(1)} ms; ${attack.tally.refused} events refused: ${attack.tally.firstRefusal}`);
    expect(percentile(latencies, 90)).toBeLessThan(500);
    expect(attack.tally.refused).toBeGreaterThan(0);
    expect(attack.tally.firstRefusal).toMatch(/^rate-limited: /);
  }, TEST_MS);
});
