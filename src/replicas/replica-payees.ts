/**
 * Payments between accounts that different replicas serve: a test wallet here paying an invoice
 * of an account served elsewhere. The payer's replica asks the other live replicas which one holds
 * the invoice (every account with records has a live owner within a second or two: the sweep takes
 * over those of replicas gone), and has that one pay it as the world pays (the payee's side, its
 * request completed or its wallet credited); then it writes the payer's side itself. One that
 * holds it but cannot have it paid (paid already, expired) says so, and the payer hears that
 * rather than "an invoice of another node". The two
 * replica-only routes answer only a request that carries the replicas' token (404 otherwise).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RemotePayees } from '../core/ports.js';
import { WalletError } from '../core/payments/wallet-error.js';
import { isNip47ErrorCode } from '../nostr/nwc/nip47.js';
import { REPLICA_TOKEN_HEADER } from '../http/client-address.js';
import { asOf } from '../core/payments/state-machine.js';
import type { NodeSandbox } from '../sandbox.node.js';

const FIND_PATH = '/_lnpr/replica/invoices/find';
const PAY_PATH = '/_lnpr/replica/invoices/pay';
/** Invoices found elsewhere and not paid yet, remembered at most (a payment follows its find at once). */
const MAX_HOLDERS = 1_024;
/** How long a replica has to answer either. */
const ANSWER_MS = 5_000;

/** What the payer's replica needs. */
export interface ReplicaPayeesOptions {
  /** The URLs of the other live replicas. */
  otherReplicas: () => Promise<string[]>;
  token: () => string | undefined;
}

/** RemotePayees over the other replicas. */
export function replicaPayees({ otherReplicas, token }: ReplicaPayeesOptions): RemotePayees {
  /** Which replica said it holds each invoice being paid. */
  const holders = new Map<string, string>();
  const post = (url: string, path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [REPLICA_TOKEN_HEADER]: token() ?? '' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(ANSWER_MS),
    });
  return {
    async find(paymentHash) {
      const urls = await otherReplicas();
      const answers = await Promise.all(
        urls.map(async (url) => {
          const response = await post(url, FIND_PATH, { paymentHash }).catch(() => undefined);
          if (response?.status === 200) return { url, found: (await response.json()) as { amountMsats: number; description?: string } };
          // Held there, but not payable (paid already, expired, failed): that, not "another node's".
          if (response?.status === 409) return { url, refused: (await response.json().catch(() => ({}))) as { code?: string; message?: string } };
          return undefined;
        }),
      );
      const holder = answers.find((answer) => answer?.found !== undefined);
      if (holder?.found === undefined) {
        const refused = answers.find((answer) => answer?.refused !== undefined)?.refused;
        if (refused !== undefined) throw new WalletError(isNip47ErrorCode(refused.code) ? refused.code : 'PAYMENT_FAILED', refused.message ?? 'the invoice cannot be paid');
        return undefined;
      }
      // Bounded: a find the payer then refuses (its balance) is never paid, so its entry is dropped oldest first.
      if (holders.size >= MAX_HOLDERS) holders.delete(holders.keys().next().value!);
      holders.set(paymentHash, holder.url);
      return holder.found;
    },
    async pay(invoice, paymentHash) {
      const url = holders.get(paymentHash);
      holders.delete(paymentHash);
      if (url === undefined) throw new WalletError('PAYMENT_FAILED', 'the replica holding this invoice is not known any more; pay again');
      const response = await post(url, PAY_PATH, { invoice }).catch((error: unknown) => {
        throw new WalletError('PAYMENT_FAILED', `the replica holding this invoice did not answer: ${(error as Error).message}`);
      });
      const body = (await response.json().catch(() => ({}))) as { preimage?: string; code?: string; message?: string };
      if (response.status === 200 && typeof body.preimage === 'string') return { preimage: body.preimage };
      throw new WalletError(isNip47ErrorCode(body.code) ? body.code : 'PAYMENT_FAILED', body.message ?? `the replica holding this invoice answered ${response.status}`);
    },
  };
}

/** Serves the two routes the other replicas' payees call, on the sandbox's server. */
export function registerReplicaPayeeRoutes(app: FastifyInstance, sandbox: NodeSandbox, fromReplica: (request: FastifyRequest['raw']) => boolean): void {
  const guard = (request: FastifyRequest, reply: { code(status: number): { send(body: unknown): unknown } }): boolean => {
    if (fromReplica(request.raw)) return true;
    reply.code(404).send({ error: { code: 'not_found', message: 'Not found.' } });
    return false;
  };
  app.post(FIND_PATH, async (request, reply) => {
    if (!guard(request, reply)) return;
    const paymentHash = bodyOf(request.body).paymentHash;
    if (typeof paymentHash !== 'string' || !/^[0-9a-f]{64}$/.test(paymentHash)) {
      return reply.code(400).send({ error: { code: 'invalid_request', message: 'paymentHash must be 64 lower-case hex characters.', details: [{ field: 'paymentHash', code: 'invalid_format' }] } });
    }
    const record = sandbox.store.findPaymentRequestByHash(paymentHash);
    if (record !== undefined) {
      const { status } = asOf(record, sandbox.clocks.now(record.accountId));
      if (status === 'pending') return reply.send({ amountMsats: record.amount * 1000, description: record.description });
      return reply.code(409).send({ code: 'PAYMENT_FAILED', message: `the invoice's payment request is ${status}` });
    }
    const invoice = sandbox.store.findWalletInvoice(paymentHash);
    if (invoice !== undefined && invoice.state === 'pending') {
      return reply.send({ amountMsats: invoice.amountMsats, ...(invoice.description !== undefined ? { description: invoice.description } : {}) });
    }
    if (invoice !== undefined) return reply.code(409).send({ code: 'PAYMENT_FAILED', message: `the invoice is ${invoice.state === 'settled' ? 'paid already' : invoice.state}` });
    return reply.code(404).send({ code: 'NOT_FOUND', message: 'no invoice with this payment hash here' });
  });
  app.post(PAY_PATH, async (request, reply) => {
    if (!guard(request, reply)) return;
    const invoice = bodyOf(request.body).invoice;
    if (typeof invoice !== 'string' || invoice === '') {
      return reply.code(400).send({ error: { code: 'invalid_request', message: 'invoice must be a BOLT11 invoice.', details: [{ field: 'invoice', code: 'required' }] } });
    }
    try {
      const { preimage } = await sandbox.ledger.pay(undefined, invoice);
      return reply.send({ preimage });
    } catch (error) {
      if (error instanceof WalletError) return reply.code(409).send({ code: error.code, message: error.message });
      throw error;
    }
  });
}

/** The JSON body as sent, whatever the server's parsers made of it (text, bytes or an object). */
function bodyOf(body: unknown): Record<string, unknown> {
  try {
    const value: unknown = typeof body === 'string' || body instanceof Buffer ? JSON.parse(body.toString()) : body;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
