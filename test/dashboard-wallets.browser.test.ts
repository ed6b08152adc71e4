/**
 * The dashboard's Wallets panel in a real browser (Debian's Chromium, headless, playwright-core)
 * against the real server and its relay: the NWC account's connection shown online, a test wallet
 * made from the form, its NWC URL copied with "Copy NWC URL", a payment through that URL by an
 * independent NIP-47 client (@getalby/sdk 7.0.0's NWCClient), and then, without a reload, the
 * balance down and a `pay_invoice` row among the recent NIP-47 requests. The panel passes axe-core
 * with no serious or critical violation, reads at most once a second, shows no connection secret,
 * and never asks a custodial account for a connection it has not (no 404 in the console). Without
 * a browser it is skipped with one line saying why, unless LNPR_REQUIRE_BROWSER=1.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AccountsConfig } from '../src/core/accounts/accounts.js';
import { browserForSuite, launchBrowser } from './support/browser.js';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
// Read once when the module loads: the global must be set before it is imported.
const { NWCClient } = await import('@getalby/sdk');

const SUITE = "the dashboard's Wallets panel in headless Chromium";
const executablePath = browserForSuite(SUITE);
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const ACCOUNTS = JSON.parse(readFileSync(new URL('../fixtures/accounts.json', import.meta.url), 'utf8')) as AccountsConfig;
/** A key that reads the NWC account but may not create: it is not shown the connection's secret. */
const NWC_READ_KEY = 'sk_test_nwc_read';

interface Watched {
  page: Page;
  /** Every URL the page requested, with when it was sent (epoch ms, once it has an answer). */
  requests: Array<{ url: string; sent: () => number }>;
  /** Console errors and uncaught exceptions. */
  errors: string[];
}

