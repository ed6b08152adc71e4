/**
 * The relay attacks of issue 21, as raw WebSocket clients (the `ws` package) on loopback, for the
 * tests (modest load) and `npm run bench` (the load the issue measured):
 * - `outputFlood` (finding 3): connections × 20 subscriptions to kind 23194, and one connection
 *   publishing a signed 4 KB kind-23194 event many times a second (the same event, or a new one
 *   each time);
 * - `matchingFlood` (finding 4): connections × 20 subscriptions, each REQ 10 filters of
 *   `{"kinds":[23194],"#t":[190 values]}`, and events with 100 `t` tags;
 * - `storeFlood` (finding 2): big kind-13194 events from throwaway keys.
 * Connections may come from several loopback addresses (127.0.0.2, … are local on Linux). Each
 * attack counts the bytes its clients received and the answers they got.
 */
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';
import WebSocket from 'ws';

/** What an attack's clients saw. */
export interface AttackTally {
  /** Bytes of messages received, all connections. */
  bytesReceived: number;
  /** `OK` answers by whether accepted, and the first refusal's reason. */
  accepted: number;
  refused: number;
  firstRefusal?: string;
  /** `CLOSED` messages, and the first's reason. */
  closed: number;
  firstClosed?: string;
  /** Connections closed by the relay. */
  disconnects: number;
}

/** A running attack: stop() ends it and closes its connections. */
export interface Attack {
  readonly tally: AttackTally;
  stop(): Promise<void>;
}

interface Connected {
  ws: WebSocket;
}

/** Opens `count` connections to `url`, spread over `addresses` (local addresses to connect from). */
async function connectAll(url: string, count: number, addresses: readonly string[], tally: AttackTally): Promise<Connected[]> {
  const opened = Array.from({ length: count }, (_, index) => {
    const localAddress = addresses[index % addresses.length];
    const ws = new WebSocket(url, { ...(localAddress !== undefined ? { localAddress } : {}), perMessageDeflate: false });
    ws.on('message', (data: Buffer) => {
      tally.bytesReceived += data.length;
      // Only the small answers are parsed; EVENTs (most of the bytes) are only counted.
      if (data.length > 2_000) return;
      const message = JSON.parse(String(data)) as unknown[];
      if (message[0] === 'OK') {
        if (message[2] === true) tally.accepted += 1;
        else {
          tally.refused += 1;
          tally.firstRefusal ??= String(message[3]);
        }
      } else if (message[0] === 'CLOSED') {
        tally.closed += 1;
        tally.firstClosed ??= String(message[2]);
      }
    });
    ws.on('error', () => {});
    return new Promise<Connected>((resolve, reject) => {
      ws.once('open', () => {
        ws.once('close', () => (tally.disconnects += 1));
        resolve({ ws });
      });
      ws.once('error', reject);
    });
  });
  return Promise.all(opened);
}

function newTally(): AttackTally {
  return { bytesReceived: 0, accepted: 0, refused: 0, closed: 0, disconnects: 0 };
}

/** Sends `make()` on `ws` `perSecond` times a second (in ticks of 50 ms) until stopped. */
function every(ws: WebSocket, perSecond: number, make: () => string): () => void {
  const perTick = perSecond / 20;
  let owed = 0;
  const timer = setInterval(() => {
    owed += perTick;
    for (; owed >= 1; owed -= 1) if (ws.readyState === WebSocket.OPEN) ws.send(make());
  }, 50);
  return () => clearInterval(timer);
}

/** Closes every connection and waits (briefly) for them to go. */
async function closeAll(connections: Connected[]): Promise<void> {
  await Promise.all(
    connections.map(
      ({ ws }) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve();
          ws.once('close', () => resolve());
          ws.terminate();
        }),
    ),
  );
}

/**
 * `count` EVENT messages signed before the attack (by one throwaway key), so that signing does not
 * load the process the attack runs in (a test's is the server's too).
 */
function presigned(count: number, make: (serial: number) => { kind: number; tags: string[][]; content: string }): string[] {
  const secret = generateSecretKey();
  const createdAt = Math.floor(Date.now() / 1000);
  return Array.from({ length: Math.max(1, Math.ceil(count)) }, (_, serial) => JSON.stringify(['EVENT', finalizeEvent({ ...make(serial), created_at: createdAt }, secret)]));
}

