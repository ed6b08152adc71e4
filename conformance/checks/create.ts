/**
 * Create a payment request (spec: "Endpoints › Create a payment request" and "Resources › Payment
 * request"): 201 with every field present, typed and formatted, the caller's values echoed, the
 * hidden fields hidden, `expiresAt` from `expiresIn` (default 3600). Extra fields and key order are
 * the target's business.
 */
import type { Check, CheckContext } from '../check.js';
import {
  assert,
  createPaymentRequest,
  deepEqual,
  FIELD_RULES,
  has,
  isObject,
  SECOND_BODY,
  SHARED_EXPIRES_IN,
  SHARED_METADATA,
  sharedCreateAnswer,
  sharedPaymentRequest,
  sharedSecondRequest,
  show,
  timeOf,
  validBody,
} from './support.js';

const CREATE = 'Endpoints › Create a payment request';
const RESOURCE = 'Resources › Payment request';

/** The fields the spec names for the object, for the extra-fields observation. */
const SPEC_FIELDS = new Set([...Object.keys(FIELD_RULES), 'metadata', 'nwcRelay', 'preimage']);

/** A check that reads the shared request (created once, with metadata). */
function onShared(id: string, title: string, section: string, test: (body: Record<string, any>, context: CheckContext) => void, level: Check['level'] = 'MUST'): Check {
  return {
    id,
    title,
    section,
    level,
    profile: 'core',
    async run(context) {
      test(await sharedPaymentRequest(context), context);
    },
  };
}

/** A check that a field is present and passes its rule. */
function fieldCheck(field: string, id: string, title: string): Check {
  return onShared(id, title, RESOURCE, (body) => {
    assert(has(body, field), `the 201 body: expected the field ${field}, got no such field (fields: ${show(Object.keys(body))})`);
    const problem = FIELD_RULES[field]!(body[field]);
    assert(problem === undefined, `the 201 body's ${field}: ${problem}`);
  });
}

/** Checks `expiresAt − createdAt` against `seconds`, with one second of slack for truncation. */
function assertValidity(body: Record<string, any>, seconds: number, what: string): void {
  const created = timeOf(body.createdAt);
  const expires = timeOf(body.expiresAt);
  assert(Number.isFinite(created) && Number.isFinite(expires), `${what}: createdAt ${show(body.createdAt)} or expiresAt ${show(body.expiresAt)} is not a readable timestamp`);
  const difference = (expires - created) / 1000;
  assert(Math.abs(difference - seconds) <= 1, `${what}: expected expiresAt − createdAt = ${seconds} s (±1 s), got ${difference} s (createdAt ${body.createdAt}, expiresAt ${body.expiresAt})`);
}

/** A description of an id's shape after `pr_`, for the observation. */
function idShape(id: string): string {
  const rest = id.slice(3);
  const classes = [/[a-z]/.test(rest) && 'a-z', /[A-Z]/.test(rest) && 'A-Z', /[0-9]/.test(rest) && '0-9', /[^a-zA-Z0-9]/.test(rest) && 'other'].filter(Boolean);
  return `pr_ + ${rest.length} × [${classes.join(' ')}]`;
}

