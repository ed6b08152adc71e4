/**
 * The routes behind the dashboard and the hosted pay page, through the real server without a
 * browser: the list of an account's payment requests, the pay page's JSON and test wallet, the
 * pages and their 404 page, the live streams (authentication, one account's frames only, the pay
 * page's public frames), their bound, and all of it gone with the controls off.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { builtWebAssets, WEB_SOURCE_DIR } from '../src/http/web-assets.js';
import { buildWebFiles } from '../src/http/web-build.js';
import { PAGE_CSP } from '../src/http/web-pages.js';
import { returnUrlOf } from '../src/web/pay/return-url.js';
import { SseParser, type StreamMessage } from '../src/web/shared/sse.js';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { createBody, KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ clock: 'frozen' });
});
afterAll(() => server.close());
beforeEach(async () => {
  for (const key of [KEYS.custodial, KEYS.nwc]) expect((await server.api('/sandbox/v1/reset', { method: 'POST', key })).status).toBe(204);
});

const create = (overrides: Record<string, unknown> = {}, key: string = KEYS.custodial) => server.create(overrides, key);
const advance = (seconds: number, key: string = KEYS.custodial) => server.api('/sandbox/v1/clock/advance', { key, body: { seconds } });

/** An open event stream read from Node: messages as they come. */
interface OpenStream {
  status: number;
  headers: Headers;
  /** Resolves with the next message satisfying `match` (earlier ones are consumed). */
  next(match?: (message: StreamMessage) => boolean, timeoutMs?: number): Promise<StreamMessage>;
  /** Every message received so far. */
  received: StreamMessage[];
  close(): void;
}

