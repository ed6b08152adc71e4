/**
 * An NWC request's invoice agrees with its own answer (CONTRACT.md, "Invoices": timestamp =
 * `createdAt` for invoices the sandbox's own wallets make; issue 21, finding 9). The create used
 * to read the clock before it awaited `make_invoice` over the relay, while the wallet stamped the
 * invoice when it made it: sent just before a second turns, the invoice came out a second after
 * `createdAt`. Through the real server and its relay: first creates on fresh NWC accounts (the
 * slowest, as the wallet's connection is served then), each sent in the last 30 ms of a
 * wall-clock second, every invoice decoded with the independent `bolt11` package.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeIndependently } from './support/bolt11-package.js';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ settings: { nwcTimeoutSeconds: 5 } });
});
afterAll(() => server?.close());

/** Resolves in the last `windowMs` of a wall-clock second. */
async function nearSecondEnd(windowMs: number): Promise<void> {
  for (;;) {
    const intoSecond = Date.now() % 1000;
    if (intoSecond >= 1000 - windowMs) return;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - windowMs - intoSecond)));
  }
}

describe("an NWC request's invoice and its answer agree", () => {
  it('timestamp = createdAt and timestamp + expiry = expiresAt, for creates sent as a second turns', async () => {
    const disagreements: string[] = [];
    for (let round = 0; round < 8; round++) {
      const account = await server.api('/sandbox/v1/accounts', { key: KEYS.admin, body: { mode: 'nwc' } });
      expect(account.status, account.text).toBe(201);
      await nearSecondEnd(30);
      const request = await server.create({ expiresIn: 600 }, account.body.keys.secret);
      const invoice = decodeIndependently(request.invoice);
      // Whole seconds, as custodial requests have them: the invoice holds seconds.
      expect(Date.parse(request.createdAt) % 1000).toBe(0);
      if (invoice.timestamp * 1000 !== Date.parse(request.createdAt) || (invoice.timestamp + invoice.expireTime) * 1000 !== Date.parse(request.expiresAt)) {
        disagreements.push(`invoice ${invoice.timestamp}+${invoice.expireTime} s, createdAt ${request.createdAt}, expiresAt ${request.expiresAt}`);
      }
      // The account's reads agree with the answer.
      expect((await server.api(`/api/v1/payment-requests/${request.id}`, { key: account.body.keys.secret })).body).toMatchObject({ createdAt: request.createdAt, expiresAt: request.expiresAt });
    }
    expect(disagreements).toEqual([]);
  });

  it('the default NWC account too (its connection served already)', async () => {
    for (let round = 0; round < 4; round++) {
      await nearSecondEnd(15);
      const request = await server.create({}, KEYS.nwc);
      const invoice = decodeIndependently(request.invoice);
      expect(invoice.timestamp * 1000).toBe(Date.parse(request.createdAt));
      expect((invoice.timestamp + invoice.expireTime) * 1000).toBe(Date.parse(request.expiresAt));
    }
  });
});
