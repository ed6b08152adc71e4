/**
 * The dashboard's recent NIP-47 requests: every request a sandbox-run wallet answers (the
 * `onNwcRequest` of `createNodeSandbox`) goes into a small ring per wallet pubkey, in memory, and
 * `GET /dashboard/api/nwc-requests` shows an account those of its own wallets: its connected
 * wallet (the `walletPubkey` of `GET /sandbox/v1/wallet`) and its test wallets (the
 * `walletPubkey` of each of `GET /sandbox/v1/wallets`).
 *
 * The route asks the engine for both with the caller's own Authorization header, so it knows the
 * same keys and grants the same access as they do (any key of the account: `read`), and its
 * refusals are theirs (401, 403). Like the rest of the dashboard's API it is part of the control
 * surface: the server's request hook lets only the sandbox's own and loopback origins (and
 * `--cors-origin` ones) reach it. It shows no secret: a record holds public keys, an event id, a
 * method, an outcome and timings, never a request's content or a connection's secret.
 *
 * Bounds: the newest `NWC_REQUESTS_KEPT_PER_WALLET` (50) per wallet, for at most
 * `NWC_REQUEST_WALLETS_KEPT` (1,000) wallets, the least recently heard forgotten first; every
 * string of a record cut to a short length on the way in.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { RequestHandler } from '../core/pipeline/handler.js';
import type { NwcRequestRecord } from '../nostr/nwc/wallet-service.js';
import { NWC_REQUESTS_KEPT_PER_WALLET, type NwcRequestList, type NwcRequestView } from '../schemas/nwc-requests.js';
import type { WalletConnectionView, WalletView } from '../schemas/wallets.js';

/** Wallets whose requests are kept at once; past it, the one heard from least recently is forgotten. */
export const NWC_REQUEST_WALLETS_KEPT = 1_000;

/** The path of the dashboard's recent NIP-47 requests. */
export const NWC_REQUESTS_PATH = '/dashboard/api/nwc-requests';

/** A ring of the newest records of one wallet. */
class Ring {
  readonly #slots: Array<NwcRequestRecord | undefined>;
  #next = 0;
  #size = 0;

  constructor(capacity: number) {
    this.#slots = new Array<NwcRequestRecord | undefined>(capacity);
  }

  push(record: NwcRequestRecord): void {
    this.#slots[this.#next] = record;
    this.#next = (this.#next + 1) % this.#slots.length;
    this.#size = Math.min(this.#size + 1, this.#slots.length);
  }

  /** Newest first. */
  newestFirst(): NwcRequestRecord[] {
    const out: NwcRequestRecord[] = [];
    for (let i = 1; i <= this.#size; i++) out.push(this.#slots[(this.#next - i + this.#slots.length) % this.#slots.length]!);
    return out;
  }
}

/** The recent NIP-47 requests of every wallet, bounded. */
export class NwcRequestLog {
  readonly #perWallet: number;
  readonly #wallets: number;
  /** By wallet pubkey, in order of last record (a Map keeps insertion order: the first is the stalest). */
  readonly #rings = new Map<string, Ring>();

  constructor({ perWallet = NWC_REQUESTS_KEPT_PER_WALLET, wallets = NWC_REQUEST_WALLETS_KEPT }: { perWallet?: number; wallets?: number } = {}) {
    this.#perWallet = perWallet;
    this.#wallets = wallets;
  }

