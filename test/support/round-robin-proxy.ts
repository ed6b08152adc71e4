/**
 * A round-robin load balancer for replica tests, on loopback: each HTTP request, and each
 * WebSocket upgrade, goes to the next target in turn, as a plain balancer (nginx's default) sends
 * it. Like nginx's `proxy_next_upstream error`, a target that refuses the connection (a killed
 * replica) is skipped for the next one: nothing was sent to it, so even a POST is safe to re-send.
 * It forwards bytes as they come (SSE unbuffered) and passes the client's Host on, so the replicas
 * see the address clients use. Not the product's routing (that is `src/replicas/`): a test's
 * stand-in for a balancer a user would put in front.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** A running balancer. */
export interface RoundRobinProxy {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** The replicas' base URLs, in turn (may change while it runs). */
  targets: string[];
  /** How many requests and upgrades went to each target (by URL), for the report. */
  readonly served: Map<string, number>;
  close(): Promise<void>;
}

/** Starts a balancer over `targets` (more may be set later). */
export async function startRoundRobinProxy(targets: string[] = []): Promise<RoundRobinProxy> {
  let next = 0;
  const served = new Map<string, number>();
  const sockets = new Set<Socket | Duplex>();
  const proxy: RoundRobinProxy = { url: '', targets, served, close: async () => {} };

  /** The targets from the next one in turn, each once: a refused one falls through to the following. */
  const order = (): URL[] => {
    const list = proxy.targets.map((target) => new URL(target));
    const start = next++ % Math.max(list.length, 1);
    return [...list.slice(start), ...list.slice(0, start)];
  };
  const count = (target: URL) => served.set(target.origin, (served.get(target.origin) ?? 0) + 1);

  const server: Server = createServer((incoming, outgoing) => {
    const candidates = order();
    const attempt = (): void => {
      const target = candidates.shift();
      if (target === undefined) {
        outgoing.writeHead(502, { 'content-type': 'text/plain' }).end('round-robin-proxy: no target accepted the connection\n');
        return;
      }
      const upstream = httpRequest({
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        // A connection of its own per request (hop-by-hop headers dropped): none pooled to a replica that dies.
        headers: withoutHopByHop(incoming.headers),
        agent: false,
      });
      let connected = false;
      upstream.on('socket', (socket) => socket.once('connect', () => (connected = true)));
      upstream.on('response', (answer) => {
        count(target);
        outgoing.writeHead(answer.statusCode ?? 502, answer.rawHeaders as unknown as Record<string, string>);
        outgoing.flushHeaders();
        answer.pipe(outgoing);
        answer.on('error', () => outgoing.destroy());
      });
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        // Refused before anything was sent: the next target; otherwise the request is lost, as at a balancer.
        if (!connected && error.code === 'ECONNREFUSED') return attempt();
        if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(`round-robin-proxy: ${error.message}\n`);
        else outgoing.destroy();
      });
      outgoing.on('close', () => {
        if (!outgoing.writableFinished) upstream.destroy();
      });
      // The body is buffered first only so that a refused target can be retried with it.
      upstream.end(body);
    };
    const chunks: Buffer[] = [];
    let body: Buffer;
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      body = Buffer.concat(chunks);
      attempt();
    });
  });

  server.on('upgrade', (incoming: IncomingMessage, client: Duplex, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const candidates = order();
    const attempt = (): void => {
      const target = candidates.shift();
      if (target === undefined) return void client.destroy();
      const upstream = connect({ host: target.hostname, port: Number(target.port) });
      sockets.add(upstream);
      let connected = false;
      upstream.on('close', () => sockets.delete(upstream));
      upstream.once('connect', () => {
        connected = true;
        count(target);
        const lines = [`${incoming.method} ${incoming.url} HTTP/1.1`];
        for (let n = 0; n < incoming.rawHeaders.length; n += 2) lines.push(`${incoming.rawHeaders[n]}: ${incoming.rawHeaders[n + 1]}`);
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (!connected && error.code === 'ECONNREFUSED') return attempt();
        client.destroy();
      });
      // Only a joined target's close ends the client: a refused one falls through to the next.
      upstream.on('close', () => connected && client.destroy());
      client.on('close', () => upstream.destroy());
    };
    attempt();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return proxy;
}

/** The request's headers less those that concern only the client's own connection. */
function withoutHopByHop(headers: IncomingMessage['headers']): IncomingMessage['headers'] {
  const { connection: _connection, 'keep-alive': _keepAlive, ...rest } = headers;
  return rest;
}
