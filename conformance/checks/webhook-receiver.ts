/**
 * A webhook receiver the suite runs for one check: an HTTP server on 127.0.0.1 (a free port) that
 * answers every POST 200 and keeps what it received, bounded (the newest 200 deliveries, 64 KiB of
 * body each). node:http is imported when a receiver starts, so the suite still loads where there
 * is none (a browser): `startReceiver` rejects there, and the check skips.
 */

/** One delivery as it arrived. */
export interface ReceivedDelivery {
  method: string;
  path: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The body as received (UTF-8). */
  text: string;
}

/** A running receiver. */
export interface WebhookReceiver {
  /** Where deliveries go: `http://127.0.0.1:PORT/lnpr-conformance/<random>`. */
  url: string;
  /** What arrived so far, oldest first. */
  received(): readonly ReceivedDelivery[];
  close(): Promise<void>;
}

const KEPT = 200;
const MAX_BODY_BYTES = 64 * 1024;

export async function startReceiver(): Promise<WebhookReceiver> {
  const { createServer } = await import('node:http');
  const received: ReceivedDelivery[] = [];
  const path = `/lnpr-conformance/${Math.random().toString(36).slice(2, 12)}`;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      received.push({ method: request.method ?? '', path: request.url ?? '', headers, text: Buffer.concat(chunks).toString('utf8') });
      if (received.length > KEPT) received.shift();
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  // Deliveries come one at a time; a receiver that waits on nothing should not hold the run open.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
