/**
 * `lnpr listen` as users run it: a child process following a real server (Fastify on
 * 127.0.0.1) and forwarding to a real receiver that verifies with the `standardwebhooks`
 * library. The stream is dropped by a TCP proxy between listen and the server that the test cuts
 * (or keeps down a while) as events happen; afterwards every event must have been forwarded
 * exactly once, in the order the sandbox recorded them.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliProcess } from '../../test/support/cli-process.js';
import { freePort } from '../../test/support/free-port.js';
import { KEYS, startServer, type RunningServer } from '../../test/support/sandbox-server.js';
import { startReceiver, type WebhookReceiver } from '../../test/support/webhook-receiver.js';
import { EVENT_TYPES } from '../schemas/webhooks.js';
import { RecentIds } from './listen.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const READY = /following the account's events/;
const DELIVERY_LINE = /^\d\d:\d\d:\d\d {2}payment_request\.(created|completed|failed|expired) +evt_[A-Za-z0-9]+ {2}→ 204 \(\d+ ms\)$/;

let server: RunningServer;
let receiver: WebhookReceiver;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.close();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A receiver that verifies with `secret`, closed after the test. */
async function newReceiver(secret = SECRET): Promise<WebhookReceiver> {
  receiver = await startReceiver();
  receiver.secret = secret;
  cleanups.push(() => receiver.close());
  return receiver;
}

/** A running `lnpr listen`, killed after the test whatever happens. */
interface Listening extends CliProcess {
  /** Resolves once stdout matches `pattern` (rejects after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

function startListen(args: string[]): Listening {
  const cli = runCli(['listen', ...args]);
  const hardStop = setTimeout(() => cli.child.kill('SIGKILL'), 60_000);
  cleanups.push(() => {
    clearTimeout(hardStop);
    cli.child.kill('SIGKILL');
  });
  return {
    ...cli,
    async waitFor(pattern, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(cli.output().stdout)) {
        if (cli.child.exitCode !== null || Date.now() > deadline) {
          throw new Error(`no ${pattern} in lnpr listen's output:\n${cli.output().stdout}\n${cli.output().stderr}`);
        }
        await sleep(20);
      }
    },
    async stop(signal = 'SIGTERM') {
      cli.child.kill(signal);
      return cli.exited;
    },
  };
}

/** A TCP proxy to the server that the test can cut (every connection closed) or keep down (new ones closed at once). */
async function startProxy(target: string): Promise<{ url: string; cut(): void; down(): void; up(): void }> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let refusing = false;
  const proxy: Server = createServer((client) => {
    if (refusing) return void client.resetAndDestroy();
    const upstream = connect(Number(port), hostname);
    const close = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    open.add(client).add(upstream);
    for (const socket of [client, upstream]) socket.on('error', close).on('close', close);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        proxy.close(() => resolve());
      }),
  );
  const cut = () => {
    for (const socket of open) socket.resetAndDestroy();
  };
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    cut,
    down() {
      refusing = true;
      cut();
    },
    up() {
      refusing = false;
    },
  };
}

/** Creates a request and, unless `to` is `pending`, moves it on through the control API: one or two events. */
async function happen(to: 'pending' | 'complete' | 'fail' | 'expire'): Promise<void> {
  const { id } = await server.create({ description: `listen test ${to}` });
  if (to !== 'pending') expect((await server.api(`/sandbox/v1/payment-requests/${id}/${to}`, { method: 'POST' })).status).toBe(200);
}

/** The ids of the account's events, oldest first. */
async function eventIds(): Promise<string[]> {
  const { body } = await server.api('/sandbox/v1/events?limit=1000');
  return (body.data as Array<{ id: string }>).map((event) => event.id).reverse();
}

/** The account's events recorded since `before` was read, oldest first. */
async function eventsSince(before: string[]): Promise<string[]> {
  const known = new Set(before);
  return (await eventIds()).filter((id) => !known.has(id));
}

