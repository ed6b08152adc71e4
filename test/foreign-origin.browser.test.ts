/**
 * Issue 16's attack, in a real browser: a web page of another origin, open in the developer's
 * Chromium while the sandbox runs, tries to drive it. The page is served by a tiny loopback
 * server under the name `evil.test`, which Chromium maps to 127.0.0.1 (`--host-resolver-rules`),
 * so nothing leaves the machine. It cannot register a webhook, reset, pay through the keyless
 * pay-page call or read any `/sandbox/v1` answer, by fetch with CORS, by `no-cors` requests or by
 * a form; everything is checked through the API afterwards. The v1 API still answers it (CORS is
 * open there), the same page served from a loopback origin may drive the sandbox, and the
 * sandbox's own port reached under the foreign name (DNS rebinding) answers 421. Skipped without
 * a browser, unless LNPR_REQUIRE_BROWSER=1.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { browserForSuite, CHROMIUM_ARGS } from './support/browser.js';
import { createBody, KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

const SUITE = 'a page of another origin against the sandbox, in headless Chromium';
const executablePath = browserForSuite(SUITE);
const FOREIGN_NAME = 'evil.test';

/** The foreign site: one empty page, no scripts of its own (the test evaluates them). */
function startForeignSite(): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    if (request.url !== '/') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Some site</title><p>Nothing to see.</p>');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port })));
}

/** What a page's attempt came to: a readable answer, an opaque one, or a network error (CORS). */
type Outcome = { read: true; status: number; body: any } | { read: false; type: string } | { error: string };