async function openStream(path: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const abort = new AbortController();
  const response = await fetch(server.url + path, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const received: StreamMessage[] = [];
  let cursor = 0;
  const waiters: Array<() => void> = [];
  if (response.ok && response.body) {
    const parser = new SseParser();
    void (async () => {
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          received.push(...parser.feed(value));
          for (const wake of waiters.splice(0)) wake();
        }
      } catch {
        // Aborted by close().
      }
    })();
  }
  return {
    status: response.status,
    headers: response.headers,
    received,
    async next(match = () => true, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (cursor < received.length) {
          const message = received[cursor++]!;
          if (match(message)) return message;
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching message in ${timeoutMs} ms; got ${JSON.stringify(received)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    close: () => abort.abort(),
  };
}

describe('GET /sandbox/v1/payment-requests', () => {
  it("lists the key's account's requests, newest first, as GET shows them; ?limit= shortens it", async () => {
    const first = await create({ description: 'first' });
    const second = await create({ description: 'second' });
    const third = await create({ description: 'third' });
    await create({ description: 'not mine' }, KEYS.nwc);
    // A change keeps a request in its place: the order is that of creation.
    await server.api(`/sandbox/v1/payment-requests/${first.id}/complete`, { method: 'POST' });

    const all = await server.api('/sandbox/v1/payment-requests');
    expect(all.status).toBe(200);
    expect(all.body.data.map((pr: { id: string }) => pr.id)).toEqual([third.id, second.id, first.id]);
    expect(all.body.data[0]).toEqual((await server.api(`/api/v1/payment-requests/${third.id}`)).body);
    expect(all.body.data[2].status).toBe('completed');

    const limited = await server.api('/sandbox/v1/payment-requests?limit=2');
    expect(limited.body.data.map((pr: { id: string }) => pr.id)).toEqual([third.id, second.id]);
    // The read-only key sees the same account.
    expect((await server.api('/sandbox/v1/payment-requests', { key: KEYS.readonly })).body.data).toHaveLength(3);
    expect((await server.api('/sandbox/v1/payment-requests', { key: KEYS.nwc })).body.data.map((pr: { description: string }) => pr.description)).toEqual(['not mine']);
  });

  it("reads each request on the account's clock: a pending one past its expiry lists as expired", async () => {
    const pr = await create({ expiresIn: 60 });
    await advance(61);
    const { body } = await server.api('/sandbox/v1/payment-requests');
    expect(body.data[0]).toMatchObject({ id: pr.id, status: 'expired', updatedAt: pr.expiresAt });
  });

  it('validates the query and needs a key', async () => {
    for (const query of ['limit=0', 'limit=x', 'limit=-1', 'limit=1.5', 'status=pending']) {
      const res = await server.api(`/sandbox/v1/payment-requests?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    expect((await server.api('/sandbox/v1/payment-requests', { key: null })).status).toBe(401);
    expect((await server.api('/sandbox/v1/payment-requests', { key: 'sk_test_nope' })).status).toBe(401);
  });
});

describe('the pay page API (no key)', () => {
  it('GET /sandbox/v1/pay-page/{id}: public fields and the account clock only, never metadata, fees or the preimage', async () => {
    const pr = await create({ metadata: { secretMarker: 'metadata-must-not-show' } });
    const res = await server.api(`/sandbox/v1/pay-page/${pr.id}`, { key: null });
    expect(res.status).toBe(200);
    const clock = (await server.api('/sandbox/v1/clock')).body;
    expect(res.body).toEqual({
      id: pr.id,
      status: 'pending',
      amount: pr.amount,
      description: pr.description,
      invoice: pr.invoice,
      createdAt: pr.createdAt,
      expiresAt: pr.expiresAt,
      updatedAt: pr.updatedAt,
      clock,
    });
    expect(res.text).not.toContain('metadata-must-not-show');
  });

  it("reads on the request's account clock: expired once that clock passes expiresAt", async () => {
    const pr = await create({ expiresIn: 30 }, KEYS.nwc);
    await advance(31, KEYS.nwc);
    expect((await server.api(`/sandbox/v1/pay-page/${pr.id}`, { key: null })).body.status).toBe('expired');
  });

  it('POST /sandbox/v1/pay-page/{id}/pay completes it (the API sees it, an event records it); 409 once final; 404 for an unknown id', async () => {
    const pr = await create();
    const paid = await server.api(`/sandbox/v1/pay-page/${pr.id}/pay`, { method: 'POST', key: null });
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('completed');
    expect(paid.body).not.toHaveProperty('preimage');
    expect((await server.api(`/api/v1/payment-requests/${pr.id}`)).body.status).toBe('completed');
    const events = await server.api(`/sandbox/v1/events?paymentRequest=${pr.id}`);
    expect(events.body.data.map((event: { type: string }) => event.type)).toEqual(['payment_request.completed', 'payment_request.created']);

    const again = await server.api(`/sandbox/v1/pay-page/${pr.id}/pay`, { method: 'POST', key: null });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_transition');
    for (const path of ['/sandbox/v1/pay-page/pr_unknown', '/sandbox/v1/pay-page/pr_unknown/pay']) {
      const res = await server.api(path, { method: path.endsWith('/pay') ? 'POST' : 'GET', key: null });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('payment_request_not_found');
    }
  });
});

describe('the pages', () => {
  const get = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { headers, redirect: 'manual' });

  it('GET / redirects to /dashboard; the dashboard and a pay page are HTML with a strict CSP; an unknown id gets the 404 page', async () => {
    const root = await get('/');
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dashboard');

    const pr = await create();
    for (const [path, status, title] of [
      ['/dashboard', 200, 'Dashboard'],
      [`/pay/${pr.id}`, 200, 'Pay with Lightning'],
      ['/pay/pr_unknown', 404, 'Page not found'],
    ] as const) {
      const res = await get(path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
      expect(PAGE_CSP).toContain("default-src 'self'");
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await res.text();
      expect(html).toContain(`<title>${title}`);
      // No inline script, no other host: every src and href is a path of this origin.
      expect(html).not.toMatch(/<script(?![^>]*\ssrc=)/);
      for (const [, url] of html.matchAll(/(?:src|href)="([^"]*)"/g)) expect(url, path).toMatch(/^(\/|#)/);
    }
  });

  it('serves the scripts, styles and icon with their types and an ETag, and nothing else under /assets', async () => {
    for (const [name, type] of [
      ['dashboard.js', 'text/javascript; charset=utf-8'],
      ['pay.js', 'text/javascript; charset=utf-8'],
      ['dashboard.css', 'text/css; charset=utf-8'],
      ['pay.css', 'text/css; charset=utf-8'],
      ['icon.svg', 'image/svg+xml'],
    ]) {
      const res = await get(`/assets/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^"[\w-]+"$/);
      expect((await get(`/assets/${name}`, { 'if-none-match': etag })).status).toBe(304);
    }
    for (const path of ['/assets/nothing.js', '/assets/dashboard.html', '/assets/..%2Fpackage.json', '/assets/']) expect((await get(path)).status, path).toBe(404);
  });

  it('serves the files `npm run build` writes to dist/web (an installed package has no source)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lnpr-web-'));
    try {
      for (const [name, contents] of await buildWebFiles(WEB_SOURCE_DIR)) writeFileSync(join(dir, name), contents);
      const installed = await startServer({}, { web: { assets: builtWebAssets(dir) } });
      try {
        const page = await fetch(`${installed.url}/dashboard`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('<label for="api-key">API key</label>');
        expect((await fetch(`${installed.url}/assets/pay.js`)).status).toBe(200);
      } finally {
        await installed.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are part of the controls: with --no-controls every page, asset, stream and pay-page call is a 404', async () => {
    const bare = await startServer({ settings: { controls: false } });
    try {
      const pr = (await bare.api('/api/v1/payment-requests', { body: createBody() })).body;
      for (const path of ['/', '/dashboard', `/pay/${pr.id}`, `/pay/${pr.id}/stream`, '/assets/dashboard.js', '/sandbox/v1/stream', `/sandbox/v1/pay-page/${pr.id}`, '/sandbox/v1/payment-requests']) {
        const res = await bare.api(path);
        expect(res.status, path).toBe(404);
        expect(res.body.error.code).toBe('route_not_found');
      }
    } finally {
      await bare.close();
    }
  });
});

describe("the pay page's ?return= URL", () => {
  const returnOf = (url: string) => returnUrlOf(`?return=${encodeURIComponent(url)}`)?.href;

  it('takes an absolute http: or https: URL, as the browser writes it', () => {
    expect(returnOf('https://shop.example/thanks')).toBe('https://shop.example/thanks');
    expect(returnOf('https://shop.example/thanks?order=A-1#done')).toBe('https://shop.example/thanks?order=A-1#done');
    expect(returnOf('http://127.0.0.1:3000/done')).toBe('http://127.0.0.1:3000/done');
    expect(returnOf('HTTPS://Shop.Example')).toBe('https://shop.example/');
    expect(returnUrlOf('?return=https%3A%2F%2Fshop.example%2F&other=1')?.href).toBe('https://shop.example/');
  });

  it('ignores everything else: other schemes, relative or malformed URLs, credentials, nothing at all', () => {
    for (const url of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'ftp://shop.example/',
      'blob:https://shop.example/1',
      '/thanks',
      '//evil.example/',
      'shop.example/thanks',
      'https://',
      'http://[::1',
      'https://shop.example@evil.example/',
      'https://user:pass@shop.example/',
      '',
      '   ',
    ]) {
      expect(returnOf(url), JSON.stringify(url)).toBeUndefined();
    }
    expect(returnUrlOf('')).toBeUndefined();
    expect(returnUrlOf('?returnUrl=https://shop.example/')).toBeUndefined();
  });
});

describe('the live streams', () => {
  it('GET /sandbox/v1/stream answers 401 without a valid key, in the API error shape', async () => {
    for (const headers of [{}, { authorization: 'Bearer sk_test_nope' }, { authorization: 'sk_test_custodial' }] as Array<Record<string, string>>) {
      const stream = await openStream('/sandbox/v1/stream', headers);
      expect(stream.status).toBe(401);
      expect(stream.headers.get('www-authenticate')).toContain('Bearer');
      expect(stream.headers.get('content-type')).toContain('application/json');
    }
  });

  it("sends the key's account's clock, events and delivery attempts, and nothing of another account", async () => {
    const receiver: WebhookReceiver = await startReceiver();
    const custodial = await openStream('/sandbox/v1/stream', { authorization: `Bearer ${KEYS.readonly}` });
    try {
      expect(custodial.status).toBe(200);
      expect(custodial.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(custodial.headers.get('cache-control')).toBe('no-store');
      const clock = await custodial.next();
      expect(clock.event).toBe('clock');
      expect(JSON.parse(clock.data)).toEqual((await server.api('/sandbox/v1/clock')).body);

      await server.api('/sandbox/v1/webhook-endpoints', { body: { url: receiver.url } });
      const theirs = await create({ description: 'theirs' }, KEYS.nwc);
      await advance(600, KEYS.nwc);
      const mine = await create({ description: 'mine' });
      const created = await custodial.next((m) => m.event === 'payment_request');
      expect(JSON.parse(created.data)).toMatchObject({ type: 'payment_request.created', data: { id: mine.id, description: 'mine' } });
      const delivery = JSON.parse((await custodial.next((m) => m.event === 'delivery')).data);
      expect(delivery).toMatchObject({ status: 'succeeded', responseStatus: 204, attempt: 1 });

      await server.api(`/sandbox/v1/payment-requests/${mine.id}/complete`, { method: 'POST' });
      const completed = await custodial.next((m) => m.event === 'payment_request');
      expect(JSON.parse(completed.data)).toMatchObject({ type: 'payment_request.completed', data: { id: mine.id, status: 'completed' } });
      const moved = await advance(3600);
      expect(JSON.parse((await custodial.next((m) => m.event === 'clock')).data)).toEqual(moved.body);

      const everything = custodial.received.map((m) => m.data).join('\n');
      expect(everything).not.toContain(theirs.id);
      expect(custodial.received.filter((m) => m.event === 'clock')).toHaveLength(2);
    } finally {
      custodial.close();
      await receiver.close();
    }
  });

  it("GET /pay/{id}/stream (no key) sends the pay page's view at the start and on every change, never metadata; 404 for an unknown id", async () => {
    const pr = await create({ metadata: { marker: 'stream-must-not-show' }, expiresIn: 120 });
    const stream = await openStream(`/pay/${pr.id}/stream`);
    try {
      expect(stream.status).toBe(200);
      const first = JSON.parse((await stream.next()).data);
      expect(first).toEqual((await server.api(`/sandbox/v1/pay-page/${pr.id}`, { key: null })).body);
      await advance(60);
      const later = JSON.parse((await stream.next((m) => m.event === 'state')).data);
      expect(Date.parse(later.clock.now) - Date.parse(first.clock.now)).toBe(60_000);
      await server.api(`/sandbox/v1/pay-page/${pr.id}/pay`, { method: 'POST', key: null });
      const paid = JSON.parse((await stream.next((m) => m.event === 'state' && JSON.parse(m.data).status !== 'pending')).data);
      expect(paid.status).toBe('completed');
      expect(stream.received.map((m) => m.data).join('\n')).not.toContain('stream-must-not-show');
    } finally {
      stream.close();
    }
    const unknown = await openStream('/pay/pr_unknown/stream');
    expect(unknown.status).toBe(404);
  });

  it('says "gone" when the request is deleted (a reset)', async () => {
    const pr = await create();
    const stream = await openStream(`/pay/${pr.id}/stream`);
    try {
      await stream.next();
      await server.api('/sandbox/v1/reset', { method: 'POST' });
      expect((await stream.next((m) => m.event !== 'state')).event).toBe('gone');
    } finally {
      stream.close();
    }
  });

  it('keeps at most maxStreams open (503 too_many_streams), frees a slot when a client leaves, and ends them all on close', async () => {
    const small = await startServer({}, { web: { maxStreams: 2 } });
    // node:http with a connection per request, so no spare pooled connection outlives the test.
    const open = () =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: Promise<string>; leave(): void }>((resolve, reject) => {
        const request = httpGet(`${small.url}/sandbox/v1/stream`, { agent: false, headers: { authorization: `Bearer ${KEYS.custodial}` } }, (response) => {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          const body = new Promise<string>((done) => response.on('end', () => done(text)).on('close', () => done(text)));
          resolve({ status: response.statusCode!, headers: response.headers, body, leave: () => request.destroy() });
        });
        request.on('error', reject);
      });
    const a = await open();
    const b = await open();
    const refused = await open();
    expect([a.status, b.status, refused.status]).toEqual([200, 200, 503]);
    expect(refused.headers['retry-after']).toBe('5');
    expect(JSON.parse(await refused.body).error.code).toBe('too_many_streams');
    a.leave();
    let again = await open();
    for (let i = 0; again.status === 503 && i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await open();
    }
    expect(again.status).toBe(200);
    const started = Date.now();
    await small.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    // The server ended the open streams rather than waiting for the clients.
    expect(await b.body).toMatch(/^retry: 3000\n/);
    expect(await again.body).toContain('event: clock');
  });
});
