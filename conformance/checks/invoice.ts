/**
 * The invoice (spec: "Resources › Payment request": "The Lightning invoice (BOLT11 text)"), decoded
 * independently: a valid signature, a known network, and the values of the payment request — amount,
 * payment hash, expiry, description (or its hash), timestamp — plus a payment secret.
 */
import type { Check, CheckContext } from '../check.js';
import { CheckFailure, CheckSkipped } from '../check-errors.js';
import { decodeInvoice, verifyInvoiceSignature, type DecodedInvoice } from './bolt11-reader.js';
import { probeAnswer, value } from './probes.js';
import {
  assert,
  HEX_64,
  hexValue,
  expectCreated,
  SHARED_EXPIRES_IN,
  sharedPaymentRequest,
  sharedSecondRequest,
  sha256Hex,
  show,
  timeOf,
} from './support.js';

const SECTION = 'Resources › Payment request';

/** The networks a Lightning wallet pays Bitcoin on. */
const BITCOIN_NETWORKS: readonly string[] = ['mainnet', 'testnet', 'signet', 'regtest'];

/** Decodes a payment request's invoice; fails the check with the decoder's reason. */
export function decodeOf(body: Record<string, any>, what: string): DecodedInvoice {
  assert(typeof body.invoice === 'string' && body.invoice.length > 0, `${what}: expected an invoice string, got ${show(body.invoice)}`);
  try {
    return decodeInvoice(body.invoice);
  } catch (error) {
    throw new CheckFailure(`${what}: the invoice does not decode as BOLT11 (bolt11 package: ${(error as Error).message})`);
  }
}

/** The shared request's invoice, decoded once. */
function sharedDecoded(context: CheckContext): Promise<{ body: Record<string, any>; invoice: DecodedInvoice }> {
  return context.shared('decoded shared invoice', async () => {
    const body = await sharedPaymentRequest(context);
    return { body, invoice: decodeOf(body, 'the shared request') };
  });
}

function onInvoice(id: string, title: string, statement: string, test: (body: Record<string, any>, invoice: DecodedInvoice, context: CheckContext) => void | Promise<void>): Check {
  return {
    id,
    title,
    section: SECTION,
    statement,
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const { body, invoice } = await sharedDecoded(context);
      await test(body, invoice, context);
    },
  };
}

/** Checks the values every invoice must carry for its payment request. */
export function invoiceProblems(body: Record<string, any>, invoice: DecodedInvoice): string[] {
  const problems: string[] = [];
  if (!/^0[23][0-9a-f]{64}$/.test(invoice.payeeNodeKey)) problems.push(`payee key recovered from the signature: expected 33 bytes of hex, got ${show(invoice.payeeNodeKey)}`);
  const expectedMsat = typeof body.amount === 'number' && Number.isSafeInteger(body.amount) ? (BigInt(body.amount) * 1000n).toString() : undefined;
  if (invoice.millisatoshis !== expectedMsat) problems.push(`amount: expected ${show(body.amount)} sats (${expectedMsat} msat), the invoice asks ${invoice.millisatoshis ?? 'no amount'} msat`);
  if (hexValue(invoice.paymentHash) !== hexValue(body.paymentHash)) problems.push(`payment hash: expected paymentHash ${show(body.paymentHash)}, the invoice has ${show(invoice.paymentHash)}`);
  if (invoice.paymentSecret === undefined || !HEX_64.test(invoice.paymentSecret)) problems.push(`payment secret: expected 32 bytes (s field), got ${show(invoice.paymentSecret)}`);
  return problems;
}

/** `d` equals the description, or `h` is its SHA-256. */
function descriptionProblem(description: unknown, invoice: DecodedInvoice): string | undefined {
  if (invoice.description !== undefined) {
    return invoice.description === description ? undefined : `expected the d field to be the description ${show(description)}, got ${show(invoice.description)}`;
  }
  if (invoice.descriptionHash !== undefined) {
    const expected = typeof description === 'string' ? sha256Hex(description) : undefined;
    return invoice.descriptionHash.toLowerCase() === expected ? undefined : `expected the h field to be SHA-256 of the description (${expected}), got ${invoice.descriptionHash}`;
  }
  return 'expected a d (description) or h (description hash) field, got neither';
}

