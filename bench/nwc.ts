/**
 * Nostr Wallet Connect under load (issue 17's Performance), on `lnpr serve` as users run it:
 *
 * - Payments: N funded test wallets, each an app's connection (`bench/nostr-driver.ts`: a raw
 *   WebSocket, libsecp256k1 signatures, NIP-44), pay NWC payment requests on a fixed schedule
 *   (open loop: a payment starts when its time comes, whether or not the ones before it ended).
 *   Each payment creates an NWC request (POST with `sk_test_nwc`, not timed: the server asks its
 *   connected wallet for the invoice over the relay), then sends `pay_invoice`, and is timed until
 *   the request reads `completed` on the dashboard's live stream (`GET /sandbox/v1/stream`, SSE:
 *   pushed, so completion is seen without polling). The time is split at the `pay_invoice`
 *   answer, at the request's `updatedAt` (the server's wall clock when it completed), and, for
 *   the newest 50 payments, at the wallet service's arrival and answer times, which the
 *   dashboard's recent NIP-47 requests (`GET /dashboard/api/nwc-requests`) keep.
 * - The relay's cost per event: kind-23194 events published at a fixed rate from several
 *   connections to one subscriber; the server's CPU time per event (from /proc, an idle baseline
 *   taken off) and the publish→receive latency.
 *
 * Create on an NWC account against create on a custodial account is an ordinary comparison of
 * the bench (`report.ts`: `nwc NWC POST` over `nwc custodial POST`, one server), run by `run.ts`.
 */
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import * as nip44 from 'nostr-tools/nip44';
import { median, type Target } from './load.js';
import { otherLoadPercent, processCpuMs, sampleCpu } from './machine-load.js';
import { nostrKeys, NWC_REQUEST_KIND, NwcPayer, openEventStream, RelayConnection, signEvent, type SignedEvent } from './nostr-driver.js';
import type { ProfileWindow } from './profile-summary.js';
import { table, verdict } from './report.js';

/** The keys of the default accounts: a custodial one and an NWC one with a sandbox-run wallet. */
export const CUSTODIAL_KEY = 'Bearer sk_test_custodial';
export const NWC_KEY = 'Bearer sk_test_nwc';
/** The payments' target: p99 from `pay_invoice` sent to `completed` read, at 100 payments a second. */
export const NWC_P99_TARGET_MS = 50;

const PAY_BODY = JSON.stringify({ amount: 1000, description: 'Coffee beans', destinationWallet: 'merchant@example.com' });
/** Test wallets paying, each on its own connection (the relay allows 100 messages/s and 20 connections per address). */
const WALLETS = 10;
/** Each wallet's balance, in sats: never the limit. */
const WALLET_BALANCE = 1_000_000_000;
/**
 * The creates' HTTP connections (kept alive), as an app's backend pools them: past it, creates wait
 * their turn in the driver rather than open more sockets, which an overloaded server would not
 * accept in time (its listen backlog fills and connects time out).
 */
const CREATE_CONNECTIONS = 50;
/** A payment not completed this long after its `pay_invoice` was sent counts as unfinished. */
const GIVE_UP_MS = 30_000;
/** The relay test: events a second, from this many publishing connections (each under the relay's 100 messages/s). */
const RELAY_RATE = 200;
const RELAY_PUBLISHERS = 5;
const RELAY_ROUNDS = 3;
const RELAY_ROUND_SECONDS = 3;

/** Nearest-rank percentiles of a stage, in ms. */
export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** The stages a payment's time is split into. */
export const PAYMENT_STAGES = {
  total: 'pay_invoice sent → completed read (the target)',
  reachedService: 'sent → at the wallet service (relay in)*',
  serviceAnswer: 'wallet service: pay, notify, answer*',
  answered: 'sent → pay_invoice answered',
  atServer: 'sent → completed at the server (updatedAt)',
  serverToRead: 'completed at the server → read (SSE)',
  answeredToRead: 'answered → completed read',
  create: 'create (POST, NWC account, pooled; not in the total)',
} as const;
type Stage = keyof typeof PAYMENT_STAGES;
/** The stages read from the dashboard's recent NIP-47 requests, which keeps the newest 50 of an account. */
type ServiceStage = 'reachedService' | 'serviceAnswer';

