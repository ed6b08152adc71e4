/**
 * The create body, field by field (spec: "Endpoints › Create a payment request", "Errors",
 * "Limits"): missing required fields, wrong JSON types, invalid values and the edges of valid ones,
 * all generated from one table of probes (./probes.ts). Invalid input answers 400 — with a JSON
 * body, which endpoints.json-responses checks for every answer — and never a 5xx; a value the
 * target accepts comes back exactly as sent. The minimum amount is an open point (21 or 1 sats):
 * either passes unless `--min-amount` pins one.
 */
import type { Check, CheckContext } from '../check.js';
import type { ApiAnswer, ApiCall } from '../client.js';
import { absent, accepted, probeAnswer, probeProblems, raw, REQUIRED_FIELDS, value, wrongTypeProbes, type Probe, type ProbeField } from './probes.js';
import { assert, COLLECTION, deepEqual, describeBody, expectCreated, getPaymentRequest, isObject, show, validBody } from './support.js';

const ERRORS = 'Errors';
const CREATE = 'Endpoints › Create a payment request';
const LIMITS = 'Limits';

/** A check made of probes: it fails naming every probe whose answer breaks the rule. */
interface ProbeGroup {
  id: string;
  holds: readonly string[];
  title: string;
  section: string;
  statement: string;
  level: Check['level'];
  probes: Probe[];
  /** Also read back every accepted probe: GET must show the probed field as the create answered it. */
  readBack?: boolean;
}

const ALL_FIELDS: readonly ProbeField[] = ['amount', 'description', 'destinationWallet', 'metadata', 'expiresIn'];

/** Wrong JSON types of every field, by construction; the amount as a string and metadata that is not an object have checks of their own. */
const WRONG_TYPES = ALL_FIELDS.flatMap(wrongTypeProbes);
const isAmountString = (probe: Probe) => probe.field === 'amount' && probe.json?.startsWith('"') === true;
const isMetadataNotObject = (probe: Probe) => probe.field === 'metadata' && probe.expect === 'reject';
const isOptionalNull = (probe: Probe) => probe.json === 'null' && !REQUIRED_FIELDS.includes(probe.field);

