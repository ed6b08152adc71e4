/**
 * A real webhook receiver for tests: node:http on 127.0.0.1, port 0. It records every delivery,
 * verifies each with the `standardwebhooks` library (as a merchant's receiver would) once told the
 * endpoint's secret, and answers as the test says: a status, slowly, never, with a redirect, a huge
 * body, or by closing the connection.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery as received. */
export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body. */
  event: { id: string; type: string; timestamp: string; data: Record<string, any> };
  /** Whether standardwebhooks verified it with the secret set at the time. */
  verified: boolean;
  path: string;
}

/** How the receiver answers a delivery: a status, or a misbehaviour. */
export type ReceiverAnswer =
  | number
  | { status: number; delayMs?: number; body?: string; headers?: Record<string, string> }
  | 'hang'
  | 'close'
  | 'huge';

/** A running receiver. */
export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** The secret deliveries are verified with. */
  secret: string | undefined;
  /** Decides each answer (by default 204). */
  answer: (delivery: ReceivedDelivery, index: number) => ReceiverAnswer;
  /** Resolves once `count` deliveries have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

/** Starts a receiver. */
export async function startReceiver(): Promise<WebhookReceiver> {
  const sockets = new Set<Socket>();
  const waiters: Array<() => void> = [];
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    secret: undefined,
    answer: () => 204,
    async waitFor(count, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`the receiver got ${receiver.received.length} deliveries, expected ${count}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return receiver.received.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      let verified = false;
      try {
        if (receiver.secret) verified = new Webhook(receiver.secret).verify(body, request.headers as Record<string, string>) !== undefined;
      } catch {
        verified = false;
      }
      let event: ReceivedDelivery['event'];
      try {
        event = JSON.parse(body);
      } catch {
        event = { id: '', type: '', timestamp: '', data: {} };
      }
      const delivery: ReceivedDelivery = { headers: request.headers, body, event, verified, path: request.url ?? '' };
      const index = receiver.received.push(delivery) - 1;
      for (const wake of waiters.splice(0)) wake();
      respond(response, receiver.answer(delivery, index));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return receiver;
}

function respond(response: ServerResponse, answer: ReceiverAnswer): void {
  if (answer === 'hang') return;
  if (answer === 'close') {
    response.socket?.destroy();
    return;
  }
  if (answer === 'huge') {
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 120);
    // 64 MiB, written as the sender reads; the sender should stop reading long before.
    let left = 1024;
    const write = () => {
      while (left > 0) {
        left -= 1;
        if (!response.write(chunk)) return void response.once('drain', write);
      }
      response.end();
    };
    response.on('error', () => {});
    write();
    return;
  }
  const { status, delayMs = 0, body = '', headers = {} } = typeof answer === 'number' ? { status: answer } : answer;
  setTimeout(() => response.writeHead(status, headers).end(body), delayMs);
}