describe.runIf(executablePath !== null)(SUITE, () => {
  let browser: Browser;
  let sandbox: RunningServer;
  let foreign: { server: Server; port: number };
  let context: BrowserContext;
  /** Status of every response the browser got from the sandbox, opaque ones included. */
  let seen: Array<{ method: string; url: string; status: number }>;

  beforeAll(async () => {
    [browser, sandbox, foreign] = await Promise.all([
      chromium.launch({ executablePath: executablePath!, args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${FOREIGN_NAME} 127.0.0.1`] }),
      startServer({ clock: 'frozen' }),
      startForeignSite(),
    ]);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
    await new Promise((resolve) => foreign?.server.close(resolve));
  });

  beforeEach(async () => {
    expect((await sandbox.api('/sandbox/v1/reset', { method: 'POST', body: { scope: 'all' } })).status).toBe(204);
    context = await browser.newContext();
    seen = [];
  });

  afterEach(async () => {
    await context.close();
  });

  async function visit(url: string): Promise<Page> {
    const page = await context.newPage();
    page.on('response', (response) => {
      if (response.url().startsWith(sandbox.url)) seen.push({ method: response.request().method(), url: response.url(), status: response.status() });
    });
    await page.goto(url);
    return page;
  }

  /** Runs `fetch(url, init)` in the page. */
  function fetchIn(page: Page, url: string, init: RequestInit = {}): Promise<Outcome> {
    return page.evaluate(
      async ({ url, init }) => {
        try {
          const response = await fetch(url, init);
          if (response.type === 'opaque') return { read: false as const, type: response.type };
          const text = await response.text();
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          return { read: true as const, status: response.status, body };
        } catch (error) {
          return { error: String(error) };
        }
      },
      { url, init: init as Record<string, unknown> },
    );
  }

  const bearer = { authorization: `Bearer ${KEYS.custodial}` };
  const jsonHeaders = { ...bearer, 'content-type': 'application/json' };

  it('cannot register a webhook, reset, pay or read /sandbox/v1; the v1 API still answers it', async () => {
    const pr = await sandbox.create();
    const page = await visit(`http://${FOREIGN_NAME}:${foreign.port}/`);
    const hook = JSON.stringify({ url: `http://${FOREIGN_NAME}:${foreign.port}/hook` });
    const api = sandbox.url;

    // With CORS (a preflight first): each a network error to the page.
    const withCors = {
      register: await fetchIn(page, `${api}/sandbox/v1/webhook-endpoints`, { method: 'POST', headers: jsonHeaders, body: hook }),
      reset: await fetchIn(page, `${api}/sandbox/v1/reset`, { method: 'POST', headers: bearer }),
      events: await fetchIn(page, `${api}/sandbox/v1/events`, { headers: bearer }),
      endpoints: await fetchIn(page, `${api}/sandbox/v1/webhook-endpoints`, { headers: bearer }),
      list: await fetchIn(page, `${api}/sandbox/v1/payment-requests`, { headers: bearer }),
      payPageView: await fetchIn(page, `${api}/sandbox/v1/pay-page/${pr.id}`),
      payPageStream: await fetchIn(page, `${api}/pay/${pr.id}/stream`),
    };
    for (const [name, outcome] of Object.entries(withCors)) expect(outcome, name).toEqual({ error: expect.stringMatching(/Failed to fetch/) });

    // Without CORS (simple requests, sent with no preflight): opaque to the page, refused by the sandbox.
    const noCors = {
      register: await fetchIn(page, `${api}/sandbox/v1/webhook-endpoints`, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: hook }),
      pay: await fetchIn(page, `${api}/sandbox/v1/pay-page/${pr.id}/pay`, { method: 'POST', mode: 'no-cors' }),
      complete: await fetchIn(page, `${api}/sandbox/v1/payment-requests/${pr.id}/complete`, { method: 'POST', mode: 'no-cors' }),
    };
    for (const [name, outcome] of Object.entries(noCors)) expect(outcome, name).toEqual({ read: false, type: 'opaque' });

    // An EventSource gets nothing either.
    const streamed = await page.evaluate(
      (url) =>
        new Promise<string>((resolve) => {
          const source = new EventSource(url);
          source.addEventListener('state', () => (source.close(), resolve('message')));
          source.onerror = () => (source.close(), resolve('error'));
        }),
      `${api}/pay/${pr.id}/stream`,
    );
    expect(streamed).toBe('error');

    // A form posting text/plain to the keyless pay call: the navigation lands on the sandbox's refusal.
    const [formAnswer] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/pay') && response.request().method() === 'POST'),
      page.evaluate((action) => {
        const form = Object.assign(document.createElement('form'), { method: 'POST', action, enctype: 'text/plain' });
        form.append(Object.assign(document.createElement('input'), { name: '{"x":"', value: '"}' }));
        document.body.append(form);
        form.submit();
      }, `${api}/sandbox/v1/pay-page/${pr.id}/pay`),
    ]);
    expect(formAnswer.status()).toBe(403);
    expect(await formAnswer.json()).toMatchObject({ error: { code: 'origin_not_allowed' } });

    // The sandbox itself refused every simple request it got (403), so nothing ran.
    const refusals = seen.filter((r) => r.method === 'POST');
    expect(refusals.length).toBeGreaterThanOrEqual(3);
    for (const r of refusals) expect(r.status, r.url).toBe(403);
    expect((await sandbox.api('/sandbox/v1/webhook-endpoints')).body.data).toEqual([]);
    expect((await sandbox.api(`/api/v1/payment-requests/${pr.id}`)).body.status).toBe('pending');
    expect((await sandbox.api('/sandbox/v1/payment-requests')).body.data.map((p: { id: string }) => p.id)).toEqual([pr.id]);

    // The v1 API is open to front ends of any origin.
    const page2 = await visit(`http://${FOREIGN_NAME}:${foreign.port}/`);
    expect(await fetchIn(page2, `${api}/api/v1/payment-requests/${pr.id}`, { headers: bearer })).toEqual({
      read: true,
      status: 200,
      body: expect.objectContaining({ id: pr.id, status: 'pending' }),
    });
    const created = await fetchIn(page2, `${api}/api/v1/payment-requests`, { method: 'POST', headers: jsonHeaders, body: JSON.stringify(createBody()) });
    expect(created).toMatchObject({ read: true, status: 201 });
  }, 30_000);

  it('the same page served from a loopback origin (http://localhost:PORT) may drive the sandbox', async () => {
    const page = await visit(`http://localhost:${foreign.port}/`);
    const clock = await fetchIn(page, `${sandbox.url}/sandbox/v1/clock`, { headers: bearer });
    expect(clock).toMatchObject({ read: true, status: 200, body: { frozen: true } });
    const registered = await fetchIn(page, `${sandbox.url}/sandbox/v1/webhook-endpoints`, {
      method: 'POST',
      headers: jsonHeaders,
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook' }),
    });
    expect(registered).toMatchObject({ read: true, status: 201, body: { url: 'http://127.0.0.1:9/hook' } });
  }, 30_000);

  it("DNS rebinding: the sandbox's own port under the foreign name answers 421, to the browser and to a raw request", async () => {
    const port = new URL(sandbox.url).port;
    const page = await context.newPage();
    const landing = await page.goto(`http://${FOREIGN_NAME}:${port}/dashboard`);
    expect(landing?.status()).toBe(421);
    // Now same-origin with the sandbox's port: no CORS in the way, only the Host check.
    for (const path of ['/sandbox/v1/webhook-endpoints', '/api/v1/payment-requests/pr_x', '/sandbox/v1/reset']) {
      const outcome = await fetchIn(page, path, { method: path.endsWith('reset') ? 'POST' : 'GET', headers: bearer });
      expect(outcome, path).toMatchObject({ read: true, status: 421, body: { error: { code: 'misdirected_request' } } });
    }
    const raw = await new Promise<number>((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, path: '/healthz', headers: { host: `${FOREIGN_NAME}:${port}` }, agent: false }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      request.on('error', reject);
      request.end();
    });
    expect(raw).toBe(421);
  }, 30_000);
});