/** The invalid inputs: every one answers 400. */
const REJECTIONS: ProbeGroup[] = [
  ...REQUIRED_FIELDS.map(
    (field): ProbeGroup => ({
      id: `validation.missing-${field === 'destinationWallet' ? 'destination-wallet' : field}`,
      holds: [`spec.create.${field === 'destinationWallet' ? 'destination-wallet' : field}-required`],
      title: `Missing ${field} → 400`,
      section: ERRORS,
      statement: `Create: ${field} is required; "400 Bad Request: Invalid input (missing required field …)"`,
      level: 'MUST',
      probes: [absent(field)],
    }),
  ),
  {
    id: 'validation.amount-string',
    holds: ['spec.create.amount-number'],
    title: 'amount as a string ("1000") → 400',
    section: ERRORS,
    statement: 'Create: amount is a number; "400: invalid amount"',
    level: 'MUST',
    probes: WRONG_TYPES.filter(isAmountString),
  },
  {
    id: 'validation.amount-zero',
    holds: ['spec.create.amount-invalid', 'spec.create.amount-minimum'],
    title: 'amount 0 (also written -0 and 0.0) → 400',
    section: ERRORS,
    statement: 'Errors: "400: invalid amount, amount below the minimum" (the minimum is 21 or 1 sats)',
    level: 'MUST',
    probes: [value('amount', 'reject', 0), raw('amount', 'reject', '-0'), raw('amount', 'reject', '0.0')],
  },
  {
    id: 'validation.amount-negative',
    holds: ['spec.create.amount-invalid'],
    title: 'A negative amount → 400',
    section: ERRORS,
    statement: 'Errors: "400: invalid amount"',
    level: 'MUST',
    probes: [value('amount', 'reject', -1000), value('amount', 'reject', -1), raw('amount', 'reject', '-1e3')],
  },
  {
    id: 'validation.description-too-long',
    holds: ['spec.create.description-max'],
    title: 'A description of 256 characters (ASCII, "⚡" or astral "😀") → 400',
    section: LIMITS,
    statement: 'Limits: description length "at most 255 characters"',
    level: 'MUST',
    probes: [
      value('description', 'reject', 'a'.repeat(256), 'description "a" × 256'),
      value('description', 'reject', '⚡'.repeat(256), 'description "⚡" × 256'),
      // 256 code points and 512 UTF-16 units: too long however characters are counted.
      value('description', 'reject', '😀'.repeat(256), 'description "😀" × 256'),
    ],
  },
  {
    id: 'validation.destination-wallet-not-address',
    holds: ['spec.create.destination-wallet-address'],
    title: 'A destinationWallet not shaped <name>@<domain> → 400',
    section: CREATE,
    statement: 'Create: destinationWallet is a "Lightning address, shaped <name>@<domain>"',
    level: 'MUST',
    probes: ['conformance.example.com', '', '@example.com', 'conformance@', 'a@b@example.com'].map((address) => value('destinationWallet', 'reject', address)),
  },
  {
    id: 'validation.wrong-types',
    holds: ['spec.create.amount-number', 'spec.create.description-string', 'spec.create.expires-in-number', 'spec.create.destination-wallet-address', 'spec.create.metadata-object'],
    title: 'Every field given a value of another JSON type (string, number, boolean, null, array, object) → 400',
    section: CREATE,
    statement: 'Create: the request body table types amount and expiresIn as number, description and destinationWallet as string',
    level: 'MUST',
    probes: WRONG_TYPES.filter((probe) => !isAmountString(probe) && !isMetadataNotObject(probe) && !isOptionalNull(probe)),
  },
  {
    id: 'validation.metadata-not-object',
    holds: ['spec.create.metadata-object'],
    title: 'metadata that is not an object (a string, a number, a boolean, an array) → 400',
    section: CREATE,
    statement: 'Create: metadata is an object of "custom key-value pairs"',
    level: 'MUST',
    probes: WRONG_TYPES.filter(isMetadataNotObject),
  },
];