/** One run of payments at a fixed rate. */
export interface PaymentRunFigures {
  label: string;
  ratePerSec: number;
  seconds: number;
  wallets: number;
  scheduled: number;
  /** Creates answered 201, and the others by status and code. */
  created: number;
  createFailures: Record<string, number>;
  /** `pay_invoice` requests sent, and the error codes of those answered with one. */
  sent: number;
  payErrors: Record<string, number>;
  completed: number;
  /** Sent but not completed (or not answered) within 30 s. */
  unfinished: number;
  /** `pay_invoice` requests sent per second, first to last: the rate achieved. */
  sentPerSec: number;
  /** Completed per second, from the first send to the last completion. */
  completedPerSec: number;
  /** How late the schedule started a payment at worst (the driver's own delay), ms. */
  scheduleLagMaxMs: number;
  latencyMs: Record<Stage, Percentiles>;
  /** Server CPU per completed payment, its create included (null: unknown). */
  serverCpuMsPerPayment: number | null;
  otherLoadPercent: number | null;
  /** NOTICEs or closes from the relay on the wallets' connections (a limit hit). */
  relayProblems: string[];
}

export interface RelayRound {
  events: number;
  received: number;
  accepted: number;
  /** Server CPU per event received, the idle baseline taken off (null: unknown). */
  cpuUsPerEvent: number | null;
  p50Ms: number;
  p99Ms: number;
  otherLoadPercent: number | null;
}

export interface RelayFigures {
  ratePerSec: number;
  publishers: number;
  eventBytes: number;
  /** The server's CPU while idle, ms per second (taken off each round). */
  idleCpuMsPerSec: number | null;
  rounds: RelayRound[];
  /** The median round's. */
  cpuUsPerEvent: number | null;
  latencyMs: Percentiles;
  relayProblems: string[];
}

/** The section's figures, as `bench/results.json` keeps them. */
export interface NwcFigures {
  payments: PaymentRunFigures[];
  target: { atRatePerSec: number; p99Ms: number | null; atMostMs: number; pass: boolean | null };
  relay: RelayFigures | null;
}

/** The payment runs: a warm-up, a light rate (no queueing), then the target's rate. */
export async function measurePayments(
  server: Target,
  { rate, seconds }: { rate: number; seconds: number },
  windows: ProfileWindow[],
  caseName: (label: string) => string,
): Promise<PaymentRunFigures[]> {
  const payers = await Promise.all(
    Array.from({ length: WALLETS }, async (_, i) => {
      const response = await fetch(`${server.url}/sandbox/v1/wallets`, {
        method: 'POST',
        headers: { authorization: CUSTODIAL_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ balance: WALLET_BALANCE, name: `bench payer ${i + 1}` }),
      });
      const text = await response.text();
      if (response.status !== 201) throw new Error(`POST /sandbox/v1/wallets answered ${response.status}: ${text.slice(0, 300)}`);
      const payer = new NwcPayer((JSON.parse(text) as { nwcUrl: string }).nwcUrl);
      await payer.connect();
      return payer;
    }),
  );
  const completions = new Completions();
  const agent = new Agent({ keepAlive: true, maxSockets: CREATE_CONNECTIONS });
  const stream = await openEventStream(`${server.url}/sandbox/v1/stream`, NWC_KEY, (event, data, at) => {
    if (event === 'payment_request') completions.heard(data, at);
  });
  try {
    const runs: PaymentRunFigures[] = [];
    // The JIT, the merchant wallet's connection and the first lookups settle first.
    await runPayments(server, payers, completions, agent, 'warm-up', 20, 1);
    for (const [label, runRate, runSeconds] of [
      ['light', 5, 8],
      [`${rate}/s`, rate, seconds],
    ] as const) {
      const startUs = monotonicUs();
      const figures = await runPayments(server, payers, completions, agent, label, runRate, runSeconds);
      windows.push({ case: caseName(label), pid: server.pid, startUs, endUs: monotonicUs(), requests: figures.completed });
      runs.push(figures);
    }
    return runs;
  } finally {
    stream.close();
    agent.destroy();
    await Promise.all(payers.map((payer) => payer.close()));
  }
}

