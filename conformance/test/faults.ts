/**
 * Faulty implementations: our real server behind a proxy that breaks exactly one rule of the spec
 * each. The conformance suite must fail against every one. `expect` names the checks (ids or id
 * prefixes ending in `.`) that ought to catch the fault; the test prints which actually did.
 */
import type { NodeSandboxOptions } from '../../src/sandbox.node.js';
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { DecodedInvoice } from '../../src/lightning/bolt11-decode.js';
import { bytesToWords, intToWords } from '../../src/lightning/words.js';
import { jsonResponse, type Fault } from './faulty-proxy.js';
import { decodeInvoice } from '../../src/lightning/bolt11-decode.js';
import { labelledNodeKey, NWC_WALLET_NODE_KEY, resignInvoice, SERVICE_NODE_KEY, type InvoiceEdit } from './invoice-forgery.js';
import { KEYS, eachPaymentRequest, eachPaymentRequestAndEvent, idRemap, sha256Hex } from './rewrites.js';

const V1 = /^\/api\/v1\//;

/** A faulty implementation: the fault, the spec rule it breaks, and the checks that should see it. */
export interface FaultCase {
  fault: Fault;
  /** The rule of the spec (section: words) the fault breaks. */
  rule: string;
  /** Check ids (or prefixes ending in `.`) expected to fail. */
  expect: string[];
  /** Options of the upstream sandbox, when the fault needs other settings. */
  sandbox?: NodeSandboxOptions;
  /** A deviation from a SHOULD: the run must pass, with the expected check warning. */
  deviation?: 'SHOULD';
  /** The run pays through an NWC wallet (a funded test wallet of the upstream, as payerNwcUrl). */
  payer?: boolean;
}

/**
 * Checks that no fault of their own isolates, and why: the rule they hold is a precondition of
 * other checks too, so every fault that breaks it is genuinely caught by several.
 */
export const SHARED_CATCH: Readonly<Record<string, string>> = {
  'control.other-account-404': '(timing) the fault only it catches in some runs, "ids from the clock", shows only when two requests are made in the same instant; which checks meet such a collision changes from run to run',
  'auth.unknown-key': 'auth.control-api-401 sends the same unknown key to the control API: a target that reads keys one way everywhere fails both; a fault on v1 alone is this check\'s',
  'auth.control-api-401': 'the control API reads keys as v1 does, so a fault in reading keys everywhere (403, any key accepted) fails auth.unknown-key too; a control API that reads keys otherwise than v1 is a generated fault (contract.control.same-keys)',
  'lifecycle.completed-fields': 'where the control API completes requests, control.complete-answer and nwc.complete-through-control hold a completed request to every field of GET\'s rules too; with a pay command or an NWC payer (no controls) it is this check\'s alone',
  'control.complete-answer': 'the hand-written faults change the object in every answer, so the reads after a completion fail too; a fault in the answer of complete alone is generated (contract.control.complete-answer: drop, retype, re-encode), and this check kills it',
  'create.invoice-present': 'read.get-fields now holds every field of every GET answer by the same rule (support.ts FIELD_RULES), so a fault that breaks the field in both 201s and GETs fails both; a fault in 201s alone is this check\'s alone (the generated set has them)',
  'create.payment-hash-format': 'read.get-fields now holds every field of every GET answer by the same rule (support.ts FIELD_RULES), so a fault that breaks the field in both 201s and GETs fails both; a fault in 201s alone is this check\'s alone (the generated set has them)',
  'create.expires-at-format': 'read.get-fields now holds every field of every GET answer by the same rule (support.ts FIELD_RULES), so a fault that breaks the field in both 201s and GETs fails both; a fault in 201s alone is this check\'s alone (the generated set has them)',
  'create.is-nwc-boolean': 'read.get-fields now holds every field of every GET answer by the same rule (support.ts FIELD_RULES), so a fault that breaks the field in both 201s and GETs fails both; a fault in 201s alone is this check\'s alone (the generated set has them)',
  'create.fee-fields': 'read.get-fields now holds every field of every GET answer by the same rule (support.ts FIELD_RULES), so a fault that breaks the field in both 201s and GETs fails both; a fault in 201s alone is this check\'s alone (the generated set has them)',
  'create.timestamps-format': 'read.get-fields now holds every field of every GET answer by the same rule (support.ts FIELD_RULES), so a fault that breaks the field in both 201s and GETs fails both; a fault in 201s alone is this check\'s alone (the generated set has them)',
  'read.unprefixed-id-404': 'read.id-exact tries the real id without `pr_` among its near misses, an instance of this rule on an id that was made',
  'create.amount-echo': 'the amount of the shared request; create.amount-values holds the same rule for other amounts, so a fault in echoing amounts shows there too',
  'create.description-echo': 'the description of the shared request; create.description-values holds the same rule for other descriptions',
  'create.metadata-echo': 'the metadata of the shared request; create.metadata-values holds the same rule for other objects',
  'create.expires-in-honoured': 'expiresIn 600 of the second shared request; create.expires-in-values holds the same rule for other values',
  'create.unique-ids': 'a repeated id makes the later request replace the earlier one, so reading the earlier one (read.*, nwc.*, lifecycle.*) fails too',
  'validation.malformed-json': 'its rule (a 4xx) is implied by validation.malformed-json-400 (a 400), which warns about every fault it catches',
  'read.get-fields': 'a GET answering 200 with a JSON object is what every check that reads needs: a fault there fails them too',
  'nwc.create-fields': 'the request it creates with the NWC key is what every nwc.* check reads',
  'nwc.is-nwc-true': 'a non-custodial request that does not say isNwc true either keeps nwcRelay (create.nwc-relay-only-when-nwc fails) or drops it (nwc.relay-on-get fails): the mode and the relay go together',
  'invoice.decodes': 'every invoice.* check reads the decoded invoice: one that does not decode fails them all',
  'invoice.signature-valid': 'the bolt11 decoder verifies the signature too (invoice.decodes), and so every invoice.* check that reads it',
  'fees.table': "the spec's worked table, by name; fees.accepted-amounts holds the same rules on every request the run received, these amounts included",
  'fees.threshold-edge': 'both sides of the 1,000-sat threshold, by name; fees.accepted-amounts holds the rules on every request the run received, 999 and 1,000 sats included',
  'fees.same-in-both-modes': 'the fee rules and their one reading hold on every request of both keys (fees.accepted-amounts, fees.rounding-above-threshold, fees.percentage-*), so a fee that differs by mode breaks one of those too',
  'nwc.invoice': 'names the NWC key\'s invoices in the report; every invoice.* check holds the same rules on every invoice, the NWC ones included',
  'read.status-agrees': "the status endpoint's word on a pending request is read again by lifecycle.expiry-boundary (pending just before expiresAt): a status endpoint that disagrees with GET fails both",
  'lifecycle.updated-at-moves': 'completion is one transition; lifecycle.updated-at-every-transition holds the rule on every transition the run saw',
  'lifecycle.expires-by-clock': 'its reading (a second past expiresAt) is also the "after" reading of lifecycle.expiry-boundary, which reads just before too',
  // Checks added with the statement table (issue 24) overlap older ones on purpose (each statement
  // held where a client reads it); conformance/checks/control-checks.test.ts has a fault of its
  // own for most of them, and the generated set (generated-faults.test.ts) counts the rest.
  'create.status-201': 'validation.description-code-points reads the 201 of a create too: a create answering another status fails both',
  'create.id-format': 'read.id-exact and read.other-account-as-unknown read ids of the same shape (near misses of one, id-shaped text in answers): an id of another shape fails them too',
  'create.description-values': 'the description rules are held three ways (values, 255 characters, code points): a fault that cuts or refuses descriptions fails all three',
  'validation.description-255-accepted': 'the description rules are held three ways (values, 255 characters, code points): a fault that cuts or refuses descriptions fails all three',
  'validation.description-code-points': 'the description rules are held three ways (values, 255 characters, code points); its own fault (UTF-16 units counted) is in control-checks.test.ts',
  'read.unknown-id-404': 'an unknown id, a near miss of a real one and another account\'s id must all answer as an unknown id: a fault in that answer fails each of the five read.* checks of it',
  'read.other-account-hidden': 'an unknown id, a near miss of a real one and another account\'s id must all answer as an unknown id: a fault in that answer fails each of the five read.* checks of it',
  'read.other-account-404': 'an unknown id, a near miss of a real one and another account\'s id must all answer as an unknown id: a fault in that answer fails each of the five read.* checks of it',
  'read.id-exact': 'an unknown id, a near miss of a real one and another account\'s id must all answer as an unknown id; its own fault (ids matched by prefix and case) is in control-checks.test.ts',
  'read.other-account-as-unknown': 'an unknown id, a near miss of a real one and another account\'s id must all answer as an unknown id; its own fault (another body for another account) is in control-checks.test.ts',
  'invoice.payment-secret': 'invoice.field-multiplicities counts the fields the decoder reads: an invoice without its payment secret fails both',
  'invoice.field-multiplicities': 'counts the BOLT 11 fields the invoice.* checks decode (a missing one fails both); its own fault (two d fields) is in control-checks.test.ts',
  'nwc.relay-on-get': 'nwc.relay-ws-url reads the same nwcRelay on GET: absent fails both',
  'nwc.relay-ws-url': 'reads the nwcRelay nwc.relay-on-get reads (absent fails both); its own fault (an http URL) is in control-checks.test.ts',
  'credentials.read-only-get': 'reads with the read-only key what read.* reads with the main key: a fault in reading fails both',
  'control.clock-answers': 'no classifier fault changes the clock\'s answers; its own (frozen as a string) is in control-checks.test.ts',
  'control.clock-per-account': 'no hand-written fault shares a clock between accounts (what the generated set\'s leak faults do to it is in its report)',
  'accounts.create-answer': 'the classifier and the generated set run without --admin-key, so the scratch-account checks skip there; control-checks.test.ts runs them against our server (no fault of its own yet)',
  'accounts.list': 'the classifier and the generated set run without --admin-key, so the scratch-account checks skip there; its own fault (keys in the list) is in control-checks.test.ts',
  'accounts.delete': 'the classifier and the generated set run without --admin-key, so the scratch-account checks skip there; control-checks.test.ts runs them against our server (no fault of its own yet)',
  'accounts.new-empty': 'the classifier and the generated set run without --admin-key, so the scratch-account checks skip there; control-checks.test.ts runs them against our server (no fault of its own yet)',
  'accounts.reset': 'the classifier and the generated set run without --admin-key, so the scratch-account checks skip there; its own fault (reset keeps the clock) is in control-checks.test.ts',
  'credentials.read-only-no-secrets': 'the classifier and the generated set run without --admin-key, so the scratch-account checks skip there; control-checks.test.ts runs them against our server (no fault of its own yet)',
  'credentials.accounts-key-only': 'the classifier and the generated set run without --admin-key, so the scratch-account checks skip there; its own fault (the accounts key reads v1) is in control-checks.test.ts',
  'credentials.refused-leaves-nothing': 'the classifier and the generated set run without --admin-key, so the scratch-account checks skip there; control-checks.test.ts runs them against our server (no fault of its own yet)',
  // The sandbox surfaces a target may offer (checks/sandbox-surfaces.ts): no hand-written fault of
  // this table touches them; sandbox-surfaces.test.ts has faults of their own, and the generated set
  // (the contract.webhooks.*, contract.wallets.* and contract.healthz statements) kills its faults with them.
  'sandbox.webhook-endpoints': 'no hand-written fault touches webhook endpoints; its own faults (the filter widened, a DELETE that does nothing) are in sandbox-surfaces.test.ts, and the generated faults of contract.webhooks.endpoint-* are killed by it',
  'sandbox.test-wallets': 'no hand-written fault touches test wallets; its own faults (balances in msats, a top-up that adds one more) are in sandbox-surfaces.test.ts, and the generated faults of contract.wallets.* are killed by it',
  'sandbox.healthz': 'no hand-written fault touches /healthz; its own fault (a key needed) is in sandbox-surfaces.test.ts, and the generated faults of contract.healthz are killed by it',
  'sandbox.webhook-deliveries': 'no hand-written fault touches delivery attempts; its own faults (oldest first, a redelivery that sends nothing) are in sandbox-records.test.ts, and the generated faults of contract.webhooks.deliveries-list and .redeliver are killed by it',
  'sandbox.openapi-document': 'no hand-written fault touches /openapi.json; its own fault (not served) is in sandbox-records.test.ts, and the generated faults of contract.openapi.served are killed by it',
  'sandbox.webhook-delivery': 'no hand-written fault touches a delivery on its way (the proxy relays deliveries only for faults that rewrite them); its own faults (another signature, none sent) are in sandbox-records.test.ts, and the generated faults of contract.webhooks.emit, .standard-signed, .headers and .events-filter are killed by it',
  'sandbox.pay-page': 'no hand-written fault touches the pay page; its own fault (a key needed) is in sandbox-records.test.ts, and the generated faults of contract.pay-page.* are killed by it',
  'sandbox.cors': 'no hand-written fault touches CORS; its own faults (none on /api/v1, any origin on /sandbox/v1) are in sandbox-records.test.ts, and the generated faults of contract.browser.cors-* are killed by it',
};