/** Values of the right type: accepted and echoed exactly, or (where the spec is silent) rejected with 400. */
const VALUES: ProbeGroup[] = [
  {
    id: 'create.amount-values',
    holds: ['spec.resource.amount'],
    title: 'amount: the same number however written (1e3, 1000.0) is accepted as 1000; fractions and huge numbers are rejected or echoed exactly',
    section: CREATE,
    statement: 'Resources: amount is the "Amount in satoshis" of the request (a value create accepts comes back as sent)',
    level: 'MUST',
    probes: [
      raw('amount', 'accept', '1e3'),
      raw('amount', 'accept', '1000.0'),
      raw('amount', 'accept', '1E+3'),
      raw('amount', 'accept', '10000e-1'),
      value('amount', 'accept', 21),
      value('amount', 'reject', 0.5),
      raw('amount', 'either', '1000.5'),
      raw('amount', 'either', '21.25'),
      value('amount', 'either', 2_100_000),
      value('amount', 'either', 123_456_789),
      raw('amount', 'either', '9007199254740993', 'amount 2^53 + 1'),
      raw('amount', 'either', '1e21'),
      raw('amount', 'either', '1e400'),
    ],
  },
  {
    id: 'create.description-values',
    holds: ['spec.resource.description'],
    title: 'description: Unicode, emoji, quotes and markup are echoed exactly; empty, blank, control characters, astral-heavy ones are rejected or echoed exactly',
    section: CREATE,
    statement: 'Resources: description is the "Description of the payment" (a value create accepts comes back as sent)',
    level: 'MUST',
    probes: [
      value('description', 'accept', 'Café ☕ Zürich — naïve façade'),
      value('description', 'accept', '₿ 😀 𝄞 👨‍👩‍👧 🇨🇭'),
      value('description', 'accept', '"quoted" \\ back/slash <b>bold</b> &amp; 100%'),
      value('description', 'accept', 'مرحبا שלום 你好'),
      value('description', 'either', ''),
      value('description', 'either', '   '),
      value('description', 'either', '  padded  '),
      value('description', 'either', 'line one\nline two\ttab\r'),
      value('description', 'either', 'nul \u0000 bell \u0007'),
      value('description', 'either', 'separators \u2028 \u2029'),
      value('description', 'either', 'lone surrogate \ud800'),
      value('description', 'either', 'decomposed e\u0301 vs é'),
      // 255 code points, 510 UTF-16 units; 128 code points, 256 UTF-16 units: how characters are counted is open.
      value('description', 'either', '😀'.repeat(255), 'description "😀" × 255'),
      value('description', 'either', '😀'.repeat(128), 'description "😀" × 128'),
    ],
  },
  {
    id: 'validation.description-255-accepted',
    holds: ['spec.create.description-max'],
    title: 'A description of exactly 255 characters (ASCII, "⚡", "é") is accepted and echoed, by the create and by GET',
    section: LIMITS,
    statement: 'Limits: description length "at most 255 characters" (255 are allowed)',
    level: 'MUST',
    readBack: true,
    probes: [
      value('description', 'accept', 'b'.repeat(255), 'description "b" × 255'),
      value('description', 'accept', '⚡'.repeat(255), 'description "⚡" × 255'),
      value('description', 'accept', 'é'.repeat(255), 'description "é" × 255'),
    ],
  },
  {
    id: 'create.destination-wallet-values',
    holds: ['spec.create.destination-wallet-address'],
    title: 'destinationWallet: Lightning addresses are accepted; unusual ones are accepted or rejected with 400',
    section: CREATE,
    statement: 'Create: destinationWallet is a "Lightning address, shaped <name>@<domain>"',
    level: 'MUST',
    probes: [
      value('destinationWallet', 'accept', 'satoshi@bitcoin.org'),
      value('destinationWallet', 'accept', 'shop-1_x.y+tag@pay.example.co.uk'),
      value('destinationWallet', 'either', 'Shop@Example.COM'),
      value('destinationWallet', 'either', 'shop@localhost'),
      value('destinationWallet', 'either', 'shop@example'),
      value('destinationWallet', 'either', 'café@exämple.com'),
      value('destinationWallet', 'either', ' shop@example.com '),
      value('destinationWallet', 'either', `${'x'.repeat(300)}@example.com`),
      value('destinationWallet', 'either', 'two words@example.com'),
      value('destinationWallet', 'either', 'lightning:shop@example.com'),
    ],
  },
  {
    id: 'create.expires-in-values',
    holds: ['spec.create.expires-in-seconds', 'contract.reading.expires-at'],
    title: 'expiresIn: whole seconds (however written) are reflected in expiresAt; edge values are rejected or reflected exactly',
    section: CREATE,
    statement: 'Create: expiresIn is the "Validity in seconds" (expiresAt = createdAt + expiresIn)',
    level: 'MUST',
    probes: [
      value('expiresIn', 'accept', 300),
      value('expiresIn', 'accept', 3600),
      value('expiresIn', 'accept', 86_400),
      raw('expiresIn', 'accept', '3.6e3'),
      raw('expiresIn', 'accept', '900.0'),
      value('expiresIn', 'either', 1),
      value('expiresIn', 'either', 59),
      raw('expiresIn', 'either', '600.5'),
      value('expiresIn', 'either', 31_536_000),
      value('expiresIn', 'either', 31_536_001),
      value('expiresIn', 'either', 2 ** 31),
      raw('expiresIn', 'either', '1e21'),
      ...WRONG_TYPES.filter((probe) => probe.field === 'expiresIn' && isOptionalNull(probe)),
    ],
  },
  {
    id: 'create.metadata-values',
    holds: ['spec.resource.metadata-as-given', 'contract.reading.metadata-untouched'],
    title: 'metadata: any object comes back key for key (nested, Unicode keys, __proto__, empty); null, very deep or large ones may be rejected',
    section: 'Resources › Payment request',
    statement: 'Resources: metadata, "Custom key-value pairs supplied at creation, returned as given"',
    level: 'MUST',
    probes: [
      value('metadata', 'accept', {}),
      value('metadata', 'accept', { orderId: 'order-7', customerId: 'cust-42' }),
      value('metadata', 'accept', { a: { b: { c: { d: { e: 'five levels' } } } } }),
      value('metadata', 'accept', { ключ: 'значение', キー: '値', '😀': '✓', 'e\u0301': 'decomposed key' }),
      // Strings each Unicode normalisation form changes (NFC: a decomposed é; NFKC also: a ligature, a full-width letter, a superscript).
      value('metadata', 'accept', { decomposed: 'Cafe\u0301', ligature: '\ufb01le', fullwidth: '\uff21\uff22', superscript: 'x\u00b2', composed: 'Caf\u00e9' }),
      raw('metadata', 'accept', '{"__proto__":{"polluted":true},"constructor":"c","toString":"t","hasOwnProperty":1}'),
      value('metadata', 'accept', { '': 'empty key', 'a.b': 'dotted', 'with space': 1, $ref: '#' }),
      value('metadata', 'accept', { values: [1, 2.5, -3, 0, 1e21, true, false, null, 's', { x: [] }, []] }),
      value('metadata', 'accept', { nothing: null, zero: 0, empty: '', list: [] }),
      value('metadata', 'accept', { note: 'x'.repeat(1000) }),
      value('metadata', 'either', Array.from({ length: 20 }).reduce<unknown>((inner) => ({ deeper: inner }), 'twenty levels'), 'metadata nested 20 levels'),
      value('metadata', 'either', Object.fromEntries(Array.from({ length: 200 }, (_, index) => [`key${index}`, index])), 'metadata with 200 keys'),
      value('metadata', 'either', { blob: 'y'.repeat(20_000) }, 'metadata of 20 kB'),
      ...WRONG_TYPES.filter((probe) => probe.field === 'metadata' && isOptionalNull(probe)),
    ],
  },
];