/** The invoice checks. */
export const invoiceChecks: Check[] = [
  onInvoice('invoice.decodes', 'The invoice decodes as BOLT11 (bolt11 package) with a signature that recovers a node key', 'Resources: invoice, "The Lightning invoice (BOLT11 text)"', (_body, invoice) => {
    assert(/^0[23][0-9a-f]{64}$/.test(invoice.payeeNodeKey), `expected the signature to recover a 33-byte node key, got ${show(invoice.payeeNodeKey)}`);
  }),
  onInvoice('invoice.signature-valid', 'The invoice signature verifies (checked a second time with @noble/curves)', 'Resources: invoice, "The Lightning invoice (BOLT11 text)" (BOLT 11: signed by the payee)', (body, invoice) => {
    let key: string;
    try {
      key = verifyInvoiceSignature(body.invoice);
    } catch (error) {
      throw new CheckFailure(`the invoice signature is not valid: ${(error as Error).message}`);
    }
    assert(key === invoice.payeeNodeKey, `two decoders recover different keys from the signature: ${key} and ${invoice.payeeNodeKey}`);
    assert(invoice.payeeNodeKeyTag === undefined || invoice.payeeNodeKeyTag === key, `the n field names ${invoice.payeeNodeKeyTag}, but the signature is by ${key}`);
  }),
  onInvoice('invoice.network', 'The invoice prefix names a Bitcoin network (lnbcrt, lntbs, lntb, lnbc)', 'What the service does: "creates Bitcoin Lightning payment requests"', (_body, invoice, context) => {
    context.observe('network', invoice.network);
    // Simnet (lnsb) decodes, but it is a btcd test harness, not a Bitcoin network a wallet pays on.
    assert(BITCOIN_NETWORKS.includes(invoice.network), `expected a Bitcoin network (${BITCOIN_NETWORKS.join(', ')}), got ${invoice.network} (prefix ${invoice.prefix})`);
  }),
  onInvoice('invoice.amount', 'The invoice amount is the amount in sats', 'What the service does: "Amounts are in satoshis" (the invoice asks amount × 1,000 msat)', (body, invoice) => {
    const problems = invoiceProblems(body, invoice).filter((problem) => problem.startsWith('amount'));
    assert(problems.length === 0, problems.join('; '));
  }),
  onInvoice('invoice.payment-hash', 'The invoice payment hash is paymentHash', 'Resources: paymentHash, "Payment hash for tracking" (the invoice\'s)', (body, invoice) => {
    assert(
      hexValue(invoice.paymentHash) === hexValue(body.paymentHash),
      `expected the invoice's payment hash to be paymentHash ${show(body.paymentHash)}, got ${show(invoice.paymentHash)}`,
    );
  }),
  onInvoice('invoice.payment-secret', 'The invoice carries a payment secret (32 bytes)', 'Resources: invoice, BOLT11 text (BOLT 11: "A writer MUST include exactly one s field")', (_body, invoice) => {
    assert(invoice.paymentSecret !== undefined && HEX_64.test(invoice.paymentSecret), `expected a payment secret (s field) of 64 hex digits, got ${show(invoice.paymentSecret)}`);
  }),
  onInvoice('invoice.expiry-default', 'Without expiresIn the invoice expiry is 3600 s', 'Create: expiresIn "Validity in seconds; default 3600" (the invoice\'s validity)', (_body, invoice) => {
    assert(invoice.expireTime === 3600, `expected an expiry of 3600 s (x field, or none for the default), got ${invoice.expireTime} s`);
  }),
  {
    id: 'invoice.expiry-given',
    title: 'With expiresIn the invoice expiry is expiresIn',
    section: SECTION,
    statement: 'Create: expiresIn "Validity in seconds" (the invoice\'s validity)',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const invoice = decodeOf(await sharedSecondRequest(context), `the request with expiresIn ${SHARED_EXPIRES_IN}`);
      assert(invoice.expireTime === SHARED_EXPIRES_IN, `expected an invoice expiry of ${SHARED_EXPIRES_IN} s (expiresIn), got ${invoice.expireTime} s`);
    },
  },
  onInvoice('invoice.description', 'The invoice description is the description (d), or its SHA-256 (h)', 'Resources: description, "Description of the payment" (the invoice\'s)', (body, invoice) => {
    const problem = descriptionProblem(body.description, invoice);
    assert(problem === undefined, problem!);
  }),
  {
    id: 'invoice.long-description',
    title: 'A description too long for the d field (255 × "⚡", 765 UTF-8 bytes) is committed to by h = SHA-256',
    section: SECTION,
    statement: 'Resources: description "at most 255 characters" (BOLT 11: a description that does not fit goes as its hash)',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const description = '⚡'.repeat(255);
      // The same request validation.description-255-accepted sends (shared): accepting it is that check's business.
      const answer = await probeAnswer(context, value('description', 'accept', description));
      if (answer.status === 400) throw new CheckSkipped('the target rejects a 255-character description of 765 UTF-8 bytes (400), so there is no invoice to read');
      const body = expectCreated(answer, 'POST with a description of 255 × "⚡"');
      const problem = descriptionProblem(description, decodeOf(body, 'the request with a 765-byte description'));
      assert(problem === undefined, problem!);
    },
  },
  onInvoice('invoice.timestamp', 'The invoice timestamp is createdAt (whole seconds, ±1 s)', 'Resources: createdAt (the invoice is created then)', (body, invoice) => {
    const created = timeOf(body.createdAt);
    assert(Number.isFinite(created), `createdAt is not a readable timestamp: ${show(body.createdAt)}`);
    const expected = Math.floor(created / 1000);
    assert(
      Math.abs(invoice.timestamp - expected) <= 1,
      `expected the invoice timestamp ${expected} (createdAt ${body.createdAt}) ±1 s, got ${invoice.timestamp} (${new Date(invoice.timestamp * 1000).toISOString()})`,
    );
  }),
];