const SECOND = 1000;

/** 0.5 % of `amount`, rounded halves up (our default rounding). */
function halfPercent(amount: number): number {
  return Math.round(amount / 200);
}

/** A fault that recomputes `feeAmount` with a wrong formula (where it differs from the right one). */
function wrongFee(name: string, description: string, rule: string, expect: string[], fee: (amount: number, pr: Record<string, any>) => number): FaultCase {
  return {
    rule,
    expect,
    fault: {
      name,
      description,
      response: eachPaymentRequest((pr) => {
        if (typeof pr.amount === 'number') pr.feeAmount = fee(pr.amount, pr);
      }),
    },
  };
}

/** A fault that deletes a field from every payment request object. */
function missingField(field: string, expect: string[], only?: 'read'): FaultCase {
  return {
    rule: `Resources: \`${field}\` is present ${field === 'invoice' || field === 'paymentHash' ? 'on create and on read' : 'always'}`,
    expect,
    fault: {
      name: only ? `${field} missing on read` : `${field} missing`,
      description: `payment request objects${only ? ' read with GET' : ''} lack \`${field}\``,
      response: eachPaymentRequest((pr, req) => {
        if (!only || req.route === only) delete pr[field];
      }),
    },
  };
}

/** A fault that re-signs every invoice with one thing changed (a valid invoice, wrong in that thing). */
function forgedInvoice(
  name: string,
  description: string,
  rule: string,
  expect: string[],
  edit: (decoded: DecodedInvoice) => InvoiceEdit,
  only: (pr: Record<string, any>) => boolean = () => true,
  signWith?: (decoded: DecodedInvoice) => Uint8Array,
  deviation?: 'SHOULD',
): FaultCase {
  const forged = new Map<string, string>();
  return {
    rule,
    expect,
    ...(deviation ? { deviation } : {}),
    fault: {
      name,
      description,
      response: eachPaymentRequest((pr) => {
        if (typeof pr.invoice !== 'string' || !only(pr)) return;
        if (!forged.has(pr.invoice)) forged.set(pr.invoice, resignInvoice(pr.invoice, edit, signWith?.(decodeInvoice(pr.invoice))));
        pr.invoice = forged.get(pr.invoice);
      }),
    },
  };
}

/**
 * A fault that rewrites the status a request reads (GET and the status endpoint) from the
 * account's clock: `reads(request, nowMs)` says what the faulty implementation shows instead, and
 * the request's `updatedAt` (on GET) is the moment that state began.
 */
function clockedStatus(
  name: string,
  description: string,
  rule: string,
  expect: string[],
  reads: (request: Record<string, any>, nowMs: number) => { status: string; sinceMs: number } | undefined,
): FaultCase {
  return {
    rule,
    expect,
    fault: {
      name,
      description,
      async response(req, res, ctx) {
        if ((req.route !== 'read' && req.route !== 'status') || res.status !== 200 || req.key === undefined || req.id === undefined) return;
        const [clock, request] = await Promise.all([
          ctx.upstream('GET', '/sandbox/v1/clock', { key: req.key }),
          req.route === 'read' ? Promise.resolve(res) : ctx.upstream('GET', `/api/v1/payment-requests/${encodeURIComponent(req.id)}`, { key: req.key }),
        ]);
        const shown = reads(request.body, Date.parse(clock.body?.now));
        if (shown === undefined) return;
        res.body.status = shown.status;
        if (req.route === 'read') res.body.updatedAt = new Date(shown.sinceMs).toISOString();
      },
    },
  };
}

/** Whether a bearer key is one of the default test keys. */
const isKnownKey = (key: string | undefined): key is string => key !== undefined && (Object.values(KEYS) as string[]).includes(key);

/** Payment requests of the custodial account (isNwc false): faults of that code path only. */
const custodial = (pr: Record<string, any>) => pr.isNwc === false;

/**
 * A fault that lets a control transition out of a terminal state: `transition` on a request that
 * reads `from` succeeds, and from then on it reads `to` (without a preimage unless completed).
 */
function terminalEscape(name: string, from: string, transition: 'complete' | 'fail', to: string, expect: string[], rule: string): FaultCase {
  const escaped = new Set<string>();
  const escapedAt = new Map<string, string>();
  const shown = (body: Record<string, any>) => {
    const { preimage, ...rest } = body;
    // The escape is a change like any other: updatedAt moves (a second after the state it left).
    if (!escapedAt.has(body.id)) escapedAt.set(body.id, new Date(Date.parse(body.updatedAt) + SECOND).toISOString());
    return { ...rest, status: to, updatedAt: escapedAt.get(body.id), ...(to === 'completed' ? { preimage: preimage ?? sha256Hex(`escaped ${body.id}`) } : {}) };
  };
  return {
    rule,
    expect,
    fault: {
      name,
      description: `${transition === 'complete' ? 'paying' : 'failing'} a ${from} request succeeds and it then reads ${to}`,
      async request(req, ctx) {
        if (req.route !== 'control' || req.method !== 'POST' || !req.path.split('?')[0]!.endsWith(`/${transition}`) || req.id === undefined) return undefined;
        const current = await ctx.upstream('GET', `/api/v1/payment-requests/${encodeURIComponent(req.id)}`, req.key !== undefined ? { key: req.key } : {});
        if (current.status !== 200 || current.body?.status !== from) return undefined;
        escaped.add(req.id);
        return jsonResponse(200, shown(current.body));
      },
      response(req, res) {
        if (req.id === undefined || !escaped.has(req.id) || res.status !== 200 || typeof res.body?.status !== 'string') return;
        res.body = req.route === 'status' ? { status: to } : shown(res.body);
      },
    },
  };
}

/** Whether a create body is a JSON object (faults that fill in fields leave other bodies alone). */
function isObjectBody(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}

