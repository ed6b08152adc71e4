/**
 * Non-custodial mode (spec: "What the service does", "Resources › Payment request"): with a key of an
 * NWC account, `isNwc` is true and `nwcRelay` names the relay, on every answer. The 201 list of the
 * create endpoint does not name `nwcRelay`, so on create it is a SHOULD; GET "additionally carries
 * nwcRelay", a MUST. The account meets the service's limits, and its invoices are its wallet's: not
 * signed by the node of the custodial ones, and all paying one node. With an NWC wallet that pays
 * (`--payer-nwc-url`), an NWC request paid through it completes with that payment's preimage.
 */
import type { Check, CheckContext } from '../check.js';
import type { ApiAnswer } from '../client.js';
import { CheckSkipped } from '../check-errors.js';
import { custodialSigners, decodeOf, invoiceProblems } from './invoice.js';
import { assertEvery, decodedInvoices, receivedInvoices, receivedPaymentRequests, signerOf } from './received.js';
import { everyLaterRead } from './read.js';
import {
  assert,
  assertPreimage,
  createPaymentRequest,
  getPaymentRequest,
  getStatus,
  hexValue,
  postCreate,
  settledStatus,
  settleMs,
  sharedNwcRequest,
  sharedPaymentRequest,
  show,
  sleep,
} from './support.js';
import { probeAnswer, value } from './probes.js';
import { minimumAnswer } from './validation.js';

const RESOURCE = 'Resources › Payment request';

/** CONTRACT.md, "Open points": a paid NWC request may read `completed` up to 5 s after the payment. */
const NWC_COMPLETION_LAG_MS = 5000;

/** The NWC key's request as GET shows it, read once. */
function sharedNwcRead(context: CheckContext): Promise<Record<string, any>> {
  return context.shared('GET of the NWC request', async () =>
    getPaymentRequest(context, (await sharedNwcRequest(context)).id, { key: context.options.nwcKey! }),
  );
}

/**
 * A check with the NWC key; `last` (by default) to review every answer the run received, after
 * the NWC request is created and read (asked first, so every review sees those answers).
 */
function nwcCheck(id: string, holds: readonly string[], title: string, section: string, statement: string, level: Check['level'], run: Check['run'], last = true): Check {
  return { id, holds, title, section, statement, level, profile: 'core', needs: ['nwcKey'], ...(last ? { last, ask: sharedNwcRead } : {}), run };
}

const isRelay = (value: unknown) => typeof value === 'string' && value.trim().length > 0;

/** How a create answered, for comparing two keys: accepted (2xx), rejected (400), or another status. */
function outcomeOf(answer: ApiAnswer): string {
  return answer.status >= 200 && answer.status < 300 ? 'accepted' : answer.status === 400 ? 'rejected (400)' : `HTTP ${answer.status}`;
}

