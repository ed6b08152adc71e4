/**
 * The documentation site as a reader meets it, in headless Chromium, served by `lnpr serve` (the
 * real CLI) from the site `npm ci` / `npm run docs:build` built: every page reachable from
 * /docs/ opens with no console error, every link and asset under /docs/ answers 200, no request
 * leaves the sandbox's origin, the local search finds "test wallet" and "webhook-signature",
 * and the API reference shows every operation of the OpenAPI document. Skipped without a
 * browser, unless LNPR_REQUIRE_BROWSER=1.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationsOf } from '../scripts/docs/http-api-reference.js';
import { openApiDocumentOf } from '../src/openapi/route.js';
import { browserForSuite, CHROMIUM_ARGS } from './support/browser.js';
import { startCliServer, type CliProcess } from './support/cli-process.js';

/** The fewest pages the site must have (the issue asks for at least 15). */
const MIN_PAGES = 15;

const SUITE = 'the documentation site at /docs/, in headless Chromium';
const executablePath = browserForSuite(SUITE);
const BUILT = fileURLToPath(new URL('../dist/docs/index.html', import.meta.url));

describe.runIf(executablePath !== null)(SUITE, () => {
  let browser: Browser;
  let server: CliProcess & { url: string };
  /** Every problem seen on any page: console errors, failed or non-2xx/3xx requests, foreign requests. */
  const problems: string[] = [];
  const visited = new Set<string>();

  const watch = (page: Page, origin: string) => {
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error on ${page.url()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error on ${page.url()}: ${error.message}`));
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol !== 'data:' && url.origin !== origin) problems.push(`request off the host from ${page.url()}: ${request.url()}`);
    });
    page.on('requestfailed', (request) => problems.push(`failed request from ${page.url()}: ${request.url()} (${request.failure()?.errorText})`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} for ${response.url()} (from ${page.url()})`);
    });
  };

  beforeAll(async () => {
    // The site is built by npm ci (prepare) and npm run build: its absence is a failure, not a skip.
    if (!existsSync(BUILT)) throw new Error('the documentation site is not built (dist/docs): run npm run docs:build');
    [browser, server] = await Promise.all([chromium.launch({ executablePath: executablePath!, args: CHROMIUM_ARGS }), startCliServer([])]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server?.child.kill('SIGTERM');
    await server?.exited;
  });

  it('opens every page reachable from /docs/: no console error, no broken link or asset, nothing off the host', async () => {
    const origin = new URL(server.url).origin;
    const context = await browser.newContext();
    const page = await context.newPage();
    watch(page, origin);
    const queue = [`${origin}/docs/`];
    const links = new Map<string, string>();
    while (queue.length > 0 && visited.size < 200) {
      const url = queue.shift()!;
      if (visited.has(url)) continue;
      visited.add(url);
      const response = await page.goto(url, { waitUntil: 'networkidle' });
      expect(response?.status(), url).toBe(200);
      const hrefs = await page.$$eval('a[href]', (anchors) => anchors.map((anchor) => (anchor as HTMLAnchorElement).href));
      for (const href of hrefs) {
        const target = new URL(href);
        if (target.origin !== origin) continue;
        target.hash = '';
        if (!target.pathname.startsWith('/docs/')) {
          problems.push(`link out of /docs/ on ${url}: ${href}`);
          continue;
        }
        links.set(target.href, url);
        if (!visited.has(target.href)) queue.push(target.href);
      }
    }
    await context.close();
    expect(problems).toEqual([]);
    expect(visited.size).toBeGreaterThanOrEqual(MIN_PAGES);
    expect([...links.keys()].filter((link) => !visited.has(link))).toEqual([]);
  }, 180_000);

  for (const query of ['test wallet', 'webhook-signature']) {
    it(`finds "${query}" with the local search`, async () => {
      const origin = new URL(server.url).origin;
      const page = await browser.newPage();
      watch(page, origin);
      await page.goto(`${origin}/docs/`, { waitUntil: 'networkidle' });
      await page.locator('.VPNavBarSearch button').first().click();
      await page.locator('.VPLocalSearchBox input').fill(query);
      const results = page.locator('.VPLocalSearchBox .result');
      await results.first().waitFor({ timeout: 15_000 });
      expect(await results.count()).toBeGreaterThan(0);
      await page.close();
      expect(problems).toEqual([]);
    }, 60_000);
  }

  it('shows every operation of the OpenAPI document in the API reference', async () => {
    const origin = new URL(server.url).origin;
    const page = await browser.newPage();
    watch(page, origin);
    await page.goto(`${origin}/docs/reference/http-api.html`, { waitUntil: 'networkidle' });
    const text = await page.locator('main').innerText();
    const operations = operationsOf(openApiDocumentOf());
    expect(operations.length).toBeGreaterThan(30);
    expect(operations.filter(({ operationId, method, path }) => !text.includes(operationId) || !text.includes(`${method} ${path}`)).map(({ operationId }) => operationId)).toEqual([]);
    await page.close();
    expect(problems).toEqual([]);
  }, 60_000);
});