/** Builds every fault, each with fresh state. */
export function buildFaults(): FaultCase[] {
  return [
    // ---- Fee rules ----
    wrongFee(
      'fee floor at 1,000',
      'the 10-sat minimum fee also applies at exactly 1,000 sats (fee 10 instead of 5)',
      'Fee rules: "1,000 sats or more: 0.5 % of the amount" (1,000 → 5)',
      ['fees.table', 'fees.threshold-edge'],
      (amount) => (amount <= 1000 ? Math.max(10, halfPercent(amount)) : halfPercent(amount)),
    ),
    wrongFee(
      'fee floor ends at 999',
      'the 10-sat minimum stops one sat early: 999 sats pay 0.5 % (5) instead of 10',
      'Fee rules: "less than 1,000 sats: the higher of 10 sats and 0.5 %"',
      ['fees.threshold-edge'],
      (amount) => (amount < 999 ? Math.max(10, halfPercent(amount)) : halfPercent(amount)),
    ),
    wrongFee(
      'no minimum fee',
      'below 1,000 sats the fee is 0.5 % without the 10-sat minimum (21 → 0, 100 → 1, 500 → 3)',
      'Fee rules: "the higher of 10 sats and 0.5 % of the amount"',
      ['fees.table'],
      (amount) => halfPercent(amount),
    ),
    wrongFee(
      'fee capped at 5',
      'the fee never exceeds 5 sats (10,000 → 5 instead of 50)',
      'Fee rules: 10,000 sats → 50',
      ['fees.table'],
      (amount) => (amount < 1000 ? Math.max(10, halfPercent(amount)) : Math.min(5, halfPercent(amount))),
    ),
    {
      rule: 'Fee rules: "A 10,000-sat payment shows feePercentage 0.5"',
      expect: ['fees.percentage-from-threshold'],
      fault: {
        name: 'feePercentage as a fraction',
        description: 'feePercentage is 0.005 (a fraction) instead of 0.5 (percent) from 1,000 sats',
        response: eachPaymentRequest((pr) => {
          if (pr.amount >= 1000) pr.feePercentage = 0.005;
        }),
      },
    },
    {
      rule: 'What the service does: "The fee amount is the same in both modes"',
      expect: ['fees.same-in-both-modes'],
      fault: {
        name: 'no fee for NWC',
        description: 'non-custodial requests show feeAmount 0 ("fees are collected separately" misread)',
        response: eachPaymentRequest((pr) => {
          if (pr.isNwc === true) pr.feeAmount = 0;
        }),
      },
    },
    wrongFee(
      'fee in millisats',
      'feeAmount is given in millisatoshis (1,000 → 5000)',
      'Resources: feeAmount is "Fee in satoshis"',
      ['fees.table'],
      (amount) => (amount < 1000 ? Math.max(10, halfPercent(amount)) : halfPercent(amount)) * 1000,
    ),

    // ---- Authentication ----
    {
      rule: 'Authentication 4: "A key that lacks permission for an action also gets 401"',
      expect: ['auth.read-only-cannot-create'],
      fault: {
        name: '403 for missing permission',
        description: 'the read-only key creating gets 403 Forbidden instead of 401',
        response(_req, res) {
          if (res.status === 401 && res.body?.error?.code === 'insufficient_permission') res.status = 403;
        },
      },
    },
    {
      rule: 'Authentication 3: "A request with a missing or invalid key gets 401"',
      expect: ['auth.unknown-key', 'auth.malformed-header', 'auth.empty-bearer'],
      fault: {
        name: '403 for an invalid key',
        description: 'a request with a key that is not valid gets 403 (a missing key still gets 401)',
        response(req, res) {
          if (res.status === 401 && req.headers.authorization !== undefined) res.status = 403;
        },
      },
    },
    {
      rule: 'Authentication 3: an invalid key gets 401',
      expect: ['auth.unknown-key'],
      fault: {
        name: 'any bearer key accepted',
        description: 'an unknown bearer key is treated as the custodial account (no key validation)',
        request(req) {
          if (req.key !== undefined && !Object.values(KEYS).includes(req.key as never)) req.headers.authorization = `Bearer ${KEYS.custodial}`;
        },
      },
    },
    {
      rule: 'Authentication 3 / Get: "401 Unauthorized: API key missing or invalid"',
      expect: ['auth.missing-key'],
      fault: {
        name: 'reads without a key',
        description: 'GET of a request and of its status is served without any Authorization header',
        request(req) {
          if (req.method === 'GET' && (req.route === 'read' || req.route === 'status') && req.headers.authorization === undefined) {
            req.headers.authorization = `Bearer ${KEYS.custodial}`;
          }
        },
      },
    },
    {
      rule: 'Create: "401 Unauthorized: API key … lacking permission for the action"',
      expect: ['auth.read-only-cannot-create'],
      fault: {
        name: 'read-only key may create',
        description: 'permissions are not enforced: the read-only key creates like the full key of its account',
        request(req) {
          if (req.route === 'create' && req.key === KEYS.readonly) req.headers.authorization = `Bearer ${KEYS.custodial}`;
        },
      },
    },

    // ---- Fields present ----
    missingField('invoice', ['create.invoice-present', 'read.get-fields']),
    missingField('invoice', ['create.invoice-present', 'read.get-fields', 'read.get-equals-create'], 'read'),
    missingField('paymentHash', ['create.payment-hash-format']),
    missingField('expiresAt', ['create.expires-at-format']),
    missingField('isNwc', ['create.is-nwc-boolean']),
    missingField('feeAmount', ['create.fee-fields']),
    missingField('feePercentage', ['create.fee-fields']),
    missingField('createdAt', ['create.timestamps-format']),
    missingField('updatedAt', ['create.timestamps-format']),
    missingField('id', ['create.id-format']),
    {
      rule: 'Get: "It additionally carries nwcRelay when isNwc is true"',
      expect: ['nwc.relay-on-get'],
      fault: {
        name: 'nwcRelay missing for NWC',
        description: 'non-custodial requests never carry nwcRelay',
        response: eachPaymentRequest((pr) => {
          delete pr.nwcRelay;
        }),
      },
    },

    // ---- Types and formats ----
    {
      rule: 'Resources: id is "shaped pr_<identifier>"',
      expect: ['create.id-format'],
      fault: { name: 'id without pr_', description: 'ids are the bare identifier, without the pr_ prefix', ...idRemap((id) => id.slice(3)) },
    },
    {
      rule: 'Resources: id identifies the payment request (distinct requests, distinct ids)',
      expect: ['create.unique-ids'],
      fault: {
        name: 'ids from the clock',
        description: 'ids are pr_ + the creation second, so requests created in the same second share an id (the later wins)',
        ...idRemap((_id, holder) => `pr_${Math.floor(Date.parse(String(holder?.createdAt)) / SECOND)}`),
      },
    },
    {
      rule: 'States: status is one of pending, completed, expired, failed',
      expect: ['create.status-pending', 'read.status-exact'],
      fault: {
        name: 'status in upper case',
        description: 'statuses are PENDING, COMPLETED, … everywhere',
        response(_req, res) {
          if (typeof res.body?.status === 'string') res.body.status = res.body.status.toUpperCase();
        },
      },
    },
    {
      rule: 'Create: 201 with status (pending)',
      expect: ['create.status-pending'],
      fault: {
        name: 'status open',
        description: 'a new request is "open" instead of "pending"',
        response(_req, res) {
          if (res.body?.status === 'pending') res.body.status = 'open';
        },
      },
    },
    {
      rule: 'Resources: expiresAt is "ISO 8601 UTC timestamp with milliseconds"',
      expect: ['create.expires-at-format'],
      fault: {
        name: 'expiresAt without milliseconds',
        description: 'expiresAt is 2026-11-23T11:00:00Z (no .000)',
        response: eachPaymentRequest((pr) => {
          if (typeof pr.expiresAt === 'string') pr.expiresAt = pr.expiresAt.replace(/\.\d{3}Z$/, 'Z');
        }),
      },
    },
    {
      rule: 'Resources: expiresAt is an ISO 8601 UTC timestamp',
      expect: ['create.expires-at-format'],
      fault: {
        name: 'expiresAt not in UTC',
        description: 'expiresAt is the same instant written with a +01:00 offset',
        response: eachPaymentRequest((pr) => {
          if (typeof pr.expiresAt === 'string') {
            const local = new Date(Date.parse(pr.expiresAt) + 3600 * SECOND).toISOString();
            pr.expiresAt = local.replace(/Z$/, '+01:00');
          }
        }),
      },
    },
    {
      rule: 'Resources: createdAt is an ISO 8601 UTC timestamp (string)',
      expect: ['create.timestamps-format'],
      fault: {
        name: 'createdAt as Unix seconds',
        description: 'createdAt is a number of seconds since 1970',
        response: eachPaymentRequest((pr) => {
          if (typeof pr.createdAt === 'string') pr.createdAt = Date.parse(pr.createdAt) / SECOND;
        }),
      },
    },
    {
      rule: 'Resources: amount is a number',
      expect: ['create.amount-echo'],
      fault: {
        name: 'amount as a string',
        description: 'amount is echoed as a string ("1000")',
        response: eachPaymentRequest((pr) => {
          if (typeof pr.amount === 'number') pr.amount = String(pr.amount);
        }),
      },
    },
    {
      rule: 'Resources: isNwc is a boolean',
      expect: ['create.is-nwc-boolean'],
      fault: {
        name: 'isNwc as a string',
        description: 'isNwc is "false"/"true"',
        response: eachPaymentRequest((pr) => {
          if (typeof pr.isNwc === 'boolean') pr.isNwc = String(pr.isNwc);
        }),
      },
    },

    // ---- Values ----
    {
      rule: 'Create: expiresIn is the validity in seconds',
      expect: ['create.expires-in-honoured', 'invoice.expiry-given'],
      fault: {
        name: 'expiresIn ignored',
        description: 'every request is valid for 3600 s, whatever expiresIn says',
        request(req) {
          if (req.route === 'create' && isObjectBody(req.body)) delete req.body.expiresIn;
        },
      },
    },
    {
      rule: 'Limits: "expiresIn default: 3600 seconds"',
      expect: ['create.default-expiry', 'invoice.expiry-default'],
      fault: {
        name: 'default expiry 1800',
        description: 'without expiresIn, a request is valid for 1800 s',
        request(req) {
          if (req.route === 'create' && isObjectBody(req.body) && !('expiresIn' in req.body)) {
            req.body.expiresIn = 1800;
          }
        },
      },
    },
    {
      rule: 'Create: expiresIn is in seconds',
      expect: ['create.default-expiry', 'create.expires-in-honoured'],
      fault: {
        name: 'expiresIn read as milliseconds',
        description: 'expiresAt = createdAt + expiresIn milliseconds (3600 → 3.6 s)',
        response: eachPaymentRequest((pr) => {
          const created = Date.parse(pr.createdAt);
          const expires = Date.parse(pr.expiresAt);
          if (Number.isFinite(created) && Number.isFinite(expires)) pr.expiresAt = new Date(created + (expires - created) / 1000).toISOString();
        }),
      },
    },
    {
      rule: 'Resources: metadata "returned as given"',
      expect: ['create.metadata-echo'],
      fault: {
        name: 'metadata dropped',
        description: 'metadata is accepted but never returned',
        response: eachPaymentRequest((pr) => {
          delete pr.metadata;
        }),
      },
    },
    {
      rule: 'Get: "200 OK: Payment request object as above" (metadata included)',
      expect: ['read.get-equals-create'],
      fault: {
        name: 'metadata missing on read',
        description: 'create echoes metadata, GET does not return it',
        response: eachPaymentRequest((pr, req) => {
          if (req.route === 'read') delete pr.metadata;
        }),
      },
    },
    {
      rule: 'Resources: metadata "returned as given"',
      expect: ['create.metadata-echo'],
      fault: {
        name: 'metadata flattened',
        description: 'nested metadata values come back as JSON strings (string-only metadata)',
        response: eachPaymentRequest((pr) => {
          if (pr.metadata && typeof pr.metadata === 'object') {
            pr.metadata = Object.fromEntries(
              Object.entries(pr.metadata).map(([key, value]) => [key, typeof value === 'object' && value !== null ? JSON.stringify(value) : value]),
            );
          }
        }),
      },
    },
    {
      rule: 'Create: description "At most 255 characters" (so 255 are kept)',
      expect: ['validation.description-255-accepted', 'create.description-echo'],
      fault: {
        name: 'description cut at 100',
        description: 'descriptions are silently cut to 100 characters',
        request(req) {
          if (req.route === 'create' && typeof req.body?.description === 'string') req.body.description = [...req.body.description].slice(0, 100).join('');
        },
      },
    },
    {
      rule: 'Resources: destinationWallet "is not among the fields shown in responses"',
      expect: ['create.no-destination-wallet'],
      fault: (() => {
        const wallets = new Map<string, unknown>();
        return {
          name: 'destinationWallet echoed',
          description: 'responses carry the destinationWallet given at creation',
          response: eachPaymentRequest((pr, req) => {
            if (req.route === 'create') wallets.set(pr.id, req.body?.destinationWallet);
            if (wallets.has(pr.id)) pr.destinationWallet = wallets.get(pr.id);
          }),
        };
      })(),
    },
    {
      rule: 'Resources: preimage "available after successful completion"; Get: preimage "when completed"',
      expect: ['create.no-preimage'],
      fault: {
        name: 'preimage before payment',
        description: 'pending requests already carry a preimage',
        response: eachPaymentRequest((pr) => {
          if (pr.status === 'pending' && pr.preimage === undefined) pr.preimage = sha256Hex(`preimage ${pr.id}`);
        }),
      },
    },
    {
      rule: 'Resources: invoice is the Lightning invoice of the payment request (its amount is `amount`)',
      expect: ['invoice.amount'],
      fault: (() => {
        const swapped = new Map<string, { invoice: string; paymentHash: string }>();
        return {
          name: 'invoice of another amount',
          description: "the invoice (and its hash) belong to another request for amount + 1 sat",
          async response(req, res, ctx) {
            if (req.route === 'create' && res.status === 201 && typeof res.body?.id === 'string' && typeof req.body?.amount === 'number') {
              const other = await ctx.upstream('POST', '/api/v1/payment-requests', {
                ...(req.key !== undefined ? { key: req.key } : {}),
                body: { ...req.body, amount: req.body.amount + 1 },
              });
              if (other.status === 201) swapped.set(res.body.id, { invoice: other.body.invoice, paymentHash: other.body.paymentHash });
            }
            if (typeof res.body?.id === 'string' && swapped.has(res.body.id) && 'invoice' in res.body) Object.assign(res.body, swapped.get(res.body.id));
          },
        };
      })(),
    },
    {
      rule: 'Resources: paymentHash is the payment hash (of the invoice) for tracking',
      expect: ['invoice.payment-hash'],
      fault: {
        name: 'paymentHash not the invoice hash',
        description: "paymentHash is a consistent 32-byte value that is not the invoice's payment hash",
        response: eachPaymentRequest((pr) => {
          if (typeof pr.paymentHash === 'string') pr.paymentHash = sha256Hex(`hash ${pr.id}`);
        }),
      },
    },
    {
      rule: 'Resources: invoice is a Lightning invoice (BOLT11 text), so it decodes with a valid signature',
      expect: ['invoice.decodes', 'invoice.signature-valid'],
      fault: {
        name: 'invoice tampered',
        description: 'one character of the signature changed, nothing fixed (bad checksum and signature)',
        response: eachPaymentRequest((pr) => {
          if (typeof pr.invoice === 'string' && pr.invoice.length > 30) {
            const at = pr.invoice.length - 20;
            const replacement = pr.invoice[at] === 'q' ? 'p' : 'q';
            pr.invoice = pr.invoice.slice(0, at) + replacement + pr.invoice.slice(at + 1);
          }
        }),
      },
    },
    forgedInvoice(
      'invoice without payment secret',
      'invoices carry no payment secret (s) and no feature bits: a pre-2021 invoice, signed correctly',
      'Resources: invoice is a BOLT11 invoice; BOLT #11: "A writer MUST include exactly one s field"',
      ['invoice.payment-secret'],
      (decoded) => ({ fields: decoded.fields.filter((field) => field.tag !== 's' && field.tag !== '9') }),
    ),
    forgedInvoice(
      'invoice on Litecoin',
      'invoices use the Litecoin prefix lnltc, signed correctly',
      'What the service does: Bitcoin Lightning payment requests (the invoice names a Bitcoin network)',
      ['invoice.network'],
      (decoded) => ({ hrp: `lnltc${decoded.hrp.slice(decoded.prefix.length)}` }),
    ),
    forgedInvoice(
      'invoice timestamp an hour late',
      'the invoice timestamp is local time (UTC+1) read as UTC: createdAt + 3600 s',
      'Resources: createdAt is the creation time (the invoice is created then, its timestamp says when)',
      ['invoice.timestamp'],
      (decoded) => ({ timestampSeconds: decoded.timestampSeconds + 3600 }),
    ),
    forgedInvoice(
      'invoice with a fixed description',
      'every invoice says "Payment" instead of the description',
      'Resources: description is the "Description of the payment" (the invoice is that payment\'s)',
      ['invoice.description', 'invoice.long-description'],
      (decoded) => ({
        fields: decoded.fields.map((field) =>
          field.tag === 'd' || field.tag === 'h' ? { tag: 'd', words: bytesToWords(utf8ToBytes('Payment')) } : field,
        ),
      }),
    ),
    forgedInvoice(
      'invoice expiry always 3600',
      'the invoice expiry (x) is 3600 s whatever expiresIn says (expiresAt honours it)',
      'Create: expiresIn is the validity in seconds (of the request and so of its invoice)',
      ['invoice.expiry-given'],
      (decoded) => ({ fields: decoded.fields.map((field) => (field.tag === 'x' ? { tag: 'x', words: intToWords(3600) } : field)) }),
    ),
    {
      rule: 'Resources: nwcRelay "Present only when isNwc is true"',
      expect: ['create.nwc-relay-only-when-nwc'],
      fault: {
        name: 'nwcRelay for custodial',
        description: 'custodial requests carry an nwcRelay too',
        response: eachPaymentRequest((pr) => {
          if (pr.isNwc === false) pr.nwcRelay = 'wss://relay.example.com';
        }),
      },
    },
    {
      rule: 'What the service does: mode "selected automatically from the account configuration", reported by isNwc',
      expect: ['nwc.is-nwc-true'],
      fault: {
        name: 'NWC reported custodial',
        description: 'requests of the NWC account say isNwc: false (and carry no nwcRelay)',
        response: eachPaymentRequest((pr) => {
          if (pr.isNwc === true) {
            pr.isNwc = false;
            delete pr.nwcRelay;
          }
        }),
      },
    },

    // ---- Status endpoint ----
    {
      rule: 'Get status: "JSON object with one field: status"',
      expect: ['read.status-exact'],
      fault: {
        name: 'status endpoint answers the whole object',
        description: 'GET …/status answers the full payment request',
        async request(req, ctx) {
          if (req.route !== 'status') return undefined;
          const full = await ctx.upstream('GET', req.path.replace(/\/status(\?.*)?$/, ''), req.key !== undefined ? { key: req.key } : {});
          return full.status === 200 ? full : undefined;
        },
      },
    },
    {
      rule: 'Get status: status is the request\'s current status (completed once paid)',
      expect: ['lifecycle.status-endpoint-completed'],
      fault: {
        name: 'status stuck at pending',
        description: 'GET …/status always answers pending, whatever GET says',
        response(req, res) {
          if (req.route === 'status' && res.status === 200) res.body = { status: 'pending' };
        },
      },
    },

    // ---- Errors ----
    {
      rule: 'Get: "404 Not Found: No payment request with that identifier"',
      expect: ['read.unknown-id-404'],
      fault: {
        name: 'unknown id → 200 null',
        description: 'an unknown id answers 200 with null',
        response(req, res) {
          if ((req.route === 'read' || req.route === 'status') && res.status === 404) {
            res.status = 200;
            res.body = null;
            res.text = 'null';
          }
        },
      },
    },
    {
      rule: 'Get: "404 Not Found: No payment request with that identifier"',
      expect: ['read.unknown-id-404'],
      fault: {
        name: 'unknown id → 500',
        description: 'an unknown id answers 500 Internal Server Error',
        response(req, res) {
          if ((req.route === 'read' || req.route === 'status') && res.status === 404) res.status = 500;
        },
      },
    },
    {
      rule: 'Create: "400 Bad Request: Invalid input (missing required field …)"',
      expect: ['validation.missing-amount', 'validation.missing-description', 'validation.missing-destination-wallet'],
      fault: {
        name: 'missing field → 500',
        description: 'a create body without a required field answers 500',
        response(req, res) {
          if (req.route === 'create' && res.status === 400 && res.body?.error?.details?.some((d: any) => d.code === 'missing_field')) res.status = 500;
        },
      },
    },
    {
      rule: 'Create / Errors: invalid input answers 400',
      expect: ['validation.'],
      fault: {
        name: '422 for invalid input',
        description: 'invalid create bodies answer 422 Unprocessable Entity instead of 400',
        response(req, res) {
          if (req.route === 'create' && res.status === 400) res.status = 422;
        },
      },
    },
    {
      rule: 'Get: "404 Not Found: No payment request with that identifier" (whatever its shape)',
      expect: ['read.unprefixed-id-404'],
      fault: {
        name: 'unprefixed id → 500',
        description: 'an id without the pr_ prefix makes the id parser throw: 500',
        response(req, res) {
          if ((req.route === 'read' || req.route === 'status') && req.id !== undefined && !req.id.startsWith('pr_') && res.status === 404) res.status = 500;
        },
      },
    },
    {
      rule: 'Create / Errors: invalid input (a body that is not JSON) → 400',
      expect: ['validation.malformed-json'],
      fault: {
        name: 'malformed JSON → 500',
        description: 'a body that is not JSON crashes the handler: 500',
        response(req, res) {
          if (req.route === 'create' && res.status === 400 && res.body?.error?.code === 'invalid_json') res.status = 500;
        },
      },
    },
    {
      rule: 'Create: "201 Created"',
      expect: ['create.status-201'],
      fault: {
        name: 'create answers 200',
        description: 'a created request answers 200 OK instead of 201 Created',
        response(req, res) {
          if (req.route === 'create' && res.status === 201) res.status = 200;
        },
      },
    },
    {
      rule: 'Endpoints: "All endpoints … use JSON"',
      expect: ['endpoints.json-responses'],
      fault: {
        name: 'errors as plain text',
        description: 'error responses of the v1 endpoints are text/plain ("Unauthorized", "Not Found", …)',
        response(req, res) {
          if (req.route !== 'control' && res.status >= 400) {
            res.text = `${res.status} ${res.body?.error?.code ?? 'error'}`;
            res.body = undefined;
            res.headers['content-type'] = 'text/plain; charset=utf-8';
          }
        },
      },
    },

    // ---- Validation ----
    {
      rule: 'Create: description "At most 255 characters" (255 is allowed)',
      expect: ['validation.description-255-accepted'],
      fault: {
        name: '255-character description rejected',
        description: 'the length limit is off by one: 255 characters answer 400',
        request(req) {
          if (req.route === 'create' && typeof req.body?.description === 'string' && [...req.body.description].length === 255) {
            const message = 'description must be shorter than 255 characters';
            return jsonResponse(400, { error: { code: 'invalid_request', message, details: [{ field: 'description', code: 'too_long', message }] } });
          }
          return undefined;
        },
      },
    },
    {
      rule: 'Create: amount is required; missing required field → 400',
      expect: ['validation.missing-amount'],
      fault: {
        name: 'missing amount accepted',
        description: 'a create body without amount gets a default amount of 1,000 sats',
        request(req) {
          if (req.route === 'create' && isObjectBody(req.body) && !('amount' in req.body)) req.body.amount = 1000;
        },
      },
    },
    {
      rule: 'Create: invalid amount → 400 (the minimum is 21 or 1 sats, so 0 is invalid)',
      expect: ['validation.amount-zero', 'validation.amount-negative'],
      sandbox: { settings: { minAmount: 1 } },
      fault: {
        name: 'amount 0 accepted',
        description: 'zero and negative amounts are bumped to 1 sat instead of rejected (minimum otherwise 1)',
        request(req) {
          if (req.route === 'create' && typeof req.body?.amount === 'number' && req.body.amount <= 0) req.body.amount = 1;
        },
      },
    },
    {
      rule: 'Limits: "Minimum amount: 21 sats … or 1 sat" — no other value',
      expect: ['validation.minimum-amount'],
      sandbox: { settings: { minAmount: 10 } },
      fault: { name: 'minimum amount 10', description: 'amounts from 10 sats are accepted, below rejected: neither reading of the spec' },
    },
    {
      rule: 'Create: amount is a number; invalid amount → 400',
      expect: ['validation.amount-string'],
      fault: {
        name: 'amount string coerced',
        description: 'an amount given as a string ("1000") is accepted as a number',
        request(req) {
          if (req.route === 'create' && typeof req.body?.amount === 'string' && req.body.amount.trim() !== '' && Number.isFinite(Number(req.body.amount))) {
            req.body.amount = Number(req.body.amount);
          }
        },
      },
    },
    {
      rule: 'Create: description "At most 255 characters"; invalid input → 400',
      expect: ['validation.description-too-long'],
      fault: {
        name: 'description over 255 accepted',
        description: 'a description over 255 characters is cut to 255 instead of rejected',
        request(req) {
          if (req.route === 'create' && typeof req.body?.description === 'string' && [...req.body.description].length > 255) {
            req.body.description = [...req.body.description].slice(0, 255).join('');
          }
        },
      },
    },
    {
      rule: 'Create: destinationWallet "Lightning address, shaped <name>@<domain>"; invalid input → 400',
      expect: ['validation.destination-wallet-not-address'],
      fault: {
        name: 'destinationWallet without @ accepted',
        description: 'any string is accepted as destinationWallet',
        request(req) {
          if (req.route === 'create' && typeof req.body?.destinationWallet === 'string' && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(req.body.destinationWallet)) {
            req.body.destinationWallet = 'accepted@example.com';
          }
        },
      },
    },
    {
      rule: 'Create: description is required; missing required field → 400',
      expect: ['validation.missing-description'],
      fault: {
        name: 'missing description accepted',
        description: 'a create body without description gets an empty description',
        request(req) {
          if (req.route === 'create' && isObjectBody(req.body) && !('description' in req.body)) req.body.description = '';
        },
      },
    },
    {
      rule: 'Create: invalid input → 400 (a body that is not an object is invalid input, not a server error)',
      expect: ['validation.non-object-body'],
      fault: {
        name: 'non-object body → 500',
        description: 'a JSON body that is an array, a string or null crashes the handler: 500',
        response(req, res) {
          if (req.route === 'create' && req.body !== undefined && !isObjectBody(req.body) && res.status === 400) res.status = 500;
        },
      },
    },
    {
      rule: 'Create: metadata is optional (Required: no)',
      expect: ['create.without-metadata'],
      fault: {
        name: 'metadata required',
        description: 'a valid create without metadata crashes the handler after validation: 500',
        response(req, res) {
          if (req.route === 'create' && res.status === 201 && isObjectBody(req.body) && req.body.metadata === undefined) {
            res.status = 500;
            res.body = { error: { code: 'internal_error', message: "Cannot read properties of undefined (reading 'orderId')" } };
            delete res.headers.location;
          }
        },
      },
    },
    {
      rule: 'Create: destinationWallet is required; missing required field → 400',
      expect: ['validation.missing-destination-wallet'],
      fault: {
        name: 'missing destinationWallet accepted',
        description: 'a create body without destinationWallet is accepted',
        request(req) {
          if (req.route === 'create' && isObjectBody(req.body) && !('destinationWallet' in req.body)) {
            req.body.destinationWallet = 'default@example.com';
          }
        },
      },
    },

    // ---- Accounts ----
    {
      rule: 'Get: "404 Not Found: No payment request with that identifier" (for this key\'s account); keys identify accounts',
      expect: ['read.other-account-hidden'],
      fault: {
        name: "another account's request readable",
        description: 'a request id of another account is served to any valid key',
        async request(req, ctx) {
          if ((req.route !== 'read' && req.route !== 'status') || req.key === undefined || !Object.values(KEYS).includes(req.key as never)) return undefined;
          const own = await ctx.upstream('GET', req.path, { key: req.key });
          if (own.status !== 404) return own;
          for (const key of [KEYS.custodial, KEYS.nwc]) {
            const other = await ctx.upstream('GET', req.path, { key });
            if (other.status === 200) return other;
          }
          return own;
        },
      },
    },

    // ---- Lifecycle ----
    {
      rule: 'States: completed — "a preimage is then available"',
      expect: ['lifecycle.preimage'],
      fault: {
        name: 'completed without preimage',
        description: 'completed requests carry no preimage',
        response: eachPaymentRequest((pr) => {
          delete pr.preimage;
        }),
      },
    },
    {
      rule: 'Resources: preimage is the "proof of payment" (its SHA-256 is paymentHash)',
      expect: ['lifecycle.preimage'],
      fault: {
        name: 'preimage does not match',
        description: 'completed requests carry a preimage whose SHA-256 is not paymentHash',
        response: eachPaymentRequest((pr) => {
          if (typeof pr.preimage === 'string') pr.preimage = sha256Hex(`not the preimage ${pr.id}`);
        }),
      },
    },
    {
      rule: 'Resources: updatedAt "changes when the record changes (for example on completion)"',
      expect: ['lifecycle.updated-at-moves'],
      fault: (() => {
        const first = new Map<string, unknown>();
        return {
          name: 'updatedAt frozen',
          description: 'updatedAt keeps its creation value after completion',
          response: eachPaymentRequest((pr) => {
            if (!first.has(pr.id)) first.set(pr.id, pr.updatedAt);
            pr.updatedAt = first.get(pr.id);
          }),
        };
      })(),
    },
    {
      rule: 'States: completed — "Paid"',
      expect: ['lifecycle.completes'],
      fault: {
        name: 'payments never show',
        description: 'a paid request keeps reading pending (no preimage) on both endpoints',
        response(req, res) {
          if ((req.route === 'read' || req.route === 'status') && res.body?.status === 'completed') {
            res.body.status = 'pending';
            delete res.body.preimage;
          }
        },
      },
    },
    {
      rule: 'Resources: amount is the amount of the payment request (it does not change when paid)',
      expect: ['lifecycle.completed-fields'],
      fault: {
        name: 'fee deducted from amount when paid',
        description: 'a completed request shows amount − feeAmount ("fees are deducted before forwarding" misread)',
        response: eachPaymentRequest((pr) => {
          if (pr.status === 'completed' && typeof pr.amount === 'number' && typeof pr.feeAmount === 'number') pr.amount -= pr.feeAmount;
        }),
      },
    },
    {
      rule: 'States: expired — "Validity period (expiresIn) elapsed"',
      expect: ['lifecycle.expires-by-clock'],
      fault: {
        name: 'never expires',
        description: 'requests past expiresAt still read pending',
        response(req, res) {
          if ((req.route === 'read' || req.route === 'status') && res.body?.status === 'expired') res.body.status = 'pending';
        },
      },
    },
    {
      rule: 'States: failed — "Payment failed"',
      expect: ['lifecycle.fails'],
      fault: {
        name: 'failures not reported',
        description: 'a failed payment leaves the request reading pending',
        response(req, res) {
          if ((req.route === 'read' || req.route === 'status') && res.body?.status === 'failed') res.body.status = 'pending';
        },
      },
    },
    terminalEscape(
      'completed request can fail',
      'completed',
      'fail',
      'failed',
      ['lifecycle.completed-stays-completed'],
      'States: completed = "Paid" (a paid request does not later fail)',
    ),

    // ---- Faults that only one check catches (added with the suite's blind spots, issue 8 part 5) ----
    {
      rule: 'Endpoints: "All endpoints … use JSON" (a 404 too)',
      expect: ['endpoints.json-responses'],
      fault: {
        name: '404 as text/plain',
        description: 'an unknown id answers 404 with the text "Not Found" (text/plain); every other answer is JSON',
        response(req, res) {
          if (V1.test(req.path) && res.status === 404) {
            res.body = undefined;
            res.text = 'Not Found';
            res.headers['content-type'] = 'text/plain; charset=utf-8';
          }
        },
      },
    },
    {
      rule: 'Endpoints: "All endpoints … use JSON" (labelled as such)',
      expect: ['endpoints.json-responses'],
      fault: {
        name: 'status answers labelled text/html',
        description: 'GET …/status answers its JSON body with Content-Type text/html',
        response(req, res) {
          if (req.route === 'status' && res.status === 200) res.headers['content-type'] = 'text/html; charset=utf-8';
        },
      },
    },
    {
      rule: 'Versioning: "The version is carried in the path"',
      expect: ['versioning.version-in-path'],
      fault: {
        name: 'version header honoured',
        description: 'an API-Version header other than 1 answers 400 "unsupported version", whatever the path says',
        request(req) {
          const version = req.headers['api-version'];
          if (V1.test(req.path) && version !== undefined && version !== '1') {
            return jsonResponse(400, { error: { code: 'unsupported_version', message: `API version ${version} is not supported` } });
          }
          return undefined;
        },
      },
    },
    {
      rule: 'Authentication 3: "A request with a missing … key gets 401 Unauthorized"',
      expect: ['auth.missing-key'],
      fault: {
        name: 'missing key → 400',
        description: 'a request without an Authorization header answers 400 "missing header" (an invalid key still gets 401)',
        response(req, res) {
          if (V1.test(req.path) && res.status === 401 && req.headers.authorization === undefined) res.status = 400;
        },
      },
    },
    {
      rule: 'Authentication 2 and 3: the key goes as "Authorization: Bearer <API_KEY>"; an invalid one gets 401',
      expect: ['auth.malformed-header'],
      fault: {
        name: 'malformed Authorization → 400',
        description: 'an Authorization header of another scheme (Token, Basic, a bare key) answers 400 instead of 401',
        response(req, res) {
          const header = req.headers.authorization;
          if (V1.test(req.path) && res.status === 401 && header !== undefined && !/^bearer(\s|$)/i.test(header)) res.status = 400;
        },
      },
    },
    {
      rule: 'Authentication 3: an invalid key (here: none after "Bearer") gets 401',
      expect: ['auth.empty-bearer'],
      fault: {
        name: 'empty bearer → 500',
        description: '"Authorization: Bearer" with no key crashes the key lookup: 500',
        request(req) {
          if (V1.test(req.path) && /^bearer\s*$/i.test(req.headers.authorization ?? 'x')) {
            return jsonResponse(500, { error: { code: 'internal_error', message: "Cannot read properties of undefined (reading 'trim')" } });
          }
          return undefined;
        },
      },
    },
    {
      rule: 'Authentication 2: "The key is sent in the header Authorization as a bearer token"',
      expect: ['auth.bearer-only'],
      fault: {
        name: 'key accepted from X-API-Key',
        description: 'without an Authorization header, the X-API-Key header is taken as the key',
        request(req) {
          const key = req.headers['x-api-key'];
          if (req.headers.authorization === undefined && key !== undefined) req.headers.authorization = `Bearer ${key}`;
        },
      },
    },
    (() => {
      const chosen = new Map<string, boolean>();
      return {
        rule: 'What the service does: the mode is "selected automatically from the account configuration and not chosen by the caller"',
        expect: ['create.mode-from-account'],
        fault: {
          name: 'caller chooses the mode',
          description: 'a create body with isNwc decides the mode of that request',
          response: eachPaymentRequest((pr, req) => {
            if (req.route === 'create' && typeof req.body?.isNwc === 'boolean') chosen.set(pr.id, req.body.isNwc);
            const isNwc = chosen.get(pr.id);
            if (isNwc === undefined) return;
            pr.isNwc = isNwc;
            if (isNwc) pr.nwcRelay = 'wss://relay.chosen.example';
            else delete pr.nwcRelay;
          }),
        } satisfies Fault,
      };
    })(),
    {
      rule: 'States: pending, "the initial state returned on creation"',
      expect: ['create.status-pending'],
      fault: {
        name: 'created, not pending',
        description: 'the 201 says status "created"; GET and the status endpoint say pending',
        response(req, res) {
          if (req.route === 'create' && res.status === 201 && res.body?.status === 'pending') res.body.status = 'created';
        },
      },
    },
    {
      rule: 'Resources: description, "Description of the payment" (a value create accepts comes back as sent)',
      expect: ['create.description-values'],
      fault: {
        name: 'description trimmed',
        description: 'leading and trailing white space is cut from descriptions',
        request(req) {
          if (req.route === 'create' && typeof req.body?.description === 'string') req.body.description = req.body.description.trim();
        },
      },
    },
    {
      rule: 'Create: amount is a number (1e3 is the JSON number 1000)',
      expect: ['create.amount-values'],
      fault: {
        name: 'amount with an exponent rejected',
        description: 'a hand-written number parser refuses amounts written with an exponent (1e3): 400',
        request(req) {
          if (req.route === 'create' && /"amount"\s*:\s*-?[0-9.]+[eE]/.test(req.text)) {
            return jsonResponse(400, { error: { code: 'invalid_request', message: 'amount must be a number', details: [{ field: 'amount', code: 'invalid_type' }] } });
          }
          return undefined;
        },
      },
    },
    (() => {
      const fractions = new Map<string, { amount: number; invoice: string }>();
      return {
        rule: 'Errors: "400: invalid amount" (a fractional number of satoshis is one: SHOULD)',
        expect: ['validation.amount-fractional'],
        deviation: 'SHOULD' as const,
        fault: {
          name: 'fractional amounts accepted',
          description: 'a fractional amount is accepted and echoed exactly (the invoice asks the whole sats below it)',
          request(req) {
            if (req.route === 'create' && typeof req.body?.amount === 'number' && !Number.isInteger(req.body.amount)) {
              req.headers['x-fraction'] = String(req.body.amount);
              req.body.amount = Math.floor(req.body.amount);
            }
          },
          response: eachPaymentRequest((pr, req) => {
            if (req.route === 'create' && req.headers['x-fraction'] !== undefined) {
              // The invoice asks the fractional amount too (in msat, which BOLT 11 can carry): consistent, only not whole sats.
              const msat = BigInt(Math.round(Number(req.headers['x-fraction']) * 1000));
              fractions.set(pr.id, { amount: Number(req.headers['x-fraction']), invoice: resignInvoice(pr.invoice, (decoded) => ({ hrp: `${decoded.prefix}${msat * 10n}p` })) });
            }
            const fraction = fractions.get(pr.id);
            if (fraction !== undefined) Object.assign(pr, fraction);
          }),
        } satisfies Fault,
      };
    })(),
    {
      rule: 'Resources: metadata "returned as given" (every key)',
      expect: ['create.metadata-values'],
      fault: {
        name: 'metadata __proto__ key dropped',
        description: 'metadata is copied with Object.assign, so a "__proto__" key is lost',
        response: eachPaymentRequest((pr) => {
          if (pr.metadata && typeof pr.metadata === 'object' && Object.prototype.hasOwnProperty.call(pr.metadata, '__proto__')) delete pr.metadata.__proto__;
        }),
      },
    },
    {
      rule: 'Create: expiresIn is the "Validity in seconds"',
      expect: ['create.expires-in-values'],
      fault: {
        name: 'expiresIn capped at a day',
        description: 'an expiresIn over 86,400 s is accepted but cut to 86,400 s',
        request(req) {
          if (req.route === 'create' && typeof req.body?.expiresIn === 'number' && req.body.expiresIn > 86_400) req.body.expiresIn = 86_400;
        },
      },
    },
    {
      rule: 'Create: destinationWallet is a "Lightning address, shaped <name>@<domain>" (LUD-16 names may hold + . _ -)',
      expect: ['create.destination-wallet-values'],
      fault: {
        name: 'addresses with + rejected',
        description: 'a destinationWallet whose name has a "+" answers 400',
        request(req) {
          if (req.route === 'create' && typeof req.body?.destinationWallet === 'string' && req.body.destinationWallet.split('@')[0]!.includes('+')) {
            return jsonResponse(400, { error: { code: 'invalid_request', message: 'destinationWallet is not a Lightning address', details: [{ field: 'destinationWallet' }] } });
          }
          return undefined;
        },
      },
    },
    {
      rule: 'Create: description is a string; invalid input → 400',
      expect: ['validation.wrong-types'],
      fault: {
        name: 'numeric description coerced',
        description: 'a description given as a number (42) is accepted as the string "42"',
        request(req) {
          if (req.route === 'create' && typeof req.body?.description === 'number') req.body.description = String(req.body.description);
        },
      },
    },
    {
      rule: 'Create: metadata is an object; invalid input → 400',
      expect: ['validation.metadata-not-object'],
      fault: {
        name: 'metadata array accepted',
        description: 'metadata given as an array is accepted as an object with keys "0", "1", …',
        request(req) {
          if (req.route === 'create' && Array.isArray(req.body?.metadata)) req.body.metadata = Object.fromEntries(req.body.metadata.map((item: unknown, index: number) => [String(index), item]));
        },
      },
    },
    {
      rule: 'Errors: "400: invalid amount, amount below the minimum" (0 sats)',
      expect: ['validation.amount-zero'],
      fault: {
        name: 'zero amount becomes the minimum',
        description: 'amount 0 is taken as "the minimum" and accepted as 21 sats',
        request(req) {
          if (req.route === 'create' && req.body?.amount === 0) req.body.amount = 21;
        },
      },
    },
    {
      rule: 'Errors: "400: invalid amount" (a negative one)',
      expect: ['validation.amount-negative'],
      fault: {
        name: 'negative amount made positive',
        description: 'the sign of a negative amount is dropped (-1000 → 1000)',
        request(req) {
          if (req.route === 'create' && typeof req.body?.amount === 'number' && req.body.amount < 0) req.body.amount = -req.body.amount;
        },
      },
    },
    {
      rule: 'Create: expiresIn is the "Validity in seconds" (0 or less is no validity: SHOULD be 400)',
      expect: ['validation.expires-in-not-positive'],
      deviation: 'SHOULD',
      fault: {
        name: 'non-positive expiresIn means the default',
        description: 'expiresIn 0 or negative is taken as "not given": the request is valid for 3600 s',
        request(req) {
          if (req.route === 'create' && typeof req.body?.expiresIn === 'number' && req.body.expiresIn <= 0) delete req.body.expiresIn;
        },
      },
    },
    {
      rule: 'Errors: "400: Invalid input" (malformed JSON: SHOULD be 400, MUST be a 4xx)',
      expect: ['validation.malformed-json-400'],
      deviation: 'SHOULD',
      fault: {
        name: 'malformed JSON → 422',
        description: 'a body that is not JSON answers 422 Unprocessable Entity',
        response(req, res) {
          if (req.route === 'create' && res.status === 400 && res.body?.error?.code === 'invalid_json') res.status = 422;
        },
      },
    },
    {
      rule: 'Errors: "The 400 response body may contain details about the error" (SHOULD name the field)',
      expect: ['validation.error-names-field'],
      deviation: 'SHOULD',
      fault: {
        name: '400 without details',
        description: 'every 400 of create says only "Invalid input"',
        response(req, res) {
          if (req.route === 'create' && res.status === 400) res.body = { error: { code: 'invalid_request', message: 'Invalid input' } };
        },
      },
    },
    {
      rule: 'Fee rules: 0.5 % of the amount from 1,000 sats (with no upper bound)',
      expect: ['fees.accepted-amounts'],
      fault: {
        name: 'fee capped at 50 sats',
        description: 'the fee never exceeds 50 sats (2,100,000 sats → 50 instead of 10,500)',
        response: eachPaymentRequest((pr) => {
          if (typeof pr.feeAmount === 'number' && pr.feeAmount > 50) pr.feeAmount = 50;
        }),
      },
    },
    wrongFee(
      'fee rounding switches at 1,150',
      'above 1,000 sats the fee is rounded down below 1,150 sats and up from there (two code paths)',
      'Fee rules: 0.5 % of the amount, rounded one way ("Rounding of the fee: not shown", but one rounding)',
      ['fees.rounding-above-threshold'],
      (amount) => (amount < 1000 ? Math.max(10, halfPercent(amount)) : amount < 1150 ? Math.floor(amount / 200) : Math.ceil(amount / 200)),
    ),
    {
      rule: 'Fee rules: feePercentage under 1,000 sats is "not shown" — but one reasonable reading (the rate or the effective one)',
      expect: ['fees.percentage-below-threshold'],
      fault: {
        name: 'feePercentage 1 below 1,000',
        description: 'under 1,000 sats feePercentage is 1 (neither the rate 0.5 nor fee ÷ amount × 100)',
        response: eachPaymentRequest((pr) => {
          if (typeof pr.amount === 'number' && pr.amount < 1000) pr.feePercentage = 1;
        }),
      },
    },
    {
      rule: 'Resources: updatedAt "changes when the record changes" (it starts at creation: SHOULD)',
      expect: ['create.updated-at-not-before-created'],
      deviation: 'SHOULD',
      fault: {
        name: 'updatedAt before createdAt',
        description: 'a new request shows updatedAt one second before createdAt (its events too: one serializer)',
        response: eachPaymentRequestAndEvent((pr) => {
          if (typeof pr.createdAt === 'string' && pr.updatedAt === pr.createdAt) pr.updatedAt = new Date(Date.parse(pr.createdAt) - SECOND).toISOString();
        }),
      },
    },
    (() => {
      const defaulted = new Set<string>();
      return {
        rule: 'Limits: "expiresIn default: 3600 seconds" (expiresAt; the invoice says 3600)',
        expect: ['create.default-expiry'],
        fault: {
          name: 'default expiresAt 1800',
          description: 'without expiresIn, expiresAt is createdAt + 1800 s (the invoice keeps 3600)',
          response: eachPaymentRequest((pr, req) => {
            if (req.route === 'create' && isObjectBody(req.body) && !('expiresIn' in req.body)) defaulted.add(pr.id);
            if (defaulted.has(pr.id) && typeof pr.createdAt === 'string') pr.expiresAt = new Date(Date.parse(pr.createdAt) + 1800 * SECOND).toISOString();
          }),
        } satisfies Fault,
      };
    })(),
    (() => {
      const defaulted = new Set<string>();
      const forged = forgedInvoice(
        'invoice default expiry 1800',
        'without expiresIn the invoice expiry (x) is 1800 s; expiresAt says 3600',
        'Create: expiresIn "default 3600" (the validity of the request, so of its invoice)',
        ['invoice.expiry-default'],
        (decoded) => ({ fields: [...decoded.fields.filter((field) => field.tag !== 'x'), { tag: 'x', words: intToWords(1800) }] }),
        (pr) => defaulted.has(pr.id),
      );
      const forge = forged.fault.response!;
      forged.fault.response = async (req, res, ctx) => {
        if (req.route === 'create' && isObjectBody(req.body) && !('expiresIn' in req.body) && typeof res.body?.id === 'string') defaulted.add(res.body.id);
        await forge(req, res, ctx);
      };
      return forged;
    })(),
    (() => {
      const withoutMetadata = new Set<string>();
      return {
        rule: 'Create: metadata, "Required: no" (without it, there is none)',
        expect: ['create.without-metadata'],
        fault: {
          name: 'default metadata added',
          description: 'a request created without metadata shows metadata {"source": "api"}',
          response: eachPaymentRequest((pr, req) => {
            if (req.route === 'create' && isObjectBody(req.body) && !('metadata' in req.body)) withoutMetadata.add(pr.id);
            if (withoutMetadata.has(pr.id)) pr.metadata = { source: 'api' };
          }),
        } satisfies Fault,
      };
    })(),
    {
      rule: 'Resources: isNwc, a boolean, always',
      expect: ['create.is-nwc-boolean'],
      fault: {
        name: 'custodial isNwc as 0',
        description: 'custodial requests say isNwc: 0 (a number), non-custodial ones true',
        response: eachPaymentRequest((pr) => {
          if (pr.isNwc === false) pr.isNwc = 0;
        }),
      },
    },
    {
      rule: 'Resources: updatedAt, "ISO 8601 UTC timestamp"',
      expect: ['create.timestamps-format'],
      fault: {
        name: 'updatedAt with a space',
        description: 'updatedAt is written "2026-11-23 10:00:00.000Z" (a space, not T)',
        response: eachPaymentRequest((pr) => {
          if (typeof pr.updatedAt === 'string') pr.updatedAt = pr.updatedAt.replace('T', ' ');
        }),
      },
    },
    {
      rule: 'Get status: "JSON object with one field: status"',
      expect: ['read.status-exact'],
      fault: {
        name: 'status endpoint adds expiresAt while pending',
        description: 'the status endpoint of a pending custodial request also says when it expires',
        response(req, res) {
          if (req.route === 'status' && req.key === KEYS.custodial && res.body?.status === 'pending') res.body.expiresAt = new Date(Date.now() + 3600 * SECOND).toISOString();
        },
      },
    },
    {
      rule: 'Get status: the status of the payment request (pending while it is)',
      expect: ['read.status-agrees'],
      fault: {
        name: 'status endpoint says expired while pending',
        description: 'the status endpoint of a pending custodial request reads "expired" (another clock)',
        response(req, res) {
          if (req.route === 'status' && req.key === KEYS.custodial && res.body?.status === 'pending') res.body.status = 'expired';
        },
      },
    },
    {
      rule: 'Get: "404 Not Found: No payment request with that identifier"',
      expect: ['read.unknown-id-404'],
      fault: {
        name: 'unknown id of another length → 400',
        description: 'a pr_ id whose length is not that of the ids issued answers 400 "malformed id" (ids without pr_ still 404)',
        request(req) {
          if ((req.route === 'read' || req.route === 'status') && req.id?.startsWith('pr_') && req.id.length !== 27) {
            return jsonResponse(400, { error: { code: 'invalid_request', message: 'malformed payment request id' } });
          }
          return undefined;
        },
      },
    },
    {
      rule: "Authentication: keys identify accounts; another account's request is not revealed",
      expect: ['read.other-account-hidden'],
      fault: {
        name: "404 names another account's request",
        description: 'the 404 for a request of another account carries its id ("belongs to another account")',
        async response(req, res, ctx) {
          if ((req.route !== 'read' && req.route !== 'status') || res.status !== 404 || req.id === undefined) return;
          for (const key of [KEYS.custodial, KEYS.nwc].filter((key) => key !== req.key)) {
            const other = await ctx.upstream('GET', `/api/v1/payment-requests/${encodeURIComponent(req.id)}`, { key });
            if (other.status === 200) res.body = { error: { code: 'not_found', message: 'this payment request belongs to another account' }, id: req.id };
          }
        },
      },
    },
    {
      // CONTRACT.md's "Readings the suite holds": another account's id answers exactly as an unknown one (a MUST since).
      rule: "Errors: 404 when the request does not exist; another account's id answers exactly as an unknown one",
      expect: ['read.other-account-404', 'read.other-account-as-unknown'],
      fault: {
        name: "403 for another account's request",
        description: 'a request of another account answers 403 Forbidden (nothing of it shown)',
        async response(req, res, ctx) {
          if ((req.route !== 'read' && req.route !== 'status') || res.status !== 404 || req.id === undefined) return;
          for (const key of [KEYS.custodial, KEYS.nwc].filter((key) => key !== req.key)) {
            const other = await ctx.upstream('GET', `/api/v1/payment-requests/${encodeURIComponent(req.id)}`, { key });
            if (other.status === 200) {
              res.status = 403;
              res.body = { error: { code: 'forbidden', message: 'forbidden' } };
            }
          }
        },
      },
    },
    {
      rule: 'Resources: nwcRelay for non-custodial payments (the 201 list does not name it: SHOULD)',
      expect: ['nwc.relay-on-create'],
      deviation: 'SHOULD',
      fault: {
        name: 'nwcRelay not on the 201',
        description: 'the 201 of a non-custodial request has no nwcRelay; GET has it',
        response: eachPaymentRequest((pr, req) => {
          if (req.route === 'create') delete pr.nwcRelay;
        }),
      },
    },
    {
      rule: 'Get: "It additionally carries nwcRelay when isNwc is true"',
      expect: ['nwc.relay-on-get'],
      fault: {
        name: 'nwcRelay only on the 201',
        description: 'GET of a non-custodial request has no nwcRelay; the 201 has it',
        response: eachPaymentRequest((pr, req) => {
          if (req.route === 'read') delete pr.nwcRelay;
        }),
      },
    },
    {
      rule: 'Get: "Payment request object as above" (for a non-custodial request: the values of create)',
      expect: ['nwc.get-equals-create'],
      fault: {
        name: 'NWC GET shows another description',
        description: 'GET of a non-custodial request shows the description of the wallet transaction ("NWC payment")',
        response: eachPaymentRequest((pr, req) => {
          if (req.route === 'read' && pr.isNwc === true) pr.description = 'NWC payment';
        }),
      },
    },
    {
      rule: 'Get: "Payment request object as above" (for a non-custodial request: its metadata too)',
      expect: ['nwc.get-equals-create'],
      fault: {
        name: 'NWC GET loses metadata',
        description: 'GET of a non-custodial request has no metadata (read back from the wallet\'s record); its 201 echoed it',
        response: eachPaymentRequest((pr, req) => {
          if (req.route === 'read' && pr.isNwc === true) delete pr.metadata;
        }),
      },
    },
    {
      rule: 'Get status: the status of a non-custodial request (pending until paid)',
      expect: ['nwc.status-exact'],
      fault: {
        name: 'NWC status endpoint says completed',
        description: 'the status endpoint of a pending non-custodial request says completed (the wallet connection is mistaken for a payment)',
        response(req, res) {
          if (req.route === 'status' && req.key === KEYS.nwc && res.body?.status === 'pending') res.body.status = 'completed';
        },
      },
    },
    forgedInvoice(
      'NWC invoice without payment secret',
      'non-custodial invoices (signed by the connected wallet) carry no payment secret; custodial ones do',
      'Resources: invoice is a BOLT11 invoice (for a non-custodial request too)',
      ['nwc.invoice'],
      (decoded) => ({ fields: decoded.fields.filter((field) => field.tag !== 's' && field.tag !== '9') }),
      (pr) => pr.isNwc === true,
    ),
    forgedInvoice(
      'invoice asks one sat more',
      'custodial invoices ask amount + 1 sat (signed correctly, same payment hash)',
      'What the service does: "Amounts are in satoshis" (the invoice asks the amount)',
      ['invoice.amount'],
      (decoded) => (decoded.amountMsat === null ? {} : { hrp: `${decoded.prefix}${(decoded.amountMsat + 1000n) / 100n}n` }),
      custodial,
    ),
    forgedInvoice(
      'invoice of another payment hash',
      'custodial invoices carry a payment hash other than paymentHash (signed correctly)',
      'Resources: paymentHash, "Payment hash for tracking" (the invoice\'s)',
      ['invoice.payment-hash'],
      (decoded) => ({ fields: decoded.fields.map((field) => (field.tag === 'p' ? { tag: 'p', words: bytesToWords(hexToBytes(sha256Hex(`other ${decoded.timestampSeconds}`))) } : field)) }),
      custodial,
    ),
    forgedInvoice(
      'custodial invoice without payment secret',
      'custodial invoices carry no payment secret (s) and no feature bits; non-custodial ones do',
      'Resources: invoice is a BOLT11 invoice; BOLT #11: "A writer MUST include exactly one s field"',
      ['invoice.payment-secret'],
      (decoded) => ({ fields: decoded.fields.filter((field) => field.tag !== 's' && field.tag !== '9') }),
      custodial,
    ),
    forgedInvoice(
      'invoice d field fixed',
      'custodial invoices with a d field say "Payment" instead of the description (hashed descriptions are right)',
      'Resources: description is the "Description of the payment" (the invoice\'s)',
      ['invoice.description'],
      (decoded) => ({ fields: decoded.fields.map((field) => (field.tag === 'd' ? { tag: 'd', words: bytesToWords(utf8ToBytes('Payment')) } : field)) }),
      custodial,
    ),
    forgedInvoice(
      'invoice h field of another text',
      'a description too long for d is committed to by the hash of its first 100 characters',
      'Resources: description (BOLT 11: h is the SHA-256 of the whole description)',
      ['invoice.long-description'],
      (decoded) => ({ fields: decoded.fields.map((field) => (field.tag === 'h' ? { tag: 'h', words: bytesToWords(hexToBytes(sha256Hex('⚡'.repeat(100)))) } : field)) }),
    ),
    {
      rule: 'States: completed, "Paid" (GET shows it)',
      expect: ['lifecycle.completes'],
      fault: {
        name: 'GET lags after payment',
        description: 'after payment GET keeps reading pending, without a preimage; the status endpoint says completed',
        response(req, res) {
          if (req.route === 'read' && res.body?.status === 'completed') {
            res.body.status = 'pending';
            delete res.body.preimage;
          }
        },
      },
    },
    {
      rule: 'Get status: status is the request\'s current status (completed once paid)',
      expect: ['lifecycle.status-endpoint-completed'],
      fault: {
        name: 'status endpoint lags after payment',
        description: 'after payment the status endpoint keeps saying pending; GET says completed',
        response(req, res) {
          if (req.route === 'status' && res.body?.status === 'completed') res.body.status = 'pending';
        },
      },
    },
    {
      rule: 'Resources: paymentHash, the payment hash (32 bytes as 64 hex digits, like the invoice\'s)',
      expect: ['create.payment-hash-format'],
      fault: {
        name: 'paymentHash with 0x',
        description: 'paymentHash is written 0x-prefixed (0x3f…), the right bytes',
        response: eachPaymentRequest((pr) => {
          if (typeof pr.paymentHash === 'string') pr.paymentHash = `0x${pr.paymentHash}`;
        }),
      },
    },
    {
      rule: 'Resources: feeAmount, a number, always (an expired request too)',
      expect: ['create.fee-fields'],
      fault: {
        name: 'no fee on expired requests',
        description: 'an expired request shows feeAmount null (the fee is only worked out on payment)',
        response: eachPaymentRequest((pr) => {
          if (pr.status === 'expired') pr.feeAmount = null;
        }),
      },
    },
    forgedInvoice(
      'invoice on simnet',
      'invoices use the simnet prefix lnsb (a btcd test harness), signed correctly',
      'What the service does: Bitcoin Lightning payment requests (mainnet, testnet, signet or regtest)',
      ['invoice.network'],
      (decoded) => ({ hrp: `lnsb${decoded.hrp.slice(decoded.prefix.length)}` }),
      custodial,
    ),
    wrongFee(
      'volume discount from 5,000 sats',
      'from 5,000 to 100,000 sats the fee is 0.4 % (10,000 → 40 instead of 50)',
      'Fee rules: "1,000 sats or more: 0.5 % of the amount" (10,000 → 50)',
      ['fees.table'],
      (amount) => (amount < 1000 ? Math.max(10, halfPercent(amount)) : amount >= 5000 && amount <= 100_000 ? Math.round(amount * 0.004) : halfPercent(amount)),
    ),
    terminalEscape('failed request can be paid', 'failed', 'complete', 'completed', ['lifecycle.failed-stays-failed'], 'States: failed, "Payment failed" (a failed request is not later paid)'),
    terminalEscape('expired request can be paid', 'expired', 'complete', 'completed', ['lifecycle.expired-stays-expired'], 'States: expired, "Validity period (expiresIn) elapsed" (an expired request is not later paid)'),
    terminalEscape(
      'paying a failed request reopens it',
      'failed',
      'complete',
      'pending',
      ['lifecycle.failed-stays-failed'],
      'States: failed, "Payment failed" (final: a payment attempt does not make it payable again)',
    ),
    terminalEscape(
      'paying an expired request reopens it',
      'expired',
      'complete',
      'pending',
      ['lifecycle.expired-stays-expired'],
      'States: expired, "Validity period (expiresIn) elapsed" (final: a payment attempt does not renew it)',
    ),
    {
      rule: 'Resources: description, "Description of the payment" (as sent)',
      expect: ['create.description-echo', 'create.description-values'],
      fault: {
        name: 'description title-cased',
        description: 'responses show descriptions in Title Case',
        response: eachPaymentRequest((pr) => {
          if (typeof pr.description === 'string') pr.description = pr.description.replace(/(^|\s)(\p{Ll})/gu, (_all, space: string, letter: string) => space + letter.toUpperCase());
        }),
      },
    },

    // ---- Issue 15: keys near valid ones, the key before the body, both sides of expiry, the modes told apart by their invoices ----
    {
      rule: 'Authentication 3: an invalid key gets 401 (a valid key with something after it is not that key)',
      expect: ['auth.near-miss-keys'],
      fault: {
        name: 'keys compared by prefix',
        description: 'a bearer key that starts with a valid key is taken as that key (the comparison stops at the stored key\'s length)',
        request(req) {
          const valid = (Object.values(KEYS) as string[]).find((key) => req.key !== undefined && req.key !== key && req.key.startsWith(key));
          if (valid !== undefined) req.headers.authorization = `Bearer ${valid}`;
        },
      },
    },
    {
      rule: 'Authentication 3: an invalid key gets 401 (keys are compared exactly)',
      expect: ['auth.near-miss-keys'],
      fault: {
        name: 'keys compared ignoring case',
        description: 'keys are looked up in lower case, so SK_TEST_CUSTODIAL opens the custodial account',
        request(req) {
          const valid = (Object.values(KEYS) as string[]).find((key) => req.key !== undefined && req.key !== key && req.key.toLowerCase() === key);
          if (valid !== undefined) req.headers.authorization = `Bearer ${valid}`;
        },
      },
    },
    {
      rule: 'Authentication 3: a missing or invalid key gets 401 (before anything else is judged)',
      expect: ['auth.key-checked-first'],
      fault: {
        name: 'body validated before the key',
        description: 'a create body is validated before the key is looked at: no key and no amount answers 400',
        request(req) {
          if (req.route !== 'create' || isKnownKey(req.key)) return undefined;
          const body = req.body;
          const valid = isObjectBody(body) && typeof body.amount === 'number' && typeof body.description === 'string' && typeof body.destinationWallet === 'string';
          return valid ? undefined : jsonResponse(400, { error: { code: 'invalid_request', message: 'Invalid input', details: [{ field: 'amount', code: 'invalid' }] } });
        },
      },
    },
    {
      rule: 'Get: "401 Unauthorized: API key missing or invalid" (whether or not the request exists)',
      expect: ['auth.key-checked-first'],
      fault: {
        name: 'unknown id before the key',
        description: 'GET of an id that does not exist answers 404 before the key is looked at, even without a key',
        async request(req, ctx) {
          if ((req.route !== 'read' && req.route !== 'status') || isKnownKey(req.key)) return undefined;
          const anywhere = await Promise.all([KEYS.custodial, KEYS.nwc].map((key) => ctx.upstream('GET', req.path, { key })));
          return anywhere.every((answer) => answer.status === 404) ? jsonResponse(404, { error: { code: 'not_found', message: 'No payment request with that identifier' } }) : undefined;
        },
      },
    },
    clockedStatus(
      'expires at half its validity',
      'a request reads expired once half its validity has passed on the account\'s clock (expiresAt says the whole)',
      'States: expired, "Validity period (expiresIn) elapsed" (not before: pending until expiresAt)',
      ['lifecycle.expiry-boundary'],
      (request, nowMs) => {
        const [created, expires] = [Date.parse(request?.createdAt), Date.parse(request?.expiresAt)];
        const half = created + (expires - created) / 2;
        return request?.status === 'pending' && nowMs >= half ? { status: 'expired', sinceMs: half } : undefined;
      },
    ),
    clockedStatus(
      'expiry a second late',
      'a request still reads pending for a second after its expiresAt (expiry compared in whole seconds, rounded up)',
      'States: expired, "Validity period (expiresIn) elapsed" (once expiresAt has passed on the account\'s clock)',
      ['lifecycle.expiry-boundary'],
      (request, nowMs) => {
        const expires = Date.parse(request?.expiresAt);
        return request?.status === 'expired' && nowMs <= expires + 1000 ? { status: 'pending', sinceMs: Date.parse(request.createdAt) } : undefined;
      },
    ),
    {
      rule: 'Resources: updatedAt "changes when the record changes" (on every transition)',
      expect: ['lifecycle.updated-at-every-transition'],
      fault: {
        name: 'updatedAt kept on failure',
        description: 'a failed request keeps the updatedAt of its creation (only completion moves it)',
        response: eachPaymentRequest((pr) => {
          if (pr.status === 'failed' && typeof pr.createdAt === 'string') pr.updatedAt = pr.createdAt;
        }),
      },
    },
    forgedInvoice(
      'NWC invoices on testnet',
      'non-custodial invoices are made on testnet (lntb), custodial ones on regtest (lnbcrt): two chains behind one API',
      'What the service does: one service, one chain (a payer on it can pay every request)',
      ['invoice.one-network'],
      (decoded) => ({ hrp: `lntb${decoded.hrp.slice(decoded.prefix.length)}` }),
      (pr) => pr.isNwc === true,
    ),
    forgedInvoice(
      'custodial invoices signed by a fresh key each',
      'each custodial invoice is signed by a new random key (valid signatures, but no node can be paid through them)',
      'What the service does: custodial payments are "processed by the service\'s managed system" (its node is the payee)',
      ['invoice.one-service-node'],
      () => ({}),
      custodial,
      (decoded) => labelledNodeKey(`fresh signer ${decoded.timestampSeconds} ${decoded.fields.map((field) => field.words.join('.')).join('|')}`),
    ),
    forgedInvoice(
      'NWC invoices signed by the service node',
      'non-custodial invoices are made (and signed) by the service\'s node, not by the connected wallet',
      'Resources: destinationWallet, "For non-custodial payments … the payment goes directly to the connected wallet"',
      ['nwc.invoice-from-wallet'],
      () => ({}),
      (pr) => pr.isNwc === true,
      () => SERVICE_NODE_KEY,
    ),
    forgedInvoice(
      'NWC invoices signed by a fresh node each',
      'each non-custodial invoice is signed by a new key (valid signatures, none the service\'s, but no one wallet is paid through them)',
      'Resources: destinationWallet, "the payment goes directly to the connected wallet" (one wallet, one payee node)',
      ['nwc.payee-is-wallet'],
      () => ({}),
      (pr) => pr.isNwc === true,
      (decoded) => labelledNodeKey(`fresh NWC signer ${decoded.timestampSeconds} ${decoded.fields.map((field) => field.words.join('.')).join('|')}`),
    ),
    (() => {
      // The updatedAt of each NWC request as first seen: the request never moves on, as far as anyone can tell.
      const firstUpdatedAt = new Map<string, unknown>();
      return {
        rule: 'States: completed, "Paid; a preimage is then available" (a non-custodial request is paid to its connected wallet)',
        expect: ['nwc.completes-with-wallet-preimage'],
        payer: true,
        fault: {
          name: 'NWC wallet payments never show',
          description: 'the service never learns that an NWC request\'s wallet was paid (no payment_received subscription, no lookup_invoice): it reads pending, without a preimage, for ever',
          response(req, res) {
            if (req.route === 'status' && req.key === KEYS.nwc && res.body?.status === 'completed') res.body.status = 'pending';
            if ((req.route === 'create' || req.route === 'read') && res.body?.isNwc === true && typeof res.body.id === 'string') {
              if (!firstUpdatedAt.has(res.body.id)) firstUpdatedAt.set(res.body.id, res.body.updatedAt);
              if (res.body.status === 'completed') {
                res.body.status = 'pending';
                res.body.updatedAt = firstUpdatedAt.get(res.body.id);
                delete res.body.preimage;
              }
            }
          },
        } satisfies Fault,
      };
    })(),
    forgedInvoice(
      'descriptions always hashed',
      'every invoice commits to its description by its SHA-256 (h), even one short enough for d',
      'CONTRACT: Invoices, "description = `description` (or its SHA-256 as a description hash where it does not fit)"',
      ['invoice.description-in-d'],
      (decoded) => ({
        fields: decoded.fields.map((field) => (field.tag === 'd' ? { tag: 'h', words: bytesToWords(hexToBytes(sha256Hex(decoded.description ?? ''))) } : field)),
      }),
      () => true,
    ),
    (() => {
      const chosen = new Map<string, string>();
      return {
        rule: 'What the service does: the mode is "selected automatically from the account configuration and not chosen by the caller"',
        expect: ['create.mode-from-account'],
        fault: {
          name: 'caller chooses the mode, for real',
          description: 'a custodial account\'s create with isNwc: true is made non-custodial: nwcRelay, and an invoice of the NWC account\'s wallet',
          response: eachPaymentRequest((pr, req) => {
            if (req.route === 'create' && req.body?.isNwc === true && pr.isNwc === false && typeof pr.invoice === 'string') {
              chosen.set(pr.id, resignInvoice(pr.invoice, () => ({}), NWC_WALLET_NODE_KEY));
            }
            const invoice = chosen.get(pr.id);
            if (invoice !== undefined) Object.assign(pr, { isNwc: true, nwcRelay: 'wss://relay.chosen.example', invoice });
          }),
        } satisfies Fault,
      };
    })(),
    {
      rule: 'Resources: description, "Description of the payment" (any text up to 255 characters, emoji included)',
      expect: ['create.description-values'],
      fault: {
        name: 'descriptions with emoji rejected',
        description: 'a description with a character outside the Basic Multilingual Plane (😀, 𝄞) answers 400 (a utf8mb3 column)',
        request(req) {
          if (req.route === 'create' && typeof req.body?.description === 'string' && /[\u{10000}-\u{10FFFF}]/u.test(req.body.description)) {
            return jsonResponse(400, { error: { code: 'invalid_request', message: 'description has unsupported characters', details: [{ field: 'description', code: 'invalid' }] } });
          }
          return undefined;
        },
      },
    },
    {
      rule: 'Create: expiresIn is a number (3.6e3 is the JSON number 3600)',
      expect: ['create.expires-in-values'],
      fault: {
        name: 'expiresIn with an exponent rejected',
        description: 'a hand-written number parser refuses an expiresIn written with an exponent (3.6e3): 400',
        request(req) {
          if (req.route === 'create' && /"expiresIn"\s*:\s*-?[0-9.]+[eE]/.test(req.text)) {
            return jsonResponse(400, { error: { code: 'invalid_request', message: 'expiresIn must be a number', details: [{ field: 'expiresIn', code: 'invalid_type' }] } });
          }
          return undefined;
        },
      },
    },
    {
      rule: 'Resources: metadata, "Custom key-value pairs" (any keys: the spec restricts none)',
      expect: ['create.metadata-values'],
      fault: {
        name: 'metadata with an empty key rejected',
        description: 'metadata with an empty key ("") answers 400',
        request(req) {
          if (req.route === 'create' && isObjectBody(req.body?.metadata) && Object.prototype.hasOwnProperty.call(req.body.metadata, '')) {
            return jsonResponse(400, { error: { code: 'invalid_request', message: 'metadata keys must not be empty', details: [{ field: 'metadata', code: 'invalid' }] } });
          }
          return undefined;
        },
      },
    },
    {
      rule: 'Get: "200 OK: Payment request object as above" (the values of create, expiresAt included)',
      expect: ['read.get-equals-create'],
      fault: {
        name: 'expiresAt recomputed on read',
        description: 'GET of a pending custodial request shows expiresAt a second later than its create said (recomputed, rounded up)',
        response: eachPaymentRequest((pr, req) => {
          if (req.route === 'read' && pr.status === 'pending' && pr.isNwc === false && typeof pr.expiresAt === 'string') pr.expiresAt = new Date(Date.parse(pr.expiresAt) + SECOND).toISOString();
        }),
      },
    },
    {
      rule: 'Get: "404 Not Found: No payment request with that identifier"',
      expect: ['read.unknown-id-404'],
      fault: {
        name: 'unknown id → 410',
        description: 'a pr_ id no account has answers 410 Gone (as if it had been deleted)',
        async response(req, res, ctx) {
          if ((req.route !== 'read' && req.route !== 'status') || res.status !== 404 || !req.id?.startsWith('pr_')) return;
          const elsewhere = await Promise.all([KEYS.custodial, KEYS.nwc].map((key) => ctx.upstream('GET', `/api/v1/payment-requests/${encodeURIComponent(req.id!)}`, { key })));
          if (elsewhere.every((answer) => answer.status === 404)) res.status = 410;
        },
      },
    },
    (() => {
      const below = new Map<string, { amount: number; invoice: string }>();
      return {
        rule: 'Limits: the minimum amount (21 sats here) is the service\'s, for both modes',
        expect: ['nwc.same-limits'],
        fault: {
          name: 'NWC account has no minimum',
          description: 'the non-custodial path skips the minimum: 1 to 20 sats are accepted (echoed, invoiced and charged as asked)',
          request(req) {
            if (req.route === 'create' && req.key === KEYS.nwc && typeof req.body?.amount === 'number' && req.body.amount >= 1 && req.body.amount < 21 && Number.isInteger(req.body.amount)) {
              req.headers['x-asked-amount'] = String(req.body.amount);
              req.body.amount = 21;
            }
          },
          response: eachPaymentRequest((pr, req) => {
            const asked = Number(req.headers['x-asked-amount']);
            if (req.route === 'create' && Number.isInteger(asked) && typeof pr.invoice === 'string') {
              below.set(pr.id, { amount: asked, invoice: resignInvoice(pr.invoice, (decoded) => ({ hrp: `${decoded.prefix}${asked * 10}n` })) });
            }
            const shown = below.get(pr.id);
            if (shown !== undefined) Object.assign(pr, shown);
          }),
        } satisfies Fault,
      };
    })(),
    {
      rule: 'Get: "Payment request object as above … and preimage when completed" (the other values unchanged)',
      expect: ['lifecycle.completed-fields'],
      fault: {
        name: 'expiresAt moved on completion',
        description: 'a completed request shows expiresAt = the moment it was paid (its validity "ends" then)',
        response: eachPaymentRequest((pr) => {
          if (pr.status === 'completed' && typeof pr.updatedAt === 'string') pr.expiresAt = pr.updatedAt;
        }),
      },
    },
  ];
}
