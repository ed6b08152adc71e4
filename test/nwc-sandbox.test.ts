/**
 * Nostr Wallet Connect end to end, through the real server and its relay, with an independent
 * client (@getalby/sdk 7.0.0's NWCClient, as any app would connect): a test wallet pays a
 * custodial and an NWC payment request; the NWC request's invoice came from the account's
 * connected wallet over NIP-47 and completes from its notification.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode } from 'bolt11';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
// Read once when the module loads: the global must be set before it is imported.
const { NWCClient } = await import('@getalby/sdk');

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

async function testWallet(balance: number, key: string = KEYS.custodial) {
  const made = await server.api('/sandbox/v1/wallets', { key, body: { balance } });
  expect(made.status).toBe(201);
  return made.body as { id: string; nwcUrl: string; balance: number };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('test wallets over NIP-47', () => {
  it('pay a custodial request: completed with the preimage, balance down, fees 0', async () => {
    const wallet = await testWallet(10_000);
    expect(wallet.nwcUrl).toContain(encodeURIComponent(`${server.url.replace('http', 'ws')}/nostr`));
    const client = new NWCClient({ nostrWalletConnectUrl: wallet.nwcUrl });
    try {
      const request = await server.create({ amount: 2_100 });
      const paid = await client.payInvoice({ invoice: request.invoice });
      expect(bytesToHex(sha256(hexToBytes(paid.preimage)))).toBe(request.paymentHash);
      expect(paid.fees_paid).toBe(0);
      const read = await server.api(`/api/v1/payment-requests/${request.id}`);
      expect(read.body).toMatchObject({ status: 'completed', preimage: paid.preimage });
      expect((await client.getBalance()).balance).toBe((10_000 - 2_100) * 1000);
      expect((await server.api(`/sandbox/v1/wallets/${wallet.id}`)).body.balance).toBe(7_900);
      const { transactions } = await client.listTransactions({});
      expect(transactions[0]).toMatchObject({ type: 'outgoing', state: 'settled', payment_hash: request.paymentHash, amount: 2_100_000 });
    } finally {
      client.close();
    }
  });

  it("pay an NWC request: its invoice is the connected wallet's, completed by its payment_received", async () => {
    const connection = await server.api('/sandbox/v1/wallet', { key: KEYS.nwc });
    expect(connection.body).toMatchObject({ online: true, encryption: 'nip44_v2' });
    const request = await server.create({ amount: 500, description: 'NWC order' }, KEYS.nwc);
    const decoded = decode(request.invoice);
    expect(decoded.satoshis).toBe(500);
    expect(decoded.tagsObject.payment_hash).toBe(request.paymentHash);
    const wallet = await testWallet(1_000);
    const client = new NWCClient({ nostrWalletConnectUrl: wallet.nwcUrl });
    try {
      const paid = await client.payInvoice({ invoice: request.invoice });
      expect(bytesToHex(sha256(hexToBytes(paid.preimage)))).toBe(request.paymentHash);
      const read = await until(
        () => server.api(`/api/v1/payment-requests/${request.id}`, { key: KEYS.nwc }),
        (answer) => answer.body.status === 'completed',
      );
      expect(read.body).toMatchObject({ status: 'completed', preimage: paid.preimage });
      await expect(client.payInvoice({ invoice: request.invoice })).rejects.toMatchObject({ code: 'PAYMENT_FAILED' });
    } finally {
      client.close();
    }
  });

  it('refuses what a wallet would: INSUFFICIENT_BALANCE, PAYMENT_FAILED, NOT_FOUND', async () => {
    const wallet = await testWallet(10);
    const client = new NWCClient({ nostrWalletConnectUrl: wallet.nwcUrl });
    try {
      const request = await server.create({ amount: 1_000 });
      await expect(client.payInvoice({ invoice: request.invoice })).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
      await expect(client.payInvoice({ invoice: 'lnbcrt1nonsense' })).rejects.toMatchObject({ code: 'PAYMENT_FAILED' });
      await expect(client.lookupInvoice({ payment_hash: '00'.repeat(32) })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      client.close();
    }
  });
});
