/**
 * The same sandbox behind both transports, for tests that run each case through both: the real
 * server (Fastify on 127.0.0.1, `startServer`) and the MSW handlers (`createHandlers` under one
 * `setupServer`, reached by fetch at a made-up base URL). Each transport hands out fresh accounts
 * (`POST /sandbox/v1/accounts` with the admin key), so cases that count things do not see each
 * other. The MSW side lets through what goes to 127.0.0.1: the real servers and webhook receivers
 * (the engine's webhook sender uses fetch under MSW, which `setupServer` intercepts).
 */
import { setupServer } from 'msw/node';
import { createHandlers, type SandboxHandlers } from '../../src/msw/index.node.js';
import type { Sandbox, SandboxOptions } from '../../src/sandbox.js';
import { unhandledRequestsFail } from './msw-under-test.js';
import { api, KEYS, startServer, type ApiInit, type ApiResult, type RunningServer } from './sandbox-server.js';

/** A fresh account, as `POST /sandbox/v1/accounts` answers it. */
export interface FreshAccount {
  id: string;
  secret: string;
  readOnly: string;
}

/** One transport over its own sandbox. */
export interface Transport {
  name: 'server' | 'msw';
  /** Where to fetch. */
  url: string;
  /** The engine behind it, for in-process calls. */
  sandbox: Sandbox;
  /** `api` of test/support/sandbox-server.ts against this transport. */
  api(path: string, init?: ApiInit): Promise<ApiResult>;
  /** Plain fetch of `url + path` with the key (and JSON body, if any): for calls that may reject. */
  raw(path: string, init?: ApiInit): Promise<Response>;
  /** A new custodial account. */
  account(): Promise<FreshAccount>;
}

/** Both transports, each over sandboxes made with these options, and how to stop them. */
export interface TwoTransports {
  /** By name; filled by `start`. */
  get(name: Transport['name']): Transport;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The MSW handlers, for `mswServer`. */
  handlers: SandboxHandlers;
}

let hosts = 0;

/** Makes (not yet starts) a server and MSW handlers over sandboxes with `options`. */
export function twoTransports(options: SandboxOptions = {}): TwoTransports {
  const mswUrl = `http://transport-${process.pid}-${++hosts}.msw.test`;
  const handlers = createHandlers({ baseUrl: mswUrl, ...options });
  let server: RunningServer | undefined;
  const transports = new Map<Transport['name'], Transport>();
  return {
    get(name) {
      const transport = transports.get(name);
      if (transport === undefined) throw new Error(`transport ${name} is not started`);
      return transport;
    },
    async start() {
      server = await startServer(options);
      transports.set('server', transportOf('server', server.url, server.sandbox));
      transports.set('msw', transportOf('msw', mswUrl, handlers.sandbox));
    },
    async stop() {
      await server?.close();
    },
    // The handlers go into one setupServer per test file (see `mswServer`).
    handlers,
  };
}

/** One `setupServer` for these transports' MSW handlers; listening lets 127.0.0.1 through. */
export function mswServer(...sets: TwoTransports[]) {
  const msw = setupServer(...sets.flatMap((set) => set.handlers));
  return {
    listen: () => msw.listen(unhandledRequestsFail((url) => url.startsWith('http://127.0.0.1:'))),
    close: () => msw.close(),
  };
}

function transportOf(name: Transport['name'], url: string, sandbox: Sandbox): Transport {
  return {
    name,
    url,
    sandbox,
    api: (path, init) => api(url, path, init),
    raw(path, init = {}) {
      const key = init.key === undefined ? KEYS.custodial : init.key;
      const hasBody = init.body !== undefined || init.rawBody !== undefined;
      return fetch(url + path, {
        method: init.method ?? (hasBody ? 'POST' : 'GET'),
        headers: {
          ...(key !== null ? { authorization: `Bearer ${key}` } : {}),
          ...(hasBody ? { 'content-type': 'application/json' } : {}),
          ...init.headers,
        },
        ...(hasBody ? { body: init.rawBody ?? JSON.stringify(init.body) } : {}),
      });
    },
    async account() {
      const created = await api(url, '/sandbox/v1/accounts', { key: KEYS.admin, body: { mode: 'custodial' } });
      if (created.status !== 201) throw new Error(`POST /sandbox/v1/accounts answered ${created.status}: ${created.text}`);
      return { id: created.body.id, secret: created.body.keys.secret, readOnly: created.body.keys.readOnly };
    },
  };
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits for the start of the next wall-clock second (a few ms into it). */
export async function nextSecond(): Promise<void> {
  const start = Math.floor(Date.now() / 1000);
  await sleep(1000 - (Date.now() % 1000) + 5);
  while (Math.floor(Date.now() / 1000) === start) await sleep(2);
  if (Date.now() % 1000 >= 100) await nextSecond();
}

/**
 * Prepares (e.g. fresh accounts), then runs `burst` from the start of a wall-clock second, and
 * returns both, provided the burst finished within that second (a rate limit's window); otherwise
 * (a loaded machine) prepares and tries again, at most `attempts` times.
 */
export async function withinOneSecond<P, T>(prepare: () => Promise<P>, burst: (prepared: P) => Promise<T>, attempts = 3): Promise<{ prepared: P; result: T }> {
  for (let attempt = 1; ; attempt++) {
    const prepared = await prepare();
    await nextSecond();
    const second = Math.floor(Date.now() / 1000);
    const result = await burst(prepared);
    if (Math.floor(Date.now() / 1000) === second) return { prepared, result };
    if (attempt >= attempts) throw new Error(`the burst never fitted in one second (${attempts} attempts)`);
  }
}
