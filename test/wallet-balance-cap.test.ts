/**
 * A test wallet's balance never passes its cap (1,000,000,000,000 sats), whichever way the money
 * arrives (issue 21, finding 6): through the real server and its relay, driven by @getalby/sdk
 * 7's NWCClient. The attack of the finding (a wallet at the cap makes an invoice of 1e15 msats and
 * another wallet pays it) is refused at `make_invoice` (NIP-47 `OTHER`); an invoice made while
 * there was room but paid once there is none fails the payment (`PAYMENT_FAILED`), the payer
 * keeping its balance; a top-up past the cap is a 400, as before.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_WALLET_BALANCE_SATS } from '../src/schemas/wallets.js';
import { startServer, type RunningServer } from './support/sandbox-server.js';
import { walletErrorOf, withSdk } from './support/alby-sdk.js';


const CAP_MSATS = MAX_WALLET_BALANCE_SATS * 1000;

let server: RunningServer;
beforeAll(async () => {
  for (const method of ['info', 'warn', 'error'] as const) vi.spyOn(console, method).mockImplementation(() => {});
  server = await startServer({ settings: { nwcTimeoutSeconds: 2 } });
});
afterAll(async () => {
  await server?.close();
  vi.restoreAllMocks();
});

async function testWallet(balance: number): Promise<{ id: string; nwcUrl: string }> {
  const made = await server.api('/sandbox/v1/wallets', { body: { balance } });
  expect(made.status, made.text).toBe(201);
  return made.body;
}

const balanceOf = async (id: string) => (await server.api(`/sandbox/v1/wallets/${id}`)).body.balance as number;



describe('a test wallet never holds more than the cap', () => {
  it('the attack: a wallet at the cap cannot make an invoice it could not receive (1e15 msats, past 2^53, even 1 sat): OTHER', async () => {
    const full = await testWallet(MAX_WALLET_BALANCE_SATS);
    await withSdk(full.nwcUrl, async (client) => {
      for (const amount of [1e15, 1e16, 2 ** 53 + 1, 1000]) expect([amount, await walletErrorOf(client.makeInvoice({ amount }))]).toEqual([amount, 'OTHER']);
      expect((await client.getBalance()).balance).toBe(CAP_MSATS);
    });
    // An empty wallet may ask for the whole cap, and no more.
    const empty = await testWallet(0);
    await withSdk(empty.nwcUrl, async (client) => {
      expect(await walletErrorOf(client.makeInvoice({ amount: CAP_MSATS + 1000 }))).toBe('OTHER');
      await expect(client.makeInvoice({ amount: CAP_MSATS })).resolves.toMatchObject({ amount: CAP_MSATS });
    });
    expect(await balanceOf(full.id)).toBe(MAX_WALLET_BALANCE_SATS);
  });

  it('a payment that would take the payee past the cap fails (PAYMENT_FAILED): the payer keeps its balance, the invoice stays unpaid', async () => {
    const payee = await testWallet(0);
    const payer = await testWallet(MAX_WALLET_BALANCE_SATS);
    const [whole, half] = await withSdk(payee.nwcUrl, (client) => Promise.all([client.makeInvoice({ amount: CAP_MSATS }), client.makeInvoice({ amount: CAP_MSATS / 2 })]));
    // Money arrives another way meanwhile: 1 sat over HTTP.
    expect((await server.api(`/sandbox/v1/wallets/${payee.id}/topup`, { body: { amount: 1 } })).status).toBe(200);
    await withSdk(payer.nwcUrl, async (client) => {
      expect(await walletErrorOf(client.payInvoice({ invoice: whole!.invoice }))).toBe('PAYMENT_FAILED');
      expect((await client.getBalance()).balance).toBe(CAP_MSATS);
      // The half still fits: paid; then the whole no longer would, whatever was asked at its making.
      await expect(client.payInvoice({ invoice: half!.invoice })).resolves.toMatchObject({ preimage: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect((await client.getBalance()).balance).toBe(CAP_MSATS / 2);
    });
    expect(await balanceOf(payee.id)).toBe(MAX_WALLET_BALANCE_SATS / 2 + 1);
    await withSdk(payee.nwcUrl, async (client) => {
      await expect(client.lookupInvoice({ payment_hash: whole!.payment_hash })).resolves.toMatchObject({ state: 'pending' });
    });
  });

  it('two payers at once cannot pass it either: of two invoices that each fit alone, the second fails', async () => {
    const payee = await testWallet(MAX_WALLET_BALANCE_SATS - 1_000);
    const [first, second] = await withSdk(payee.nwcUrl, (client) => Promise.all([client.makeInvoice({ amount: 600_000 }), client.makeInvoice({ amount: 600_000 })]));
    const payers = await Promise.all([testWallet(1_000), testWallet(1_000)]);
    const outcomes = await Promise.all(
      [first!, second!].map((invoice, index) =>
        withSdk(payers[index]!.nwcUrl, (client) => client.payInvoice({ invoice: invoice.invoice }).then(() => 'paid', (error: { code?: string }) => error.code)),
      ),
    );
    expect(outcomes.sort()).toEqual(['PAYMENT_FAILED', 'paid']);
    expect(await balanceOf(payee.id)).toBe(MAX_WALLET_BALANCE_SATS - 400);
    expect((await Promise.all(payers.map((payer) => balanceOf(payer.id)))).sort((a, b) => a - b)).toEqual([400, 1_000]);
  });

  it('a top-up past the cap: 400 naming amount (the same rule)', async () => {
    const wallet = await testWallet(MAX_WALLET_BALANCE_SATS - 5);
    const refused = await server.api(`/sandbox/v1/wallets/${wallet.id}/topup`, { body: { amount: 6 } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([expect.objectContaining({ field: 'amount', code: 'above_maximum' })]);
    expect((await server.api(`/sandbox/v1/wallets/${wallet.id}/topup`, { body: { amount: 5 } })).body.balance).toBe(MAX_WALLET_BALANCE_SATS);
  });
});