/** SHOULD: invalid by the spec's words, where a reading that accepts them and echoes them is not absurd. */
const SHOULD_REJECT: ProbeGroup[] = [
  {
    id: 'validation.amount-fractional',
    holds: ['spec.create.amount-invalid'],
    title: 'A fractional amount (100.5 sats) → 400',
    section: ERRORS,
    statement: 'Resources: amount is in satoshis (whole units of Lightning amounts the invoice can carry); "400: invalid amount"',
    level: 'SHOULD',
    probes: [raw('amount', 'reject', '100.5')],
  },
  {
    id: 'validation.expires-in-not-positive',
    holds: ['spec.create.expires-in-seconds'],
    title: 'expiresIn 0 or negative → 400',
    section: CREATE,
    statement: 'Create: expiresIn is the "Validity in seconds" (none, or a negative one, is no validity)',
    level: 'SHOULD',
    probes: [value('expiresIn', 'reject', 0), value('expiresIn', 'reject', -60), raw('expiresIn', 'reject', '-0')],
  },
];

function probeCheck(group: ProbeGroup): Check {
  return {
    id: group.id,
    holds: group.holds,
    title: group.title,
    section: group.section,
    statement: group.statement,
    level: group.level,
    profile: 'core',
    async run(context) {
      const problems = await probeProblems(context, group.probes);
      if (group.readBack) problems.push(...(await readBackProblems(context, group.probes)));
      assert(problems.length === 0, `${problems.length} of ${group.probes.length} probes: ${problems.join('; ')}`);
    },
  };
}

