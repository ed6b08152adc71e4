/**
 * The invoice (spec: "Resources › Payment request": "The Lightning invoice (BOLT11 text)"), decoded
 * independently: a valid signature, a known network, and the values of the payment request — amount,
 * payment hash, expiry, description (or its hash), timestamp — plus a payment secret. Each rule holds
 * for every invoice the run received, in every check; and the invoices tell the modes apart: one
 * network for all, one node for the custodial ones (the NWC side: nwc.invoice-from-wallet).
 */
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { Check, CheckContext } from '../check.js';
import { CheckFailure, CheckSkipped } from '../check-errors.js';
import { decodeInvoice, type DecodedInvoice } from './bolt11-reader.js';
import { probeAnswer, value } from './probes.js';
import { givenExpiry } from './create.js';
import { assertEvery, decodedInvoices, receivedInvoices, signerOf, type Received, type ReceivedInvoice } from './received.js';
import { assert, HEX_64, hexValue, expectCreated, sharedPaymentRequest, sharedSecondRequest, sha256Hex, show, timeOf } from './support.js';

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

/** An amount in sats as msat (a decimal string), exactly: a fractional one too (100.5 sats: 100,500 msat, which an invoice can ask). */
function msatOf(amount: unknown): string | undefined {
  if (typeof amount !== 'number') return undefined;
  if (Number.isSafeInteger(amount)) return (BigInt(amount) * 1000n).toString();
  return Number.isSafeInteger(amount * 1000) ? String(amount * 1000) : undefined;
}