/**
 * The p99 target's verdict from the run at its rate: met only if every payment completed (the
 * p99 of the completed alone would hide those that never did).
 */
export function paymentTarget(runs: PaymentRunFigures[], rate: number): NwcFigures['target'] {
  const run = runs.find((r) => r.label !== 'light' && r.ratePerSec === rate);
  if (run === undefined) return { atRatePerSec: rate, p99Ms: null, atMostMs: NWC_P99_TARGET_MS, pass: null };
  const p99Ms = run.completed > 0 ? run.latencyMs.total.p99 : null;
  const pass = p99Ms !== null && run.completed === run.scheduled && p99Ms < NWC_P99_TARGET_MS;
  return { atRatePerSec: rate, p99Ms, atMostMs: NWC_P99_TARGET_MS, pass };
}

/** Completion waiters, resolved by the live stream's `payment_request.completed` events. */
class Completions {
  readonly #waiters = new Map<string, (done: { at: number; updatedAt: number }) => void>();

  wait(id: string): Promise<{ at: number; updatedAt: number }> {
    return new Promise((resolve) => this.#waiters.set(id, resolve));
  }

  forget(id: string): void {
    this.#waiters.delete(id);
  }

  heard(data: string, at: number): void {
    const event = JSON.parse(data) as { type: string; data: { id: string; updatedAt: string } };
    if (event.type !== 'payment_request.completed') return;
    const resolve = this.#waiters.get(event.data.id);
    if (resolve === undefined) return;
    this.#waiters.delete(event.data.id);
    resolve({ at, updatedAt: Date.parse(event.data.updatedAt) });
  }
}

type Sample = Record<Exclude<Stage, ServiceStage>, number>;

async function runPayments(
  server: Target,
  payers: NwcPayer[],
  completions: Completions,
  agent: Agent,
  label: string,
  rate: number,
  seconds: number,
): Promise<PaymentRunFigures> {
  const scheduled = Math.round(rate * seconds);
  const samples: Sample[] = [];
  const createFailures: Record<string, number> = {};
  const payErrors: Record<string, number> = {};
  const sends: number[] = [];
  /** Wall-clock send time of each pay_invoice, by its event id. */
  const sentWallById = new Map<string, number>();
  let created = 0;
  let unfinished = 0;
  let lastCompletion = 0;
  let scheduleLagMaxMs = 0;

  const onePayment = async (payer: NwcPayer): Promise<void> => {
    const createStart = performance.now();
    let id: string;
    let invoice: string;
    try {
      const { status, text } = await post(agent, `${server.url}/api/v1/payment-requests`, NWC_KEY, PAY_BODY);
      if (status !== 201) {
        const code = /"code":"(\w+)"/.exec(text)?.[1] ?? '';
        count(createFailures, `${status} ${code}`.trim());
        return;
      }
      ({ id, invoice } = JSON.parse(text) as { id: string; invoice: string });
    } catch (error) {
      // The server cuts a request it has not answered in 30 s (its requestTimeout): overload.
      const message = (error as Error).message;
      count(createFailures, /ECONNRESET|socket hang up/.test(message) ? `${message} (no answer within the server's 30 s request timeout)` : message);
      return;
    }
    created += 1;
    const createMs = performance.now() - createStart;
    const completion = completions.wait(id);
    const { id: requestId, sentAt, answer } = payer.pay(invoice);
    sends.push(sentAt);
    sentWallById.set(requestId, performance.timeOrigin + sentAt);
    const answered = await within(answer, GIVE_UP_MS);
    if (answered === undefined || answered.error !== undefined) {
      completions.forget(id);
      if (answered === undefined) unfinished += 1;
      else count(payErrors, answered.error!);
      return;
    }
    const done = await within(completion, GIVE_UP_MS - (performance.now() - sentAt));
    if (done === undefined) {
      completions.forget(id);
      unfinished += 1;
      return;
    }
    lastCompletion = Math.max(lastCompletion, done.at);
    const sentWall = performance.timeOrigin + sentAt;
    samples.push({
      total: done.at - sentAt,
      answered: answered.at - sentAt,
      answeredToRead: done.at - answered.at,
      atServer: done.updatedAt - sentWall,
      serverToRead: performance.timeOrigin + done.at - done.updatedAt,
      create: createMs,
    });
  };

  const cpuBefore = sampleCpu([server.pid]);
  const start = performance.now() + 20;
  const tasks: Array<Promise<void>> = [];
  for (let i = 0; i < scheduled; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    scheduleLagMaxMs = Math.max(scheduleLagMaxMs, performance.now() - due);
    tasks.push(onePayment(payers[i % payers.length]!));
  }
  await Promise.all(tasks);
  const cpuAfter = sampleCpu([server.pid]);
  const cpuMs = processCpuMs(cpuBefore, cpuAfter, server.pid);
  const service = await serviceTimes(server, sentWallById);
  const firstSend = Math.min(...sends);
  const lastSend = Math.max(...sends);
  const stage = (name: keyof Sample) => percentiles(samples.map((s) => s[name]));
  return {
    label,
    ratePerSec: rate,
    seconds,
    wallets: payers.length,
    scheduled,
    created,
    createFailures,
    sent: sends.length,
    payErrors,
    completed: samples.length,
    unfinished,
    sentPerSec: sends.length > 1 ? round1(((sends.length - 1) * 1000) / (lastSend - firstSend)) : 0,
    completedPerSec: samples.length > 0 ? round1((samples.length * 1000) / (lastCompletion - firstSend)) : 0,
    scheduleLagMaxMs: round1(scheduleLagMaxMs),
    latencyMs: {
      total: stage('total'),
      reachedService: percentiles(service.map((s) => s.reachedService)),
      serviceAnswer: percentiles(service.map((s) => s.serviceAnswer)),
      answered: stage('answered'),
      answeredToRead: stage('answeredToRead'),
      atServer: stage('atServer'),
      serverToRead: stage('serverToRead'),
      create: stage('create'),
    },
    serverCpuMsPerPayment: cpuMs === undefined || samples.length === 0 ? null : round1(cpuMs / samples.length),
    otherLoadPercent: otherLoadPercent(cpuBefore, cpuAfter) ?? null,
    relayProblems: payers.flatMap((payer) => payer.problems),
  };
}

/**
 * When the newest pay_invoice requests reached the test wallets' NIP-47 service (after the relay)
 * and how long it took to answer them, as the dashboard's recent NIP-47 requests keep them (the
 * newest 50 of the account, ms resolution).
 */
async function serviceTimes(server: Target, sentWallById: Map<string, number>): Promise<Array<Record<ServiceStage, number>>> {
  const response = await fetch(`${server.url}/dashboard/api/nwc-requests`, { headers: { authorization: CUSTODIAL_KEY } });
  if (response.status !== 200) return [];
  const { data } = (await response.json()) as { data: Array<{ at: string; requestId: string; method: string | null; durationMs: number }> };
  return data.flatMap((record) => {
    const sentWall = sentWallById.get(record.requestId);
    if (record.method !== 'pay_invoice' || sentWall === undefined) return [];
    return [{ reachedService: Date.parse(record.at) - sentWall, serviceAnswer: record.durationMs }];
  });
}

/** The relay's CPU per event and its publish→receive latency, on a server doing nothing else. */
export async function measureRelay(server: Target, windows: ProfileWindow[], caseName: string): Promise<RelayFigures> {
  const relayUrl = `${server.url.replace(/^http/, 'ws')}/nostr`;
  const recipient = nostrKeys();
  const sender = nostrKeys();
  const conversationKey = nip44.v2.utils.getConversationKey(sender.secretKey, recipient.pubkey);
  // A pay_invoice request's size: a BOLT11 invoice of ~400 characters, NIP-44 encrypted.
  const plaintext = JSON.stringify({ method: 'pay_invoice', params: { invoice: `lnbcrt10u1p${'q'.repeat(380)}` } });
  const makeEvents = (count: number): SignedEvent[] =>
    Array.from({ length: count }, () =>
      signEvent(sender, {
        kind: NWC_REQUEST_KIND,
        tags: [
          ['p', recipient.pubkey],
          ['encryption', 'nip44_v2'],
        ],
        content: nip44.v2.encrypt(plaintext, conversationKey),
      }),
    );

  const subscriber = await RelayConnection.open(relayUrl);
  const publishers = await Promise.all(Array.from({ length: RELAY_PUBLISHERS }, () => RelayConnection.open(relayUrl)));
  let onReceived: ((id: string, at: number) => void) | undefined;
  await subscriber.subscribe({ kinds: [NWC_REQUEST_KIND], '#p': [recipient.pubkey] }, (event, at) => onReceived?.(event.id, at));
  const connections = [subscriber, ...publishers];
  try {
    let idleCpuMsPerSec: number | null = null;
    const round = async (seconds: number): Promise<{ round: RelayRound; latencies: number[]; startUs: number; endUs: number }> => {
      const events = makeEvents(Math.round(RELAY_RATE * seconds));
      const sentAt = new Map<string, number>();
      const latencies: number[] = [];
      let accepted = 0;
      let answered = 0;
      let allDone: () => void = () => {};
      const done = new Promise<void>((resolve) => (allDone = resolve));
      const check = () => {
        if (latencies.length === events.length && answered === events.length) allDone();
      };
      onReceived = (id, at) => {
        const sent = sentAt.get(id);
        if (sent === undefined) return;
        sentAt.delete(id);
        latencies.push(at - sent);
        check();
      };
      const startUs = monotonicUs();
      const cpuBefore = sampleCpu([server.pid]);
      const start = performance.now() + 10;
      for (let i = 0; i < events.length; i++) {
        const due = start + (i * 1000) / RELAY_RATE;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const event = events[i]!;
        sentAt.set(event.id, performance.now());
        publishers[i % publishers.length]!.publish(event, (ok) => {
          answered += 1;
          if (ok) accepted += 1;
          check();
        });
      }
      // Every event relayed to the subscriber and every OK back to its publisher.
      await within(done, 5_000);
      const cpuAfter = sampleCpu([server.pid]);
      const elapsedSec = (performance.now() - start) / 1000;
      const cpuMs = processCpuMs(cpuBefore, cpuAfter, server.pid);
      const netMs = cpuMs === undefined || idleCpuMsPerSec === null ? undefined : Math.max(0, cpuMs - idleCpuMsPerSec * elapsedSec);
      const sorted = [...latencies].sort((a, b) => a - b);
      return {
        round: {
          events: events.length,
          received: latencies.length,
          accepted,
          cpuUsPerEvent: netMs === undefined || latencies.length === 0 ? null : Math.round((netMs * 1000) / latencies.length),
          p50Ms: round2(nearestRank(sorted, 0.5)),
          p99Ms: round2(nearestRank(sorted, 0.99)),
          otherLoadPercent: otherLoadPercent(cpuBefore, cpuAfter) ?? null,
        },
        latencies,
        startUs,
        endUs: monotonicUs(),
      };
    };

    await round(1); // warm-up
    // The idle baseline, once the start-up's and the warm-up's work is done: what the server
    // spends doing nothing (timers), per second, taken off each round.
    await sleep(500);
    const idleBefore = sampleCpu([server.pid]);
    const idleStart = performance.now();
    await sleep(1_000);
    const idleMs = processCpuMs(idleBefore, sampleCpu([server.pid]), server.pid);
    idleCpuMsPerSec = idleMs === undefined ? null : (idleMs * 1000) / (performance.now() - idleStart);
    const rounds: RelayRound[] = [];
    const latencies: number[] = [];
    for (let i = 0; i < RELAY_ROUNDS; i++) {
      const measured = await round(RELAY_ROUND_SECONDS);
      rounds.push(measured.round);
      latencies.push(...measured.latencies);
      windows.push({ case: caseName, pid: server.pid, startUs: measured.startUs, endUs: measured.endUs, requests: measured.round.received });
    }
    const costs = rounds.map((r) => r.cpuUsPerEvent);
    return {
      ratePerSec: RELAY_RATE,
      publishers: RELAY_PUBLISHERS,
      eventBytes: JSON.stringify(makeEvents(1)[0]).length,
      idleCpuMsPerSec: idleCpuMsPerSec === null ? null : round1(idleCpuMsPerSec),
      rounds,
      cpuUsPerEvent: costs.every((c) => c !== null) ? Math.round(median(costs as number[])) : null,
      latencyMs: percentiles(latencies),
      relayProblems: connections.flatMap((connection) => connection.problems),
    };
  } finally {
    await Promise.all(connections.map((connection) => connection.close()));
  }
}

/** The payments' table, where their time goes, and the relay's. */
export function nwcTables(figures: NwcFigures): string {
  const parts: string[] = [];
  const runs = figures.payments;
  if (runs.length > 0) {
    const cell = (p: Percentiles, value: number) => (p.count === 0 ? '-' : value.toFixed(1));
    const payments = table(
      ['NWC payments', 'rate/s', 'sent/s', 'completed/s', 'completed', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'target', '', 'server CPU ms/payment', 'other load %'],
      runs.map((r) => {
        const t = r.latencyMs.total;
        const targeted = r.label !== 'light' && r.ratePerSec === figures.target.atRatePerSec;
        return [
          r.label,
          String(r.ratePerSec),
          r.sentPerSec.toFixed(1),
          r.completedPerSec.toFixed(1),
          `${r.completed}/${r.scheduled}`,
          cell(t, t.p50),
          cell(t, t.p90),
          cell(t, t.p99),
          cell(t, t.max),
          targeted ? `p99 < ${figures.target.atMostMs}` : '-',
          targeted && figures.target.pass !== null ? verdict(figures.target.pass) : '',
          r.serverCpuMsPerPayment === null ? '?' : r.serverCpuMsPerPayment.toFixed(1),
          r.otherLoadPercent === null ? '?' : String(r.otherLoadPercent),
        ];
      }),
    );
    const stages = table(
      ['where the time goes, ms: p50 / p99 (max)', ...runs.map((r) => r.label)],
      (Object.keys(PAYMENT_STAGES) as Stage[]).map((stage) => [
        PAYMENT_STAGES[stage],
        ...runs.map((r) => {
          const p = r.latencyMs[stage];
          return p.count === 0 ? '-' : `${p.p50.toFixed(1)} / ${p.p99.toFixed(1)} (${p.max.toFixed(0)})`;
        }),
      ]),
    );
    parts.push(
      `${payments}\n` +
        `${runs[0]!.wallets} test wallets, each an app's own WebSocket to the relay (bench/nostr-driver.ts: libsecp256k1 signatures, NIP-44); each\n` +
        'payment creates an NWC payment request (not timed), sends pay_invoice, and waits for `payment_request.completed` on the\n' +
        "dashboard's live stream (SSE, pushed: no polling). Open loop: payments start on schedule, whether or not earlier ones ended.\n" +
        'server CPU: the server process\'s, per completed payment, its create included.',
      `${stages}\n` +
        'updatedAt is the server\'s wall clock when it completed the request (ms resolution). *: the newest 50 payments only, from the\n' +
        "dashboard's recent NIP-47 requests (when the wallet service got the request, ms resolution, and how long until its answer was\n" +
        'published). Completion can be read before the pay_invoice answer (negative).',
    );
    const problems = runs.flatMap((r) => {
      const notes: string[] = [];
      if (Object.keys(r.createFailures).length > 0) notes.push(`${r.label}: creates failed ${JSON.stringify(r.createFailures)}`);
      if (Object.keys(r.payErrors).length > 0) notes.push(`${r.label}: pay_invoice errors ${JSON.stringify(r.payErrors)}`);
      if (r.unfinished > 0) notes.push(`${r.label}: ${r.unfinished} payments unfinished ${GIVE_UP_MS / 1000} s after pay_invoice was sent`);
      if (r.relayProblems.length > 0) notes.push(`${r.label}: the relay said ${JSON.stringify(r.relayProblems.slice(0, 3))}`);
      if (r.scheduleLagMaxMs > 50) notes.push(`${r.label}: the driver started a payment up to ${r.scheduleLagMaxMs} ms late`);
      return notes;
    });
    if (problems.length > 0) parts.push(problems.join('\n'));
  }
  const relay = figures.relay;
  if (relay) {
    const rows = table(
      ['relay, kind 23194 events', 'events', 'received', 'OK true', 'server CPU us/event', 'p50 ms', 'p99 ms', 'other load %'],
      relay.rounds.map((r, i) => [
        `round ${i + 1}`,
        String(r.events),
        String(r.received),
        String(r.accepted),
        r.cpuUsPerEvent === null ? '?' : String(r.cpuUsPerEvent),
        r.p50Ms.toFixed(2),
        r.p99Ms.toFixed(2),
        r.otherLoadPercent === null ? '?' : String(r.otherLoadPercent),
      ]),
    );
    parts.push(
      `${rows}\n` +
        `${relay.ratePerSec} events/s (${relay.eventBytes} bytes each, a pay_invoice's size) from ${relay.publishers} connections to one subscriber, on a server\n` +
        `doing nothing else: ${relay.cpuUsPerEvent ?? '?'} us of server CPU per event (median round; idle ${relay.idleCpuMsPerSec ?? '?'} ms/s taken off),\n` +
        `publish → receive p50 ${relay.latencyMs.p50.toFixed(2)} ms, p99 ${relay.latencyMs.p99.toFixed(2)} ms, max ${relay.latencyMs.max.toFixed(2)} ms` +
        (relay.relayProblems.length > 0 ? `\nthe relay said ${JSON.stringify(relay.relayProblems.slice(0, 3))}` : ''),
    );
  }
  return parts.join('\n\n');
}

/** Whether the section's figures show answers that make them measure the wrong thing. */
export function nwcFailures(figures: NwcFigures): string[] {
  const failures: string[] = [];
  // An overloaded server may answer these, as it should: a figure (shown), not a broken bench.
  for (const run of figures.payments) {
    if (Object.keys(run.payErrors).some((code) => code !== 'RATE_LIMITED')) failures.push(`NWC payments ${run.label}: pay_invoice answered errors ${JSON.stringify(run.payErrors)}`);
    const unexpected = Object.keys(run.createFailures).filter((failure) => !failure.startsWith('502 wallet_unavailable') && !failure.includes('request timeout'));
    if (unexpected.length > 0) failures.push(`NWC payments ${run.label}: creates failed ${JSON.stringify(run.createFailures)}`);
    if (run.relayProblems.length > 0) failures.push(`NWC payments ${run.label}: the relay said ${JSON.stringify(run.relayProblems.slice(0, 3))}`);
  }
  const relay = figures.relay;
  if (relay && (relay.rounds.some((r) => r.received < r.events || r.accepted < r.events) || relay.relayProblems.length > 0)) {
    failures.push(`relay: not every event was accepted and relayed ${JSON.stringify(relay.rounds)} ${JSON.stringify(relay.relayProblems.slice(0, 3))}`);
  }
  return failures;
}

/** A POST over `agent`'s pooled connections: its status and body. */
function post(agent: Agent, url: string, authorization: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method: 'POST', agent, headers: { authorization, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** `promise`'s value, or undefined after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, ms))));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: round2(nearestRank(sorted, 0.5)),
    p90: round2(nearestRank(sorted, 0.9)),
    p99: round2(nearestRank(sorted, 0.99)),
    max: round2(sorted.at(-1) ?? Number.NaN),
  };
}

function nearestRank(sorted: readonly number[], fraction: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)]!;
}

function count(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** Now on the monotonic clock V8's CPU profiles use, in microseconds. */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