/** For each accepted probe, whether GET shows its field as the create answered it (a long value cut on read shows here). */
async function readBackProblems(context: CheckContext, probes: readonly Probe[]): Promise<string[]> {
  const problems: string[] = [];
  for (const probe of probes) {
    const answer = await probeAnswer(context, probe);
    if (!accepted(answer) || typeof answer.body?.id !== 'string') continue;
    const read = await getPaymentRequest(context, answer.body.id);
    if (!deepEqual(read[probe.field], answer.body[probe.field])) problems.push(`${probe.label}: GET answers ${probe.field} ${show(read[probe.field])}, not as created (${show(answer.body[probe.field])})`);
  }
  return problems;
}

/** Every probe that must be rejected, with the field it is wrong in (for the error-names-field check). */
const MUST_REJECTIONS: Probe[] = REJECTIONS.flatMap((group) => group.probes);

/** A create answer shared between the checks that judge it. */
function sharedAnswer(context: CheckContext, name: string, send: () => Promise<ApiAnswer>): Promise<ApiAnswer> {
  return context.shared(`validation: ${name}`, send);
}

/** Sends the valid body with `overrides`. */
function postWith(context: CheckContext, overrides: Record<string, unknown>, call: ApiCall = {}): Promise<ApiAnswer> {
  return context.client.post(COLLECTION, { body: validBody(overrides), ...call });
}

/** Fails unless the answer is 400 (its JSON body is endpoints.json-responses' business). */
function expectRejected(answer: ApiAnswer, what: string): void {
  const serverError = answer.status >= 500 ? ' (a server error: invalid input must never cause a 5xx)' : '';
  assert(answer.status === 400, `${what}: expected HTTP 400, got ${answer.status}${serverError} ${describeBody(answer)}`);
}

/** The shape of an error body, for the observation: its top-level keys, or its JSON type. */
function errorShape(answer: ApiAnswer): string {
  if (!answer.isJson) return 'not JSON';
  if (isObject(answer.body)) return `{${Object.keys(answer.body).sort().join(', ')}}`;
  return Array.isArray(answer.body) ? 'an array' : typeof answer.body;
}

/** The answer to a create of `amount` sats near the minimum, with the main key or `key`, sent once per run. */
export function minimumAnswer(context: CheckContext, amount: number, key?: string): Promise<ApiAnswer> {
  return sharedAnswer(context, `amount ${amount}${key === undefined ? '' : ' (another key)'}`, () =>
    postWith(context, { amount, description: `lnpr conformance minimum, ${amount} sats` }, key === undefined ? {} : { key }),
  );
}

async function minimumAmount(context: CheckContext): Promise<void> {
  const post = (amount: number) => minimumAnswer(context, amount);
  const pinned = context.options.minAmount;
  if (pinned !== undefined) {
    if (pinned > 1) expectRejected(await post(pinned - 1), `minimum pinned to ${pinned}: POST with amount ${pinned - 1}`);
    expectCreated(await post(pinned), `minimum pinned to ${pinned}: POST with amount ${pinned}`);
    context.observe('minimumAmount', String(pinned));
    return;
  }
  const twenty = await post(20);
  if (twenty.status === 400) {
    expectCreated(await post(21), 'POST with amount 21 (20 was rejected, so the minimum must be 21)');
    context.observe('minimumAmount', '21');
    return;
  }
  assert(twenty.status >= 200 && twenty.status < 300, `POST with amount 20: expected 400 (minimum 21) or 201 (minimum 1), got ${twenty.status} ${describeBody(twenty)}`);
  const one = await post(1);
  assert(one.status >= 200 && one.status < 300, `POST with amount 1: 20 sats were accepted, so the minimum is 1 and 1 must be accepted: expected 201, got ${one.status} ${describeBody(one)}`);
  context.observe('minimumAmount', '1');
}

