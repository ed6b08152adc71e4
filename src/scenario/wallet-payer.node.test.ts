/**
 * `nodeWalletPayer`, the CLI's transport of `walletPay` steps, against the real server and its
 * relay: a test wallet pays, refuses with NIP-47 codes, and a wallet that cannot be reached is an
 * error whose message never holds the URI's secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/support/free-port.js';
import { KEYS, startServer, type RunningServer } from '../../test/support/sandbox-server.js';
import { nodeWalletPayer } from './wallet-payer.node.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

const pay = nodeWalletPayer();

async function testWallet(balance: number): Promise<{ id: string; nwcUrl: string }> {
  const made = await server.api('/sandbox/v1/wallets', { key: KEYS.custodial, body: { balance } });
  expect(made.status).toBe(201);
  return made.body;
}

describe('nodeWalletPayer', () => {
  it('pays through a test wallet: the preimage, no fees; paying again is PAYMENT_FAILED', async () => {
    const wallet = await testWallet(5_000);
    const request = await server.create({ amount: 1_200 });
    const answer = await pay({ nwcUrl: wallet.nwcUrl, invoice: request.invoice, timeoutMs: 5_000 });
    expect(answer).toEqual({ result: { preimage: expect.stringMatching(/^[0-9a-f]{64}$/), fees_paid: 0 } });
    expect((await server.api(`/api/v1/payment-requests/${request.id}`)).body).toMatchObject({ status: 'completed', preimage: (answer as { result: { preimage: string } }).result.preimage });
    expect(await pay({ nwcUrl: wallet.nwcUrl, invoice: request.invoice, timeoutMs: 5_000 })).toEqual({ error: { code: 'PAYMENT_FAILED', message: expect.any(String) } });
  });

  it("answers the wallet's refusal as an error answer: INSUFFICIENT_BALANCE", async () => {
    const wallet = await testWallet(10);
    const request = await server.create({ amount: 1_000 });
    expect(await pay({ nwcUrl: wallet.nwcUrl, invoice: request.invoice, timeoutMs: 5_000 })).toMatchObject({ error: { code: 'INSUFFICIENT_BALANCE' } });
  });

  it('rejects, without the secret, for an unusable URI and for a relay nobody listens on', async () => {
    const secret = '7'.repeat(64);
    await expect(pay({ nwcUrl: `nostr+walletconnect://${'a'.repeat(64)}?secret=${secret}`, invoice: 'lnbcrt1x', timeoutMs: 500 })).rejects.toThrow(
      'invalid NWC connection URI: no relay parameter',
    );
    const port = await freePort();
    const uri = `nostr+walletconnect://${'a'.repeat(64)}?relay=${encodeURIComponent(`ws://127.0.0.1:${port}`)}&secret=${secret}`;
    const started = performance.now();
    const error = await pay({ nwcUrl: uri, invoice: 'lnbcrt1x', timeoutMs: 300 }).then(
      () => undefined,
      (rejected: unknown) => rejected as Error,
    );
    expect(error?.message).toMatch(/within 300 ms/);
    expect(error?.message).not.toContain(secret);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
