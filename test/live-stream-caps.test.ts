/**
 * No one client can take every live stream (issue 16): one client (remote address) holds at most
 * 10, one pay page has at most 5, all together 100; past a cap, 503 `too_many_streams` with
 * `Retry-After`. The clients are loopback source addresses: 127.0.0.1, .2 and .3 (Linux routes
 * all of 127/8 to lo; macOS has only 127.0.0.1 unless aliased, so there the suite says so and
 * skips). At most 24 streams.
 */
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startServer, type RunningServer } from './support/sandbox-server.js';

/** Whether this machine has `address` (a bind to it succeeds). */
function hasAddress(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(0, address, () => probe.close(() => resolve(true)));
  });
}
const CLIENTS = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];
const twoClients = (await Promise.all(CLIENTS.map(hasAddress))).every(Boolean);
if (!twoClients) console.warn(`[live stream caps] skipped: this machine lacks one of ${CLIENTS.join(', ')} (macOS: sudo ifconfig lo0 alias 127.0.0.2; … 127.0.0.3)`);

let server: RunningServer;
const opened: Array<{ leave(): void }> = [];
beforeAll(async () => {
  server = await startServer({ clock: 'frozen' });
});
afterAll(async () => {
  for (const stream of opened) stream.leave();
  await server.close();
});

interface Stream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body of a refusal (a stream's never ends while it is open). */
  body: Promise<string>;
  leave(): void;
}

/** Opens `path` from `localAddress`, a connection of its own. */
function open(path: string, localAddress: string, key: string | null = KEYS.custodial): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const request = httpGet(`${server.url}${path}`, { agent: false, localAddress, headers: key === null ? {} : { authorization: `Bearer ${key}` } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      const body = new Promise<string>((done) => response.on('end', () => done(text)).on('close', () => done(text)));
      const stream = { status: response.statusCode!, headers: response.headers, body, leave: () => request.destroy() };
      opened.push(stream);
      resolve(stream);
    });
    request.setTimeout(5_000, () => request.destroy(new Error(`no answer to ${path} within 5 s`)));
    request.on('error', reject);
  });
}

async function expectRefused(stream: Stream, message: RegExp): Promise<void> {
  expect(stream.status).toBe(503);
  expect(stream.headers['retry-after']).toBe('5');
  const { error } = JSON.parse(await stream.body);
  expect(error.code).toBe('too_many_streams');
  expect(error.message).toMatch(message);
}

describe.runIf(twoClients)('live stream caps', () => {
  it("refuses a client's 11th stream while another client's opens, and frees the slot when one closes", async () => {
    const first: Stream[] = [];
    for (let i = 0; i < 10; i++) first.push(await open('/sandbox/v1/stream', '127.0.0.1'));
    expect(first.map((s) => s.status)).toEqual(Array(10).fill(200));
    await expectRefused(await open('/sandbox/v1/stream', '127.0.0.1'), /this client already holds 10/i);
    // The same key from another address: a client is its address, not its key.
    const other = await open('/sandbox/v1/stream', '127.0.0.2');
    expect(other.status).toBe(200);

    first[0]!.leave();
    let again = await open('/sandbox/v1/stream', '127.0.0.1');
    for (let i = 0; again.status === 503 && i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await open('/sandbox/v1/stream', '127.0.0.1');
    }
    expect(again.status).toBe(200);
    for (const stream of [...first, other, again]) stream.leave();
  });

  it("refuses a pay page's 6th stream, from any client, while another pay page's opens", async () => {
    const [one, two] = [await server.create(), await server.create()];
    const streams: Stream[] = [];
    for (let i = 0; i < 5; i++) streams.push(await open(`/pay/${one.id}/stream`, i < 3 ? '127.0.0.1' : '127.0.0.2', null));
    expect(streams.map((s) => s.status)).toEqual(Array(5).fill(200));
    await expectRefused(await open(`/pay/${one.id}/stream`, '127.0.0.3', null), /this pay page already has 5/i);
    const another = await open(`/pay/${two.id}/stream`, '127.0.0.3', null);
    expect(another.status).toBe(200);
    for (const stream of [...streams, another]) stream.leave();
  });
});
