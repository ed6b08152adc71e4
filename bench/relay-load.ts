/**
 * "API under relay load" (issue 21, findings 3 and 4): `GET /api/v1/payment-requests/{id}`'s
 * latency on a quiet server against the same during each relay attack, and what the attacker
 * received. The server runs in its own process (default flags); the attackers (raw WebSocket
 * clients, `test/support/relay-attacks.ts`) and the timed GETs run here, from loopback addresses
 * other than the GETs' (127.0.0.2, …: local on Linux). Goal: p99 ≤ 50 ms and ≤ 5× the quiet p99
 * during every attack.
 *
 * Attacks, each for ATTACK_SECONDS: finding 3 as measured (one address, 19 connections × 20
 * subscriptions to kind 23194, one connection republishing the same signed 4 KB event 80 times a
 * second), then with a new event each time from 3 addresses at once; finding 4 as measured (one
 * address, 19 connections × 20 REQs of 10 filters with 190 `#t` values, an event with 100 `t`
 * tags 20 times a second), then from 3 addresses at once.
 */
import { matchingFlood, outputFlood, type Attack } from '../test/support/relay-attacks.js';

const ATTACK_SECONDS = 8;
const QUIET_SECONDS = 4;
/** GETs are sent one after the other, one every this many ms at most (so the timing does not load the server itself). */
const GET_EVERY_MS = 10;
const ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];

/** One phase's figures. */
export interface RelayLoadPhase {
  name: string;
  gets: number;
  p50Ms: number;
  p99Ms: number;
  /** Bytes the attacker's connections received. */
  attackerBytes?: number;
  /** What the relay answered the attacker: events refused, subscriptions closed, connections dropped, first reasons. */
  refused?: number;
  closed?: number;
  disconnects?: number;
  reason?: string;
}

/** Runs every phase against the server at `url` (its relay at /nostr), with `authorization` reading one payment request. */
export async function measureRelayLoad(url: string, authorization: string): Promise<RelayLoadPhase[]> {
  const relayUrl = `${url.replace(/^http/, 'ws')}/nostr`;
  const created = await fetch(`${url}/api/v1/payment-requests`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 1000, description: 'relay load', destinationWallet: 'merchant@example.com' }),
  });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  const get = `${url}/api/v1/payment-requests/${id}`;
  const phases: RelayLoadPhase[] = [];
  await timedGets(get, authorization, 1); // warm-up
  phases.push({ name: 'quiet', ...(await timedGets(get, authorization, QUIET_SECONDS)) });
  const attacks: Array<[string, () => Promise<Attack[]>]> = [
    ['finding 3 (1 address, same event)', async () => [await outputFlood({ url: relayUrl, seconds: ATTACK_SECONDS, subscribers: 19, perSecond: 80, fresh: false, addresses: ADDRESSES.slice(0, 1) })]],
    [
      'finding 3 (3 addresses, new events)',
      () => Promise.all(ADDRESSES.map((address) => outputFlood({ url: relayUrl, seconds: ATTACK_SECONDS, subscribers: 19, perSecond: 80, fresh: true, addresses: [address] }))),
    ],
    ['finding 4 (1 address)', async () => [await matchingFlood({ url: relayUrl, seconds: ATTACK_SECONDS, subscribers: 19, perSecond: 20, addresses: ADDRESSES.slice(0, 1) })]],
    [
      'finding 4 (3 addresses)',
      () => Promise.all(ADDRESSES.map((address) => matchingFlood({ url: relayUrl, seconds: ATTACK_SECONDS, subscribers: 19, perSecond: 20, addresses: [address] }))),
    ],
  ];
  for (const [name, start] of attacks) {
    const running = await start();
    let timed: { gets: number; p50Ms: number; p99Ms: number };
    let tallies: Array<Attack['tally']>;
    try {
      await new Promise((resolve) => setTimeout(resolve, 250));
      timed = await timedGets(get, authorization, ATTACK_SECONDS);
      // Before stopping: the attacker's own closes are not the relay's.
      tallies = running.map((attack) => ({ ...attack.tally }));
    } finally {
      await Promise.all(running.map((attack) => attack.stop()));
    }
    const sum = (pick: (tally: Attack['tally']) => number) => tallies.reduce((total, tally) => total + pick(tally), 0);
    phases.push({
      name,
      ...timed,
      attackerBytes: sum((tally) => tally.bytesReceived),
      refused: sum((tally) => tally.refused),
      closed: sum((tally) => tally.closed),
      disconnects: sum((tally) => tally.disconnects),
      reason: tallies.map((tally) => tally.firstRefusal ?? tally.firstClosed).find((reason) => reason !== undefined) ?? '',
    });
    // The relay's budgets refill within a second; the next phase starts from a quiet relay.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  }
  return phases;
}

/** GETs one after the other for `seconds`, at most one per GET_EVERY_MS: their count, p50 and p99. */
async function timedGets(url: string, authorization: string, seconds: number): Promise<{ gets: number; p50Ms: number; p99Ms: number }> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const start = performance.now();
    const response = await fetch(url, { headers: { authorization } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET answered ${response.status}`);
    const took = performance.now() - start;
    latencies.push(took);
    if (took < GET_EVERY_MS) await new Promise((resolve) => setTimeout(resolve, GET_EVERY_MS - took));
  }
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? Number.NaN;
  return { gets: latencies.length, p50Ms: at(50), p99Ms: at(99) };
}

/** The phases as a table, with the goal checked against the quiet p99. */
export function relayLoadTable(phases: RelayLoadPhase[]): string {
  const quiet = phases.find((phase) => phase.name === 'quiet');
  const goal = Math.min(50, 5 * (quiet?.p99Ms ?? Infinity));
  const lines = [`API under relay load: GET p50 / p99 (goal during attacks: p99 ≤ ${goal.toFixed(1)} ms = min(50 ms, 5 × quiet p99))`];
  for (const phase of phases) {
    const attacker =
      phase.attackerBytes === undefined
        ? ''
        : `; attacker received ${(phase.attackerBytes / 1024 / 1024).toFixed(2)} MiB, ${phase.refused} events refused, ${phase.closed} subscriptions closed, ${phase.disconnects} connections dropped${phase.reason ? ` ("${phase.reason.slice(0, 90)}…")` : ''}`;
    const verdict = phase.name === 'quiet' ? '' : phase.p99Ms <= goal ? ' [goal met]' : ' [GOAL MISSED]';
    lines.push(`  ${phase.name.padEnd(36)} ${phase.gets} GETs, p50 ${phase.p50Ms.toFixed(1)} ms, p99 ${phase.p99Ms.toFixed(1)} ms${verdict}${attacker}`);
  }
  return lines.join('\n');
}
