/**
 * The dashboard's "Requests and faults" panel in a real browser (Debian's Chromium, headless,
 * playwright-core) against the real server: a preset put in force through the editor (503 once on
 * creates), the dashboard's own create form refused by it and then answered, and, without a
 * reload, a 503 row then a 201 row in the journal, the fault fired once, a row opened on the body
 * sent; a call from another client appears too. A refused body (status 418) is told next to the
 * editor by field; "Clear faults" and "Clear journal" empty their lists. A read-only key sees both
 * lists and no editor or clear button. The panel passes axe-core with no serious or critical
 * violation, reads at most once a second, stops reading on "Change key", and shows no key. Without
 * a browser it is skipped with one line saying why, unless LNPR_REQUIRE_BROWSER=1.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { browserForSuite, launchBrowser } from './support/browser.js';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

const SUITE = "the dashboard's Requests and faults panel in headless Chromium";
const executablePath = browserForSuite(SUITE);
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Watched {
  page: Page;
  /** Every request the page sent: method, URL, and when it was sent (epoch ms, once it has an answer). */
  requests: Array<{ method: string; url: string; sent: () => number }>;
  /** Console errors and uncaught exceptions. */
  errors: string[];
}

describe.runIf(executablePath !== null)(SUITE, () => {
  let browser: Browser;
  let server: RunningServer;
  let context: BrowserContext;
  let watched: Watched[] = [];

  beforeAll(async () => {
    [browser, server] = await Promise.all([launchBrowser(executablePath!), startServer()]);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  beforeEach(async () => {
    expect((await server.api('/sandbox/v1/reset', { method: 'POST', body: { scope: 'all' } })).status).toBe(204);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    watched = [];
  });

  afterEach(async () => {
    await context.close();
  });

  async function open(path: string): Promise<Watched> {
    const page = await context.newPage();
    const record: Watched = { page, requests: [], errors: [] };
    page.on('request', (request) => record.requests.push({ method: request.method(), url: request.url(), sent: () => request.timing().startTime }));
    page.on('console', (message) => {
      if (message.type() === 'error') record.errors.push(message.text());
    });
    page.on('pageerror', (error) => record.errors.push(error.message));
    watched.push(record);
    await page.goto(server.url + path);
    return record;
  }

  /** Every page stayed on the sandbox's origin and logged no error but those allowed. */
  function expectClean(allowedErrors: RegExp[] = []): void {
    for (const { requests, errors } of watched) {
      expect(requests.filter(({ url }) => !url.startsWith(`${server.url}/`))).toEqual([]);
      expect(errors.filter((error) => !allowedErrors.some((allowed) => allowed.test(error)))).toEqual([]);
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

  /** The journal's rows (not their detail rows), top first: status as drawn. */
  const journalStatuses = (page: Page) => page.locator('#journal tr[data-id]').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.status));

  /** When the page's reads of the journal were sent (GETs; the DELETE of "Clear journal" is no read). */
  const journalReads = (record: Watched) =>
    record.requests.filter(({ method, url }) => method === 'GET' && new URL(url).pathname === '/sandbox/v1/requests').map(({ sent }) => sent());

  it('puts a preset in force, shows the 503 and then the 201 of the dashboard’s own create live, the fault fired once, a call’s body; refuses a bad fault by field; clears both', async () => {
    const dashboard = await open('/dashboard');
    const { page } = dashboard;
    await signIn(page, KEYS.custodial);
    const panel = page.locator('section.resilience-panel');
    await page.locator('#faults-editor').waitFor();
    await page.locator('#journal', { hasText: 'No calls to /api/v1' }).waitFor();
    await page.locator('#faults', { hasText: 'No faults' }).waitFor();
    const editor = page.getByLabel('Faults (JSON)');
    expect(JSON.parse(await editor.inputValue())).toEqual({ faults: [] });

    // The preset "503 once on creates", through the editor.
    await panel.getByRole('button', { name: '503 once on creates' }).click();
    expect(JSON.parse(await editor.inputValue())).toEqual({
      faults: [{ match: { method: 'POST', path: '/api/v1/payment-requests' }, times: 1, fault: { status: 503, retryAfter: 1 } }],
    });
    await panel.getByRole('button', { name: 'Apply' }).click();
    await page.locator('#faults-message', { hasText: 'Applied 1 fault' }).waitFor();
    const faultRow = page.locator('#faults tr[data-index="0"]');
    expect(await faultRow.innerText()).toContain('POST /api/v1/payment-requests');
    expect(await faultRow.innerText()).toContain('503, Retry-After 1 s');
    expect(await faultRow.locator('[data-role="fired"]').innerText()).toBe('0');
    expect((await server.api('/sandbox/v1/faults')).body.faults).toHaveLength(1);

    // The dashboard's own create: the fault answers the first (503), the second is made (201).
    await page.getByLabel('Description').fill('Journal order');
    await page.getByLabel('Metadata (JSON, optional)').fill('{"orderId": "A-17"}');
    await page.getByRole('button', { name: 'Create payment request' }).click();
    await page.locator('#create-errors', { hasText: 'simulated' }).waitFor();
    await page.locator('#journal tr[data-status="503"]').waitFor();
    expect(await journalStatuses(page)).toEqual(['503']);
    await page.getByRole('button', { name: 'Create payment request' }).click();
    await page.locator('#create-message', { hasText: 'Created pr_' }).waitFor();
    await page.locator('#journal tr[data-status="201"]').waitFor();
    expect(await journalStatuses(page)).toEqual(['201', '503']);
    const refused = page.locator('#journal tr[data-status="503"]');
    expect(await refused.locator('[data-role="fault"]').innerText()).toBe('503, Retry-After 1 s');
    expect(await refused.innerText()).toContain('POST');
    expect(await refused.innerText()).toContain('/api/v1/payment-requests');
    expect(await page.locator('#journal tr[data-status="201"] [data-role="fault"]').innerText()).toBe('none');
    // Fired once: the counts follow without a reload, as the API reads them.
    await faultRow.locator('[data-role="fired"]', { hasText: '1' }).waitFor();
    const [counted] = (await server.api('/sandbox/v1/faults')).body.faults;
    expect(counted.fired).toBe(1);
    await faultRow.locator('[data-role="matched"]', { hasText: String(counted.matched) }).waitFor();

    // A row opens on what was sent and what was answered, as text.
    const made = page.locator('#journal tr[data-status="201"]');
    await made.getByRole('button', { name: /^Show/ }).click();
    const details = page.locator(`#call-${await made.getAttribute('data-id')}`);
    await details.waitFor();
    expect(await made.getByRole('button', { name: /^Hide/ }).getAttribute('aria-expanded')).toBe('true');
    const sent = JSON.parse(await details.locator('[data-role="body"]').innerText());
    expect(sent).toMatchObject({ description: 'Journal order', metadata: { orderId: 'A-17' } });
    expect(await details.locator('[data-role="body"]').innerText()).toContain('\n  "amount": 1000');
    const answered = JSON.parse(await details.locator('[data-role="response"]').innerText());
    expect(answered.id).toMatch(/^pr_/);
    expect(answered.description).toBe('Journal order');
    const headers = JSON.parse(await details.locator('[data-role="headers"]').innerText());
    expect(headers['content-type']).toBe('application/json');
    expect(Object.keys(headers)).not.toContain('authorization');
    // The refused call's answer is the simulated fault's body.
    await refused.getByRole('button', { name: /^Show/ }).click();
    const refusedDetails = page.locator(`#call-${await refused.getAttribute('data-id')}`);
    expect(JSON.parse(await refusedDetails.locator('[data-role="response"]').innerText()).error.code).toBe('simulated_fault');

    // Another client's call appears too, without a reload, above the rest; the opened rows stay open.
    await server.create({ description: 'From elsewhere' });
    await page.locator('#journal tr[data-id]').nth(2).waitFor();
    expect(await journalStatuses(page)).toEqual(['201', '201', '503']);
    expect(await details.isVisible()).toBe(true);
    // The journal shows no key: the page shows the key only where it says which one is used.
    expect(await panel.innerText()).not.toContain(KEYS.custodial);
    expect(await panel.innerText()).not.toContain('Bearer');

    // Filters: only the 503s.
    await page.getByLabel('Status').fill('503');
    await panel.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => Array.from(document.querySelectorAll('#journal tr[data-id]')).map((row) => (row as HTMLElement).dataset.status).join() === '503');
    await page.getByLabel('Status').fill('');
    await page.getByLabel('Method').selectOption('GET');
    await panel.getByRole('button', { name: 'Filter' }).click();
    await page.locator('#journal', { hasText: 'No calls match the filter.' }).waitFor();
    await page.getByLabel('Method').selectOption('');
    await panel.getByRole('button', { name: 'Filter' }).click();
    await page.locator('#journal tr[data-id]').nth(2).waitFor();

    // A bad fault (status 418) is refused; the problem is told next to the editor, by field.
    await editor.fill('{"faults": [{"fault": {"status": 418}}]}');
    await panel.getByRole('button', { name: 'Apply' }).click();
    const problem = page.locator('#faults-errors li[data-field="faults.0.fault.status"]');
    await problem.waitFor();
    expect(await problem.innerText()).toBe('faults.0.fault.status must be one of 429, 500, 502, 503, 504');
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#faults-message').innerText()).toContain('Nothing changed');
    expect((await server.api('/sandbox/v1/faults')).body.faults).toHaveLength(1);
    // The poll does not overwrite what the person is writing.
    await page.waitForTimeout(2_500);
    expect(await editor.inputValue()).toBe('{"faults": [{"fault": {"status": 418}}]}');
    // Nor JSON that does not parse.
    await editor.fill('{"faults": [');
    await panel.getByRole('button', { name: 'Apply' }).click();
    await page.locator('#faults-errors', { hasText: 'not valid JSON' }).waitFor();

    expect(await accessibilityProblems(page, 'section.resilience-panel')).toEqual([]);
    expect(await accessibilityProblems(page)).toEqual([]);

    // Clear faults: the list empties, and so does the sandbox's.
    await panel.getByRole('button', { name: 'Clear faults' }).click();
    await page.locator('#faults', { hasText: 'No faults' }).waitFor();
    expect(await page.locator('#faults tr[data-index]').count()).toBe(0);
    expect((await server.api('/sandbox/v1/faults')).body.faults).toEqual([]);
    expect(JSON.parse(await editor.inputValue())).toEqual({ faults: [] });
    expect(await page.locator('#faults-errors').isHidden()).toBe(true);

    // Clear journal: the list empties, and so does the sandbox's.
    await panel.getByRole('button', { name: 'Clear journal' }).click();
    await page.locator('#journal-message', { hasText: 'Cleared the journal' }).waitFor();
    expect(await page.locator('#journal tr[data-id]').count()).toBe(0);
    await page.locator('#journal', { hasText: 'No calls to /api/v1' }).waitFor();
    expect((await server.api('/sandbox/v1/requests')).body.data).toEqual([]);

    // Reads of the panel never came closer than a second apart (the poll, the stream, the actions).
    const reads = journalReads(dashboard);
    expect(reads.length).toBeGreaterThan(4);
    for (let i = 1; i < reads.length; i++) expect(reads[i]! - reads[i - 1]!, `read ${i}`).toBeGreaterThanOrEqual(900);
    // The refused create (503) and the refused faults (400) are the only errors the browser logged.
    expectClean([/status of 503/, /status of 400/]);
  });

  it('shows a read-only key the journal and the faults, with no editor and no clear button; stops reading on "Change key"', async () => {
    await server.api('/sandbox/v1/faults', { method: 'PUT', body: { faults: [{ match: { method: 'GET' }, fault: { latencyMs: 5 } }] } });
    await server.create({ description: 'Seen by the read-only key' });
    const dashboard = await open('/dashboard');
    const { page } = dashboard;
    await signIn(page, KEYS.readonly);
    const panel = page.locator('section.resilience-panel');
    await page.locator('#faults-read-only').waitFor();
    await page.locator('#journal tr[data-status="201"]').waitFor();
    expect(await page.locator('#faults tr[data-index="0"]').innerText()).toContain('5 ms late');
    expect(await page.locator('#faults-editor').isHidden()).toBe(true);
    expect(await panel.getByRole('button', { name: 'Apply' }).count()).toBe(0);
    expect(await panel.getByRole('button', { name: 'Clear faults' }).count()).toBe(0);
    expect(await panel.getByRole('button', { name: 'Clear journal' }).count()).toBe(0);
    expect(await panel.getByRole('textbox', { name: 'Faults (JSON)' }).count()).toBe(0);
    // New calls appear for it too.
    await server.api('/api/v1/payment-requests/pr_missing');
    await page.locator('#journal tr[data-status="404"]').waitFor();
    expect(await accessibilityProblems(page, 'section.resilience-panel')).toEqual([]);

    // "Change key" ends the panel's reads.
    await page.getByRole('button', { name: 'Change key' }).click();
    const before = journalReads(dashboard).length;
    await page.waitForTimeout(2_500);
    expect(journalReads(dashboard).length).toBe(before);
    expect(await page.locator('#journal tr').count()).toBe(0);
    // No refused call to find out what the key may do: nothing logged at all.
    expectClean();
  });
});
