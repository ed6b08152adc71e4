/**
 * `createHandlers`: MSW request handlers over a sandbox engine, for `setupServer` (Node) and
 * `setupWorker` (browsers). The handlers translate and nothing more, so validation, errors, fees,
 * invoices, clocks and controls are the engine's, exactly as behind the Fastify server.
 * Browser-safe: the Node entry (`index.node.ts`) only swaps in the faster signer.
 */
import { delay, http, HttpResponse, type HttpHandler } from 'msw';
import type { SandboxStore } from '../core/store/sandbox-store.js';
import { loadFixtures } from '../fixtures/load-fixtures.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../sandbox.js';
import { openLocalStorageStore } from '../store/local-storage-store.js';
import { engineUrlOf, parseBaseUrl } from './api-location.js';
import { toApiRequest, toFetchResponse } from './translate.js';

/** Options of `createHandlers`: those of `createSandbox` (but `store`), and where and how to serve. */
export interface HandlersOptions extends Omit<SandboxOptions, 'store'> {
  /**
   * Where the API is: an absolute URL (`https://api.example.com`, with an optional path prefix
   * such as `/pay`), or a path prefix on any origin (`/pay`). Default: any origin, no prefix.
   * Only `/api/v1/...`, `/sandbox/v1/...` and `/healthz` under it are answered.
   */
  baseUrl?: string;
  /**
   * Where payment requests and clocks live: `memory` (default: gone with the page or process),
   * `localStorage` (browsers: a reload keeps them), or any SandboxStore.
   */
  storage?: 'memory' | 'localStorage' | SandboxStore;
  /** The `localStorage` key with `storage: 'localStorage'`; `lnpr-sandbox` by default. */
  storageKey?: string;
  /** A fixtures file's content (parsed JSON, as `lnpr fixtures` writes it), loaded before the first answer. */
  fixtures?: unknown;
}

/** MSW handlers (spread them into `setupServer` / `setupWorker`), with the sandbox behind them. */
export type SandboxHandlers = HttpHandler[] & {
  /** The engine itself, for in-process access to clocks, rules and the store. */
  sandbox: Sandbox;
  /** Resolves once the fixtures (if any) are loaded; rejects with loadFixtures' error if they cannot be. */
  ready: Promise<void>;
};

/** Creates a sandbox and the MSW handlers that serve it. */
export function createHandlers(options: HandlersOptions = {}): SandboxHandlers {
  const { baseUrl, storage, storageKey, fixtures, ...sandboxOptions } = options;
  const location = parseBaseUrl(baseUrl);
  const store = storeFor(storage, storageKey);
  const sandbox = createSandbox({ ...sandboxOptions, ...(store ? { store } : {}) });
  const ready = fixtures === undefined ? Promise.resolve() : loadFixtures(sandbox, fixtures).then(() => {});
  // Requests wait for `ready` and fail with its error; a caller who never awaits it must not get an unhandled rejection too.
  ready.catch(() => {});

  const handler = http.all(
    ({ request }) => engineUrlOf(new URL(request.url), location) !== undefined,
    async ({ request }) => {
      await ready;
      const url = engineUrlOf(new URL(request.url), location)!;
      const response = await sandbox.handle(await toApiRequest(request, url));
      // An API fault: delays are delays, a closed connection is a network error.
      const { transport } = response;
      if (transport?.delayMs !== undefined) await delay(transport.delayMs);
      if (transport?.drop === true) return HttpResponse.error();
      return toFetchResponse(response);
    },
  );
  return Object.assign([handler], { sandbox, ready });
}

/** The store for the `storage` option; undefined lets `createSandbox` use its memory store. */
function storeFor(storage: HandlersOptions['storage'], storageKey: string | undefined): SandboxStore | undefined {
  if (storage === undefined || storage === 'memory') return undefined;
  if (storage === 'localStorage') return openLocalStorageStore(storageKey !== undefined ? { key: storageKey } : {});
  return storage;
}