describe.runIf(executablePath !== null)(SUITE, () => {
  let browser: Browser;
  let server: RunningServer;
  let context: BrowserContext;
  let watched: Watched[] = [];

  beforeAll(async () => {
    const accounts: AccountsConfig = { ...ACCOUNTS, keys: [...ACCOUNTS.keys, { key: NWC_READ_KEY, account: 'acct_nwc', permissions: ['read'] }] };
    [browser, server] = await Promise.all([launchBrowser(executablePath!), startServer({ accounts })]);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    watched = [];
  });

  afterEach(async () => {
    await context.close();
  });

  async function open(path: string): Promise<Watched> {
    const page = await context.newPage();
    const record: Watched = { page, requests: [], errors: [] };
    // When the browser sent it (its own clock, so no delay in telling this process shifts it).
    page.on('request', (request) => record.requests.push({ url: request.url(), sent: () => request.timing().startTime }));
    page.on('console', (message) => {
      if (message.type() === 'error') record.errors.push(message.text());
    });
    page.on('pageerror', (error) => record.errors.push(error.message));
    watched.push(record);
    await page.goto(server.url + path);
    return record;
  }

  function expectClean(): void {
    for (const { requests, errors } of watched) {
      expect(requests.filter(({ url }) => !url.startsWith(`${server.url}/`))).toEqual([]);
      expect(errors).toEqual([]);
    }
  }

  /** axe-core's serious and critical violations in `selector` (the whole page by default). */
  async function accessibilityProblems(page: Page, selector?: string): Promise<string[]> {
    await page.evaluate(AXE_SOURCE);
    const { violations, passes } = await page.evaluate(async (selector) => {
      type Result = { id: string; impact: string; help: string; nodes: Array<{ target: unknown }> };
      const axe = (window as unknown as { axe: { run(context: Element | Document): Promise<{ violations: Result[]; passes: Result[] }> } }).axe;
      const results = await axe.run(selector === undefined ? document : document.querySelector(selector)!);
      return { violations: results.violations, passes: results.passes.length };
    }, selector);
    expect(passes).toBeGreaterThan(10);
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.impact} ${violation.id}: ${violation.help} at ${JSON.stringify(violation.nodes.map((node) => node.target))}`);
  }

  async function signIn(page: Page, key: string): Promise<void> {
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.locator('#live-state', { hasText: 'Live' }).waitFor();
    await page.locator('#account[aria-busy="false"]').waitFor();
  }

  const walletItem = (page: Page, id: string) => page.locator(`li.wallet[data-id="${id}"]`);

  it('shows the NWC connection online; a wallet made from the form is copied, pays over NIP-47, and its balance and pay_invoice request appear without a reload', async () => {
    const dashboard = await open('/dashboard');
    const { page } = dashboard;
    await signIn(page, KEYS.nwc);
    const connection = (await server.api('/sandbox/v1/wallet', { key: KEYS.nwc })).body as { relay: string; walletPubkey: string; nwcUrl: string };

    // The connection: online, its relay (the sandbox's own), its wallet, its encryption.
    const box = page.locator('#connection');
    await box.locator('[data-role="online"]', { hasText: 'Online' }).waitFor();
    expect(await box.locator('[data-role="relay"]').innerText()).toBe(`${server.url.replace(/^http/, 'ws')}/nostr`);
    expect(await box.locator('[data-pubkey]').getAttribute('data-pubkey')).toBe(connection.walletPubkey);
    expect(await box.locator('[data-pubkey]').innerText()).toBe(`${connection.walletPubkey.slice(0, 8)}…${connection.walletPubkey.slice(-8)}`);
    expect(await box.innerText()).toContain('NIP-44 (nip44_v2)');
    // Its NWC URL (with the secret) only behind the button.
    await box.getByRole('button', { name: 'Copy NWC URL' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(connection.nwcUrl);

    // A new test wallet from the form.
    await page.getByLabel('Balance in sats').fill('5000');
    await page.getByLabel('Wallet name (optional)').fill('Checkout payer');
    await page.getByRole('button', { name: 'Create test wallet' }).click();
    await page.locator('#wallet-form-message', { hasText: 'Made Checkout payer with 5,000 sats' }).waitFor();
    const made = (await server.api('/sandbox/v1/wallets', { key: KEYS.nwc })).body.data as Array<{ id: string; name: string; nwcUrl: string }>;
    expect(made.map((wallet) => wallet.name)).toEqual(['Checkout payer']);
    const wallet = made[0]!;
    const item = walletItem(page, wallet.id);
    await item.waitFor();
    expect(await item.locator('h4').innerText()).toBe('Checkout payer');
    expect(await item.locator('[data-role="balance"]').innerText()).toBe('5,000 sats');

    // "Copy NWC URL" puts the wallet's connection URL on the clipboard.
    await item.getByRole('button', { name: 'Copy NWC URL' }).click();
    await page.locator('#announce', { hasText: 'NWC URL copied to the clipboard.' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(wallet.nwcUrl);
    // No secret is drawn on the page: not the wallet's, not the connection's.
    const secrets = [wallet.nwcUrl, connection.nwcUrl].map((url) => new URL(url.replace('nostr+walletconnect:', 'http:')).searchParams.get('secret')!);
    const shown = await page.evaluate(() => document.body.innerText + document.body.innerHTML);
    for (const secret of secrets) expect(shown).not.toContain(secret);

    // An app pays an invoice of the account's own connected wallet with the copied URL.
    const request = await server.create({ amount: 1_200, description: 'Paid from the dashboard test' }, KEYS.nwc);
    const client = new NWCClient({ nostrWalletConnectUrl: copied });
    try {
      await client.payInvoice({ invoice: request.invoice });
    } finally {
      client.close();
    }
    await item.locator('[data-role="balance"]', { hasText: '3,800 sats' }).waitFor();
    const rows = page.locator('#nwc-requests tr');
    const paid = rows.filter({ has: page.locator('td', { hasText: 'Checkout payer' }) }).and(page.locator('tr[data-method="pay_invoice"]'));
    await paid.waitFor();
    expect(await paid.getAttribute('data-outcome')).toBe('result');
    expect(await paid.innerText()).toContain('Answered');
    // The connected wallet was asked for the invoice.
    await rows.and(page.locator('tr[data-method="make_invoice"]')).filter({ hasText: 'Connected wallet' }).first().waitFor();

    // Top up, then delete.
    await item.getByLabel('Sats to add').fill('200');
    await item.getByRole('button', { name: 'Top up' }).click();
    await item.locator('[data-role="balance"]', { hasText: '4,000 sats' }).waitFor();
    expect((await server.api(`/sandbox/v1/wallets/${wallet.id}`, { key: KEYS.nwc })).body.balance).toBe(4_000);

    expect(await accessibilityProblems(page, 'section.wallets-panel')).toEqual([]);
    expect(await accessibilityProblems(page)).toEqual([]);

    await item.getByRole('button', { name: 'Delete' }).click();
    await item.waitFor({ state: 'detached' });
    expect((await server.api('/sandbox/v1/wallets', { key: KEYS.nwc })).body.data).toEqual([]);
    await page.locator('#test-wallets .empty').waitFor();

    // Reads of the panel never came closer than a second apart (the poll, the stream, the actions).
    const reads = dashboard.requests.filter(({ url }) => url.endsWith('/dashboard/api/nwc-requests')).map(({ sent }) => sent());
    expect(reads.length).toBeGreaterThan(2);
    for (let i = 1; i < reads.length; i++) expect(reads[i]! - reads[i - 1]!, `read ${i}`).toBeGreaterThanOrEqual(900);
    expectClean();
  });

  it('shows a key without create no connection secret, and a custodial account no connection, asking for none', async () => {
    const dashboard = await open('/dashboard');
    const { page } = dashboard;
    await signIn(page, NWC_READ_KEY);
    const box = page.locator('#connection');
    await box.locator('[data-role="online"]', { hasText: 'Online' }).waitFor();
    expect(await box.innerText()).toContain('Shown to keys that may create');
    expect(await box.getByRole('button', { name: 'Copy NWC URL' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Change key' }).click();
    await page.getByRole('button', { name: KEYS.custodial }).click();
    await page.locator('#live-state', { hasText: 'Live' }).waitFor();
    await page.locator('#account[aria-busy="false"]').waitFor();
    await page.locator('#connection', { hasText: 'A custodial account: no wallet of its own' }).waitFor();
    await page.locator('#nwc-requests', { hasText: 'No NIP-47 requests yet.' }).waitFor();
    // A poll later, still no question about a connection for the custodial key.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const custodialStart = dashboard.requests.findLastIndex(({ url }) => url.endsWith('/sandbox/v1/stream'));
    expect(dashboard.requests.slice(custodialStart).filter(({ url }) => url.endsWith('/sandbox/v1/wallet'))).toEqual([]);
    expect(await accessibilityProblems(page, 'section.wallets-panel')).toEqual([]);
    expectClean();
  });
});
