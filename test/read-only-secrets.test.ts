/**
 * A read-only key never sees a secret (CONTRACT.md, "Default accounts"; issue 21, finding 1),
 * through the real server: every GET route of the route table (so a route added later is walked
 * too) and the dashboard's own reads are called with the read-only keys of a custodial and of an
 * NWC account that hold test wallets, webhook endpoints and a connection, and no answer carries
 * an NWC connection's `secret=` or a webhook signing secret. Then the attack of the finding: what
 * a read-only key sees of a test wallet (its public key and relay) cannot sign a `pay_invoice`
 * the wallet answers, so no money moves; the create key's `nwcUrl` still pays.
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import { generateSecretKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNip04Client } from './support/nostr-tools-nwc.js';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

let server: RunningServer;

/** One account's keys and the ids of what it holds. */
interface Held {
  full: string;
  readOnly: string;
  walletId: string;
  endpointId: string;
  eventId: string;
  paymentRequestId: string;
}
const held: Held[] = [];
/** Every real secret the full keys were shown: none may reach a read-only key. */
const secrets: string[] = [];

async function fill(full: string, readOnly: string): Promise<Held> {
  const wallet = await server.api('/sandbox/v1/wallets', { key: full, body: { balance: 5_000, name: 'payer' } });
  expect(wallet.status, wallet.text).toBe(201);
  secrets.push(new URL(wallet.body.nwcUrl.replace('nostr+walletconnect:', 'http:')).searchParams.get('secret')!);
  const endpoint = await server.api('/sandbox/v1/webhook-endpoints', { key: full, body: { url: 'http://127.0.0.1:9/hooks' } });
  expect(endpoint.status, endpoint.text).toBe(201);
  secrets.push(endpoint.body.secret);
  const request = await server.create({}, full);
  const connection = await server.api('/sandbox/v1/wallet', { key: full });
  if (connection.status === 200) secrets.push(new URL(connection.body.nwcUrl.replace('nostr+walletconnect:', 'http:')).searchParams.get('secret')!);
  const eventId = (await server.api('/sandbox/v1/events', { key: full })).body.data[0].id;
  return { full, readOnly, walletId: wallet.body.id, endpointId: endpoint.body.id, eventId, paymentRequestId: request.id };
}

beforeAll(async () => {
  server = await startServer({ settings: { nwcTimeoutSeconds: 2 } });
  const nwc = await server.api('/sandbox/v1/accounts', { key: KEYS.admin, body: { mode: 'nwc' } });
  expect(nwc.status, nwc.text).toBe(201);
  held.push(await fill(KEYS.custodial, KEYS.readonly), await fill(nwc.body.keys.secret, nwc.body.keys.readOnly));
  expect(secrets.every((secret) => typeof secret === 'string' && secret.length >= 32)).toBe(true);
  expect(secrets).toHaveLength(5); // two test wallets, two endpoints, one connection
});
afterAll(() => server?.close());

/** The path of `pattern` with its parameters filled from what `account` holds. */
function pathOf(pattern: string, account: Held): string {
  const id = pattern.includes('/wallets/')
    ? account.walletId
    : pattern.includes('/webhook-endpoints/')
      ? account.endpointId
      : pattern.includes('/events/')
        ? account.eventId
        : account.paymentRequestId;
  const path = pattern.replace(/:\w+/g, id);
  expect(path, `a parameter of ${pattern} this test cannot fill`).not.toMatch(/:/);
  return path;
}

/** The GET routes of the route table, and the dashboard's reads served beside it. */
const DASHBOARD_READS = ['/dashboard/api/nwc-requests', '/dashboard/api/key'];

describe('a read-only key never sees a secret', () => {
  it('on any GET route of the route table, nor on the dashboard\'s reads', async () => {
    const routes = server.sandbox.routes.filter((route) => route.method === 'GET');
    // The walk covers the routes that hold secrets, and whatever is added later.
    expect(routes.map((route) => route.name)).toEqual(expect.arrayContaining(['listTestWallets', 'getTestWallet', 'getWalletConnection', 'listWebhookEndpoints', 'getWebhookEndpoint']));
    let answered = 0;
    for (const account of held) {
      for (const path of [...routes.map((route) => pathOf(route.path, account)), ...DASHBOARD_READS]) {
        const answer = await server.api(path, { key: account.readOnly });
        for (const secret of secrets) expect(answer.text, `${path} shows a secret to a read-only key`).not.toContain(secret);
        // The OpenAPI document shows made-up examples of the shapes; every other answer none at all.
        if (path !== '/openapi.json') {
          expect(answer.text, path).not.toContain('secret=');
          expect(answer.text, path).not.toContain('whsec_');
        }
        if (answer.status === 200) answered += 1;
      }
    }
    // Reads answer the read-only keys (only the accounts API refuses them, as it refuses every account key).
    expect(answered).toBeGreaterThanOrEqual(2 * (routes.length - 1));
  });

  it('sees each wallet, endpoint and connection without its secret, which the create key sees', async () => {
    for (const account of held) {
      const full = (await server.api(`/sandbox/v1/wallets/${account.walletId}`, { key: account.full })).body;
      const readOnly = (await server.api(`/sandbox/v1/wallets/${account.walletId}`, { key: account.readOnly })).body;
      expect(full.nwcUrl).toBe(`nostr+walletconnect://${full.walletPubkey}?relay=${encodeURIComponent(`${server.url.replace('http', 'ws')}/nostr`)}&secret=${full.nwcUrl.split('secret=')[1]}`);
      expect(readOnly).toEqual({ ...full, nwcUrl: undefined });
      expect('nwcUrl' in readOnly).toBe(false);
      const endpoint = (await server.api(`/sandbox/v1/webhook-endpoints/${account.endpointId}`, { key: account.readOnly })).body;
      expect(endpoint).toMatchObject({ id: account.endpointId });
      expect('secret' in endpoint).toBe(false);
    }
  });
});

describe('what a read-only key sees cannot spend', () => {
  it('a pay_invoice signed with any key but the secret goes unanswered and moves nothing; the secret pays', async () => {
    const [custodial] = held;
    const seen = (await server.api(`/sandbox/v1/wallets/${custodial!.walletId}`, { key: KEYS.readonly })).body;
    const relay = `${server.url.replace('http', 'ws')}/nostr`;
    const order = await server.create({ amount: 100 });
    // The best a read-only key can do: the wallet's public key and relay, with a key of its own.
    const forged = await connectNip04Client(`nostr+walletconnect://${seen.walletPubkey}?relay=${encodeURIComponent(relay)}&secret=${bytesToHex(generateSecretKey())}`);
    try {
      expect(await forged.requestOrSilence('pay_invoice', { invoice: order.invoice }, 1_500)).toBeUndefined();
    } finally {
      forged.close();
    }
    expect((await server.api(`/api/v1/payment-requests/${order.id}`)).body.status).toBe('pending');
    expect((await server.api(`/sandbox/v1/wallets/${custodial!.walletId}`)).body.balance).toBe(5_000);
    // The create key's nwcUrl (the secret) is what pays.
    const owner = await connectNip04Client((await server.api(`/sandbox/v1/wallets/${custodial!.walletId}`)).body.nwcUrl);
    try {
      const paid = await owner.request('pay_invoice', { invoice: order.invoice }, 5_000);
      expect(paid.error ?? null).toBeNull();
    } finally {
      owner.close();
    }
    expect((await server.api(`/sandbox/v1/wallets/${custodial!.walletId}`)).body.balance).toBe(4_900);
  });
});
