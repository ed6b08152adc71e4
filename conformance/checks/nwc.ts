/**
 * Non-custodial mode (spec: "What the service does", "Resources › Payment request"): with a key of an
 * NWC account, `isNwc` is true and `nwcRelay` names the relay. The 201 list of the create endpoint does
 * not name `nwcRelay`, so on create it is a SHOULD; GET "additionally carries nwcRelay", a MUST.
 */
import type { Check, CheckContext } from '../check.js';
import { verifyInvoiceSignature } from './bolt11-reader.js';
import { decodeOf, invoiceProblems } from './invoice.js';
import { differences } from './read.js';
import { assert, getPaymentRequest, getStatus, sharedNwcRequest, show } from './support.js';

const RESOURCE = 'Resources › Payment request';

/** The NWC key's request as GET shows it, read once. */
function sharedNwcRead(context: CheckContext): Promise<Record<string, any>> {
  return context.shared('GET of the NWC request', async () =>
    getPaymentRequest(context, (await sharedNwcRequest(context)).id, { key: context.options.nwcKey! }),
  );
}

function nwcCheck(id: string, title: string, section: string, statement: string, level: Check['level'], run: Check['run']): Check {
  return { id, title, section, statement, level, profile: 'core', needs: ['nwcKey'], run };
}

const isRelay = (value: unknown) => typeof value === 'string' && value.trim().length > 0;

/** The NWC checks. */
export const nwcChecks: Check[] = [
  nwcCheck('nwc.create-fields', 'A create with the NWC key is accepted with a payment request object (its fields: the create.* checks)', RESOURCE, 'Create: "201 Created: Payment request object" (for a key of a non-custodial account too)', 'MUST', async (context) => {
    await sharedNwcRequest(context);
  }),
  nwcCheck('nwc.is-nwc-true', 'isNwc is true for an NWC account, on create and on GET', 'What the service does', 'Resources: isNwc "true = non-custodial, using the connected wallet"; mode "selected automatically from the account configuration"', 'MUST', async (context) => {
    const [created, read] = await Promise.all([sharedNwcRequest(context), sharedNwcRead(context)]);
    assert(created.isNwc === true, `the 201 body (NWC key): expected isNwc true, got ${show(created.isNwc)}`);
    assert(read.isNwc === true, `the GET body (NWC key): expected isNwc true, got ${show(read.isNwc)}`);
  }),
  nwcCheck('nwc.relay-on-get', 'GET carries nwcRelay, a non-empty string, when isNwc is true', 'Endpoints › Get a payment request', 'Get: "It additionally carries nwcRelay when isNwc is true"', 'MUST', async (context) => {
    const read = await sharedNwcRead(context);
    assert(isRelay(read.nwcRelay), `the GET body (NWC key, isNwc ${show(read.isNwc)}): expected nwcRelay a non-empty string, got ${show(read.nwcRelay)}`);
  }),
  nwcCheck('nwc.relay-on-create', 'The 201 body carries nwcRelay, a non-empty string, when isNwc is true', RESOURCE, 'Resources: nwcRelay, "Relay address used for non-custodial payments. Present only when isNwc is true" (not in the 201 list: SHOULD)', 'SHOULD', async (context) => {
    const created = await sharedNwcRequest(context);
    assert(isRelay(created.nwcRelay), `the 201 body (NWC key, isNwc ${show(created.isNwc)}): expected nwcRelay a non-empty string, got ${show(created.nwcRelay)}`);
  }),
  nwcCheck('nwc.get-equals-create', 'GET of an NWC request returns the fields and values of create', 'Endpoints › Get a payment request', 'Get: "Payment request object as above" (for a non-custodial request too)', 'MUST', async (context) => {
    const [created, read] = await Promise.all([sharedNwcRequest(context), sharedNwcRead(context)]);
    const problems = differences(created, read, ['status']);
    assert(problems.length === 0, `GET (NWC key) differs from the 201 body: ${problems.join('; ')}`);
  }),
  nwcCheck('nwc.status-exact', 'The status endpoint of an NWC request is exactly {"status": …}', 'Endpoints › Get a payment request status', 'Get status: "JSON object with one field: status" (for a non-custodial request too)', 'MUST', async (context) => {
    const { id } = await sharedNwcRequest(context);
    const status = await getStatus(context, id, { key: context.options.nwcKey! });
    assert(status === 'pending', `the status endpoint (NWC key): expected "pending" for a new request, got ${show(status)}`);
  }),
  nwcCheck('nwc.invoice', "An NWC request's invoice decodes with a valid signature, its amount, payment hash and a payment secret", RESOURCE, 'Resources: invoice, "The Lightning invoice (BOLT11 text)" (for a non-custodial request too)', 'MUST', async (context) => {
    const created = await sharedNwcRequest(context);
    const invoice = decodeOf(created, 'the NWC request');
    const problems = invoiceProblems(created, invoice);
    try {
      const key = verifyInvoiceSignature(created.invoice);
      if (key !== invoice.payeeNodeKey) problems.push(`two decoders recover different signing keys: ${key} and ${invoice.payeeNodeKey}`);
    } catch (error) {
      problems.push(`the signature is not valid: ${(error as Error).message}`);
    }
    assert(problems.length === 0, `the NWC request's invoice: ${problems.join('; ')}`);
  }),
];
