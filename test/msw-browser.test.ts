/**
 * A real browser: Debian's Chromium, headless, driven by playwright-core, opens the example page
 * (`examples/browser/`), whose MSW service worker serves the sandbox. The page creates a payment
 * request with fetch, shows its invoice (which the independent `bolt11` decoder must accept) and
 * a QR code of it, completes it through the control API, and after a reload still has it
 * (localStorage storage). Without a browser it is skipped with one line saying why, unless
 * LNPR_REQUIRE_BROWSER=1 (.ci/run sets it and installs Chromium).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceQrSvg } from '../examples/browser/invoice-qr.js';
import { buildExample, EXAMPLE_DIR, serveExample, type ExampleServer } from '../examples/browser/serve.js';
import { decodeIndependently } from './support/bolt11-package.js';
import { browserForSuite, launchBrowser } from './support/browser.js';

const SUITE = 'the example page in headless Chromium';
const executablePath = browserForSuite(SUITE);

describe('the example page', () => {
  it("ships msw's own worker script (after upgrading msw: npx msw init examples/browser --save=false)", () => {
    const shipped = readFileSync(`${EXAMPLE_DIR}/mockServiceWorker.js`, 'utf8');
    expect(shipped).toBe(readFileSync('node_modules/msw/lib/mockServiceWorker.js', 'utf8'));
  });
});

describe.runIf(executablePath !== null)(SUITE, () => {
  let browser: Browser;
  let site: ExampleServer;
  let page: Page;
  /** What the page logged as errors: shown when an assertion fails, to say why. */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    [browser, site] = await Promise.all([
      launchBrowser(executablePath!),
      buildExample().then(() => serveExample()),
    ]);
    page = await (await browser.newContext()).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /** Opens (or reloads) the page and waits until its service worker serves the sandbox. */
  async function openPage(reload = false): Promise<void> {
    await (reload ? page.reload() : page.goto(site.url));
    await page.waitForSelector('html[data-worker="ready"]', { timeout: 10_000 });
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(`${site.url}mockServiceWorker.js`);
  }

  const text = (selector: string) => page.locator(selector).innerText();

  it('creates a payment request, shows its invoice and QR code, completes it, and keeps it across a reload', async () => {
    await openPage();

    await page.click('#create');
    await page.waitForFunction(() => document.querySelector('#invoice')?.textContent?.startsWith('ln'), undefined, { timeout: 5_000 });
    expect(pageErrors).toEqual([]);
    const shown = { id: await text('#id'), amount: await text('#amount'), fee: await text('#fee'), paymentHash: await text('#payment-hash'), invoice: await text('#invoice') };
    expect(await text('#status')).toBe('pending');
    expect(shown).toMatchObject({ amount: '1000', fee: '5' });

    // The invoice is real: the independent decoder accepts it and reads what the page shows.
    const decoded = decodeIndependently(shown.invoice);
    expect(decoded.prefix).toBe('lnbcrt10u');
    expect(decoded.satoshis).toBe(1000);
    expect(decoded.paymentHash).toBe(shown.paymentHash);
    expect(decoded.description).toBe('Coffee beans');

    // The QR code is of that invoice: the same code drawn in Node has the same modules.
    const pathOf = (svg: string) => /<path d="([^"]+)"/.exec(svg)?.[1];
    const pageQr = await page.locator('#qr svg path').getAttribute('d');
    expect(pageQr).toBeTruthy();
    expect(pageQr).toBe(pathOf(invoiceQrSvg(shown.invoice)));

    await page.click('#pay');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'completed', undefined, { timeout: 5_000 });
    expect(await page.locator('#pay').isDisabled()).toBe(true);

    // A reload starts a new sandbox in the page; localStorage still holds the request.
    await openPage(true);
    await page.waitForFunction((id) => document.querySelector('#id')?.textContent === id, shown.id, { timeout: 5_000 });
    expect(await text('#status')).toBe('completed');
    expect(await text('#invoice')).toBe(shown.invoice);
    const read = await page.evaluate(async (id) => {
      const response = await fetch(`/api/v1/payment-requests/${id}`, { headers: { authorization: 'Bearer sk_test_custodial' } });
      return { status: response.status, body: await response.json() };
    }, shown.id);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: shown.id, status: 'completed', invoice: shown.invoice });
    expect(bytesToHex(sha256(hexToBytes(read.body.preimage)))).toBe(shown.paymentHash);
    expect(pageErrors).toEqual([]);
  }, 30_000);

  it('answers an API on another origin too, with no CORS headers needed (the worker answers the page itself)', async () => {
    await openPage();
    const answer = await page.evaluate(async () => {
      const response = await fetch('https://api.elsewhere.test/sandbox/v1/clock', { headers: { authorization: 'Bearer sk_test_custodial' } });
      return { status: response.status, cors: response.headers.get('access-control-allow-origin'), body: await response.json() };
    });
    expect(answer).toMatchObject({ status: 200, cors: null, body: { frozen: false } });
  });
});
