/**
 * The dashboard and the hosted pay page in a real browser: Debian's Chromium, headless, driven by
 * playwright-core, against the real server (Fastify over the engine, port 0). What a person does
 * (choose a key, press Pay / Fail / Expire, move the clock, add an endpoint, redeliver, pay with
 * the test wallet) is checked through the API, and what the API does is checked on the page,
 * without a reload. Every page must make no request off the sandbox's origin, log no console
 * error, and pass axe-core with no serious or critical violation. The pay page's QR code is read
 * back with jsQR, an independent decoder. Without a browser it is skipped with one line saying
 * why, unless LNPR_REQUIRE_BROWSER=1.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import jsqr from 'jsqr';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { browserForSuite, launchBrowser } from './support/browser.js';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const SUITE = 'the dashboard and the pay page in headless Chromium';
const executablePath = browserForSuite(SUITE);
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A page with everything it did recorded. */
interface Watched {
  page: Page;
  /** Every URL the page requested. */
  requests: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Bodies of every response that has one (event streams are read through `streamed`). */
  bodies: Array<Promise<string>>;
  /** Every Server-Sent Event message an EventSource received (from Chromium's DevTools protocol). */
  streamed: string[];
}

/** Polls `check` until it holds (for state the API reaches after a click); throws with the last value after `timeoutMs`. */
async function until<T>(check: () => Promise<T>, holds: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.runIf(executablePath !== null)(SUITE, () => {
  let browser: Browser;
  let server: RunningServer;
  let context: BrowserContext;
  let watched: Watched[] = [];

  beforeAll(async () => {
    [browser, server] = await Promise.all([launchBrowser(executablePath!), startServer({ clock: 'frozen' })]);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  beforeEach(async () => {
    for (const key of [KEYS.custodial, KEYS.nwc]) expect((await server.api('/sandbox/v1/reset', { method: 'POST', key })).status).toBe(204);
    for (const key of [KEYS.custodial, KEYS.nwc]) {
      for (const endpoint of (await server.api('/sandbox/v1/webhook-endpoints', { key })).body.data) {
        await server.api(`/sandbox/v1/webhook-endpoints/${endpoint.id}`, { method: 'DELETE', key });
      }
    }
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    watched = [];
  });

  afterEach(async () => {
    await context.close();
  });

  /** Opens `path` in a new tab of this test's context, recording what the page does. */
  async function open(path: string): Promise<Watched> {
    const page = await context.newPage();
    const record: Watched = { page, requests: [], errors: [], bodies: [], streamed: [] };
    page.on('request', (request) => record.requests.push(request.url()));
    page.on('console', (message) => {
      // With the resource's URL: "Failed to load resource" alone does not say which.
      if (message.type() === 'error') record.errors.push(`${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => record.errors.push(error.message));
    page.on('response', (response) => {
      if (!(response.headers()['content-type'] ?? '').startsWith('text/event-stream')) record.bodies.push(response.text().catch(() => ''));
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    cdp.on('Network.eventSourceMessageReceived', (message) => record.streamed.push(message.data));
    watched.push(record);
    await page.goto(server.url + path);
    return record;
  }

  /** Every page of the test stayed on the sandbox's origin and logged no error. */
  function expectClean(allowedErrors: RegExp[] = []): void {
    for (const { requests, errors } of watched) {
      expect(requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
      expect(errors.filter((error) => !allowedErrors.some((allowed) => allowed.test(error)))).toEqual([]);
    }
  }

  /** axe-core's serious and critical violations on the page as it is now. */
  async function accessibilityProblems(page: Page): Promise<string[]> {
    // Evaluated through the DevTools protocol, which the page's CSP does not govern.
    await page.evaluate(AXE_SOURCE);
    const { violations, passes } = await page.evaluate(async () => {
      type Result = { id: string; impact: string; help: string; nodes: Array<{ target: unknown }> };
      const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: Result[]; passes: Result[] }> } }).axe;
      const results = await axe.run(document);
      return { violations: results.violations, passes: results.passes.length };
    });
    // It did look: a page this size passes dozens of rules.
    expect(passes).toBeGreaterThan(10);
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => `${violation.impact} ${violation.id}: ${violation.help} at ${JSON.stringify(violation.nodes.map((node) => node.target))}`);
  }

  async function signIn(page: Page, key: string): Promise<void> {
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.locator('#live-state', { hasText: 'Live' }).waitFor();
    // The panels are read once the stream is open; until then the rules box, for one, is empty.
    await page.locator('#account[aria-busy="false"]').waitFor();
  }

  const create = async (overrides: Record<string, unknown> = {}, key: string = KEYS.custodial) =>
    (await server.create(overrides, key)) as { id: string; invoice: string; expiresAt: string; [field: string]: unknown };
  const statusOf = async (id: string, key: string = KEYS.custodial) => (await server.api(`/api/v1/payment-requests/${id}`, { key })).body.status as string;
  const requestItem = (page: Page, id: string) => page.locator(`li.request[data-id="${id}"]`);
  const statusText = (page: Page, id: string) => requestItem(page, id).locator('[data-role="status"]').innerText();

  it('GET / leads to the dashboard, where the field labelled "API key" chooses the account; the key stays in the tab (sessionStorage), never in a URL', async () => {
    const dashboard = await open('/');
    const { page } = dashboard;
    expect(page.url()).toBe(`${server.url}/dashboard`);
    expect(await accessibilityProblems(page)).toEqual([]);

    await page.getByLabel('API key').fill('sk_test_nobody');
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.locator('#key-message', { hasText: 'cannot be used' }).waitFor();
    expect(await page.locator('#account').isHidden()).toBe(true);
    // A key that only manages accounts has no account to show: it is told so, in plain words.
    await page.getByLabel('API key').fill(KEYS.admin);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.locator('#key-message', { hasText: 'it has no account of its own' }).waitFor();
    expect(await page.locator('#key-message').innerText()).toMatch(/^That key cannot be used: This API key only manages accounts/);
    expect(await page.locator('#account').isHidden()).toBe(true);

    // The test keys are offered as buttons; the keyboard alone signs in.
    expect(await page.locator('#test-keys option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))).toEqual([KEYS.custodial, KEYS.nwc, KEYS.readonly]);
    await page.getByLabel('API key').fill('');
    await page.getByLabel('API key').focus();
    await page.keyboard.type(KEYS.custodial);
    await page.keyboard.press('Enter');
    await page.locator('#live-state', { hasText: 'Live' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('lnpr-sandbox:api-key'))).toBe(KEYS.custodial);
    await page.reload();
    await page.locator('#live-state', { hasText: 'Live' }).waitFor();
    expect(await page.locator('#current-key').innerText()).toBe(KEYS.custodial);
    // The key went in Authorization headers only: no URL the page asked for holds it.
    expect(dashboard.requests.filter((url) => url.includes('sk_test'))).toEqual([]);
    expect(page.url()).not.toContain('sk_test');

    await page.getByRole('button', { name: 'Change key' }).click();
    expect(await page.evaluate(() => sessionStorage.getItem('lnpr-sandbox:api-key'))).toBeNull();
    await page.getByRole('button', { name: KEYS.nwc }).click();
    await page.locator('#live-state', { hasText: 'Live' }).waitFor();
    expect(await page.locator('#current-key').innerText()).toBe(KEYS.nwc);
    expectClean([/status of 401/]);
  });

  it('shows a request created through the API without a reload, with its details; Pay, Fail and Expire change the state the API reads', async () => {
    const { page } = await open('/dashboard');
    await signIn(page, KEYS.custodial);
    const [toPay, toFail, toExpire] = [await create({ amount: 1000 }), await create({ amount: 2100, metadata: { orderId: 'A-7' } }), await create({ amount: 21 })];
    for (const id of [toPay.id, toFail.id, toExpire.id]) await requestItem(page, id).waitFor();
    // Newest first.
    expect(await page.locator('li.request').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.id))).toEqual([toExpire.id, toFail.id, toPay.id]);

    const item = requestItem(page, toFail.id);
    expect(await item.locator('h3').innerText()).toBe('2,100 sats');
    expect(await statusText(page, toFail.id)).toBe('Pending');
    expect(await item.innerText()).toContain('Fee');
    expect(await item.locator('.invoice-text').innerText()).toBe(toFail.invoice);
    expect(await item.locator('details pre').textContent()).toContain('"orderId": "A-7"');
    const created = item.locator('time').first();
    expect(await created.getAttribute('datetime')).toBe(toFail.createdAt);
    expect(await created.innerText()).toMatch(/^created (just now|\d+ seconds? ago)$/);
    expect(await item.locator('svg.qr').getAttribute('aria-label')).toContain(toFail.id);

    await requestItem(page, toPay.id).getByRole('button', { name: 'Pay', exact: true }).click();
    await until(() => statusOf(toPay.id), (status) => status === 'completed');
    await requestItem(page, toFail.id).getByRole('button', { name: 'Fail', exact: true }).click();
    await until(() => statusOf(toFail.id), (status) => status === 'failed');
    // The keyboard works the buttons too, and shows where it is (GOV.UK's yellow focus).
    await requestItem(page, toExpire.id).getByRole('button', { name: 'Fail', exact: true }).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Expire');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).backgroundColor)).toBe('rgb(255, 221, 0)');
    await page.keyboard.press('Enter');
    await until(() => statusOf(toExpire.id), (status) => status === 'expired');

    await requestItem(page, toExpire.id).locator('[data-role="status"]', { hasText: 'Expired' }).waitFor();
    expect(await statusText(page, toPay.id)).toBe('Completed (paid)');
    expect(await statusText(page, toFail.id)).toBe('Failed');
    for (const name of ['Pay', 'Fail', 'Expire']) expect(await requestItem(page, toPay.id).getByRole('button', { name, exact: true }).isDisabled()).toBe(true);
    expectClean();
  });

  it('shows a change made through the API, and a request moved on by the clock, without a reload', async () => {
    const { page } = await open('/dashboard');
    await signIn(page, KEYS.custodial);
    const paid = await create();
    const expiring = await create({ expiresIn: 60 });
    await requestItem(page, expiring.id).waitFor();
    expect((await server.api(`/sandbox/v1/payment-requests/${paid.id}/complete`, { method: 'POST' })).status).toBe(200);
    await requestItem(page, paid.id).locator('[data-role="status"]', { hasText: 'Completed (paid)' }).waitFor();
    expect(await requestItem(page, paid.id).getByRole('button', { name: 'Pay', exact: true }).isDisabled()).toBe(true);
    await server.api('/sandbox/v1/clock/advance', { body: { seconds: 61 } });
    await requestItem(page, expiring.id).locator('[data-role="status"]', { hasText: 'Expired' }).waitFor();
    // The clock on the page follows a move made elsewhere.
    const now = (await server.api('/sandbox/v1/clock')).body.now as string;
    await page.waitForFunction((iso) => document.querySelector('#clock-now')?.getAttribute('datetime') === iso, now);
    // A reset elsewhere sets the clock back and deletes the requests: the page reads them again.
    await server.api('/sandbox/v1/reset', { method: 'POST' });
    await page.locator('li.request').first().waitFor({ state: 'detached' });
    expect(await page.locator('#requests').innerText()).toContain('No payment requests yet');
    // The events panel may be reading an event's attempts as the reset deletes the event: that
    // read gets its 404 (the page shows no attempts), which Chromium logs whatever the page does.
    expectClean([/status of 404 .*\/sandbox\/v1\/webhook-deliveries\?event=evt_/]);
  });

  it("moves the account's clock with its buttons and field (read back through the API)", async () => {
    const { page } = await open('/dashboard');
    await signIn(page, KEYS.custodial);
    const clock = async () => (await server.api('/sandbox/v1/clock')).body as { now: string; frozen: boolean };
    // The sandbox starts frozen here; unfreeze and freeze again through the page.
    await page.getByRole('button', { name: 'Unfreeze', exact: true }).click();
    await until(clock, (view) => !view.frozen);
    await page.getByRole('button', { name: 'Freeze', exact: true }).click();
    const frozen = await until(clock, (view) => view.frozen);
    const at = Date.parse(frozen.now);
    const movedTo = async (seconds: number) => until(clock, (view) => Date.parse(view.now) === at + seconds * 1000);

    await page.getByRole('button', { name: 'Advance 1 minute' }).click();
    await movedTo(60);
    await page.getByRole('button', { name: 'Advance 1 hour' }).click();
    await movedTo(3660);
    await page.getByRole('button', { name: 'Advance 1 day' }).click();
    await movedTo(90_060);
    await page.getByLabel('Advance by seconds').fill('90');
    await page.getByRole('button', { name: 'Advance', exact: true }).click();
    await movedTo(90_150);
    await page.locator('#clock-message', { hasText: 'Moved the clock on by 1 minute 30 seconds' }).waitFor();
    await page.getByLabel('Advance by seconds').fill('soon');
    await page.getByRole('button', { name: 'Advance', exact: true }).click();
    await page.locator('#clock-message', { hasText: 'Enter a whole number of seconds' }).waitFor();
    expect(await page.locator('#clock-now').getAttribute('datetime')).toBe(new Date(at + 90_150_000).toISOString());
    expect(await page.locator('#clock-mode').innerText()).toContain('Frozen');
    expectClean();
  });

  it('shows and replaces the rules, with a clear error on bad JSON and on a rule the API refuses', async () => {
    const { page } = await open('/dashboard');
    await signIn(page, KEYS.custodial);
    const rules = page.getByLabel('Rules (JSON)');
    expect(JSON.parse(await rules.inputValue())).toEqual([]);
    await rules.fill('[{"name": "broken"');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await page.locator('#rules-message', { hasText: 'The rules are not valid JSON' }).waitFor();
    await rules.fill('[{"outcome": "explode"}]');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await page.locator('#rules-message', { hasText: 'The sandbox refused the rules' }).waitFor();
    const rule = { name: 'big orders fail', match: { amount: { min: 100_000 } }, outcome: 'fail', after: 30 };
    await rules.fill(JSON.stringify([rule]));
    await page.getByRole('button', { name: 'Save rules' }).click();
    await page.locator('#rules-message', { hasText: 'Saved 1 rule' }).waitFor();
    expect((await server.api('/sandbox/v1/rules')).body.rules).toEqual([rule]);
    await server.api('/sandbox/v1/rules', { method: 'PUT', body: { rules: [] } });
    expectClean([/status of 400/]);
  });

  it('creates a payment request from the form (metadata as JSON), and says why when the API refuses', async () => {
    const { page } = await open('/dashboard');
    await signIn(page, KEYS.custodial);
    await page.getByLabel('Amount in sats').fill('4200');
    await page.getByLabel('Description').fill('Flat white');
    await page.getByLabel('Metadata (JSON, optional)').fill('{"orderId": "B-2"}');
    await page.getByRole('button', { name: 'Create payment request' }).click();
    await page.locator('#create-message', { hasText: 'Created pr_' }).waitFor();
    const { data } = (await server.api('/sandbox/v1/payment-requests')).body;
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ amount: 4200, description: 'Flat white', metadata: { orderId: 'B-2' }, expiresAt: expect.any(String) });
    await requestItem(page, data[0].id).waitFor();

    await page.getByLabel('Amount in sats').fill('1');
    await page.getByRole('button', { name: 'Create payment request' }).click();
    await page.locator('#create-errors', { hasText: 'amount must be at least 21 sats' }).waitFor();
    await page.getByLabel('Amount in sats').fill('4200');
    await page.getByLabel('Metadata (JSON, optional)').fill('{orderId}');
    await page.getByRole('button', { name: 'Create payment request' }).click();
    await page.locator('#create-errors', { hasText: 'The metadata is not valid JSON' }).waitFor();
    // Only the metadata is at fault now: the amount's error went with its cause.
    expect(await page.locator('#create-errors').innerText()).not.toContain('amount');
    expect(await page.getByLabel('Amount in sats').getAttribute('aria-invalid')).toBeNull();
    expect(await page.getByLabel('Metadata (JSON, optional)').getAttribute('aria-invalid')).toBe('true');
    expectClean([/status of 400/]);
  });

  it('a refused create is told GOV.UK\'s way, in view at 375 px: a focused error summary linking to the field, and the message at the field', async () => {
    await context.close();
    context = await browser.newContext({ viewport: { width: 375, height: 700 } });
    const { page } = await open('/dashboard');
    await signIn(page, KEYS.custodial);
    await page.getByLabel('Amount in sats').fill('1');
    await page.getByRole('button', { name: 'Create payment request' }).click();
    const summary = page.locator('#create-errors');
    await summary.waitFor();
    // The summary has the focus, is in the viewport, and is announced (role="alert").
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('create-errors');
    const inView = () =>
      page.evaluate(() => {
        const box = document.getElementById('create-errors')!.getBoundingClientRect();
        return { top: Math.round(box.top), bottom: Math.round(box.bottom), height: innerHeight };
      });
    const box = await inView();
    expect(box.top).toBeGreaterThanOrEqual(0);
    expect(box.bottom).toBeLessThanOrEqual(box.height);
    expect(await summary.locator('[role="alert"]').innerText()).toContain('There is a problem');
    const link = summary.getByRole('link', { name: 'amount must be at least 21 sats' });
    expect(await link.getAttribute('href')).toBe('#create-amount');
    // The field says it too, tied to the input, with "Error:" for screen readers.
    const amount = page.getByLabel('Amount in sats');
    expect(await amount.getAttribute('aria-invalid')).toBe('true');
    expect((await amount.getAttribute('aria-describedby'))?.split(' ')).toContain('create-amount-error');
    expect(await page.locator('#create-amount-error').textContent()).toBe('Error: amount must be at least 21 sats');
    expect(await page.locator('#create-amount-error').isVisible()).toBe(true);
    expect(await accessibilityProblems(page)).toEqual([]);
    // The link takes the keyboard to the field.
    await link.click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('create-amount');
    expect(page.url()).toBe(`${server.url}/dashboard`);

    // Put right, it creates: the summary and the field's error go.
    await amount.fill('1000');
    await page.getByRole('button', { name: 'Create payment request' }).click();
    await page.locator('#create-message', { hasText: 'Created pr_' }).waitFor();
    expect(await summary.isHidden()).toBe(true);
    expect(await amount.getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('.error-message').count()).toBe(0);

    // A refusal no field is to blame for (a read-only key) is said in the summary, in the API's words.
    await page.getByRole('button', { name: 'Change key' }).click();
    await page.getByRole('button', { name: KEYS.readonly }).click();
    await page.locator('#account[aria-busy="false"]').waitFor();
    await page.getByRole('button', { name: 'Create payment request' }).click();
    await page.locator('#create-errors', { hasText: 'it may read, not create or change anything' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('create-errors');
    expect(await page.locator('#create-errors a').count()).toBe(0);
    expect(await page.locator('.error-message').count()).toBe(0);
    expectClean([/status of 400/, /status of 401/]);
  });

  it('adds a webhook endpoint, shows each delivery with its status, and "Redeliver" sends the event again (a real receiver)', async () => {
    const receiver: WebhookReceiver = await startReceiver();
    try {
      const { page } = await open('/dashboard');
      await signIn(page, KEYS.custodial);
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.locator('li.endpoint', { hasText: receiver.url }).waitFor();
      const [endpoint] = (await server.api('/sandbox/v1/webhook-endpoints')).body.data;
      expect(endpoint.url).toBe(receiver.url);
      receiver.secret = endpoint.secret;
      const secret = page.locator(`li.endpoint[data-id="${endpoint.id}"] .secret`);
      expect(await secret.isHidden()).toBe(true);
      await page.getByRole('button', { name: 'Show secret' }).click();
      expect(await secret.innerText()).toContain(endpoint.secret);

      const pr = await create();
      const [first] = await receiver.waitFor(1);
      expect(first!.verified).toBe(true);
      const event = page.locator('li.event', { hasText: 'payment_request.created' }).filter({ hasText: pr.id });
      await event.locator('[data-attempt="1"][data-status="succeeded"]').waitFor();
      expect(await event.locator('.deliveries li').first().innerText()).toMatch(/^Attempt 1 to .+: succeeded, answered 204 in \d+ ms$/);
      expect(await event.innerText()).toContain(pr.id);

      await event.getByRole('button', { name: 'Redeliver' }).click();
      const [, again] = await receiver.waitFor(2);
      expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      expect(again!.verified).toBe(true);
      await page.waitForFunction((id) => document.querySelectorAll(`li.event[data-id="${id}"] .deliveries [data-status="succeeded"]`).length === 2, await event.getAttribute('data-id'));

      // A failing receiver shows as failed, with why.
      receiver.answer = () => 500;
      await server.api(`/sandbox/v1/payment-requests/${pr.id}/fail`, { method: 'POST' });
      const failed = page.locator('li.event', { hasText: 'payment_request.failed' }).filter({ hasText: pr.id });
      await failed.locator('[data-attempt="1"][data-status="failed"]').waitFor();
      expect(await failed.locator('[data-attempt="1"]').innerText()).toContain('failed, the receiver answered 500');
      await failed.locator('[data-attempt="2"][data-status="pending"]').waitFor();

      await page.getByRole('button', { name: `Delete endpoint ${receiver.url}` }).click();
      await page.locator('#endpoints-message', { hasText: 'Deleted' }).waitFor();
      expect((await server.api('/sandbox/v1/webhook-endpoints')).body.data).toEqual([]);
      expect(await accessibilityProblems(page)).toEqual([]);
      expectClean();
    } finally {
      await receiver.close();
    }
  });

  it("never shows another account's requests or events", async () => {
    const { page } = await open('/dashboard');
    const before = await create({ description: 'custodial before' });
    await signIn(page, KEYS.nwc);
    const during = await create({ description: 'custodial during' });
    const mine = await create({ description: 'nwc own' }, KEYS.nwc);
    await requestItem(page, mine.id).waitFor();
    await page.locator('li.event', { hasText: mine.id }).waitFor();
    // The custodial one was created first: had it leaked, it would be on the page by now.
    const text = await page.locator('main').innerText();
    for (const other of [before, during]) expect(text).not.toContain(other.id);
    expect(text).not.toContain('custodial during');
    expect(await page.locator('li.request').count()).toBe(1);
    expectClean();
  });

  it('after a key switch shows nothing of the previous account: notices, lists, forms and their errors go, and a late answer for the old key paints nothing', async () => {
    const marker = `acct-a-${Math.random().toString(36).slice(2)}`;
    const receiver: WebhookReceiver = await startReceiver();
    try {
      await server.api('/sandbox/v1/webhook-endpoints', { body: { url: receiver.url } });
      const { page } = await open('/dashboard');
      await signIn(page, KEYS.custodial);
      // More than a page of A's requests, so "Show more" has something to read.
      const ofA = [];
      for (let i = 0; i < 6; i++) ofA.push(await create({ description: `${marker} ${i}`, metadata: { marker } }));
      const failed = ofA.at(-1)!;
      await requestItem(page, failed.id).waitFor();
      await requestItem(page, failed.id).getByRole('button', { name: 'Fail', exact: true }).click();
      await page.locator('#announce', { hasText: `Fail: ${failed.id} is now failed.` }).waitFor();
      await page.locator('li.event', { hasText: 'payment_request.failed' }).filter({ hasText: failed.id }).locator('[data-status="succeeded"]').waitFor();
      await requestItem(page, failed.id).locator('summary', { hasText: 'Metadata' }).click();
      await page.getByRole('button', { name: 'Show secret' }).click();
      await page.getByLabel('Advance by seconds').fill('soon');
      await page.getByRole('button', { name: 'Advance', exact: true }).click();
      await page.locator('#clock-message', { hasText: 'Enter a whole number' }).waitFor();
      await page.getByLabel('Amount in sats').fill('1');
      await page.getByLabel('Metadata (JSON, optional)').fill(JSON.stringify({ marker }));
      await page.getByRole('button', { name: 'Create payment request' }).click();
      await page.locator('#create-errors', { hasText: 'amount must be at least 21 sats' }).waitFor();
      await page.getByLabel('Rules (JSON)').fill(`[{"name": "${marker}"`);
      await page.getByRole('button', { name: 'Save rules' }).click();
      await page.locator('#rules-message', { hasText: 'not valid JSON' }).waitFor();
      const eventIds = await page.locator('li.event').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.id!));
      expect(eventIds.length).toBeGreaterThan(0);

      // A read for A is on its way (held here) when the person switches to B.
      let releaseLate!: () => void;
      const released = new Promise<void>((resolve) => (releaseLate = resolve));
      let heldLate = false;
      let lateDone!: () => void;
      const lateSettled = new Promise<void>((resolve) => (lateDone = resolve));
      await page.route(/\/sandbox\/v1\/payment-requests\?limit=/, async (route) => {
        if (route.request().headers().authorization !== `Bearer ${KEYS.custodial}`) return route.continue();
        heldLate = true;
        // The true answer for A, handed to the page only after it moved on to B.
        const answer = await route.fetch();
        await released;
        await route.fulfill({ response: answer }).catch(() => {});
        lateDone();
      });
      await page.getByRole('button', { name: 'Show more payment requests' }).click();
      await until(async () => heldLate, (held) => held);

      await page.getByRole('button', { name: 'Change key' }).click();
      await page.getByRole('button', { name: KEYS.nwc }).click();
      await page.locator('#live-state', { hasText: 'Live' }).waitFor();
      await page.locator('#account[aria-busy="false"]').waitFor();
      const ofB = await create({ description: 'account B' }, KEYS.nwc);
      await requestItem(page, ofB.id).waitFor();
      releaseLate();
      await lateSettled;
      // Anything A's stream or calls could still bring: a change to A made now, and time for it to land.
      await server.api(`/sandbox/v1/payment-requests/${ofA[0]!.id}/complete`, { method: 'POST' });
      await new Promise((resolve) => setTimeout(resolve, 500));

      const everything = await page.evaluate(() => ({
        innerText: document.body.innerText,
        textContent: document.body.textContent ?? '',
        values: Array.from(document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')).map((field) => field.value).join('\n'),
        attributes: Array.from(document.querySelectorAll('*')).flatMap((element) => Array.from(element.attributes).map((attribute) => attribute.value)).join('\n'),
      }));
      for (const [where, text] of Object.entries(everything)) {
        for (const id of [...ofA.map((pr) => pr.id), ...eventIds]) expect(text, `${where} holds ${id}`).not.toContain(id);
        expect(text, where).not.toContain(marker);
        expect(text, where).not.toContain('is now failed');
        expect(text, where).not.toContain('whsec_');
      }
      // No error of A's forms, and B's own page is whole.
      expect(await page.locator('#create-errors').isHidden()).toBe(true);
      expect(await page.locator('.error-message, .field-error, .message-error').count()).toBe(0);
      expect(await page.locator('#announce').textContent()).toBe('');
      expect(await page.locator('li.request').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.id))).toEqual([ofB.id]);
      expect(await page.locator('#current-key').innerText()).toBe(KEYS.nwc);
      expect(await page.getByLabel('Amount in sats').inputValue()).toBe('1000');
      expect(JSON.parse(await page.getByLabel('Rules (JSON)').inputValue())).toEqual([]);
      expectClean([/status of 400/]);
    } finally {
      await receiver.close();
    }
  });

  /**
   * Bounds of the dashboard's height with a long history, per viewport width. The page is its
   * fixed panels (key, clock, create form, wallets, requests and faults, endpoints, rules: about
   * 3,650 px at 1440 and 5,300 at 375 with an empty account; the Wallets panel is about 470 and 820
   * of them, the Requests and faults panel about 960 and 1,380, their lists scrolling in boxes of
   * their own, the request journal's of one height however many calls it holds) plus one page of
   * each list: 5 requests (about 300 px each at 1440, 570 at 375, QR code and whole invoice) and 5
   * events with up to 3 attempts each. That measured about 4,560 px at 1440 and 9,330 at 375 with
   * 200 events and their deliveries (before the Requests and faults panel: 3,600 and 7,950; before
   * the lists were paged: 17,900 and 30,700, growing with each event). The bounds leave about 10 %
   * for other fonts; what matters as much is that the height no longer grows with the history,
   * checked against one page of it.
   */
  const HEIGHT_BOUNDS = { 1440: 5_000, 375: 10_300 } as const;

  it('keeps its height bounded however long the history: a page of requests and of events, each with "Show more" (200 events, 1440 and 375 px)', async () => {
    const receiver: WebhookReceiver = await startReceiver();
    try {
      await server.api('/sandbox/v1/webhook-endpoints', { body: { url: receiver.url } });
      const heightWith = async (width: 1440 | 375) => {
        await context.close();
        context = await browser.newContext({ viewport: { width, height: 900 } });
        const { page } = await open('/dashboard');
        await signIn(page, KEYS.custodial);
        await page.locator('li.event').first().waitFor();
        return { page, height: await page.evaluate(() => document.documentElement.scrollHeight) };
      };
      // One page's worth first (5 requests, 10 events), then 200 events (100 requests, each failed).
      const requests: Array<{ id: string }> = [];
      const addRequests = async (count: number) => {
        for (let i = 0; i < count; i++) {
          const pr = await create({ description: `Order ${requests.length}` });
          await server.api(`/sandbox/v1/payment-requests/${pr.id}/fail`, { method: 'POST' });
          requests.push(pr);
        }
        await receiver.waitFor(requests.length * 2);
      };
      await addRequests(5);
      const onePage = { 1440: (await heightWith(1440)).height, 375: (await heightWith(375)).height };
      await addRequests(95);
      // (Earlier tests' events may still be in the log: a reset keeps it.)
      expect((await server.api('/sandbox/v1/events?limit=1000')).body.data.length).toBeGreaterThanOrEqual(200);
      for (const width of [1440, 375] as const) {
        const { page, height } = await heightWith(width);
        expect(await page.locator('li.request').count()).toBe(5);
        expect(await page.locator('li.event').count()).toBe(5);
        expect(height, `${width} px`).toBeLessThanOrEqual(HEIGHT_BOUNDS[width]);
        // The history adds only the "Show more" rows.
        expect(height - onePage[width], `${width} px`).toBeLessThanOrEqual(150);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      }

      // "Show more" reads the next page, newest first, and takes the keyboard to the first it brought.
      const { page } = await heightWith(1440);
      await page.getByRole('button', { name: 'Show more payment requests' }).click();
      await page.locator('li.request').nth(9).waitFor();
      const newestFirst = [...requests].reverse().map((pr) => pr.id);
      expect(await page.locator('li.request').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.id))).toEqual(newestFirst.slice(0, 10));
      expect(await page.evaluate(() => document.activeElement?.closest('li.request')?.getAttribute('data-id'))).toBe(newestFirst[5]);
      expect(await page.locator('#requests-count').innerText()).toBe('Showing the newest 10.');
      await page.getByRole('button', { name: 'Show more events' }).click();
      await page.locator('li.event').nth(9).waitFor();
      const events = (await server.api('/sandbox/v1/events?limit=10')).body.data.map((event: { id: string }) => event.id);
      expect(await page.locator('li.event').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.id))).toEqual(events);
      expect(await page.evaluate(() => document.activeElement?.closest('li.event')?.getAttribute('data-id'))).toBe(events[5]);
      // A new request comes in at the top; the list keeps its length.
      const newest = await create({ description: 'the newest' });
      await requestItem(page, newest.id).waitFor();
      expect(await page.locator('li.request').count()).toBe(10);
      expect(await page.locator('li.request').first().getAttribute('data-id')).toBe(newest.id);
      expect(await accessibilityProblems(page)).toEqual([]);
      expectClean();
    } finally {
      await receiver.close();
    }
  });

  it('shows at most the newest 3 attempts of an event, and all of them on request', async () => {
    const receiver: WebhookReceiver = await startReceiver();
    try {
      await server.api('/sandbox/v1/webhook-endpoints', { body: { url: receiver.url } });
      const pr = await create();
      await receiver.waitFor(1);
      const [event] = (await server.api(`/sandbox/v1/events?paymentRequest=${pr.id}`)).body.data;
      for (let i = 0; i < 4; i++) await server.api(`/sandbox/v1/events/${event.id}/redeliver`, { method: 'POST' });
      await receiver.waitFor(5);
      const { page } = await open('/dashboard');
      await signIn(page, KEYS.custodial);
      const item = page.locator(`li.event[data-id="${event.id}"]`);
      await item.locator('.deliveries li').first().waitFor();
      expect(await item.locator('.deliveries li').count()).toBe(3);
      const toggle = item.getByRole('button', { name: 'Show all attempts' });
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      await toggle.click();
      await page.waitForFunction((id) => document.querySelectorAll(`li.event[data-id="${id}"] .deliveries li`).length === 5, event.id);
      const shown = item.getByRole('button', { name: 'Show only the newest attempts' });
      expect(await shown.getAttribute('aria-expanded')).toBe('true');
      // The focus stays on the button that was pressed.
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Show only the newest attempts');
      await shown.click();
      await page.waitForFunction((id) => document.querySelectorAll(`li.event[data-id="${id}"] .deliveries li`).length === 3, event.id);
      expectClean();
    } finally {
      await receiver.close();
    }
  });

  it('shows the whole invoice: no line cut off by its box (1440 and 375 px, dashboard and pay page)', async () => {
    const pr = await create({ description: 'A long invoice', metadata: { orderId: 'A-1' } });
    for (const width of [1440, 375]) {
      await context.close();
      context = await browser.newContext({ viewport: { width, height: 900 } });
      const { page } = await open('/dashboard');
      await signIn(page, KEYS.custodial);
      const pay = await open(`/pay/${pr.id}`);
      await pay.page.locator('#details').waitFor();
      for (const box of [requestItem(page, pr.id).locator('.invoice-text'), pay.page.locator('#invoice')]) {
        expect(await box.innerText()).toBe(pr.invoice);
        const { scrollHeight, clientHeight, lines } = await box.evaluate((element) => ({
          scrollHeight: element.scrollHeight,
          clientHeight: element.clientHeight,
          lines: Math.round((element.clientHeight - parseFloat(getComputedStyle(element).paddingTop) * 2) / parseFloat(getComputedStyle(element).lineHeight)),
        }));
        expect(scrollHeight, `${width} px`).toBeLessThanOrEqual(clientHeight);
        // It does wrap: several lines at either width.
        expect(lines, `${width} px`).toBeGreaterThanOrEqual(2);
      }
    }
    expectClean();
  });

  it('is readable at 375 px: nothing wider than the screen', async () => {
    await context.close();
    context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const pr = await create();
    const { page } = await open('/dashboard');
    await signIn(page, KEYS.custodial);
    await requestItem(page, pr.id).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const pay = await open(`/pay/${pr.id}`);
    await pay.page.locator('#details').waitFor();
    expect(await pay.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expectClean();
  });

  describe('the pay page', () => {
    /** Reads the QR code in the page with jsQR, from a screenshot of it. */
    async function decodeQr(page: Page): Promise<string | undefined> {
      const png = await page.locator('#qr svg').screenshot();
      // Decoded to pixels in a blank page (no CSP there), read in Node by jsQR.
      const canvasPage = await browser.newPage();
      try {
        const { width, height, pixels } = await canvasPage.evaluate(async (base64) => {
          const image = new Image();
          image.src = `data:image/png;base64,${base64}`;
          await image.decode();
          const canvas = document.createElement('canvas');
          canvas.width = image.width;
          canvas.height = image.height;
          const context2d = canvas.getContext('2d')!;
          context2d.drawImage(image, 0, 0);
          return { width: image.width, height: image.height, pixels: Array.from(context2d.getImageData(0, 0, image.width, image.height).data) };
        }, png.toString('base64'));
        // jsqr is CommonJS: its function is the module's `default` under Node's ESM interop.
        return jsqr.default(Uint8ClampedArray.from(pixels), width, height)?.data;
      } finally {
        await canvasPage.close();
      }
    }

    it('shows amount, description, a QR code that decodes to lightning:<invoice>, the invoice with a copy button, and the time left; no metadata anywhere', async () => {
      const marker = `marker-${Math.random().toString(36).slice(2)}`;
      const pr = await create({ amount: 1000, description: 'Coffee beans', expiresIn: 600, metadata: { secret: marker, nested: { note: marker } } });
      const pay = await open(`/pay/${pr.id}`);
      const { page } = pay;
      await page.locator('#details').waitFor();
      expect(await page.locator('#amount').innerText()).toBe('1,000');
      expect(await page.locator('#description').innerText()).toBe('Coffee beans');
      expect(await page.locator('#state').innerText()).toContain('Waiting for payment');
      expect(await page.locator('#time-left').innerText()).toBe('10:00');
      expect(await page.locator('#invoice').innerText()).toBe(pr.invoice);

      const decoded = await decodeQr(page);
      expect(decoded?.toLowerCase()).toBe(`lightning:${pr.invoice}`.toLowerCase());

      await page.getByRole('button', { name: 'Copy invoice' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(pr.invoice);
      expect(await accessibilityProblems(page)).toEqual([]);

      // The stream brings the payment made elsewhere.
      await server.api(`/sandbox/v1/payment-requests/${pr.id}/complete`, { method: 'POST' });
      await page.locator('#state[data-status="completed"]', { hasText: 'Paid' }).waitFor();
      expect(await page.getByRole('button', { name: 'Pay with test wallet' }).isHidden()).toBe(true);

      expect(await page.content()).not.toContain(marker);
      const bodies = await Promise.all(pay.bodies);
      expect(bodies.length).toBeGreaterThanOrEqual(4);
      expect(bodies.filter((body) => body.includes(marker))).toEqual([]);
      expect(pay.streamed.length).toBeGreaterThanOrEqual(2);
      expect(pay.streamed.filter((message) => message.includes(marker))).toEqual([]);
      expect(pay.streamed.join('\n')).not.toContain('metadata');
      expectClean();
    });

    it('"Pay with test wallet" pays it (the API sees it), and an expiry on the account clock shows live', async () => {
      const toPay = await create({ expiresIn: 60 });
      const { page } = await open(`/pay/${toPay.id}`);
      await page.getByRole('button', { name: 'Pay with test wallet' }).click();
      await page.locator('#state[data-status="completed"]').waitFor();
      expect(await statusOf(toPay.id)).toBe('completed');

      const toExpire = await create({ expiresIn: 60 });
      const second = await open(`/pay/${toExpire.id}`);
      await second.page.locator('#time-left', { hasText: '1:00' }).waitFor();
      await server.api('/sandbox/v1/clock/advance', { body: { seconds: 30 } });
      await second.page.locator('#time-left', { hasText: '0:30' }).waitFor();
      await server.api('/sandbox/v1/clock/advance', { body: { seconds: 31 } });
      await second.page.locator('#state[data-status="expired"]', { hasText: 'Expired' }).waitFor();
      expect(await second.page.getByRole('button', { name: 'Pay with test wallet' }).isHidden()).toBe(true);
      expect(await accessibilityProblems(second.page)).toEqual([]);
      expectClean();
    });

    it('links back to the shop once paid when given ?return= (http or https only, never anything else)', async () => {
      const shop = 'https://shop.example/thanks?order=A-1';
      const returning = (path: string, url: string) => `${path}?return=${encodeURIComponent(url)}`;
      const backLink = (page: Page) => page.getByRole('link', { name: /Back to the shop/ });

      // Not paid yet: no link; paid on the page: the link, to exactly that URL.
      const pr = await create();
      const { page } = await open(returning(`/pay/${pr.id}`, shop));
      await page.locator('#state[data-status="pending"]').waitFor();
      expect(await backLink(page).count()).toBe(0);
      await page.getByRole('button', { name: 'Pay with test wallet' }).click();
      await page.locator('#state[data-status="completed"]').waitFor();
      await backLink(page).waitFor();
      expect(await backLink(page).getAttribute('href')).toBe(shop);
      expect(await backLink(page).getAttribute('rel')).toBe('noopener noreferrer');
      expect(await page.locator('#return-row').innerText()).toBe('Back to the shop (shop.example)');
      expect(await accessibilityProblems(page)).toEqual([]);

      // Opened on a request already paid: the link at once. Plain http is a shop's URL too.
      const already = await open(returning(`/pay/${pr.id}`, 'http://127.0.0.1:3000/done'));
      await already.page.locator('#state[data-status="completed"]').waitFor();
      expect(await backLink(already.page).getAttribute('href')).toBe('http://127.0.0.1:3000/done');

      // Anything but an absolute http(s) URL is ignored: no link at all, whatever it says.
      for (const bad of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,<script>alert(1)</script>', '/thanks', 'shop.example/thanks', 'https://', 'ftp://shop.example/', 'https://shop.example@evil.example/', '']) {
        const other = await open(returning(`/pay/${pr.id}`, bad));
        await other.page.locator('#state[data-status="completed"]').waitFor();
        expect(await backLink(other.page).count(), bad).toBe(0);
        expect(await other.page.locator('a[href^="javascript" i], a[href^="data:" i]').count(), bad).toBe(0);
        await other.page.close();
      }

      // A request that failed or expired is not paid: no link back for it.
      const failed = await create();
      await server.api(`/sandbox/v1/payment-requests/${failed.id}/fail`, { method: 'POST' });
      const notPaid = await open(returning(`/pay/${failed.id}`, shop));
      await notPaid.page.locator('#state[data-status="failed"]').waitFor();
      expect(await backLink(notPaid.page).count()).toBe(0);
      expectClean();
    });

    it('an unknown id gets a 404 page', async () => {
      const page = await context.newPage();
      const response = await page.goto(`${server.url}/pay/pr_doesnotexist`);
      expect(response!.status()).toBe(404);
      expect(await page.locator('h1').innerText()).toBe('Page not found');
    });
  });
});