/** The create checks. */
export const createChecks: Check[] = [
  {
    id: 'create.status-201',
    title: 'A valid create answers 201 Created with a JSON object',
    section: CREATE,
    level: 'MUST',
    profile: 'core',
    async run(context) {
      await sharedPaymentRequest(context);
    },
  },
  {
    id: 'create.content-type-json',
    title: 'The 201 answer is labelled application/json',
    section: 'Endpoints',
    level: 'SHOULD',
    profile: 'core',
    async run(context) {
      const answer = await sharedCreateAnswer(context);
      const type = answer.headers.get('content-type') ?? '';
      assert(/^application\/([a-z.+-]*\+)?json\b/i.test(type), `expected Content-Type application/json, got ${type === '' ? 'none' : show(type)}`);
    },
  },
  onShared('create.id-format', 'id is a string "pr_<identifier>"', RESOURCE, (body, context) => {
    assert(has(body, 'id'), 'the 201 body: expected the field id, got no such field');
    const problem = FIELD_RULES.id!(body.id);
    assert(problem === undefined, `the 201 body's id: ${problem}`);
    context.observe('idFormat', idShape(body.id));
  }),
  onShared('create.status-pending', 'status is "pending" on creation', 'States and transitions', (body) => {
    assert(body.status === 'pending', `the 201 body: expected status "pending", got ${show(body.status)}`);
  }),
  onShared('create.amount-echo', 'amount is a number equal to the amount sent', CREATE, (body) => {
    assert(body.amount === validBody().amount, `the 201 body: expected amount ${validBody().amount} (a number), got ${show(body.amount)}`);
  }),
  onShared('create.description-echo', 'description is the description sent', CREATE, (body) => {
    assert(body.description === validBody().description, `the 201 body: expected description ${show(validBody().description)}, got ${show(body.description)}`);
  }),
  onShared('create.metadata-echo', 'metadata is returned as given (deep equal, nested values kept)', RESOURCE, (body) => {
    assert(has(body, 'metadata'), 'the 201 body: expected metadata (it was given), got no such field');
    assert(deepEqual(body.metadata, SHARED_METADATA), `the 201 body: expected metadata ${show(SHARED_METADATA)}, got ${show(body.metadata)}`);
  }),
  fieldCheck('invoice', 'create.invoice-present', 'invoice is a non-empty string'),
  fieldCheck('paymentHash', 'create.payment-hash-format', 'paymentHash is 64 hex digits'),
  fieldCheck('expiresAt', 'create.expires-at-format', 'expiresAt is an ISO 8601 UTC timestamp with milliseconds'),
  fieldCheck('isNwc', 'create.is-nwc-boolean', 'isNwc is a boolean'),
  onShared('create.fee-fields', 'feeAmount and feePercentage are numbers', RESOURCE, (body) => {
    for (const field of ['feeAmount', 'feePercentage']) {
      assert(has(body, field), `the 201 body: expected the field ${field}, got no such field`);
      const problem = FIELD_RULES[field]!(body[field]);
      assert(problem === undefined, `the 201 body's ${field}: ${problem}`);
    }
  }),
  onShared('create.timestamps-format', 'createdAt and updatedAt are ISO 8601 UTC timestamps', RESOURCE, (body, context) => {
    for (const field of ['createdAt', 'updatedAt']) {
      assert(has(body, field), `the 201 body: expected the field ${field}, got no such field`);
      const problem = FIELD_RULES[field]!(body[field]);
      assert(problem === undefined, `the 201 body's ${field}: ${problem}`);
    }
    const fraction = /\.(\d+)/.exec(body.createdAt)?.[1];
    context.observe('createdAtPrecision', fraction === undefined ? 'whole seconds' : /^0+$/.test(fraction) ? `whole seconds (.${fraction})` : `${fraction.length} fraction digits`);
  }),
  onShared(
    'create.updated-at-not-before-created',
    'updatedAt is not before createdAt',
    RESOURCE,
    (body) => {
      assert(timeOf(body.updatedAt) >= timeOf(body.createdAt), `expected updatedAt ≥ createdAt, got createdAt ${show(body.createdAt)}, updatedAt ${show(body.updatedAt)}`);
    },
    'SHOULD',
  ),
  onShared('create.no-destination-wallet', 'destinationWallet is not in the response', RESOURCE, (body) => {
    assert(!has(body, 'destinationWallet'), `the 201 body: expected no destinationWallet field, got ${show(body.destinationWallet)}`);
  }),
  onShared('create.no-preimage', 'No preimage while pending', RESOURCE, (body) => {
    assert(!has(body, 'preimage'), `the 201 body (status ${show(body.status)}): expected no preimage field, got one`);
  }),
  onShared('create.nwc-relay-only-when-nwc', 'nwcRelay is absent when isNwc is false', RESOURCE, (body, context) => {
    if (body.isNwc === false) {
      assert(!has(body, 'nwcRelay'), `the 201 body with isNwc false: expected no nwcRelay field, got ${show(body.nwcRelay)}`);
    } else {
      assert(body.isNwc === true, `the 201 body: expected isNwc to be a boolean, got ${show(body.isNwc)}`);
      context.observe('mainKeyMode', 'non-custodial (isNwc true)');
    }
  }),
  onShared('create.default-expiry', 'Without expiresIn, expiresAt is createdAt + 3600 s', 'Limits', (body) => {
    assertValidity(body, 3600, 'without expiresIn');
  }),
  {
    id: 'create.expires-in-honoured',
    title: 'With expiresIn, expiresAt is createdAt + expiresIn',
    section: CREATE,
    level: 'MUST',
    profile: 'core',
    async run(context) {
      assertValidity(await sharedSecondRequest(context), SHARED_EXPIRES_IN, `with expiresIn ${SHARED_EXPIRES_IN}`);
    },
  },
  {
    id: 'create.without-metadata',
    title: 'A create without metadata (and with expiresIn) is accepted and echoes amount and description',
    section: CREATE,
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const body = await sharedSecondRequest(context);
      assert(body.amount === SECOND_BODY.amount, `expected amount ${SECOND_BODY.amount}, got ${show(body.amount)}`);
      assert(body.description === SECOND_BODY.description, `expected description ${show(SECOND_BODY.description)}, got ${show(body.description)}`);
      const metadata = !has(body, 'metadata') ? 'absent' : body.metadata === null ? 'null' : isObject(body.metadata) && Object.keys(body.metadata).length === 0 ? '{}' : 'other';
      assert(metadata !== 'other', `metadata was not given: expected it absent, null or {}, got ${show(body.metadata)}`);
      context.observe('metadataWhenAbsent', metadata);
      const extra = Object.keys(body).filter((key) => !SPEC_FIELDS.has(key));
      context.observe('extraFields', extra.length === 0 ? 'none' : extra.sort().join(', '));
    },
  },
  {
    id: 'create.unique-ids',
    title: 'Requests get different ids, payment hashes and invoices (also when created at once)',
    section: RESOURCE,
    level: 'MUST',
    profile: 'core',
    async run(context) {
      // Three created at the same moment, besides the two shared ones: ids drawn from a clock collide here.
      const burst = [1, 2, 3].map((n) => createPaymentRequest(context, { amount: 1000 + n, description: `lnpr conformance uniqueness ${n}` }));
      const all = await Promise.all([sharedPaymentRequest(context), sharedSecondRequest(context), ...burst]);
      const repeated = (field: string, normalize: (value: unknown) => unknown = (value) => value) => {
        const seen = all.map((body) => normalize(body[field]));
        return seen.filter((value, index) => value !== undefined && seen.indexOf(value) !== index);
      };
      const ids = repeated('id');
      assert(ids.length === 0, `expected ${all.length} different ids for ${all.length} requests, got ${show(ids[0])} more than once (ids: ${show(all.map((body) => body.id))})`);
      const hashes = repeated('paymentHash', (value) => (typeof value === 'string' ? value.toLowerCase() : undefined));
      assert(hashes.length === 0, `expected ${all.length} different payment hashes, got ${show(hashes[0])} more than once`);
      // Whether there is an invoice at all is create.invoice-present's business.
      const invoices = repeated('invoice', (value) => (typeof value === 'string' && value !== '' ? value : undefined));
      assert(invoices.length === 0, `expected ${all.length} different invoices, got the same invoice more than once`);
    },
  },
];
