/**
 * Create a payment request (spec: "Endpoints › Create a payment request" and "Resources › Payment
 * request"): 201 with every field present, typed and formatted, the caller's values echoed, the
 * hidden fields hidden, `expiresAt` from `expiresIn` (default 3600) — each on every payment request
 * (or every 201, against the body it answered) the run received. Extra fields and key order are the
 * target's business.
 */
import type { Check, CheckContext } from '../check.js';
import {
  assert,
  assertStatus,
  COLLECTION,
  createPaymentRequest,
  describeBody,
  expectCreated,
  postCreate,
  deepEqual,
  expiryProblem,
  FIELD_RULES,
  fieldsProblem,
  has,
  hexValue,
  isObject,
  SECOND_BODY,
  sharedCreateAnswer,
  sharedPaymentRequest,
  sharedSecondRequest,
  show,
  timeOf,
} from './support.js';
import { assertEvery, receivedPaymentRequests, type Received } from './received.js';

const CREATE = 'Endpoints › Create a payment request';
const RESOURCE = 'Resources › Payment request';

/** The fields the spec names for the object, for the extra-fields observation. */
const SPEC_FIELDS = new Set([...Object.keys(FIELD_RULES), 'metadata', 'nwcRelay', 'preimage']);


/**
 * A rule of the payment request object, held for every object the run received (each 201 and
 * each GET, of every key, pending or completed): checks marked `last` see them all. It needs one
 * object at least, so it creates the shared request first.
 */
function everyObject(
  id: string,
  holds: readonly string[],
  title: string,
  statement: string,
  test: (body: Record<string, unknown>) => string | undefined,
  observe?: (body: Record<string, any>, context: CheckContext) => void,
  level: Check['level'] = 'MUST',
): Check {
  return {
    id,
    holds,
    title,
    section: RESOURCE,
    statement,
    level,
    profile: 'core',
    last: true,
    async run(context) {
      const shared = await sharedPaymentRequest(context);
      observe?.(shared, context);
      assertEvery(receivedPaymentRequests(context), 'payment request objects', ({ body }) => test(body));
    },
  };
}

/** The body a create sent, when it was a JSON object. */
type Sent = Record<string, unknown>;

/**
 * A rule of the 201 answer against the body that was sent, held for every create the run made
 * that `applies` to (its sent body decides): the shared ones, the probes, the fee samples, the
 * lifecycle requests, of every key.
 */
function everyCreate(
  id: string,
  holds: readonly string[],
  title: string,
  section: string,
  statement: string,
  applies: (sent: Sent) => boolean,
  test: (body: Record<string, any>, sent: Sent) => string | undefined,
  level: Check['level'] = 'MUST',
): Check {
  return {
    id,
    holds,
    title,
    section,
    statement,
    level,
    profile: 'core',
    last: true,
    async run(context) {
      await sharedPaymentRequest(context);
      assertEvery(createsWhere(context, applies), 'creates', ({ body, origin }) => test(body, origin!.sent!));
    },
  };
}

/** The 2xx answers of create whose sent body is a JSON object that `applies`. */
function createsWhere(context: CheckContext, applies: (sent: Sent) => boolean): Received[] {
  return receivedPaymentRequests(context).filter(({ kind, origin }) => kind === 'create' && origin?.sent !== undefined && applies(origin.sent));
}

/** Whether a sent body gives no metadata pairs: none, null or {}. */
function noMetadata(sent: Sent): boolean {
  const metadata = sent.metadata;
  return metadata === undefined || metadata === null || (isObject(metadata) && Object.keys(metadata).length === 0);
}

/** Whether a sent body leaves expiresIn to its default (absent, or null). */
const defaultExpiry = (sent: Sent) => sent.expiresIn === undefined || sent.expiresIn === null;

