/**
 * The dashboard's recent NIP-47 requests (`GET /dashboard/api/nwc-requests`) through the real
 * server and its relay, with an independent NIP-47 client (@getalby/sdk 7.0.0's NWCClient): an
 * account sees the requests of its own wallets only (its connected wallet, its test wallets), with
 * their method and outcome and never a secret; the newest 50 per wallet are kept; the route keeps
 * the control surface's rules (keys, origins, off with the controls). And the ring itself, bounded.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NwcRequestLog } from '../src/http/nwc-requests.js';
import type { NwcRequestRecord } from '../src/nostr/nwc/wallet-service.js';
import type { NwcRequestList } from '../src/schemas/nwc-requests.js';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
// Read once when the module loads: the global must be set before it is imported.
const { NWCClient } = await import('@getalby/sdk');

const PATH = '/dashboard/api/nwc-requests';

function record(walletPubkey: string, at: number, fields: Partial<NwcRequestRecord> = {}): NwcRequestRecord {
  return { at, walletPubkey, clientPubkey: 'c'.repeat(64), requestId: `${at}`.padStart(64, '0'), method: 'get_info', outcome: 'result', durationMs: 1, ...fields };
}

describe('the ring of recent NIP-47 requests', () => {
  it('keeps the newest 50 per wallet, newest first, across wallets too', () => {
    const log = new NwcRequestLog();
    for (let at = 1; at <= 60; at++) log.record(record('a'.repeat(64), at));
    log.record(record('b'.repeat(64), 55.5));
    expect(log.recent(['a'.repeat(64)]).map((kept) => kept.at)).toEqual(Array.from({ length: 50 }, (_, i) => 60 - i));
    const both = log.recent(['a'.repeat(64), 'b'.repeat(64)]);
    expect(both).toHaveLength(50);
    expect(both.slice(0, 6).map((kept) => kept.at)).toEqual([60, 59, 58, 57, 56, 55.5]);
    expect(log.recent(['f'.repeat(64)])).toEqual([]);
  });

  it('forgets the wallet heard from least recently past its wallet bound, and cuts what a client chose', () => {
    const log = new NwcRequestLog({ wallets: 2 });
    log.record(record('a'.repeat(64), 1));
    log.record(record('b'.repeat(64), 2));
    log.record(record('a'.repeat(64), 3));
    log.record(record('c'.repeat(64), 4));
    expect(log.walletCount).toBe(2);
    expect(log.recent(['b'.repeat(64)])).toEqual([]);
    expect(log.recent(['a'.repeat(64)]).map((kept) => kept.at)).toEqual([3, 1]);

    log.record({ ...record('d'.repeat(64), 5, { method: 'm'.repeat(1000), reason: 'r'.repeat(1000), requestId: 'x'.repeat(1000) }), content: 'secret' } as NwcRequestRecord);
    const [kept] = log.recent(['d'.repeat(64)]);
    expect(kept!.method).toHaveLength(64);
    expect(kept!.reason).toHaveLength(200);
    expect(kept!.requestId).toHaveLength(64);
    expect(Object.keys(kept!)).not.toContain('content');
  });
});

describe('GET /dashboard/api/nwc-requests', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const read = async (key: string) => {
    const answer = await server.api(PATH, { key });
    expect(answer.status).toBe(200);
    return answer.body as NwcRequestList;
  };
  const secretOf = (nwcUrl: string) => new URL(nwcUrl.replace('nostr+walletconnect:', 'http:')).searchParams.get('secret')!;

  it("shows each account its own wallets' requests: the connected wallet's and its test wallets', with no secret", async () => {
    expect(await read(KEYS.custodial)).toEqual({ data: [], connected: false, recording: true });
    const connection = (await server.api('/sandbox/v1/wallet', { key: KEYS.nwc })).body as { walletPubkey: string; nwcUrl: string };

    // A create on the NWC account asks its connected wallet for an invoice.
    const request = await server.create({ amount: 700 }, KEYS.nwc);
    const ofNwc = await read(KEYS.nwc);
    expect(ofNwc.connected).toBe(true);
    expect(ofNwc.data.find((row) => row.method === 'make_invoice')).toMatchObject({
      wallet: { type: 'connection' },
      walletPubkey: connection.walletPubkey,
      outcome: 'result',
      encryption: 'nip44_v2',
      errorCode: null,
    });

    // A custodial account's test wallet pays it, then fails a payment it cannot afford.
    const made = await server.api('/sandbox/v1/wallets', { key: KEYS.custodial, body: { balance: 1_000, name: 'Payer' } });
    const wallet = made.body as { id: string; nwcUrl: string };
    const client = new NWCClient({ nostrWalletConnectUrl: wallet.nwcUrl });
    try {
      await client.payInvoice({ invoice: request.invoice });
      const big = await server.create({ amount: 5_000 });
      await expect(client.payInvoice({ invoice: big.invoice })).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    } finally {
      client.close();
    }
    const ofCustodial = await read(KEYS.custodial);
    expect(ofCustodial.data.map((row) => [row.method, row.outcome, row.errorCode])).toEqual([
      ['pay_invoice', 'error', 'INSUFFICIENT_BALANCE'],
      ['pay_invoice', 'result', null],
    ]);
    expect(ofCustodial.data[1]).toMatchObject({ wallet: { type: 'test', id: wallet.id, name: 'Payer' }, encryption: expect.any(String) });
    expect(Date.parse(ofCustodial.data[1]!.at)).toBeGreaterThan(Date.now() - 60_000);
    // Another account's wallet: not the NWC account's to see (nor the other way round).
    expect((await read(KEYS.nwc)).data.some((row) => row.method === 'pay_invoice')).toBe(false);
    expect(ofCustodial.data.some((row) => row.wallet.type === 'connection')).toBe(false);

    // No secret in any answer, whoever asks.
    for (const key of [KEYS.custodial, KEYS.nwc, KEYS.readonly]) {
      const text = (await server.api(PATH, { key })).text;
      for (const secret of [secretOf(wallet.nwcUrl), secretOf(connection.nwcUrl)]) expect(text).not.toContain(secret);
    }
    // A read-only key of the account reads them too.
    expect((await read(KEYS.readonly)).data).toHaveLength(2);

    // A deleted wallet's requests are the account's no longer.
    expect((await server.api(`/sandbox/v1/wallets/${wallet.id}`, { method: 'DELETE', key: KEYS.custodial })).status).toBe(204);
    expect((await read(KEYS.custodial)).data).toEqual([]);
  });

  it('answers at most the newest 50 of a wallet', async () => {
    const made = await server.api('/sandbox/v1/wallets', { key: KEYS.custodial, body: { balance: 10 } });
    const client = new NWCClient({ nostrWalletConnectUrl: (made.body as { nwcUrl: string }).nwcUrl });
    try {
      // Paced: the relay cuts a connection sending over 100 messages a second (3 a request here).
      for (let i = 0; i < 55; i++) {
        await client.getBalance();
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    } finally {
      client.close();
    }
    const { data } = await read(KEYS.custodial);
    expect(data).toHaveLength(50);
    expect(data.every((row) => row.method === 'get_balance')).toBe(true);
    expect(new Set(data.map((row) => row.requestId)).size).toBe(50);
  });

  it("keeps the control surface's rules: a key, and the sandbox's own or loopback origins only", async () => {
    expect((await server.api(PATH, { key: null })).status).toBe(401);
    expect((await server.api(PATH, { key: 'sk_test_nobody' })).status).toBe(401);

    const foreign = await server.api(PATH, { key: KEYS.nwc, headers: { origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('origin_not_allowed');
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();

    const local = await server.api(PATH, { key: KEYS.nwc, headers: { origin: 'http://localhost:5173' } });
    expect(local.status).toBe(200);
    expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    const preflight = await fetch(server.url + PATH, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization');
    const foreignPreflight = await fetch(server.url + PATH, { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'GET' } });
    expect(foreignPreflight.status).toBe(403);
  });

  it('is not served without the controls', async () => {
    const off = await startServer({ settings: { controls: false } });
    try {
      expect((await off.api(PATH, { key: KEYS.nwc })).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
