/**
 * Takes the README's screenshots of the dashboard and the pay page (docs/screenshots/*.png) at
 * 1440 and 375 px wide, with headless Chromium (CHROME_PATH, or a usual install path), against a
 * sandbox started here on a frozen clock and filled with a few requests, a webhook endpoint and
 * its deliveries. `npx tsx scripts/take-screenshots.ts`
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { buildServer } from '../src/http/server.js';
import { webPagesOf } from '../src/http/web-pages.js';
import { createNodeSandbox } from '../src/sandbox.node.js';
import { findBrowser } from '../test/support/browser.js';

const outDir = join(fileURLToPath(new URL('..', import.meta.url)), 'docs', 'screenshots');
const browserSearch = findBrowser();
if (!browserSearch.found) throw new Error(browserSearch.reason);

// A receiver that accepts every delivery, so the log shows successes.
const receiver = createServer((request, response) => request.resume().on('end', () => response.writeHead(204).end()));
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;

const sandbox = await createNodeSandbox({ clock: 'frozen' });
const app = await buildServer({ handle: sandbox.handle, web: webPagesOf(sandbox) });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = app.listeningOrigin;
const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(base + path, {
    method,
    headers: { authorization: 'Bearer sk_test_custodial', ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return response.status === 204 ? undefined : response.json();
};

await call('POST', '/sandbox/v1/webhook-endpoints', { url: receiverUrl });
const samples = [
  { amount: 2100, description: 'Green tea, 250 g', then: 'expire' },
  { amount: 15000, description: 'Ceramic pour-over dripper', then: 'fail' },
  { amount: 4200, description: 'Flat white and a croissant', then: 'complete' },
  { amount: 1000, description: 'Coffee beans, 1 kg', then: null },
];
let lastId = '';
for (const sample of samples) {
  const created = await call('POST', '/api/v1/payment-requests', {
    amount: sample.amount,
    description: sample.description,
    destinationWallet: 'shop@example.com',
    metadata: { orderId: `A-${sample.amount}` },
  });
  lastId = created.id;
  await call('POST', '/sandbox/v1/clock/advance', { seconds: 95 });
  if (sample.then) await call('POST', `/sandbox/v1/payment-requests/${created.id}/${sample.then}`);
}
await call('POST', '/sandbox/v1/clock/advance', { seconds: 130 });
await sandbox.events.settle();

const browser = await chromium.launch({ executablePath: browserSearch.executablePath, args: ['--headless', '--no-sandbox', '--hide-scrollbars'] });
const shoot = async (page: Page, name: string, width: number, height: number) => {
  await page.setViewportSize({ width, height });
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(outDir, name), fullPage: false });
  console.log(`docs/screenshots/${name}`);
};

const dashboard = await browser.newPage();
await dashboard.goto(`${base}/dashboard`);
await dashboard.getByRole('button', { name: 'sk_test_custodial' }).click();
await dashboard.waitForSelector('.event .deliveries');
await shoot(dashboard, 'dashboard-1440.png', 1440, 1000);
await shoot(dashboard, 'dashboard-375.png', 375, 1900);

const pay = await browser.newPage();
await pay.goto(`${base}/pay/${lastId}`);
await pay.waitForSelector('#details:not([hidden])');
await shoot(pay, 'pay-1440.png', 1440, 1000);
await shoot(pay, 'pay-375.png', 375, 1050);

await browser.close();
await app.close();
sandbox.close();
await sandbox.store.close();
receiver.close();