/** Options of the floods. */
export interface FloodOptions {
  url: string;
  /** How long the flood may last, in seconds: new events are signed for that long (then they repeat). */
  seconds: number;
  /** Subscribing connections (the issue: 19, with the publisher the 20 one address may open). */
  subscribers: number;
  /** Local addresses the connections come from (default: the system's choice). */
  addresses?: readonly string[];
}

/**
 * Finding 3: `subscribers` connections × 20 subscriptions to kind 23194, and one more publishing
 * a signed 4 KB kind-23194 event `perSecond` times a second: the same one (`fresh` false, as the
 * issue did) or a new one each time.
 */
export async function outputFlood(options: FloodOptions & { perSecond: number; fresh: boolean }): Promise<Attack> {
  const tally = newTally();
  const addresses = options.addresses ?? [];
  const subscribers = await connectAll(options.url, options.subscribers, addresses, tally);
  for (const { ws } of subscribers) {
    for (let s = 0; s < 20; s++) ws.send(JSON.stringify(['REQ', `s${s}`, { kinds: [23194] }]));
  }
  const [publisher] = await connectAll(options.url, 1, addresses.slice(0, 1), tally);
  const events = presigned(options.fresh ? options.perSecond * options.seconds : 1, (serial) => ({ kind: 23194, tags: [], content: `${'x'.repeat(4_000)}${serial}` }));
  let next = 0;
  const stop = every(publisher!.ws, options.perSecond, () => events[next++ % events.length]!);
  return {
    tally,
    async stop() {
      stop();
      await closeAll([...subscribers, publisher!]);
    },
  };
}

/**
 * Finding 4: `subscribers` connections × 20 subscriptions, each REQ 10 filters of
 * `{"kinds":[23194],"#t":[190 values]}` (one-character values, so a REQ stays within the relay's
 * 8 KiB of filters), and one more publishing an event with 100 `t` tags `perSecond` times a second.
 */
export async function matchingFlood(options: FloodOptions & { perSecond: number }): Promise<Attack> {
  const tally = newTally();
  const addresses = options.addresses ?? [];
  const subscribers = await connectAll(options.url, options.subscribers, addresses, tally);
  const values = Array.from({ length: 190 }, (_, index) => String.fromCharCode(0x100 + index));
  const filters = Array.from({ length: 10 }, () => ({ kinds: [23194], '#t': values }));
  for (const { ws } of subscribers) {
    for (let s = 0; s < 20; s++) ws.send(JSON.stringify(['REQ', `s${s}`, ...filters]));
  }
  const [publisher] = await connectAll(options.url, 1, addresses.slice(0, 1), tally);
  // Tags that match no filter: every filter's whole list is checked against every tag.
  const tags = Array.from({ length: 100 }, (_, index) => ['t', `no-${index}`]);
  const events = presigned(options.perSecond * options.seconds, (serial) => ({ kind: 23194, tags, content: String(serial) }));
  let next = 0;
  const stop = every(publisher!.ws, options.perSecond, () => events[next++ % events.length]!);
  return {
    tally,
    async stop() {
      stop();
      await closeAll([...subscribers, publisher!]);
    },
  };
}

/**
 * Finding 2: `count` kind-13194 events of `bytes` characters from throwaway keys, over
 * `connections` connections (under the relay's 100 messages a second each); resolves with the
 * tally once every event was answered.
 */
export async function storeFlood(options: { url: string; count: number; bytes: number; connections: number; addresses?: readonly string[] }): Promise<AttackTally> {
  const tally = newTally();
  const connections = await connectAll(options.url, options.connections, options.addresses ?? [], tally);
  const content = 'x'.repeat(options.bytes);
  let answered = 0;
  const done = new Promise<void>((resolve) => {
    for (const { ws } of connections) {
      ws.on('message', (data: Buffer) => {
        if (data.length < 2_000 && String(data).startsWith('["OK"') && ++answered === options.count) resolve();
      });
    }
  });
  for (let index = 0; index < options.count; index++) {
    const event = finalizeEvent({ kind: 13194, created_at: Math.floor(Date.now() / 1000), tags: [], content }, generateSecretKey());
    connections[index % connections.length]!.ws.send(JSON.stringify(['EVENT', event]));
  }
  await done;
  await closeAll(connections);
  return tally;
}
