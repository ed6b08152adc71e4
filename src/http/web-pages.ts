/**
 * The web pages, served by the Fastify transport: `/` redirects to `/dashboard`; `/pay/{id}` is
 * the hosted pay page of one payment request (a 404 page for an unknown id); `/assets/*` holds
 * their scripts, styles and icon; the live streams (`live-streams.ts`); and the dashboard's own
 * data, `GET /dashboard/api/nwc-requests` (`nwc-requests.ts`) and `GET /dashboard/api/key`
 * (`dashboard-key.ts`). Part of the control surface: a server without controls registers none of
 * it, so all of it answers 404.
 *
 * The pages are clients of the API like any other (fetch to `/api/v1` and `/sandbox/v1`); this
 * file only sends files. Every HTML answer carries a strict Content-Security-Policy: scripts,
 * styles, images and connections from this origin only, no inline script, no framing. It keeps
 * the pages safe, and proves that nothing they do leaves the sandbox.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../core/engine.js';
import type { RequestHandler } from '../core/pipeline/handler.js';
import { registerDashboardKey } from './dashboard-key.js';
import type { ClientAddresses } from './client-address.js';
import { registerLiveStreams, liveSourceOf, type LiveSource } from './live-streams.js';
import { registerNwcRequests, type NwcRequestLog } from './nwc-requests.js';
import { defaultWebAssets, type WebAssets } from './web-assets.js';

/** What the pages need: the live source, and where the built files come from. */
export interface WebPagesOptions {
  live: LiveSource;
  /** The built pages; by default built from `src/web` in a checkout, or read from `dist/web`. */
  assets?: WebAssets;
  /** Live streams open at once, all clients; 100 by default. */
  maxStreams?: number;
  /** Live streams one client (remote address) may hold; 10 by default. */
  maxStreamsPerClient?: number;
  /** Live streams of one pay page; 5 by default. */
  maxStreamsPerPayPage?: number;
  /**
   * The recent NIP-47 requests the dashboard shows, fed by `createNodeSandbox({ onNwcRequest:
   * log.record })`; without it the dashboard's list stays empty.
   */
  nwcRequests?: NwcRequestLog;
  /** Who a request comes from, for the per-client stream cap (`client-address.ts`); the server sets it. */
  clientAddresses?: ClientAddresses;
}

/** The pages of an engine, or undefined when its controls are off (then there are none). */
export function webPagesOf(engine: Engine, options: Omit<WebPagesOptions, 'live'> = {}): WebPagesOptions | undefined {
  return engine.settings.controls ? { live: liveSourceOf(engine), ...options } : undefined;
}

/** The Content-Security-Policy of every page. */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // The pay page's URL holds the request's id, its only secret: never hand it to another site.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
} as const;

const ASSET_NAMES = /^[a-z-]+\.(?:js|css|svg)$/;

/** Registers the pages on `app` (nothing when `options` is undefined). */
export function registerWebPages(app: FastifyInstance, handle: RequestHandler, options: WebPagesOptions | undefined): void {
  if (options === undefined) return;
  const assets = options.assets ?? defaultWebAssets();
  const page = async (reply: FastifyReply, name: string, status = 200): Promise<FastifyReply> => {
    const asset = await assets.get(name);
    if (asset === undefined) throw new Error(`the web pages lack ${name}`);
    return reply.code(status).headers(PAGE_HEADERS).header('content-type', asset.contentType).send(asset.body);
  };
  const methods = ['GET', 'HEAD'];

  app.route({ method: methods, url: '/', handler: (_request, reply) => reply.redirect('/dashboard', 302) });
  app.route({ method: methods, url: '/dashboard', handler: (_request, reply) => page(reply, 'dashboard.html') });
  app.route<{ Params: { id: string } }>({
    method: methods,
    url: '/pay/:id',
    handler: async (request, reply) => {
      const answer = await handle({ method: 'GET', url: `/sandbox/v1/pay-page/${encodeURIComponent(request.params.id)}`, headers: {} });
      return page(reply, answer.status === 200 ? 'pay.html' : 'not-found.html', answer.status === 200 ? 200 : 404);
    },
  });
  app.route<{ Params: { name: string } }>({
    method: methods,
    url: '/assets/:name',
    handler: async (request: FastifyRequest<{ Params: { name: string } }>, reply) => {
      const { name } = request.params;
      const asset = ASSET_NAMES.test(name) ? await assets.get(name) : undefined;
      if (asset === undefined) return page(reply, 'not-found.html', 404);
      reply.headers({ etag: asset.etag, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      return reply.header('content-type', asset.contentType).send(asset.body);
    },
  });
  const { live, maxStreams, maxStreamsPerClient, maxStreamsPerPayPage, clientAddresses } = options;
  registerLiveStreams(app, { live, handle, maxStreams, maxStreamsPerClient, maxStreamsPerPayPage, ...(clientAddresses ? { clientAddresses } : {}) });
  registerNwcRequests(app, handle, options.nwcRequests);
  registerDashboardKey(app, live);
}
