/** Starts the real server (Fastify over the engine) on 127.0.0.1, port 0, for tests. */
import { NwcRequestLog } from '../../src/http/nwc-requests.js';
import { buildServer } from '../../src/http/server.js';
import type { LingerLimits } from '../../src/http/oversized-body.js';
import { webPagesOf, type WebPagesOptions } from '../../src/http/web-pages.js';
import { createNodeSandbox, type NodeSandbox, type NodeSandboxOptions } from '../../src/sandbox.node.js';
import { expect } from 'vitest';

/** A running sandbox server. */
export interface RunningServer {
  url: string;
  sandbox: NodeSandbox;
  /** fetch against the server with a JSON body and a key (default: the custodial test key). */
  api(path: string, init?: ApiInit): Promise<ApiResult>;
  /** Creates a payment request (`createBody` with overrides), expects a 201 and returns the body. */
  create(overrides?: Record<string, unknown>, key?: string): Promise<any>;
  close(): Promise<void>;
}

/** What `api` sends. `key: null` sends no Authorization header. */
export interface ApiInit {
  method?: string;
  key?: string | null;
  body?: unknown;
  /** Sent as is, instead of JSON of `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** What `api` returns: the status, the headers and the body parsed as JSON (or the text if it is not JSON). */
export interface ApiResult {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** The well-known test keys of CONTRACT.md. */
export const KEYS = { custodial: 'sk_test_custodial', nwc: 'sk_test_nwc', readonly: 'sk_test_readonly', admin: 'sk_test_admin' } as const;

/** A valid create body, with overrides. */
export function createBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: 1000, description: 'Coffee beans', destinationWallet: 'merchant@example.com', ...overrides };
}

/** Starts a server with these sandbox options and server options; it serves the web pages as `lnpr serve` does. */
export async function startServer(
  options: NodeSandboxOptions = {},
  serverOptions: { bodyLimit?: number; linger?: LingerLimits; web?: Omit<WebPagesOptions, 'live'> } = {},
): Promise<RunningServer> {
  // The dashboard's recent NIP-47 requests, as `lnpr serve` keeps them (and the caller's own listener, if any).
  const nwcRequests = new NwcRequestLog();
  const { onNwcRequest } = options;
  const sandbox = await createNodeSandbox({ ...options, onNwcRequest: (record) => (nwcRequests.record(record), onNwcRequest?.(record)) });
  const { web, ...rest } = serverOptions;
  const app = await buildServer({ handle: sandbox.handle, ...rest, web: webPagesOf(sandbox, { nwcRequests, ...web }), relay: sandbox.relay });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = app.listeningOrigin;
  return {
    url,
    sandbox,
    api: (path, init = {}) => api(url, path, init),
    async create(overrides = {}, key = KEYS.custodial) {
      const res = await api(url, '/api/v1/payment-requests', { key, body: createBody(overrides) });
      expect(res.status).toBe(201);
      return res.body;
    },
    async close() {
      await app.close();
      sandbox.close();
      await sandbox.store.close();
    },
  };
}

/** One request to `baseUrl + path`. */
export async function api(baseUrl: string, path: string, init: ApiInit = {}): Promise<ApiResult> {
  const key = init.key === undefined ? KEYS.custodial : init.key;
  const hasBody = init.body !== undefined || init.rawBody !== undefined;
  const response = await fetch(baseUrl + path, {
    method: init.method ?? (hasBody ? 'POST' : 'GET'),
    headers: {
      ...(key !== null ? { authorization: `Bearer ${key}` } : {}),
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    ...(hasBody ? { body: init.rawBody ?? JSON.stringify(init.body) } : {}),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: tests that expect JSON will fail on `body` being a string.
  }
  return { status: response.status, headers: response.headers, body, text };
}