/** The NWC checks. */
export const nwcChecks: Check[] = [
  nwcCheck('nwc.create-fields', ['spec.create.201', 'spec.create.201-fields'], 'A create with the NWC key is accepted with a payment request object (its fields: the create.* checks)', RESOURCE, 'Create: "201 Created: Payment request object" (for a key of a non-custodial account too)', 'MUST', async (context) => {
    await sharedNwcRequest(context);
  }, false),
  nwcCheck(
    'nwc.is-nwc-true',
    ['spec.resource.is-nwc', 'spec.service.mode-from-account'],
    'isNwc is true for an NWC account, on every 201 and GET of the NWC key',
    'What the service does',
    'Resources: isNwc "true = non-custodial, using the connected wallet"; mode "selected automatically from the account configuration"',
    'MUST',
    async (context) => {
      await sharedNwcRead(context);
      const answers = receivedPaymentRequests(context).filter(({ key }) => key === 'nwc');
      assertEvery(answers, 'payment requests of the NWC key', ({ body }) => (body.isNwc === true ? undefined : `expected isNwc true, got ${show(body.isNwc)}`));
    },
  ),
  nwcCheck('nwc.relay-on-get', ['spec.get.nwc-relay', 'contract.nwc.relay-in-responses'], 'Every GET carries nwcRelay, a non-empty string, when isNwc is true', 'Endpoints › Get a payment request', 'Get: "It additionally carries nwcRelay when isNwc is true"', 'MUST', async (context) => {
    await sharedNwcRead(context);
    const reads = receivedPaymentRequests(context).filter(({ kind, body }) => kind === 'read' && body.isNwc === true);
    assertEvery(reads, 'GETs of non-custodial requests', ({ body }) => (isRelay(body.nwcRelay) ? undefined : `isNwc true: expected nwcRelay a non-empty string, got ${show(body.nwcRelay)}`));
  }),
  nwcCheck('nwc.relay-on-create', ['contract.nwc.relay-in-responses'], 'Every 201 carries nwcRelay, a non-empty string, when isNwc is true', RESOURCE, 'Resources: nwcRelay, "Relay address used for non-custodial payments. Present only when isNwc is true"; CONTRACT: "on the 201 of a create as on every read" (the spec\'s 201 list does not name it, so an implementation of the spec alone may leave it out there: SHOULD)', 'SHOULD', async (context) => {
    await sharedNwcRequest(context);
    const creates = receivedPaymentRequests(context).filter(({ kind, body }) => kind === 'create' && body.isNwc === true);
    assertEvery(creates, '201s of non-custodial requests', ({ body }) => (isRelay(body.nwcRelay) ? undefined : `isNwc true: expected nwcRelay a non-empty string, got ${show(body.nwcRelay)}`));
  }),
  nwcCheck('nwc.get-equals-create', ['spec.get.200'], 'Every GET of an NWC request returns the fields and values of its create', 'Endpoints › Get a payment request', 'Get: "Payment request object as above" (for a non-custodial request too)', 'MUST', async (context) => {
    await sharedNwcRead(context);
    everyLaterRead(context, (origin) => origin.key === 'nwc');
  }),
  nwcCheck('nwc.status-exact', ['spec.status.200-one-field'], 'The status endpoint of an NWC request is exactly {"status": …}', 'Endpoints › Get a payment request status', 'Get status: "JSON object with one field: status" (for a non-custodial request too)', 'MUST', async (context) => {
    const { id } = await sharedNwcRequest(context);
    const status = await getStatus(context, id, { key: context.options.nwcKey! });
    assert(status === 'pending', `the status endpoint (NWC key): expected "pending" for a new request, got ${show(status)}`);
  }, false),
  nwcCheck(
    'nwc.invoice',
    ['spec.resource.invoice-bolt11'],
    "Every invoice of the NWC key decodes with a valid signature, its amount, payment hash and a payment secret",
    RESOURCE,
    'Resources: invoice, "The Lightning invoice (BOLT11 text)" (for a non-custodial request too)',
    'MUST',
    async (context) => {
      decodeOf(await sharedNwcRequest(context), 'the NWC request');
      const invoices = (await receivedInvoices(context)).filter(({ key }) => key === 'nwc');
      const signers = await Promise.all(invoices.map(({ invoice }) => signerOf(context, invoice)));
      assertEvery(
        invoices.map((entry, index) => ({ ...entry, signer: signers[index]! })),
        'invoices of the NWC key',
        ({ body, decoded, error, signer }) => {
          if (decoded === undefined) return error;
          const problems = invoiceProblems(body, decoded);
          if (signer instanceof Error) problems.push(`the signature is not valid: ${signer.message}`);
          else if (signer !== decoded.payeeNodeKey) problems.push(`two decoders recover different signing keys: ${signer} and ${decoded.payeeNodeKey}`);
          return problems.length === 0 ? undefined : problems.join('; ');
        },
      );
    },
  ),
  nwcCheck(
    'nwc.same-limits',
    ['spec.create.description-max', 'spec.create.amount-minimum'],
    'The NWC key meets the limits on both sides as the main key does: 0, 1, 20 and 21 sats; descriptions of 255 and 256 characters',
    'Limits',
    'Limits: the minimum amount and "description length: at most 255 characters" are the service\'s (the mode only decides where the payment goes)',
    'MUST',
    async (context) => {
      const nwcKey = context.options.nwcKey!;
      const sides = [
        ...[0, 1, 20, 21].map((amount) => ({ what: `amount ${amount}`, main: () => minimumAnswer(context, amount), nwc: () => minimumAnswer(context, amount, nwcKey) })),
        // The main key's answers are the probes of validation.description-255-accepted and validation.description-too-long.
        ...[255, 256].map((length) => ({
          what: `a description of ${length} characters`,
          main: () => probeAnswer(context, value('description', 'either', (length === 255 ? 'b' : 'a').repeat(length))),
          nwc: () => postCreate(context, { description: (length === 255 ? 'b' : 'a').repeat(length) }, { key: nwcKey }),
        })),
      ];
      const outcomes = await Promise.all(sides.map(async ({ what, main, nwc }) => ({ what, main: outcomeOf(await main()), nwc: outcomeOf(await nwc()) })));
      // Where the main key answers neither 2xx nor 400, the limit itself is validation.*'s business.
      const compared = outcomes.filter(({ main }) => main === 'accepted' || main === 'rejected (400)');
      const different = compared.filter(({ main, nwc }) => main !== nwc).map(({ what, main, nwc }) => `${what}: the main key ${main}, the NWC key ${nwc}`);
      assert(different.length === 0, `expected the same limits for both keys; ${different.join('; ')}`);
    },
    false,
  ),
  nwcCheck(
    'nwc.invoice-from-wallet',
    ['spec.service.nwc-through-wallet', 'contract.nwc.wallet-invoice'],
    "No non-custodial invoice is signed by the node of the custodial ones: the payment goes to the connected wallet",
    'What the service does',
    'Resources: destinationWallet "For non-custodial payments … the payment goes directly to the connected wallet"; What the service does: non-custodial payments are "processed through the caller\'s connected Lightning wallet"',
    'MUST',
    async (context) => {
      await Promise.all([sharedNwcRequest(context), sharedPaymentRequest(context)]);
      const invoices = await decodedInvoices(context);
      const service = custodialSigners(invoices);
      if (service.size === 0) throw new CheckSkipped('the run received no custodial invoice (isNwc false), so there is no service node to tell the wallet from');
      const nonCustodial = invoices.filter(({ body }) => body.isNwc === true);
      assertEvery(nonCustodial, 'non-custodial invoices', ({ decoded }) => {
        const custodial = service.get(decoded.payeeNodeKey);
        return custodial === undefined ? undefined : `signed by ${decoded.payeeNodeKey}, the node that signs the custodial invoice of ${custodial.where}: the payment would go to the service, not to the connected wallet`;
      });
    },
  ),
  nwcCheck(
    'nwc.payee-is-wallet',
    ['spec.resource.destination-wallet-records-only', 'spec.service.nwc-through-wallet', 'contract.invoice.signer-nwc'],
    "All invoices of the NWC key pay one node, the connected wallet's: each names the same payee (BOLT11 n, or the key its signature recovers)",
    'What the service does',
    'What the service does: non-custodial payments are "processed through the caller\'s connected Lightning wallet"; Resources: destinationWallet, "the payment goes directly to the connected wallet" (one wallet: its node is the payee of every invoice of the account)',
    'MUST',
    async (context) => {
      await sharedNwcRequest(context);
      // Whether that node is the service's is nwc.invoice-from-wallet's business; an invalid signature invoice.signature-valid's.
      const invoices = (await decodedInvoices(context)).filter(({ key, body }) => key === 'nwc' && body.isNwc === true);
      const payees = new Map<string, string>();
      for (const { decoded, where } of invoices) {
        const payee = decoded.payeeNodeKeyTag ?? decoded.payeeNodeKey;
        if (!payees.has(payee)) payees.set(payee, where);
      }
      if (new Set(invoices.map(({ invoice }) => invoice)).size < 2) throw new CheckSkipped(`the run received ${invoices.length === 0 ? 'no' : 'one'} non-custodial invoice of the NWC key: too few to compare`);
      const [wallet, first] = [...payees][0]!;
      assertEvery(invoices, 'non-custodial invoices of the NWC key', ({ decoded }) => {
        const payee = decoded.payeeNodeKeyTag ?? decoded.payeeNodeKey;
        return payee === wallet ? undefined : `pays the node ${payee}; the invoice of ${first} pays ${wallet}: one account has one connected wallet, so its invoices cannot pay different nodes`;
      });
    },
  ),
  {
    id: 'nwc.completes-with-wallet-preimage',
    holds: ['spec.states.completed', 'spec.resource.preimage-proof'],
    title: "An NWC request paid through an NWC wallet (--payer-nwc-url) completes, with the preimage that wallet's payment returned (its SHA-256 is paymentHash)",
    section: 'States and transitions',
    statement:
      'States: completed, "Paid; a preimage is then available"; Resources: preimage, "proof of payment" (for a non-custodial request, paid to its connected wallet, the preimage the payer received)',
    level: 'MUST',
    profile: 'lifecycle',
    needs: ['nwcKey', 'nwcPayer'],
    async run(context) {
      const key = context.options.nwcKey!;
      const created = await createPaymentRequest(context, { amount: 1000, description: 'lnpr conformance nwc: paid through a wallet' }, { key });
      // That the request says isNwc true is nwc.is-nwc-true's business; that its invoice decodes, nwc.invoice's.
      if (created.isNwc !== true) throw new CheckSkipped(`the NWC key's request reads isNwc ${show(created.isNwc)}, so there is no non-custodial request to pay (nwc.is-nwc-true's business)`);
      const { walletPreimage } = await context.lifecycle!.complete({ id: created.id, invoice: created.invoice });
      assert(typeof walletPreimage === 'string', 'the NWC wallet returned no preimage');
      const status = await settledStatus(context, created.id, { key });
      assert(status === 'completed', `paid through the NWC wallet (waited up to ${settleMs(context) / 1000} s): expected the status endpoint to read "completed", got ${show(status)}: the service did not learn of the payment to its connected wallet`);
      const after = await getPaymentRequest(context, created.id, { key });
      assert(after.status === 'completed', `paid through the NWC wallet, the status endpoint reads completed: expected GET status "completed" too, got ${show(after.status)}`);
      assertPreimage('completed', after.preimage, created.paymentHash);
      assert(
        hexValue(after.preimage) === hexValue(walletPreimage),
        `completed with preimage ${show(after.preimage)}, but the wallet's payment returned ${show(walletPreimage)}: the proof of payment is not the payer's`,
      );
    },
  },
  {
    id: 'nwc.complete-through-control',
    holds: ['contract.control.complete', 'spec.resource.preimage-proof'],
    title: "An NWC request completed through the control API reads completed with a preimage whose SHA-256 is its paymentHash, on GET and on the status endpoint",
    section: RESOURCE,
    statement: 'CONTRACT: "POST /sandbox/v1/payment-requests/{id}/complete: pays it: status completed, preimage set"; Resources: preimage, "proof of payment"',
    level: 'MUST',
    profile: 'full',
    needs: ['nwcKey', 'controls'],
    async run(context) {
      const key = context.options.nwcKey!;
      const created = await createPaymentRequest(context, { amount: 1000, description: 'lnpr conformance: an NWC request completed through the control API' }, { key });
      const path = `/sandbox/v1/payment-requests/${encodeURIComponent(created.id)}/complete`;
      // Timestamps may be whole seconds: a second of the NWC account's clock lets the completion move updatedAt.
      await context.client.post('/sandbox/v1/clock/advance', { key, body: { seconds: 1 } });
      const answer = await context.client.post(path, { key });
      assert(answer.status === 200, `POST ${path} with the NWC key: expected 200, got ${answer.status}`);
      // CONTRACT.md's open point: a paid NWC request may read completed up to 5 s after the payment.
      const deadline = performance.now() + NWC_COMPLETION_LAG_MS;
      while ((await getStatus(context, created.id, { key })) === 'pending' && performance.now() < deadline) await sleep(200);
      const [read, status] = await Promise.all([getPaymentRequest(context, created.id, { key }), getStatus(context, created.id, { key })]);
      assert(read.status === 'completed' && status === 'completed', `after POST ${path}: expected "completed" on GET and on the status endpoint; GET ${show(read.status)}, status endpoint ${show(status)}`);
      assertPreimage('GET of the completed NWC request', read.preimage, created.paymentHash);
    },
  },
];