/** Whether a sent body gives a validity: a positive number (0 or less is validation.expires-in-not-positive's business). */
export const givenExpiry = (sent: Sent) => typeof sent.expiresIn === 'number' && Number.isFinite(sent.expiresIn) && sent.expiresIn > 0;

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
    holds: ['spec.create.201'],
    title: 'A valid create answers 201 Created with a JSON object: every create the run saw accepted, by every key',
    section: CREATE,
    statement: 'Create: "201 Created: Payment request object"',
    level: 'MUST',
    profile: 'core',
    last: true,
    ask: sharedCreateAnswer,
    async run(context) {
      const answer = await sharedCreateAnswer(context);
      assertStatus(answer, 201, `POST ${COLLECTION} with a valid body`);
      assert(isObject(answer.body), `POST ${COLLECTION}: expected a JSON object in the 201 body, got ${describeBody(answer) || 'an empty body'}`);
      // Every accepted create of the run (the NWC key's too), not only the shared one.
      const accepted = context.client.v1Answers().filter((logged) => logged.method === 'POST' && logged.path === COLLECTION && logged.status >= 200 && logged.status < 300);
      const other = accepted.filter((logged) => logged.status !== 201);
      assert(other.length === 0, `${other.length} of ${accepted.length} accepted creates answered another status than 201: ${[...new Set(other.map((logged) => `${logged.status} (key: ${logged.key})`))].join(', ')}`);
    },
  },
  everyObject('create.id-format', ['spec.resource.id-prefix'], 'id is a string "pr_<identifier>" (in every payment request received)', 'Resources: id, "a string with the prefix pr_", shaped pr_<identifier>', (body) => fieldsProblem(body, ['id']), (body, context) => {
    if (typeof body.id === 'string') context.observe('idFormat', idShape(body.id));
  }),
  everyCreate(
    'create.status-pending',
    ['spec.create.201-pending', 'spec.states.pending-initial', 'spec.resource.status-values'],
    'status is "pending" on creation (every 201 the run received)',
    'States and transitions',
    'States: pending, "the initial state returned on creation"; Create: 201 with "status (pending)"',
    () => true,
    (body) => (body.status === 'pending' ? undefined : `expected status "pending", got ${show(body.status)}`),
  ),
  everyCreate(
    'create.amount-echo',
    ['spec.resource.amount', 'spec.service.sats'],
    'amount is a number equal to the amount sent (every 201 the run received)',
    CREATE,
    'Resources: amount, a number, "Amount in satoshis" (the amount sent)',
    // Whether an amount below 1 should have been accepted at all is validation.*'s business.
    (sent) => typeof sent.amount === 'number' && Number.isFinite(sent.amount) && sent.amount >= 1,
    (body, sent) => (body.amount === sent.amount ? undefined : `expected amount ${show(sent.amount)} (a number, as sent), got ${show(body.amount)}`),
  ),
  everyCreate(
    'create.description-echo',
    ['spec.resource.description'],
    'description is the description sent (every 201 the run received)',
    CREATE,
    'Resources: description, a string, "Description of the payment" (the one sent)',
    // Whether a longer one should have been accepted at all is validation.description-too-long's business.
    (sent) => typeof sent.description === 'string' && [...sent.description].length <= 255 && sent.description.length <= 255,
    (body, sent) => (body.description === sent.description ? undefined : `expected description ${show(sent.description)} (as sent), got ${show(body.description)}`),
  ),
  everyCreate(
    'create.metadata-echo',
    ['spec.resource.metadata-as-given'],
    'metadata is returned as given (deep equal, nested values kept; every 201 of a create with metadata)',
    RESOURCE,
    'Resources: metadata, "Custom key-value pairs supplied at creation, returned as given"',
    // Metadata that is not an object is validation.metadata-not-object's business.
    (sent) => isObject(sent.metadata) && Object.keys(sent.metadata).length > 0,
    (body, sent) => {
      if (!has(body, 'metadata')) return `expected metadata ${show(sent.metadata)} (it was given), got no such field`;
      return deepEqual(body.metadata, sent.metadata) ? undefined : `expected metadata ${show(sent.metadata)}, got ${show(body.metadata)}`;
    },
  ),
  everyObject('create.invoice-present', ['spec.resource.invoice-present', 'spec.create.201-fields'], 'invoice is a non-empty string (in every payment request received)', 'Resources: invoice, a string, present "on create; on read" (BOLT11 text)', (body) => fieldsProblem(body, ['invoice'])),
  everyObject('create.payment-hash-format', ['spec.resource.payment-hash-present', 'spec.create.201-fields'], 'paymentHash is 64 hex digits (in every payment request received)', 'Resources: paymentHash, a string, present "on create; on read"', (body) => fieldsProblem(body, ['paymentHash'])),
  everyObject('create.expires-at-format', ['spec.resource.expires-at', 'spec.create.201-fields'], 'expiresAt is an ISO 8601 UTC timestamp with milliseconds (in every payment request received)', 'Resources: expiresAt, always, "ISO 8601 UTC timestamp with milliseconds"', (body) => fieldsProblem(body, ['expiresAt'])),
  everyObject('create.is-nwc-boolean', ['spec.resource.is-nwc', 'spec.service.is-nwc-every-response', 'spec.create.201-fields'], 'isNwc is a boolean (in every payment request received)', 'Resources: isNwc, a boolean, always; "The mode is reported in every payment request response by the field isNwc"', (body) => fieldsProblem(body, ['isNwc'])),
  everyObject('create.fee-fields', ['spec.resource.fee-amount', 'spec.resource.fee-percentage', 'spec.fees.fields', 'spec.create.201-fields'], 'feeAmount and feePercentage are numbers (in every payment request received)', 'Resources: feeAmount "Fee in satoshis" and feePercentage "Fee percentage applied", numbers, always', (body) => fieldsProblem(body, ['feeAmount', 'feePercentage'])),
  everyObject(
    'create.timestamps-format',
    ['spec.resource.created-at', 'spec.resource.updated-at', 'spec.create.201-fields'],
    'createdAt and updatedAt are ISO 8601 UTC timestamps (in every payment request received)',
    'Resources: createdAt and updatedAt, always, "ISO 8601 UTC timestamp"',
    (body) => fieldsProblem(body, ['createdAt', 'updatedAt']),
    (body, context) => {
      if (typeof body.createdAt !== 'string') return;
      const fraction = /\.(\d+)/.exec(body.createdAt)?.[1];
      context.observe('createdAtPrecision', fraction === undefined ? 'whole seconds' : /^0+$/.test(fraction) ? `whole seconds (.${fraction})` : `${fraction.length} fraction digits`);
    },
  ),
  everyObject(
    'create.updated-at-not-before-created',
    ['contract.reading.updated-at-not-before'],
    'updatedAt is not before createdAt (in every payment request received)',
    'Resources: updatedAt "changes when the record changes" (so it starts at creation)',
    (body) =>
      timeOf(body.updatedAt) >= timeOf(body.createdAt) || !Number.isFinite(timeOf(body.updatedAt)) || !Number.isFinite(timeOf(body.createdAt))
        ? undefined
        : `expected updatedAt ≥ createdAt, got createdAt ${show(body.createdAt)}, updatedAt ${show(body.updatedAt)}`,
    undefined,
    'SHOULD',
  ),
  everyObject('create.no-destination-wallet', ['spec.resource.destination-wallet-hidden'], 'destinationWallet is in no response', 'Resources: destinationWallet "is stored with the request … It is not among the fields shown in responses"', (body) =>
    has(body, 'destinationWallet') ? `expected no destinationWallet field, got ${show(body.destinationWallet)}` : undefined,
  ),
  everyObject('create.no-preimage', ['spec.resource.preimage-absent-before'], 'No preimage unless completed', 'Resources: preimage "available after successful completion"', (body) =>
    body.status !== 'completed' && has(body, 'preimage') ? `status ${show(body.status)}: expected no preimage field, got one` : undefined,
  ),
  everyObject(
    'create.nwc-relay-only-when-nwc',
    ['spec.resource.nwc-relay-only-when-nwc', 'contract.reading.nwc-relay-absent'],
    'nwcRelay is absent when isNwc is false',
    'Resources: nwcRelay "Present only when isNwc is true"',
    (body) => (body.isNwc === false && has(body, 'nwcRelay') ? `isNwc false: expected no nwcRelay field, got ${show(body.nwcRelay)}` : undefined),
    (body, context) => {
      if (body.isNwc === true) context.observe('mainKeyMode', 'non-custodial (isNwc true)');
    },
  ),
  everyCreate(
    'create.default-expiry',
    ['spec.create.expires-in-optional', 'contract.reading.expires-at'],
    'Without expiresIn, expiresAt is createdAt + 3600 s (every 201 of a create without expiresIn)',
    'Limits',
    'Create: expiresIn "default 3600"; Limits: "expiresIn default: 3600 seconds"',
    defaultExpiry,
    (body) => expiryProblem(body, 3600),
  ),
  {
    id: 'create.expires-in-honoured',
    holds: ['spec.create.expires-in-seconds', 'contract.reading.expires-at'],
    title: 'With expiresIn, expiresAt is createdAt + expiresIn (every 201 of a create with expiresIn)',
    section: CREATE,
    statement: 'Create: expiresIn, "Validity in seconds"',
    level: 'MUST',
    profile: 'core',
    last: true,
    async run(context) {
      await sharedSecondRequest(context);
      const withExpiresIn = createsWhere(context, givenExpiry);
      assertEvery(withExpiresIn, 'creates with expiresIn', ({ body, origin }) => expiryProblem(body, origin!.sent!.expiresIn as number));
    },
  },
  {
    id: 'create.without-metadata',
    holds: ['spec.create.metadata-optional'],
    title: 'A create without metadata is accepted and echoes amount and description; every 201 without metadata shows none (absent, null or {})',
    section: CREATE,
    statement: 'Create: metadata, "Required: no"',
    level: 'MUST',
    profile: 'core',
    last: true,
    async run(context) {
      const body = await sharedSecondRequest(context);
      assert(body.amount === SECOND_BODY.amount, `expected amount ${SECOND_BODY.amount}, got ${show(body.amount)}`);
      assert(body.description === SECOND_BODY.description, `expected description ${show(SECOND_BODY.description)}, got ${show(body.description)}`);
      const metadata = !has(body, 'metadata') ? 'absent' : body.metadata === null ? 'null' : isObject(body.metadata) && Object.keys(body.metadata).length === 0 ? '{}' : 'other';
      context.observe('metadataWhenAbsent', metadata);
      const extra = Object.keys(body).filter((key) => !SPEC_FIELDS.has(key));
      context.observe('extraFields', extra.length === 0 ? 'none' : extra.sort().join(', '));
      assertEvery(createsWhere(context, noMetadata), 'creates without metadata', ({ body: created }) => {
        const back = created.metadata;
        return !has(created, 'metadata') || back === null || (isObject(back) && Object.keys(back).length === 0)
          ? undefined
          : `metadata was not given (or had no pairs): expected it absent, null or {}, got ${show(back)}`;
      });
    },
  },
  {
    id: 'create.mode-from-account',
    holds: ['spec.service.mode-from-account'],
    title: 'The caller cannot choose the mode: isNwc, nwcRelay or a mode in the body are rejected (400) or change nothing',
    section: 'What the service does',
    statement: 'What the service does: the payment mode is "selected automatically from the account configuration and not chosen by the caller"',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const reference = await sharedPaymentRequest(context);
      const asked = { isNwc: reference.isNwc !== true, nwcRelay: 'wss://relay.conformance.example', mode: reference.isNwc === true ? 'custodial' : 'non-custodial' };
      const answer = await postCreate(context, { ...asked, description: 'lnpr conformance: mode asked by the caller' });
      if (answer.status === 400) return;
      const body = expectCreated(answer, `POST ${COLLECTION} asking for ${show(asked)}`);
      assert(body.isNwc === reference.isNwc, `a create asking for isNwc ${show(asked.isNwc)}: expected the account's mode (isNwc ${show(reference.isNwc)}) or a 400, got isNwc ${show(body.isNwc)}`);
      assert(has(body, 'nwcRelay') === has(reference, 'nwcRelay'), `a create asking for nwcRelay: expected nwcRelay ${has(reference, 'nwcRelay') ? 'present' : 'absent'} as for the account, got ${show(body.nwcRelay)}`);
    },
  },
  {
    id: 'create.unique-ids',
    holds: ['spec.resource.id-identifies'],
    title: 'Requests get different ids, payment hashes and invoices (also when created at once, and for the same body twice)',
    section: RESOURCE,
    statement: 'Resources: a payment request is "Identified by id"',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      // The same body twice, one after the other: each create makes a new request (no replay of the first).
      // Sent before the burst, so a failure here leaves no create of this check unawaited.
      const sameBody = { amount: 1000, description: 'lnpr conformance: the same body twice' };
      const twice = [await createPaymentRequest(context, sameBody), await createPaymentRequest(context, sameBody)];
      // Three created at the same moment, besides the two shared ones: ids drawn from a clock collide here.
      const burst = [1, 2, 3].map((n) => createPaymentRequest(context, { amount: 1000 + n, description: `lnpr conformance uniqueness ${n}` }));
      const all = [...(await Promise.all([sharedPaymentRequest(context), sharedSecondRequest(context), ...burst])), ...twice];
      const repeated = (field: string, normalize: (value: unknown) => unknown = (value) => value) => {
        const seen = all.map((body) => normalize(body[field]));
        return seen.filter((value, index) => value !== undefined && seen.indexOf(value) !== index);
      };
      const ids = repeated('id');
      assert(ids.length === 0, `expected ${all.length} different ids for ${all.length} requests, got ${show(ids[0])} more than once (ids: ${show(all.map((body) => body.id))})`);
      const hashes = repeated('paymentHash', (value) => (typeof value === 'string' ? hexValue(value) : undefined));
      assert(hashes.length === 0, `expected ${all.length} different payment hashes, got ${show(hashes[0])} more than once`);
      // Whether there is an invoice at all is create.invoice-present's business.
      const invoices = repeated('invoice', (value) => (typeof value === 'string' && value !== '' ? value : undefined));
      assert(invoices.length === 0, `expected ${all.length} different invoices, got the same invoice more than once`);
    },
  },
];
