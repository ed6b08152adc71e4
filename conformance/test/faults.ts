/**
 * Faulty implementations: our real server behind a proxy that breaks exactly one rule of the spec
 * each. The conformance suite must fail against every one. `expect` names the checks (ids or id
 * prefixes ending in `.`) that ought to catch the fault; the test prints which actually did.
 */
import type { NodeSandboxOptions } from '../../src/sandbox.node.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { DecodedInvoice } from '../../src/lightning/bolt11-decode.js';
import { bytesToWords, intToWords } from '../../src/lightning/words.js';
import { jsonResponse, type Fault } from './faulty-proxy.js';
import { resignInvoice, type InvoiceEdit } from './invoice-forgery.js';
import { KEYS, eachPaymentRequest, idRemap, sha256Hex } from './rewrites.js';

/** A faulty implementation: the fault, the spec rule it breaks, and the checks that should see it. */
export interface FaultCase {
  fault: Fault;
  /** The rule of the spec (section: words) the fault breaks. */
  rule: string;
  /** Check ids (or prefixes ending in `.`) expected to fail. */
  expect: string[];
  /** Options of the upstream sandbox, when the fault needs other settings. */
  sandbox?: NodeSandboxOptions;
}

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
function forgedInvoice(name: string, description: string, rule: string, expect: string[], edit: (decoded: DecodedInvoice) => InvoiceEdit): FaultCase {
  const forged = new Map<string, string>();
  return {
    rule,
    expect,
    fault: {
      name,
      description,
      response: eachPaymentRequest((pr) => {
        if (typeof pr.invoice !== 'string') return;
        if (!forged.has(pr.invoice)) forged.set(pr.invoice, resignInvoice(pr.invoice, edit));
        pr.invoice = forged.get(pr.invoice);
      }),
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
    missingField('invoice', ['read.get-fields', 'read.get-equals-create'], 'read'),
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
      expect: ['create.no-destination-wallet', 'read.get-hidden-fields'],
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
      expect: ['create.no-preimage', 'read.get-hidden-fields'],
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
      expect: ['create.nwc-relay-only-when-nwc', 'read.get-hidden-fields'],
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
      expect: ['validation.missing-amount', 'validation.minimum-amount'],
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
    (() => {
      const failedAfterCompletion = new Set<string>();
      return {
        rule: 'States: completed = "Paid" (a paid request does not later fail)',
        expect: ['lifecycle.completed-stays-completed'],
        fault: {
          name: 'completed request can fail',
          description: 'failing a completed request succeeds and it then reads failed',
          async request(req, ctx) {
            if (req.route !== 'control' || req.method !== 'POST' || !/\/fail$/.test(req.path.split('?')[0]!) || req.id === undefined) return undefined;
            const current = await ctx.upstream('GET', `/api/v1/payment-requests/${encodeURIComponent(req.id)}`, req.key !== undefined ? { key: req.key } : {});
            if (current.status !== 200 || current.body?.status !== 'completed') return undefined;
            failedAfterCompletion.add(req.id);
            return jsonResponse(200, { ...current.body, status: 'failed', updatedAt: new Date().toISOString() });
          },
          response(req, res) {
            if (req.id !== undefined && failedAfterCompletion.has(req.id) && res.status === 200 && typeof res.body?.status === 'string') res.body.status = 'failed';
          },
        } satisfies Fault,
      };
    })(),
  ];
}
