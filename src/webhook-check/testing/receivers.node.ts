/**
 * Webhook receivers for the tests, each a real `node:http` server on 127.0.0.1 (port 0): one
 * that verifies as a receiver should (standardwebhooks' `Webhook.verify`), and ones with the
 * mistakes the check exists to catch, for every event type or only for some (`byType`: the
 * receiver that reads `type` first and takes a shortcut for it). Each records what it received.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import type { EventType } from '../../schemas/webhooks.js';

/** One request as a receiver saw it. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What a receiver answers: a status (and body, headers), or nothing at all. */
export type ReceiverAnswer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/** How a receiver answers each request. */
export type Answerer = (request: ReceivedRequest) => ReceiverAnswer;

/** A running receiver. */
export interface TestReceiver {
  url: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** Starts a receiver that answers each request with `answer(request)`. */
export async function startReceiver(answer: Answerer): Promise<TestReceiver> {
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
export function verifying(secret: string): Answerer {
  const webhook = new Webhook(secret);
  return (request) => {
    try {
      const event = webhook.verify(request.body, stringHeaders(request.headers)) as { type: string };
      return event.type === 'payment_request.created' ? { status: 204 } : { status: 200, body: '{"received":true}' };
    } catch (error) {
      return { status: 401, body: JSON.stringify({ error: (error as Error).message }) };
    }
  };
}

/** Never checks anything: 200 to every request. */
export function careless(): Answerer {
  return () => ({ status: 200, body: '{"ok":true}' });
}

/** Checks the v1 HMAC over the raw body but never the timestamp's age: 200 when it matches, 400 otherwise. */
export function timestampBlind(secret: string): Answerer {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return ({ headers, body }) => {
    const signed = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`;
    const expected = `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
    const signatures = String(headers['webhook-signature'] ?? '').split(' ');
    return signatures.includes(expected) ? { status: 200 } : { status: 400, body: 'bad signature' };
  };
}

/** Verifies a re-serialization of the parsed body (the `JSON.stringify(req.body)` mistake), not the raw body. */
export function reserializing(secret: string): Answerer {
  const webhook = new Webhook(secret);
  return ({ headers, body }) => {
    try {
      webhook.verify(JSON.stringify(JSON.parse(body)), stringHeaders(headers));
      return { status: 200 };
    } catch {
      return { status: 401 };
    }
  };
}

/** `mistaken` for a body whose `type` is one of `types`, `otherwise` for the rest: a receiver that reads the type before verifying. */
export function byType(types: readonly EventType[], mistaken: Answerer, otherwise: Answerer): Answerer {
  return (request) => {
    let type: unknown;
    try {
      type = (JSON.parse(request.body) as { type?: unknown }).type;
    } catch {
      // Not JSON: nothing to read a type from.
    }
    return (types as readonly unknown[]).includes(type) ? mistaken(request) : otherwise(request);
  };
}

/** Verifies with `Webhook.verify`. */
export function verifyingReceiver(secret: string): Promise<TestReceiver> {
  return startReceiver(verifying(secret));
}

/** Never checks anything. */
export function carelessReceiver(): Promise<TestReceiver> {
  return startReceiver(careless());
}

/** Checks the signature but not the timestamp. */
export function timestampBlindReceiver(secret: string): Promise<TestReceiver> {
  return startReceiver(timestampBlind(secret));
}

/** Verifies a re-serialization of the body. */
export function reserializingReceiver(secret: string): Promise<TestReceiver> {
  return startReceiver(reserializing(secret));
}

/** Verifies every event type but `unverified`, which it accepts unchecked (e.g. `payment_request.completed`, because "it only marks the order paid"). */
export function typeTrustingReceiver(secret: string, unverified: readonly EventType[]): Promise<TestReceiver> {
  return startReceiver(byType(unverified, careless(), verifying(secret)));
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