const MALFORMED = '{"amount": 1000, "description": ';

/** The validation checks, and the value checks of each field. */
export const validationChecks: Check[] = [
  ...REJECTIONS.map(probeCheck),
  {
    id: 'validation.minimum-amount',
    holds: ['spec.create.amount-minimum'],
    title: 'Below the minimum amount → 400 (21 sats or 1 sat; --min-amount pins one)',
    section: LIMITS,
    statement: 'Limits: minimum amount "21 sats (amounts below are rejected with 400) … and 1 sat in another"',
    level: 'MUST',
    profile: 'core',
    run: minimumAmount,
  },
  ...VALUES.map(probeCheck),
  {
    id: 'validation.malformed-json',
    holds: ['spec.endpoints.json', 'spec.create.body-object'],
    title: 'A malformed JSON body → 4xx, never 5xx',
    section: ERRORS,
    statement: 'Endpoints: "use JSON"; Errors: "400: Invalid input"',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const answer = await sharedAnswer(context, 'malformed JSON', () => context.client.post(COLLECTION, { rawBody: MALFORMED }));
      assert(answer.status >= 400 && answer.status < 500, `POST with a malformed JSON body: expected HTTP 4xx, got ${answer.status} ${describeBody(answer)}`);
    },
  },
  {
    id: 'validation.malformed-json-400',
    holds: ['spec.create.body-object'],
    title: 'A malformed JSON body → 400',
    section: ERRORS,
    statement: 'Errors: "400: Invalid input" (a body that is not JSON is invalid input)',
    level: 'SHOULD',
    profile: 'core',
    async run(context) {
      const answer = await sharedAnswer(context, 'malformed JSON', () => context.client.post(COLLECTION, { rawBody: MALFORMED }));
      expectRejected(answer, 'POST with a malformed JSON body');
    },
  },
  {
    id: 'validation.non-object-body',
    holds: ['spec.create.body-object'],
    title: 'A JSON body that is not an object (an array) → 4xx, never 5xx',
    section: ERRORS,
    statement: 'Create: "Request body (JSON object)"; Errors: "400: Invalid input"',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const answer = await sharedAnswer(context, 'array body', () => context.client.post(COLLECTION, { body: [validBody()] }));
      assert(answer.status >= 400 && answer.status < 500, `POST with a JSON array as the body: expected HTTP 4xx, got ${answer.status} ${describeBody(answer)}`);
    },
  },
  ...SHOULD_REJECT.map(probeCheck),
  {
    id: 'validation.error-names-field',
    holds: ['spec.create.400-details'],
    title: 'A 400 body names the offending field',
    section: ERRORS,
    statement: 'Errors: "The 400 response body may contain details about the error"',
    level: 'SHOULD',
    profile: 'core',
    async run(context) {
      const answers = await Promise.all(MUST_REJECTIONS.map((probe) => probeAnswer(context, probe)));
      const rejected = answers.filter((answer) => answer.status === 400);
      if (rejected[0] !== undefined) context.observe('errorBody', errorShape(rejected[0]));
      const silent = MUST_REJECTIONS.filter((probe, index) => answers[index]!.status === 400 && !answers[index]!.text.toLowerCase().includes(probe.field.toLowerCase()));
      assert(
        silent.length === 0,
        `expected each 400 body to mention the field at fault; these do not: ${silent
          .slice(0, 5)
          .map((probe) => `${probe.label} (no "${probe.field}" in ${show(describeBody(answers[MUST_REJECTIONS.indexOf(probe)]!))})`)
          .join('; ')}${silent.length > 5 ? ` and ${silent.length - 5} more` : ''}`,
      );
    },
  },
];

/** The probes of the amount field that the target may accept: fees.accepted-amounts reads their fees. */
export const AMOUNT_PROBES: readonly Probe[] = VALUES.find((group) => group.id === 'create.amount-values')!.probes;
