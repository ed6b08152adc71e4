/**
 * `/docs/` on the real server (port 0, loopback), from a small built site in a temporary folder:
 * files with their types, the site's own CSP (with the build's hashes), caching, no way out of
 * the folder, with or without the controls; an unbuilt site answers 503 `docs_not_built` naming
 * the command that builds it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../src/http/server.js';
import { webPagesOf } from '../src/http/web-pages.js';
import { createNodeSandbox, type NodeSandbox } from '../src/sandbox.node.js';
import { socketRequest } from './support/raw-http.js';

const HASH = "'sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='";
let site: string;
let unbuilt: string;
let sandbox: NodeSandbox;
const servers: FastifyInstance[] = [];

async function serve(docs: string, controls = true): Promise<string> {
  const own = controls ? sandbox : await createNodeSandbox({ settings: { controls: false } });
  // As lnpr serve wires it: the pages only with the controls, the docs either way.
  const app = await buildServer({ handle: own.handle, docs, web: webPagesOf(own) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  servers.push(app);
  return app.listeningOrigin;
}

beforeAll(async () => {
  site = mkdtempSync(join(tmpdir(), 'lnpr-docs-'));
  unbuilt = mkdtempSync(join(tmpdir(), 'lnpr-docs-unbuilt-'));
  mkdirSync(join(site, 'assets'));
  mkdirSync(join(site, 'guides'));
  writeFileSync(join(site, 'index.html'), '<!doctype html><title>Home</title>');
  writeFileSync(join(site, 'guides', 'webhooks.html'), '<!doctype html><title>Webhooks</title>');
  writeFileSync(join(site, '404.html'), '<!doctype html><title>Not found</title>');
  writeFileSync(join(site, 'assets', 'app.Ab12Cd34.js'), 'console.log(1)');
  writeFileSync(join(site, 'assets', 'style.css'), 'body{}');
  writeFileSync(join(site, 'csp.json'), JSON.stringify({ scriptHashes: [HASH], styleHashes: [], styleAttributeHashes: [] }));
  sandbox = await createNodeSandbox();
});

afterAll(async () => {
  await Promise.all(servers.map((app) => app.close()));
  rmSync(site, { recursive: true, force: true });
  rmSync(unbuilt, { recursive: true, force: true });
});

describe('the documentation site at /docs/', () => {
  it('serves its pages with their type and its own CSP, this origin only plus the build hashes', async () => {
    const url = await serve(site);
    const home = await fetch(`${url}/docs/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await home.text()).toContain('<title>Home</title>');
    const csp = home.headers.get('content-security-policy')!;
    expect(csp).toContain(`script-src 'self' ${HASH}`);
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/https?:|\*|unsafe-inline|unsafe-eval/);
    expect(home.headers.get('cache-control')).toBe('no-cache');
    expect(home.headers.get('x-content-type-options')).toBe('nosniff');

    const page = await fetch(`${url}/docs/guides/webhooks.html`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Webhooks');
    // A clean URL finds its page too.
    expect((await fetch(`${url}/docs/guides/webhooks`)).status).toBe(200);
    const redirect = await fetch(`${url}/docs`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([301, '/docs/']);
  });

  it('caches hashed assets for good and revalidates the rest by ETag', async () => {
    const url = await serve(site);
    const script = await fetch(`${url}/docs/assets/app.Ab12Cd34.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const style = await fetch(`${url}/docs/assets/style.css`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(style.headers.get('cache-control')).toBe('no-cache');
    const again = await fetch(`${url}/docs/assets/style.css`, { headers: { 'if-none-match': style.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('answers 404 (its not-found page) for a missing file, and never serves a file outside the site', async () => {
    const url = await serve(site);
    const missing = await fetch(`${url}/docs/nope.html`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('Not found');
    for (const path of ['/docs/%2e%2e/package.json', '/docs/..%2f..%2fpackage.json', '/docs/guides/%2e%2e/%2e%2e/csp.json', '/docs/%00', '/docs/..\\package.json', '/docs/assets/', '/docs/%E0%A4%A']) {
      const answer = await socketRequest(url, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close`);
      expect(answer.status, path).toBe(404);
    }
  });

  it('is served without the controls too, and keeps the Host check', async () => {
    const url = await serve(site, false);
    expect((await fetch(`${url}/docs/`)).status).toBe(200);
    expect((await fetch(`${url}/dashboard`)).status).toBe(404);
    expect((await fetch(`${url}/sandbox/v1/clock`, { headers: { authorization: 'Bearer sk_test_custodial' } })).status).toBe(404);
    const rebound = await socketRequest(url, 'GET /docs/ HTTP/1.1\r\nHost: evil.example\r\nConnection: close');
    expect(rebound.status).toBe(421);
  });

  it('answers 503 docs_not_built naming the command when the site is not built, never an empty 200', async () => {
    const url = await serve(unbuilt);
    for (const path of ['/docs/', '/docs/guides/webhooks.html']) {
      const answer = await fetch(`${url}${path}`);
      expect(answer.status).toBe(503);
      const body = (await answer.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('docs_not_built');
      expect(body.error.message).toContain('npm run docs:build');
    }
  });
});