  /** Keeps `record` (pass as `createNodeSandbox({ onNwcRequest })`). */
  readonly record = (record: NwcRequestRecord): void => {
    const kept = cleaned(record);
    let ring = this.#rings.get(kept.walletPubkey);
    if (ring === undefined) ring = new Ring(this.#perWallet);
    else this.#rings.delete(kept.walletPubkey);
    this.#rings.set(kept.walletPubkey, ring);
    ring.push(kept);
    if (this.#rings.size > this.#wallets) this.#rings.delete(this.#rings.keys().next().value!);
  };

  /** The newest `limit` records of these wallets together, newest first. */
  recent(walletPubkeys: Iterable<string>, limit = this.#perWallet): NwcRequestRecord[] {
    const all = [...new Set(walletPubkeys)].flatMap((pubkey) => this.#rings.get(pubkey)?.newestFirst() ?? []);
    return all.sort((a, b) => b.at - a.at).slice(0, limit);
  }

  /** How many wallets have records kept (for tests of the bound). */
  get walletCount(): number {
    return this.#rings.size;
  }
}

/** A copy of `record` with its known fields only, every string cut short (a client chooses some of them). */
function cleaned(record: NwcRequestRecord): NwcRequestRecord {
  const text = (value: unknown, max: number): string | undefined => (typeof value === 'string' ? value.slice(0, max) : undefined);
  const kept: NwcRequestRecord = {
    at: Number.isFinite(record.at) ? record.at : Date.now(),
    walletPubkey: text(record.walletPubkey, 64) ?? '',
    clientPubkey: text(record.clientPubkey, 64) ?? '',
    requestId: text(record.requestId, 64) ?? '',
    outcome: record.outcome === 'result' || record.outcome === 'error' ? record.outcome : 'ignored',
    durationMs: Number.isFinite(record.durationMs) ? Math.max(0, Math.round(record.durationMs)) : 0,
  };
  const method = text(record.method, 64);
  const encryption = text(record.encryption, 32);
  const errorCode = text(record.errorCode, 64);
  const reason = text(record.reason, 200);
  if (method !== undefined) kept.method = method;
  if (encryption !== undefined) kept.encryption = encryption;
  if (errorCode !== undefined) kept.errorCode = errorCode;
  if (reason !== undefined) kept.reason = reason;
  return kept;
}

/** Registers `GET /dashboard/api/nwc-requests` on `app`; without a log it answers an empty list (`recording: false`). */
export function registerNwcRequests(app: FastifyInstance, handle: RequestHandler, log: NwcRequestLog | undefined): void {
  app.get(NWC_REQUESTS_PATH, async (request, reply) => {
    const headers = { authorization: request.headers.authorization };
    // The test wallets first: any key of an account reads them, so their refusal is the caller's.
    const wallets = await handle({ method: 'GET', url: '/sandbox/v1/wallets', headers });
    if (wallets.status !== 200) return send(reply, wallets.status, wallets.headers, wallets.body);
    // A custodial account has no connection (404 wallet_not_connected): only its test wallets.
    const connection = await handle({ method: 'GET', url: '/sandbox/v1/wallet', headers });
    const whose = new Map<string, NwcRequestView['wallet']>();
    if (connection.status === 200) whose.set((JSON.parse(connection.body) as WalletConnectionView).walletPubkey, { type: 'connection' });
    for (const wallet of (JSON.parse(wallets.body) as { data: WalletView[] }).data) {
      whose.set(wallet.walletPubkey, { type: 'test', id: wallet.id, name: wallet.name });
    }
    const data = (log?.recent(whose.keys()) ?? []).map((record) => view(record, whose.get(record.walletPubkey)!));
    const answer: NwcRequestList = { data, connected: connection.status === 200, recording: log !== undefined };
    return send(reply, 200, { 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(answer));
  });
}

function view(record: NwcRequestRecord, wallet: NwcRequestView['wallet']): NwcRequestView {
  return {
    at: new Date(record.at).toISOString(),
    wallet,
    walletPubkey: record.walletPubkey,
    clientPubkey: record.clientPubkey,
    requestId: record.requestId,
    method: record.method ?? null,
    encryption: record.encryption ?? null,
    outcome: record.outcome,
    errorCode: record.errorCode ?? null,
    reason: record.reason ?? null,
    durationMs: record.durationMs,
  };
}

function send(reply: FastifyReply, status: number, headers: Record<string, string>, body: string): FastifyReply {
  return reply.code(status).headers({ ...headers, 'cache-control': 'no-store' }).send(body === '' ? undefined : body);
}
