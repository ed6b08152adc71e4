/**
 * The Node transport of a scenario's webhook receiver: node:http on `host` (127.0.0.1 unless told),
 * port 0. It hands every request to a `ReceiverLog`, which records and verifies it and decides the
 * status to answer. The server under test must be able to reach this address.
 */
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ReceiverHandle, ReceiverLog, StartReceiver } from './receiver-log.js';

/** Where receivers listen. */
export interface NodeReceiverOptions {
  /** The address to listen on and to put in the URL; 127.0.0.1 by default. */
  host?: string;
}

/** A `StartReceiver` for `runScenario` that listens with node:http. */
export function nodeReceivers({ host = '127.0.0.1' }: NodeReceiverOptions = {}): StartReceiver {
  return (log) => startNodeReceiver(log, host);
}

async function startNodeReceiver(log: ReceiverLog, host: string): Promise<ReceiverHandle> {
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      const status = log.record({ headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(status).end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/webhooks`,
    close: () =>
      new Promise<void>((resolve) => {
        // Keep-alive connections from the sender would hold close() open; the scenario is over.
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
