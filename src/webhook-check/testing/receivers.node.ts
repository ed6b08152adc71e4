/**
 * Webhook receivers for the tests, each a real `node:http` server on 127.0.0.1 (port 0): one
 * that verifies as a receiver should (standardwebhooks' `Webhook.verify`), and ones with the
 * mistakes the check exists to catch. Each records what it received.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** One request as a receiver saw it. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What a receiver answers: a status (and body, headers), or nothing at all. */
export type ReceiverAnswer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/** A running receiver. */
export interface TestReceiver {
  url: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** Starts a receiver that answers each request with `answer(request)`. */
export async function startReceiver(answer: (request: ReceivedRequest) => ReceiverAnswer): Promise<TestReceiver> {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      const reply = answer(request);
      if (reply === 'hang') return;
      res.writeHead(reply.status, reply.headers);
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/webhooks/lnpr`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Verifies with `Webhook.verify` (raw body, signature, timestamp): 204 for a created event, 200 for the others, 401 when verification fails. */
export function verifyingReceiver(secret: string): Promise<TestReceiver> {
  const webhook = new Webhook(secret);
  return startReceiver((request) => {
    try {
      const event = webhook.verify(request.body, stringHeaders(request.headers)) as { type: string };
      return event.type === 'payment_request.created' ? { status: 204 } : { status: 200, body: '{"received":true}' };
    } catch (error) {
      return { status: 401, body: JSON.stringify({ error: (error as Error).message }) };
    }
  });
}

/** Never checks anything: 200 to every request. */
export function carelessReceiver(): Promise<TestReceiver> {
  return startReceiver(() => ({ status: 200, body: '{"ok":true}' }));
}

/** Checks the v1 HMAC over the raw body but never the timestamp's age: 200 when it matches, 400 otherwise. */
export function timestampBlindReceiver(secret: string): Promise<TestReceiver> {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return startReceiver(({ headers, body }) => {
    const signed = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`;
    const expected = `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
    const signatures = String(headers['webhook-signature'] ?? '').split(' ');
    return signatures.includes(expected) ? { status: 200 } : { status: 400, body: 'bad signature' };
  });
}

/** Verifies a re-serialization of the parsed body (the `JSON.stringify(req.body)` mistake), not the raw body. */
export function reserializingReceiver(secret: string): Promise<TestReceiver> {
  const webhook = new Webhook(secret);
  return startReceiver(({ headers, body }) => {
    try {
      webhook.verify(JSON.stringify(JSON.parse(body)), stringHeaders(headers));
      return { status: 200 };
    } catch {
      return { status: 401 };
    }
  });
}

/** Verifies correctly, but refuses a webhook-id it has seen (409) instead of acknowledging it again. */
export function duplicateRefusingReceiver(secret: string): Promise<TestReceiver> {
  const webhook = new Webhook(secret);
  const seen = new Set<string>();
  return startReceiver(({ headers, body }) => {
    try {
      webhook.verify(body, stringHeaders(headers));
    } catch {
      return { status: 401 };
    }
    const id = String(headers['webhook-id']);
    if (seen.has(id)) return { status: 409, body: 'already processed' };
    seen.add(id);
    return { status: 204 };
  });
}

/** Header values as strings, as `Webhook.verify` takes them. */
export function stringHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]));
}