/** Checks the values every invoice must carry for its payment request. */
export function invoiceProblems(body: Record<string, any>, invoice: DecodedInvoice): string[] {
  const problems: string[] = [];
  if (!/^0[23][0-9a-f]{64}$/.test(invoice.payeeNodeKey)) problems.push(`payee key recovered from the signature: expected 33 bytes of hex, got ${show(invoice.payeeNodeKey)}`);
  const expectedMsat = msatOf(body.amount);
  // An amount that is not a number is create.amount-echo's business; one beyond exact arithmetic (over 2^53) cannot be compared.
  if (expectedMsat !== undefined && invoice.millisatoshis !== expectedMsat) {
    problems.push(`amount: expected ${show(body.amount)} sats (${expectedMsat} msat), the invoice asks ${invoice.millisatoshis ?? 'no amount'} msat`);
  }
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

/** The most UTF-8 bytes a d field holds: its data length is 10 bits of 5-bit words (1,023 × 5 bits). */
const D_FIELD_MAX_BYTES = 639;

/** Whether a description fits a d field (so h is not needed for it). */
function fitsD(description: unknown): boolean {
  return typeof description === 'string' && utf8ToBytes(description).length <= D_FIELD_MAX_BYTES;
}

/** A received invoice that decodes. */
export type Decoded = ReceivedInvoice & { decoded: DecodedInvoice };

/**
 * A rule of the invoice against its payment request, held for every invoice the run received
 * that `applies` (every one by default): each 201 and GET, of every key, in every check. The
 * shared request's invoice must decode first (otherwise the check fails with the decoder's
 * reason); any other that does not decode is invoice.decodes' business.
 */
function everyInvoice(
  id: string,
  holds: readonly string[],
  title: string,
  statement: string,
  problemOf: (entry: Decoded, context: CheckContext) => string | undefined | Promise<string | undefined>,
  options: { applies?: (entry: Decoded) => boolean; level?: Check['level']; section?: string; needs?: Check['needs']; before?: (context: CheckContext) => Promise<void> } = {},
): Check {
  return {
    id,
    holds,
    title,
    section: options.section ?? SECTION,
    statement,
    level: options.level ?? 'MUST',
    profile: 'core',
    ...(options.needs ? { needs: options.needs } : {}),
    last: true,
    async run(context) {
      await sharedDecoded(context);
      await options.before?.(context);
      const entries = (await decodedInvoices(context)).filter((entry) => options.applies?.(entry) ?? true);
      const problems = new Map<Decoded, string | undefined>();
      for (const entry of entries) problems.set(entry, await problemOf(entry, context));
      assertEvery(entries, 'invoices', (entry) => problems.get(entry));
    },
  };
}

/** The create body of an invoice's request, when the run made it. */
const sentOf = (entry: Received) => entry.origin?.sent;

/** Whether an invoice's request was created without expiresIn (absent or null). */
const createdWithDefaultExpiry = (entry: Received) => {
  const sent = sentOf(entry);
  return sent !== undefined && (sent.expiresIn === undefined || sent.expiresIn === null);
};

/** Whether an invoice's request was created with a validity (a positive expiresIn), or by a create the run did not see. */
const createdWithExpiry = (entry: Received) => {
  const sent = sentOf(entry);
  return sent === undefined || givenExpiry(sent);
};

/** The nodes that sign custodial (isNwc false) invoices, each with the first invoice it signed. */
export function custodialSigners(entries: readonly Decoded[]): Map<string, Decoded> {
  const signers = new Map<string, Decoded>();
  for (const entry of entries) if (entry.body.isNwc === false && !signers.has(entry.decoded.payeeNodeKey)) signers.set(entry.decoded.payeeNodeKey, entry);
  return signers;
}

/** The invoice checks. */
export const invoiceChecks: Check[] = [
  everyInvoice(
    'invoice.decodes',
    ['spec.resource.invoice-bolt11', 'contract.invoice.valid'],
    'Every invoice decodes as BOLT11 (bolt11 package) with a signature that recovers a node key',
    'Resources: invoice, "The Lightning invoice (BOLT11 text)"',
    (entry) => (/^0[23][0-9a-f]{64}$/.test(entry.decoded.payeeNodeKey) ? undefined : `expected the signature to recover a 33-byte node key, got ${show(entry.decoded.payeeNodeKey)}`),
    {
      // Undecodable invoices are this check's own business: review them too.
      async before(context) {
        assertEvery(await receivedInvoices(context), 'invoices', (entry) => entry.error);
      },
    },
  ),
  everyInvoice(
    'invoice.signature-valid',
    ['contract.invoice.valid'],
    'Every invoice signature verifies (checked a second time with @noble/curves)',
    'Resources: invoice, "The Lightning invoice (BOLT11 text)" (BOLT 11: signed by the payee)',
    async ({ invoice, decoded }, context) => {
      const key = await signerOf(context, invoice);
      if (key instanceof Error) return `the invoice signature is not valid: ${key.message}`;
      if (key !== decoded.payeeNodeKey) return `two decoders recover different keys from the signature: ${key} and ${decoded.payeeNodeKey}`;
      return decoded.payeeNodeKeyTag === undefined || decoded.payeeNodeKeyTag === key ? undefined : `the n field names ${decoded.payeeNodeKeyTag}, but the signature is by ${key}`;
    },
  ),
  everyInvoice(
    'invoice.network',
    ['contract.invoice.network'],
    'Every invoice prefix names a Bitcoin network (lnbcrt, lntbs, lntb, lnbc)',
    'What the service does: "creates Bitcoin Lightning payment requests"',
    // Simnet (lnsb) decodes, but it is a btcd test harness, not a Bitcoin network a wallet pays on.
    ({ decoded }) => (BITCOIN_NETWORKS.includes(decoded.network) ? undefined : `expected a Bitcoin network (${BITCOIN_NETWORKS.join(', ')}), got ${decoded.network} (prefix ${decoded.prefix})`),
    {
      async before(context) {
        context.observe('network', (await sharedDecoded(context)).invoice.network);
      },
    },
  ),
  {
    id: 'invoice.one-network',
    holds: ['contract.invoice.network'],
    title: "All the invoices of one server are on one network (custodial and non-custodial alike)",
    section: SECTION,
    statement: 'What the service does: one service creates the payment requests of both modes (a payer on one chain can pay every one)',
    level: 'MUST',
    profile: 'core',
    last: true,
    async run(context) {
      await sharedDecoded(context);
      // A network that is not Bitcoin's is invoice.network's business.
      const entries = (await decodedInvoices(context)).filter(({ decoded }) => BITCOIN_NETWORKS.includes(decoded.network));
      const first = entries[0];
      assertEvery(entries, 'invoices on a Bitcoin network', ({ decoded }) =>
        decoded.network === first!.decoded.network ? undefined : `on ${decoded.network} (prefix ${decoded.prefix}); the invoice of ${first!.where} is on ${first!.decoded.network}`,
      );
    },
  },
  everyInvoice('invoice.amount', ['contract.invoice.amount', 'spec.service.sats'], 'Every invoice amount is the amount in sats', 'What the service does: "Amounts are in satoshis" (the invoice asks amount × 1,000 msat)', ({ body, decoded }) =>
    invoiceProblems(body, decoded).find((problem) => problem.startsWith('amount')),
  ),
  everyInvoice('invoice.payment-hash', ['contract.invoice.payment-hash', 'spec.resource.payment-hash-tracking'], 'Every invoice payment hash is paymentHash', 'Resources: paymentHash, "Payment hash for tracking" (the invoice\'s)', ({ body, decoded }) =>
    hexValue(decoded.paymentHash) === hexValue(body.paymentHash) ? undefined : `expected the invoice's payment hash to be paymentHash ${show(body.paymentHash)}, got ${show(decoded.paymentHash)}`,
  ),
  everyInvoice('invoice.payment-secret', ['contract.invoice.payment-secret'], 'Every invoice carries a payment secret (32 bytes)', 'Resources: invoice, BOLT11 text (BOLT 11: "A writer MUST include exactly one s field")', ({ decoded }) =>
    decoded.paymentSecret !== undefined && HEX_64.test(decoded.paymentSecret) ? undefined : `expected a payment secret (s field) of 64 hex digits, got ${show(decoded.paymentSecret)}`,
  ),
  everyInvoice(
    'invoice.expiry-default',
    ['contract.invoice.expiry', 'spec.create.expires-in-optional'],
    'Without expiresIn the invoice expiry is 3600 s (every invoice of a request created without it)',
    'Create: expiresIn "Validity in seconds; default 3600" (the invoice\'s validity)',
    ({ decoded }) => (decoded.expireTime === 3600 ? undefined : `expected an expiry of 3600 s (x field, or none for the default), got ${decoded.expireTime} s`),
    { applies: createdWithDefaultExpiry },
  ),
  everyInvoice(
    'invoice.expiry-given',
    ['contract.invoice.expiry'],
    'With expiresIn the invoice expiry is expiresIn (every invoice of a request created with it; of others, expiresAt − createdAt)',
    'Create: expiresIn "Validity in seconds" (the invoice\'s validity)',
    ({ body, decoded, origin }) => {
      const given = origin?.sent?.expiresIn;
      const seconds = typeof given === 'number' ? given : (timeOf(body.expiresAt) - timeOf(body.createdAt)) / 1000;
      const what = typeof given === 'number' ? `expiresIn ${given}` : `expiresAt − createdAt (${seconds} s)`;
      return Math.abs(decoded.expireTime - seconds) < 1 ? undefined : `expected an invoice expiry of ${what}, got ${decoded.expireTime} s`;
    },
    { applies: createdWithExpiry, before: async (context) => void (await sharedSecondRequest(context)) },
  ),
  everyInvoice(
    'invoice.description',
    ['contract.invoice.description'],
    'The invoice description is the description (d), or its SHA-256 (h), for every description that fits a d field',
    'Resources: description, "Description of the payment" (the invoice\'s)',
    ({ body, decoded }) => descriptionProblem(body.description, decoded),
    { applies: ({ body }) => fitsD(body.description) || typeof body.description !== 'string' },
  ),
  everyInvoice(
    'invoice.long-description',
    ['contract.invoice.description'],
    'A description too long for the d field (255 × "⚡", 765 UTF-8 bytes, and every other) is committed to by h = SHA-256',
    'Resources: description "at most 255 characters" (BOLT 11: a description that does not fit goes as its hash)',
    ({ body, decoded }) => descriptionProblem(body.description, decoded),
    {
      applies: ({ body }) => typeof body.description === 'string' && !fitsD(body.description),
      async before(context) {
        const description = '⚡'.repeat(255);
        // The same request validation.description-255-accepted sends (shared): accepting it is that check's business.
        const answer = await probeAnswer(context, value('description', 'accept', description));
        if (answer.status === 400) throw new CheckSkipped('the target rejects a 255-character description of 765 UTF-8 bytes (400), so there is no invoice to read');
        const problem = descriptionProblem(description, decodeOf(expectCreated(answer, 'POST with a description of 255 × "⚡"'), 'the request with a 765-byte description'));
        assert(problem === undefined, `POST with a description of 255 × "⚡": ${problem}`);
      },
    },
  ),
  everyInvoice(
    'invoice.description-in-d',
    ['contract.invoice.description'],
    'A description that fits the d field (at most 639 UTF-8 bytes) goes in d, not only as its hash in h',
    'CONTRACT: Invoices, "description = `description` (or its SHA-256 as a description hash where it does not fit)"',
    ({ body, decoded }) =>
      decoded.description !== undefined ? undefined : `the description ${show(body.description)} fits a d field (${utf8ToBytes(String(body.description)).length} UTF-8 bytes), but the invoice carries only its hash (h)`,
    { applies: ({ body }) => fitsD(body.description) },
  ),
  everyInvoice('invoice.timestamp', ['contract.invoice.timestamp'], 'Every invoice timestamp is createdAt in whole seconds (its seconds, or rounded to the nearest)', 'CONTRACT: Invoices, "timestamp = createdAt"', ({ body, decoded }) => {
    const created = timeOf(body.createdAt);
    if (!Number.isFinite(created)) return `createdAt is not a readable timestamp: ${show(body.createdAt)}`;
    // The invoice counts whole seconds: createdAt's own second, or createdAt rounded (CONTRACT.md does not say which).
    const allowed = [...new Set([Math.floor(created / 1000), Math.round(created / 1000)])];
    return allowed.includes(decoded.timestamp)
      ? undefined
      : `expected the invoice timestamp ${allowed.join(' or ')} (createdAt ${body.createdAt} in whole seconds), got ${decoded.timestamp} (${new Date(decoded.timestamp * 1000).toISOString()})`;
  }),
  {
    id: 'invoice.one-service-node',
    holds: ['contract.invoice.signer-custodial'],
    title: 'All custodial invoices (isNwc false) are signed by one node: the service\'s',
    section: 'What the service does',
    statement: 'What the service does: custodial payments are "processed by the service\'s managed system" (its node is the payee of every custodial invoice)',
    level: 'MUST',
    profile: 'core',
    last: true,
    async run(context) {
      await sharedDecoded(context);
      const entries = (await decodedInvoices(context)).filter(({ body }) => body.isNwc === false);
      if (entries.length < 2) throw new CheckSkipped(`the run received ${entries.length} custodial invoice(s): too few to compare`);
      const [node, first] = [...custodialSigners(entries)][0]!;
      context.observe('custodialNodes', String(custodialSigners(entries).size));
      assertEvery(entries, 'custodial invoices', ({ decoded }) =>
        decoded.payeeNodeKey === node ? undefined : `signed by ${decoded.payeeNodeKey}; the custodial invoice of ${first.where} by ${node}`,
      );
    },
  },
];
