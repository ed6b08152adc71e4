/**
 * Slow and idle clients are cut, so connections dribbling bytes cannot hold every file descriptor
 * (issue 16): headers within the headers limit, a whole request within the request limit, an idle
 * keep-alive connection after its own. Run with short limits (1 s, 2 s) given to `buildServer`;
 * then `lnpr serve` itself, in this process, is checked to configure 10 s and 30 s. At most 45
 * connections, all to 127.0.0.1.
 */
import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildServer } from '../src/http/server.js';
import { webPagesOf } from '../src/http/web-pages.js';
import { createNodeSandbox } from '../src/sandbox.node.js';
import type { Sandbox } from '../src/sandbox.js';
import { api, KEYS } from './support/sandbox-server.js';

// Every server built in this file, so the `lnpr serve` test can read the one serve builds.
const built = vi.hoisted(() => [] as FastifyInstance[]);
vi.mock(import('../src/http/server.js'), async (importOriginal) => {
  const original = await importOriginal();
  return {
    ...original,
    buildServer: async (options) => {
      const app = await original.buildServer(options);
      built.push(app);
      return app;
    },
  };
});

const HEADERS_MS = 1_000;
const REQUEST_MS = 2_000;

let sandbox: Sandbox;
let app: FastifyInstance;
let port: number;
beforeAll(async () => {
  sandbox = await createNodeSandbox();
  app = await buildServer({ handle: sandbox.handle, web: webPagesOf(sandbox), headersTimeoutMs: HEADERS_MS, requestTimeoutMs: REQUEST_MS, keepAliveTimeoutMs: 500 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(app.listeningOrigin).port);
});
afterAll(async () => {
  await app.close();
  sandbox.close();
  await sandbox.store.close();
});

/** A raw connection, timed: when it closed (ms after opening) and what the server wrote. */
interface Timed {
  socket: Socket;
  closedAfter: Promise<number>;
  received(): string;
}

function open(onConnect: (socket: Socket) => void = () => {}): Timed {
  const socket = connect(port, '127.0.0.1');
  const openedAt = performance.now();
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {});
  socket.on('connect', () => onConnect(socket));
  // Bounded: whatever happens, the test's side closes after 8 s.
  const guard = setTimeout(() => socket.destroy(), 8_000);
  const closedAfter = new Promise<number>((resolve) =>
    socket.on('close', () => {
      clearTimeout(guard);
      resolve(performance.now() - openedAt);
    }),
  );
  return { socket, closedAfter, received: () => received };
}

/** Writes one byte every `everyMs` until the socket closes. */
function dribble(socket: Socket, everyMs: number): void {
  const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write('a')), everyMs);
  socket.on('close', () => clearInterval(timer));
}

const HEAD = `POST /api/v1/payment-requests HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEYS.custodial}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`;

describe('slow clients are cut', () => {
  it('a body dribbled a byte a second is cut at the request limit, many at once, while others are served', async () => {
    const dribblers = Array.from({ length: 40 }, () =>
      open((socket) => {
        socket.write(HEAD);
        dribble(socket, 1_000);
      }),
    );
    // Past the headers limit, the dribblers are still open (their headers came in time) and the
    // server answers others.
    await new Promise((resolve) => setTimeout(resolve, HEADERS_MS + 300));
    expect((await api(app.listeningOrigin, '/healthz', { key: null })).status).toBe(200);
    const times = await Promise.all(dribblers.map((d) => d.closedAfter));
    for (const time of times) {
      expect(time).toBeGreaterThan(REQUEST_MS - 100);
      // The connection checker runs every 200 ms here (a tenth of the shorter limit).
      expect(time).toBeLessThan(REQUEST_MS + 1_000);
    }
    // Cut, not answered: nothing a slowloris could use, and nothing was created.
    for (const d of dribblers) expect(d.received()).toBe('');
    expect((await api(app.listeningOrigin, '/sandbox/v1/payment-requests', { key: KEYS.custodial })).body.data).toEqual([]);
    expect((await api(app.listeningOrigin, '/healthz', { key: null })).status).toBe(200);
  }, 15_000);

  it('a connection that sends nothing, or headers a byte at a time, is cut at the headers limit', async () => {
    const silent = open();
    const slowHeaders = open((socket) => {
      socket.write('GET /healthz HTTP/1.1\r\n');
      dribble(socket, 100);
    });
    for (const time of await Promise.all([silent.closedAfter, slowHeaders.closedAfter])) {
      expect(time).toBeGreaterThan(HEADERS_MS - 100);
      expect(time).toBeLessThan(HEADERS_MS + 1_000);
    }
  }, 10_000);

  it('an idle keep-alive connection is closed after the keep-alive limit', async () => {
    const idle = open((socket) => socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    const time = await idle.closedAfter;
    expect(idle.received()).toMatch(/^HTTP\/1\.1 200/);
    // Node keeps it a little longer than the limit it announces (`Keep-Alive: timeout=…`).
    expect(time).toBeLessThan(3_000);
  }, 10_000);

  it('the limits are on requests, not responses: a live stream stays open past them', async () => {
    const stream = open((socket) => socket.write(`GET /sandbox/v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEYS.custodial}\r\n\r\n`));
    const outcome = await Promise.race([stream.closedAfter.then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('open'), REQUEST_MS + 800))]);
    expect(outcome).toBe('open');
    expect(stream.received()).toMatch(/^HTTP\/1\.1 200[\s\S]*event: clock/);
    stream.socket.destroy();
  }, 10_000);
});

describe('lnpr serve', () => {
  it('gives clients 10 s for headers, 30 s for a whole request, 5 s idle between requests', async () => {
    const { serve } = await import('../src/cli/serve.js');
    const before = built.length;
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    let served: Promise<void>;
    try {
      served = serve(['--port', '0', '--log-level', 'silent']);
      const deadline = Date.now() + 10_000;
      while ((built.length === before || built.at(-1)!.addresses().length === 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      write.mockRestore();
    }
    const server = built.at(-1)!.server;
    try {
      expect(built.length).toBe(before + 1);
      expect({ headersTimeout: server.headersTimeout, requestTimeout: server.requestTimeout, keepAliveTimeout: server.keepAliveTimeout }).toEqual({
        headersTimeout: 10_000,
        requestTimeout: 30_000,
        keepAliveTimeout: 5_000,
      });
    } finally {
      // serve stops on SIGTERM; emitting it calls its handler without signalling the process.
      process.emit('SIGTERM', 'SIGTERM');
      await served!;
    }
  }, 20_000);
});
