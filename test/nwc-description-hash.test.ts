/**
 * `make_invoice` honours `description_hash` (issue 21, finding 8): an LNURL-pay server built on NWC
 * asks its wallet for invoices committing to the hash of its metadata, and payers' wallets check
 * the invoice's `h` against it. Through the real server with @getalby/sdk 7's NWCClient, each
 * invoice decoded with the independent `bolt11` package: `h` is the hash given and there is no `d`
 * (BOLT #11: exactly one of them); the answer, lookups and the payer's side carry the hash; a hash
 * that is not 64 hex characters is refused (NIP-47 `OTHER`).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import bolt11 from 'bolt11';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from './support/sandbox-server.js';
import { sdk, withSdk } from './support/alby-sdk.js';


/** An LNURL-pay server's metadata, as LUD-06 has it hashed into the invoice. */
const METADATA = JSON.stringify([
  ['text/plain', 'Pay to alice@shop.example'],
  ['text/identifier', 'alice@shop.example'],
]);
const METADATA_HASH = bytesToHex(sha256(utf8ToBytes(METADATA)));

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


/** The `d` and `h` of an invoice, as the bolt11 package reads them. */
function descriptionTags(invoice: string): { d?: string; h?: string } {
  const decoded = bolt11.decode(invoice);
  const tags = Object.fromEntries(decoded.tags.map((tag) => [tag.tagName, tag.data]));
  return {
    ...('description' in tags ? { d: tags.description as string } : {}),
    ...('purpose_commit_hash' in tags ? { h: tags.purpose_commit_hash as string } : {}),
  };
}

describe('make_invoice with description_hash', () => {
  it('the invoice commits to the hash (h, no d); the answer, lookups, list_transactions and the payer carry it', async () => {
    const shop = await testWallet(0);
    const payer = await testWallet(10_000);
    const made = await withSdk(shop.nwcUrl, (client) => client.makeInvoice({ amount: 21_000, description_hash: METADATA_HASH }));
    expect(descriptionTags(made.invoice)).toEqual({ h: METADATA_HASH });
    expect(made).toMatchObject({ amount: 21_000, description_hash: METADATA_HASH, state: 'pending' });
    expect(made.description ?? '').toBe('');

    // With the metadata too (as LNURL servers send both): still only `h`, the answer keeps both.
    const both = await withSdk(shop.nwcUrl, (client) => client.makeInvoice({ amount: 1_000, description: METADATA, description_hash: METADATA_HASH }));
    expect(descriptionTags(both.invoice)).toEqual({ h: METADATA_HASH });
    expect(both).toMatchObject({ description: METADATA, description_hash: METADATA_HASH });

    // Upper-case hex is the same hash.
    const upper = await withSdk(shop.nwcUrl, (client) => client.makeInvoice({ amount: 1_000, description_hash: METADATA_HASH.toUpperCase() }));
    expect(descriptionTags(upper.invoice)).toEqual({ h: METADATA_HASH });

    await withSdk(payer.nwcUrl, (client) => client.payInvoice({ invoice: made.invoice }));
    await withSdk(shop.nwcUrl, async (client) => {
      await expect(client.lookupInvoice({ payment_hash: made.payment_hash })).resolves.toMatchObject({ state: 'settled', description_hash: METADATA_HASH });
      const { transactions } = await client.listTransactions({});
      expect(transactions.find((transaction) => transaction.payment_hash === made.payment_hash)).toMatchObject({ description_hash: METADATA_HASH });
    });
    await withSdk(payer.nwcUrl, async (client) => {
      await expect(client.lookupInvoice({ payment_hash: made.payment_hash })).resolves.toMatchObject({ type: 'outgoing', description_hash: METADATA_HASH });
    });
    // Over HTTP too.
    const listed = await server.api(`/sandbox/v1/wallets/${shop.id}/transactions`);
    expect(listed.body.data.find((transaction: { payment_hash: string }) => transaction.payment_hash === made.payment_hash)).toMatchObject({ description_hash: METADATA_HASH });
  });

  it('without a hash, the description goes as d, as before', async () => {
    const shop = await testWallet(0);
    const made = await withSdk(shop.nwcUrl, (client) => client.makeInvoice({ amount: 1_000, description: 'Coffee' }));
    expect(descriptionTags(made.invoice)).toEqual({ d: 'Coffee' });
    expect(made).not.toHaveProperty('description_hash');
  });

  it('a description_hash that is not 64 hex characters: OTHER, and no invoice is kept', async () => {
    const shop = await testWallet(0);
    await withSdk(shop.nwcUrl, async (client) => {
      for (const bad of ['abc', METADATA_HASH.slice(1) + 'g', METADATA_HASH + '00']) {
        const error = await client.makeInvoice({ amount: 1_000, description_hash: bad }).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(sdk.Nip47WalletError);
        expect((error as { code: string }).code).toBe('OTHER');
      }
      expect((await client.listTransactions({ unpaid: true })).transactions).toEqual([]);
    });
  });
});
