/**
 * The floor the bench compares our server with: bare Fastify doing the least the API's job
 * needs. GET: a bearer check against one fixed key and a Map lookup, answering the whole payment
 * request (every field the spec requires, so both servers send responses of the same size). POST:
 * JSON.parse, one BOLT11 invoice signed by the signer our server uses in Node (so the signature
 * costs the same), and a Map insert. Run as its own process, like our server: `node --import tsx bench/floor-server.ts`.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import accounts from '../fixtures/accounts.json' with { type: 'json' };
import { createInvoice } from '../src/lightning/invoice.js';
import type { PaymentRequest } from '../src/schemas/payment-request.js';
import { wasmSigner } from '../src/lightning/signer.node.js';

const AUTHORIZATION = 'Bearer sk_test_custodial';
const SERVICE_NODE_KEY = Buffer.from(accounts.serviceNodeKey, 'hex');
const UNAUTHORIZED = { error: { code: 'unauthorized', message: 'Invalid API key.' } };
const NOT_FOUND = { error: { code: 'payment_request_not_found', message: 'No such payment request.' } };

/** The floor keeps exactly what it answers: the spec's payment request. */
type FloorRecord = PaymentRequest;

const records = new Map<string, FloorRecord>();
const app = Fastify({ logger: false });

// Our engine parses the body text itself; so does the floor, with nothing but JSON.parse.
app.removeAllContentTypeParsers();
app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

app.get<{ Params: { id: string } }>('/api/v1/payment-requests/:id', (request, reply) => {
  if (request.headers.authorization !== AUTHORIZATION) return reply.code(401).send(UNAUTHORIZED);
  const record = records.get(request.params.id);
  return record ? reply.send(record) : reply.code(404).send(NOT_FOUND);
});

app.get<{ Params: { id: string } }>('/api/v1/payment-requests/:id/status', (request, reply) => {
  if (request.headers.authorization !== AUTHORIZATION) return reply.code(401).send(UNAUTHORIZED);
  const record = records.get(request.params.id);
  return record ? reply.send({ status: record.status }) : reply.code(404).send(NOT_FOUND);
});

app.post<{ Body: string }>('/api/v1/payment-requests', (request, reply) => {
  if (request.headers.authorization !== AUTHORIZATION) return reply.code(401).send(UNAUTHORIZED);
  const body = JSON.parse(request.body) as { amount: number; description: string; metadata?: Record<string, unknown> };
  const random = randomBytes(64);
  const nowMs = Date.now();
  const paymentHash = createHash('sha256').update(random.subarray(0, 32)).digest();
  const invoice = createInvoice(
    {
      network: 'regtest',
      amountSats: body.amount,
      timestampSeconds: Math.floor(nowMs / 1000),
      paymentHash,
      paymentSecret: random.subarray(32),
      description: body.description,
      expirySeconds: 3600,
    },
    SERVICE_NODE_KEY,
    wasmSigner,
  );
  const record: FloorRecord = {
    id: randomUUID(),
    status: 'pending',
    amount: body.amount,
    description: body.description,
    invoice,
    paymentHash: paymentHash.toString('hex'),
    expiresAt: new Date(nowMs + 3_600_000).toISOString(),
    isNwc: false,
    feeAmount: Math.max(10, Math.round(body.amount / 200)),
    feePercentage: 0.5,
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    createdAt: new Date(nowMs).toISOString(),
    updatedAt: new Date(nowMs).toISOString(),
  };
  records.set(record.id, record);
  return reply.code(201).send(record);
});

process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));

await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`floor listening on ${app.listeningOrigin}\n`);
