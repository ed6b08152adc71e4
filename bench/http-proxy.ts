/**
 * The replicas bench's load balancers' common part: a bare node:http proxy in its own process that
 * sends each request to the upstream `pick` names (kept-alive connections), as a balancer in front
 * of replicas does. Only for loopback HTTP in the bench: no WebSocket, no SSE. Prints
 * `LABEL listening on URL (N upstreams)`; ends on SIGTERM.
 */
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts the proxy in front of the upstream URLs given on the command line. */
export function runProxy(label: string, pick: (incoming: IncomingMessage, upstreams: readonly URL[]) => URL): void {
  const upstreams = process.argv.slice(2).map((url) => new URL(url));
  if (upstreams.length === 0) throw new Error(`usage: ${label} UPSTREAM_URL...`);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const server = createServer((incoming, outgoing) => {
    const upstream = pick(incoming, upstreams);
    // The body whole, sent with the head in one write (piped, the head and a small body go as two
    // segments, and Nagle's algorithm holds the second until the first is acknowledged).
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => send(agent, upstream, incoming, outgoing, Buffer.concat(chunks)));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    console.log(`${label} listening on http://127.0.0.1:${(server.address() as AddressInfo).port} (${upstreams.length} upstreams)`);
  });
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}

function send(agent: Agent, upstream: URL, incoming: IncomingMessage, outgoing: ServerResponse, body: Buffer): void {
  const forwarded = httpRequest(
    { agent, host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: upstream.host } },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  forwarded.on('error', () => {
    if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'application/json' });
    outgoing.end('{"error":{"code":"bad_gateway"}}');
  });
  forwarded.setNoDelay(true);
  forwarded.end(body);
}
