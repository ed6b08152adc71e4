/**
 * The replicas bench's load balancer: a bare node:http proxy in its own process, sending each
 * request to the next of its upstreams in turn (round-robin, kept-alive connections), as a
 * balancer in front of replicas does. Only for loopback HTTP in the bench: no WebSocket, no SSE.
 * `tsx bench/round-robin-proxy.ts URL...`; prints `... listening on URL`.
 */
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const upstreams = process.argv.slice(2).map((url) => new URL(url));
if (upstreams.length === 0) throw new Error('usage: round-robin-proxy.ts UPSTREAM_URL...');
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
let next = 0;

const server = createServer((incoming, outgoing) => {
  const upstream = upstreams[next++ % upstreams.length]!;
  // The body whole, sent with the head in one write (piped, the head and a small body go as two
  // segments, and Nagle's algorithm holds the second until the first is acknowledged).
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.on('end', () => send(upstream, incoming, outgoing, Buffer.concat(chunks)));
});

function send(upstream: URL, incoming: IncomingMessage, outgoing: ServerResponse, body: Buffer): void {
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
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`round-robin proxy listening on http://127.0.0.1:${(server.address() as AddressInfo).port} (${upstreams.length} upstreams)`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
