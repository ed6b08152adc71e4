/**
 * Everything the run received, for the rules that hold on every answer rather than on a sample:
 * each payment request object (the 2xx answers of create and GET, of every key, in every check),
 * with the request that brought it and the create it comes from, and each invoice among them,
 * decoded once. Checks marked `last` review them when every other check is done, and report the
 * first offending answer with its request.
 */
import type { CheckContext } from '../check.js';
import type { KeyRole, LoggedAnswer } from '../client.js';
import { decodeInvoice, verifyInvoiceSignature, type DecodedInvoice } from './bolt11-reader.js';
import { assert, COLLECTION, isObject, show } from './support.js';

/** One payment request object the run received. */
export interface Received {
  /** The request and the answer, for messages: `POST /api/v1/payment-requests {"amount":…} → 201 (id pr_…)`. */
  where: string;
  kind: 'create' | 'read';
  /** The role of the key the request carried. */
  key: KeyRole;
  body: Record<string, any>;
  /** The create this request comes from (the body sent, its 2xx answer, its key), when the run made it. */
  origin: Origin | undefined;
  sentAt: number;
  receivedAt: number;
}

/** The create of a payment request, as the run sent and received it. */
export interface Origin {
  /** The JSON body sent (an object), or undefined when it was not one. */
  sent: Record<string, unknown> | undefined;
  body: Record<string, any>;
  key: KeyRole;
}

const KEY_NAMES: Readonly<Record<KeyRole, string>> = {
  main: '',
  'read-only': ' with the read-only key',
  nwc: ' with the NWC key',
  other: ' with another key',
  none: ' without a key',
};

/** A request as messages show it: method, path (ids as they were), the body sent cut short, the key's role. */
function describeRequest(answer: Pick<LoggedAnswer, 'method' | 'path' | 'sent' | 'key'>): string {
  const sent = answer.sent === undefined ? '' : ` ${cut(JSON.stringify(answer.sent) ?? '', 120)}`;
  return `${answer.method} ${answer.path}${sent}${KEY_NAMES[answer.key]}`;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Whether the answer is a payment request object: a 2xx JSON object of create or of GET of one request. */
function isPaymentRequestAnswer(answer: LoggedAnswer): boolean {
  if (!(answer.status >= 200 && answer.status < 300) || !isObject(answer.body)) return false;
  if (answer.method === 'POST') return answer.path === COLLECTION;
  return answer.method === 'GET' && answer.path.startsWith(`${COLLECTION}/`) && !answer.path.endsWith('/status');
}

/** Every payment request object the run has received so far, in arrival order, each with its origin. */
export function receivedPaymentRequests(context: CheckContext): Received[] {
  const answers = context.client.v1Answers().filter(isPaymentRequestAnswer);
  const creates = answers.filter((answer) => answer.method === 'POST');
  const originOf = (answer: LoggedAnswer): Origin | undefined => {
    const id = (answer.body as Record<string, unknown>).id;
    if (answer.method === 'POST') return { sent: isObject(answer.sent) ? answer.sent : undefined, body: answer.body as Record<string, any>, key: answer.key };
    // The latest create of that id answered before this read left (ids are unique; if not, the latest is the one read).
    const create = creates.filter((entry) => (entry.body as Record<string, unknown>).id === id && entry.receivedAt <= answer.sentAt).at(-1);
    return create === undefined ? undefined : originOf(create);
  };
  return answers.map((answer) => {
    const body = answer.body as Record<string, any>;
    return {
      where: `${describeRequest(answer)} → ${answer.status} (id ${show(body.id)})`,
      kind: answer.method === 'POST' ? 'create' : 'read',
      key: answer.key,
      body,
      origin: originOf(answer),
      sentAt: answer.sentAt,
      receivedAt: answer.receivedAt,
    };
  });
}

/**
 * Fails unless `problemOf` finds nothing in any item; the message counts the offending ones and
 * shows the first (and up to two more different ones) with the request that brought it.
 */
export function assertEvery<T extends { where: string }>(items: readonly T[], noun: string, problemOf: (item: T) => string | undefined): void {
  const problems = items.flatMap((item) => {
    const problem = problemOf(item);
    return problem === undefined ? [] : [{ where: item.where, problem }];
  });
  const distinct = problems.filter((entry, index) => problems.findIndex((other) => other.problem === entry.problem) === index);
  const more = distinct.slice(1, 3).map((entry) => `${entry.where}: ${entry.problem}`);
  assert(
    problems.length === 0,
    `${problems.length} of the ${items.length} ${noun} received: the first, ${problems[0]?.where}: ${problems[0]?.problem}${more.length > 0 ? ` | also ${more.join(' | ')}` : ''}${distinct.length > 3 ? ' | …' : ''}`,
  );
}

/** An invoice the run received, with the payment request object it came in. */
export interface ReceivedInvoice extends Received {
  invoice: string;
  /** The bolt11 package's reading, or undefined when it does not decode (then `error` says why). */
  decoded: DecodedInvoice | undefined;
  error: string | undefined;
}

/** Decodings by invoice text, per run: every check that reads invoices shares them. */
function decodings(context: CheckContext): Promise<Map<string, { decoded?: DecodedInvoice; error?: string }>> {
  return context.shared('decoded invoices', async () => new Map());
}

/** Every payment request the run received that carries an invoice (a non-empty string), decoded. */
export async function receivedInvoices(context: CheckContext): Promise<ReceivedInvoice[]> {
  const cache = await decodings(context);
  return receivedPaymentRequests(context).flatMap((received) => {
    const invoice = received.body.invoice;
    if (typeof invoice !== 'string' || invoice.length === 0) return [];
    let reading = cache.get(invoice);
    if (reading === undefined) {
      try {
        reading = { decoded: decodeInvoice(invoice) };
      } catch (error) {
        reading = { error: `the invoice does not decode as BOLT11 (bolt11 package: ${(error as Error).message})` };
      }
      cache.set(invoice, reading);
    }
    return [{ ...received, invoice, decoded: reading.decoded, error: reading.error }];
  });
}

/** Every received invoice that decodes (one that does not is invoice.decodes' business). */
export async function decodedInvoices(context: CheckContext): Promise<Array<ReceivedInvoice & { decoded: DecodedInvoice }>> {
  return (await receivedInvoices(context)).filter((entry): entry is ReceivedInvoice & { decoded: DecodedInvoice } => entry.decoded !== undefined);
}

/** The key that signed an invoice as @noble/curves recovers and verifies it, per run and invoice; an Error when it does not verify. */
export async function signerOf(context: CheckContext, invoice: string): Promise<string | Error> {
  const cache = await context.shared('verified signatures', async () => new Map<string, string | Error>());
  let signer = cache.get(invoice);
  if (signer === undefined) {
    try {
      signer = verifyInvoiceSignature(invoice);
    } catch (error) {
      signer = error as Error;
    }
    cache.set(invoice, signer);
  }
  return signer;
}
