/**
 * A TCP proxy on loopback between a process and a server (a replica and its PostgreSQL), that a
 * test can switch to a black hole: the network silently dropping packets, as a partition or a
 * frozen database host does, rather than a stopped server that refuses at once. While black-holing,
 * new connections are accepted and held with nothing sent either way, and connections already open
 * stop moving bytes. Switched back to passing, held connections are joined to the server and the
 * stalled ones move again (TCP would deliver what it had retransmitted): a partition that healed.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  /** The loopback port it listens on. */
  readonly port: number;
  /** `pass` forwards; `black-hole` accepts and never answers. */
  mode: 'pass' | 'black-hole';
  /** Connections it accepted in all. */
  readonly accepted: () => number;
  close(): Promise<void>;
}

/** One client connection and, once joined, its server connection. */
interface Pair {
  client: Socket;
  server?: Socket;
}

/** Starts a proxy to `127.0.0.1:targetPort`, passing. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let accepted = 0;
  let mode: TcpProxy['mode'] = 'pass';

  const join = (pair: Pair): void => {
    if (pair.client.destroyed) return;
    if (pair.server === undefined) {
      const server = connect({ host: '127.0.0.1', port: targetPort });
      pair.server = server;
      server.on('error', () => pair.client.destroy());
      server.on('close', () => pair.client.destroy());
      pair.client.on('close', () => server.destroy());
    }
    pair.client.pipe(pair.server);
    pair.server.pipe(pair.client);
  };
  const stall = (pair: Pair): void => {
    if (pair.server === undefined) return;
    pair.client.unpipe(pair.server);
    pair.server.unpipe(pair.client);
    pair.client.pause();
    pair.server.pause();
  };

  const server: Server = createServer((client) => {
    accepted += 1;
    const pair: Pair = { client };
    pairs.add(pair);
    client.on('error', () => client.destroy());
    client.on('close', () => pairs.delete(pair));
    // Held: nothing read, nothing sent, until the proxy passes again.
    if (mode === 'black-hole') client.pause();
    else join(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  return {
    port,
    get mode() {
      return mode;
    },
    set mode(value) {
      if (value === mode) return;
      mode = value;
      for (const pair of pairs) (value === 'pass' ? join : stall)(pair);
    },
    accepted: () => accepted,
    close: async () => {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.server?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