/** Waits until `check` holds (checked every 20 ms), or fails after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Expects the receiver to have got exactly `ids`, in that order, each verified, and no more within 300 ms. */
async function expectForwardedExactly(ids: string[]): Promise<void> {
  await until(() => receiver.received.length >= ids.length, `${ids.length} deliveries (got ${receiver.received.length})`);
  await sleep(300);
  expect(receiver.received.map((delivery) => delivery.event.id)).toEqual(ids);
  for (const delivery of receiver.received) {
    expect(delivery.verified).toBe(true);
    expect(delivery.headers['webhook-id']).toBe(delivery.event.id);
  }
}

describe('lnpr listen', () => {
  it('forwards each new event (not the older ones) as a Standard Webhooks delivery that Webhook(secret).verify accepts, with the body GET /sandbox/v1/events/{id} shows; a line each; SIGINT stops it, exit 0', async () => {
    await happen('complete');
    const before = await eventIds();
    await newReceiver();
    const listen = startListen(['--base-url', server.url, '--api-key', KEYS.custodial, '--forward-to', receiver.url, '--secret', SECRET]);
    await listen.waitFor(READY);
    for (const to of ['complete', 'fail', 'expire', 'pending'] as const) await happen(to);
    const ids = await eventsSince(before);
    expect(ids).toHaveLength(7);
    await expectForwardedExactly(ids);

    const webhook = new Webhook(SECRET);
    for (const delivery of receiver.received) {
      expect(webhook.verify(delivery.body, delivery.headers as Record<string, string>)).toEqual(JSON.parse(delivery.body));
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(JSON.parse(delivery.body)).toEqual((await server.api(`/sandbox/v1/events/${delivery.event.id}`)).body);
    }
    const { stdout } = listen.output();
    expect(stdout).not.toContain(SECRET);
    const lines = stdout.split('\n').filter((line) => line.includes('→'));
    expect(lines.slice(1)).toHaveLength(ids.length);
    for (const [index, line] of lines.slice(1).entries()) {
      expect(line).toMatch(DELIVERY_LINE);
      expect(line).toContain(ids[index]);
    }
    expect(await listen.stop('SIGINT')).toBe(0);
    expect(listen.output().stdout).toMatch(/\d\d:\d\d:\d\d {2}stopped\n$/);
    expect(listen.output().stderr).toBe('');
  });

  it('without --secret it signs with a generated whsec_ secret, printed at the start; a receiver that does not answer gets a line with the error', async () => {
    const deadPort = await freePort();
    const listen = startListen(['--base-url', server.url, '--api-key', KEYS.readonly, '--forward-to', `http://127.0.0.1:${deadPort}/hooks`]);
    await listen.waitFor(READY);
    const secret = /^Signing secret: (whsec_[A-Za-z0-9+/=]+) \(generated/m.exec(listen.output().stdout)?.[1];
    expect(secret).toBeDefined();
    await happen('pending');
    await listen.waitFor(/→ no answer: /);
    expect(listen.output().stdout).toMatch(/\d\d:\d\d:\d\d {2}payment_request\.created +evt_\w+ {2}→ no answer: connect ECONNREFUSED 127\.0\.0\.1:\d+ \(\d+ ms\)\n/);
    await listen.stop();

    await newReceiver(secret!);
    const before = await eventIds();
    const again = startListen(['--base-url', server.url, '--api-key', KEYS.custodial, '--forward-to', receiver.url, '--secret', secret!]);
    await again.waitFor(READY);
    await happen('complete');
    await expectForwardedExactly(await eventsSince(before));
    expect(await again.stop()).toBe(0);
  });

  it('--events forwards only those types', async () => {
    await newReceiver();
    const before = await eventIds();
    const listen = startListen(['--base-url', server.url, '--api-key', KEYS.custodial, '--forward-to', receiver.url, '--secret', SECRET, '--events', 'payment_request.completed, payment_request.expired']);
    await listen.waitFor(/following the account's events \(payment_request\.completed, payment_request\.expired\)/);
    for (const to of ['complete', 'fail', 'expire', 'pending', 'complete'] as const) await happen(to);
    const { body } = await server.api('/sandbox/v1/events?limit=1000');
    const known = new Set(before);
    const wanted = (body.data as Array<{ id: string; type: string }>)
      .filter((event) => !known.has(event.id) && (event.type === 'payment_request.completed' || event.type === 'payment_request.expired'))
      .map((event) => event.id)
      .reverse();
    expect(wanted).toHaveLength(3);
    await expectForwardedExactly(wanted);
    expect(receiver.received.map((delivery) => delivery.event.type)).toEqual(['payment_request.completed', 'payment_request.expired', 'payment_request.completed']);
    expect(await listen.stop()).toBe(0);
  });

  it('resumes after the stream is down a while: the events of the gap are forwarded first, oldest first, then the stream is followed again; each event once, in order', async () => {
    await newReceiver();
    const proxy = await startProxy(server.url);
    const before = await eventIds();
    const listen = startListen(['--base-url', proxy.url, '--api-key', KEYS.custodial, '--forward-to', receiver.url, '--secret', SECRET]);
    await listen.waitFor(READY);
    await happen('complete');
    await happen('fail');
    await until(() => receiver.received.length === 4, 'the first 4 deliveries');

    proxy.down();
    await listen.waitFor(/stream dropped \(/);
    for (const to of ['complete', 'expire', 'pending', 'fail'] as const) await happen(to);
    await sleep(600); // a failed reconnect or two meanwhile
    proxy.up();
    await listen.waitFor(/following again; 7 missed events forwarded/);
    await happen('complete');
    await expectForwardedExactly(await eventsSince(before));
    expect(receiver.received).toHaveLength(13);
    expect(await listen.stop()).toBe(0);
  }, 40_000);

  it('resumes across repeated cuts while events keep happening: every event forwarded exactly once, in order', async () => {
    await newReceiver();
    const proxy = await startProxy(server.url);
    const before = await eventIds();
    const listen = startListen(['--base-url', proxy.url, '--api-key', KEYS.custodial, '--forward-to', receiver.url, '--secret', SECRET]);
    await listen.waitFor(READY);
    let making = true;
    const maker = (async () => {
      const moves = ['complete', 'fail', 'expire', 'pending'] as const;
      for (let i = 0; making; i += 1) {
        await happen(moves[i % moves.length]!);
        await sleep(10);
      }
    })();
    try {
      for (let cut = 0; cut < 4; cut += 1) {
        await sleep(400);
        proxy.cut();
        await until(() => (listen.output().stdout.match(/following again/g)?.length ?? 0) > cut, `reconnection ${cut + 1}`);
      }
      await sleep(200);
    } finally {
      making = false;
      await maker;
    }
    const ids = await eventsSince(before);
    expect(ids.length).toBeGreaterThan(20);
    await sleep(500);
    expect(listen.output().stdout).not.toContain('may have been missed');
    await expectForwardedExactly(ids);
    expect(listen.output().stdout.match(/stream dropped/g)?.length).toBeGreaterThanOrEqual(4);
    // Some of them happened while the stream was down, and came from the events list.
    const caughtUp = [...listen.output().stdout.matchAll(/following again; (\d+) missed events? forwarded/g)].map((match) => Number(match[1]));
    expect(caughtUp.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0);
    expect(await listen.stop()).toBe(0);
  }, 40_000);

  it('after a gap of more than 100 events it says the last one is not among the newest 100, and forwards those 100, oldest first', async () => {
    await newReceiver();
    const proxy = await startProxy(server.url);
    const before = await eventIds();
    const listen = startListen(['--base-url', proxy.url, '--api-key', KEYS.custodial, '--forward-to', receiver.url, '--secret', SECRET]);
    await listen.waitFor(READY);
    await happen('pending');
    await until(() => receiver.received.length === 1, 'the first delivery');
    const last = receiver.received[0]!.event.id;

    proxy.down();
    await listen.waitFor(/stream dropped \(/);
    for (let i = 0; i < 55; i += 1) await happen('complete');
    proxy.up();
    await listen.waitFor(/following again; 100 missed events forwarded/, 15_000);
    expect(listen.output().stdout).toContain(`the last event handled (${last}) is not among the account's newest 100: events may have been missed; forwarding those 100`);
    const ids = await eventsSince(before);
    expect(ids).toHaveLength(111);
    await expectForwardedExactly([last, ...ids.slice(-100)]);
    expect(await listen.stop()).toBe(0);
  }, 40_000);

  it('after a reset of the account it says the last event is no longer listed, and forwards what the account has now', async () => {
    await newReceiver();
    const proxy = await startProxy(server.url);
    const listen = startListen(['--base-url', proxy.url, '--api-key', KEYS.custodial, '--forward-to', receiver.url, '--secret', SECRET]);
    await listen.waitFor(READY);
    await happen('pending');
    await until(() => receiver.received.length === 1, 'the first delivery');
    const last = receiver.received[0]!.event.id;

    proxy.down();
    await listen.waitFor(/stream dropped \(/);
    expect((await server.api('/sandbox/v1/reset', { method: 'POST', body: {} })).status).toBeLessThan(300);
    await happen('fail');
    const ids = await eventIds();
    expect(ids).toHaveLength(2);
    proxy.up();
    await listen.waitFor(/following again; 2 missed events forwarded/);
    expect(listen.output().stdout).toContain(`the last event handled (${last}) is no longer listed (the account was reset, or the sandbox restarted without --data); forwarding the 2 listed`);
    await expectForwardedExactly([last, ...ids]);
    expect(await listen.stop()).toBe(0);
  });

  it('exit 2 for bad usage and a sandbox that cannot be reached at the start; exit 1 with the status and error code for a refused key', async () => {
    const port = await freePort();
    const base = ['--base-url', server.url, '--api-key', KEYS.custodial];
    const run = async (args: string[]) => {
      const cli = startListen(args);
      const timer = setTimeout(() => cli.child.kill('SIGKILL'), 20_000);
      const code = await cli.exited;
      clearTimeout(timer);
      return { code, ...cli.output() };
    };
    const [noForward, badEvents, badSecret, unreachable, refused] = await Promise.all([
      run(base),
      run([...base, '--forward-to', 'http://127.0.0.1:1/x', '--events', 'payment_request.created,payment_request.paid']),
      run([...base, '--forward-to', 'http://127.0.0.1:1/x', '--secret', 'not-a-secret']),
      run(['--base-url', `http://127.0.0.1:${port}`, '--api-key', KEYS.custodial, '--forward-to', 'http://127.0.0.1:1/x']),
      run(['--base-url', server.url, '--api-key', 'sk_test_wrong', '--forward-to', 'http://127.0.0.1:1/x']),
    ]);
    expect(noForward).toMatchObject({ code: 2, stdout: '' });
    expect(noForward.stderr).toContain('lnpr: --forward-to URL is required');
    expect(badEvents).toMatchObject({ code: 2, stdout: '' });
    expect(badEvents.stderr).toBe(`lnpr: --events: unknown event type "payment_request.paid"; the types are ${EVENT_TYPES.join(', ')}\n`);
    expect(badSecret).toMatchObject({ code: 2, stdout: '', stderr: 'lnpr: --secret: the secret must start with whsec_ (a Standard Webhooks secret)\n' });
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toMatch(/^lnpr: cannot reach http:\/\/127\.0\.0\.1:\d+\/sandbox\/v1\/stream: connect ECONNREFUSED [\d.:]+\n$/);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^lnpr: GET \/sandbox\/v1\/stream answered 401 \w+: .+\n$/);
    expect(refused.stderr).not.toContain('sk_test_wrong');
  });
});

describe('RecentIds', () => {
  it('remembers the last `capacity` ids only', () => {
    const ids = new RecentIds(3);
    for (const id of ['a', 'b', 'c', 'd']) ids.add(id);
    expect([ids.has('a'), ids.has('b'), ids.has('d'), ids.size]).toEqual([false, true, true, 3]);
    ids.add('b');
    expect(ids.size).toBe(3);
  });
});
