/**
 * Invalid input to create (spec: "Errors", "Endpoints › Create a payment request", "Limits"): each
 * answers 400 with a JSON body — any shape, since the spec leaves it open — and never a 5xx. The
 * minimum amount is an open point (21 or 1 sats): either passes unless `--min-amount` pins one.
 */
import type { Check, CheckContext } from '../check.js';
import type { ApiAnswer, ApiCall } from '../client.js';
import { assert, COLLECTION, describeBody, expectCreated, isObject, postCreate, show, validBody } from './support.js';

const ERRORS = 'Errors';
const CREATE = 'Endpoints › Create a payment request';

/** A create answer shared between the check that judges it and the one that reads its error body. */
function sharedAnswer(context: CheckContext, name: string, send: () => Promise<ApiAnswer>): Promise<ApiAnswer> {
  return context.shared(`validation: ${name}`, send);
}

/** Sends the valid body with `overrides`; `undefined` values drop a field. */
function postWith(context: CheckContext, overrides: Record<string, unknown>, call: ApiCall = {}): Promise<ApiAnswer> {
  const body = Object.fromEntries(Object.entries(validBody(overrides)).filter(([, value]) => value !== undefined));
  return context.client.post(COLLECTION, { body, ...call });
}

/** Fails unless the answer is 400 with a JSON body. */
export function expectRejected(answer: ApiAnswer, what: string): void {
  const serverError = answer.status >= 500 ? ' (a server error: invalid input must never cause a 5xx)' : '';
  assert(answer.status === 400, `${what}: expected HTTP 400, got ${answer.status}${serverError} ${describeBody(answer)}`);
  assert(answer.isJson, `${what}: expected a JSON body with the 400, got ${answer.text === '' ? 'an empty body' : show(describeBody(answer))}`);
}

/** An invalid create body and the field it is wrong in. */
interface Case {
  name: string;
  field: string;
  overrides: Record<string, unknown>;
}

/** The MUST cases: missing required fields, invalid amounts, too long, not a Lightning address. */
const MUST_CASES: ReadonlyArray<{ id: string; title: string; section: string; cases: Case[] }> = [
  { id: 'validation.missing-amount', title: 'Missing amount → 400', section: ERRORS, cases: [{ name: 'no amount', field: 'amount', overrides: { amount: undefined } }] },
  {
    id: 'validation.missing-description',
    title: 'Missing description → 400',
    section: ERRORS,
    cases: [{ name: 'no description', field: 'description', overrides: { description: undefined } }],
  },
  {
    id: 'validation.missing-destination-wallet',
    title: 'Missing destinationWallet → 400',
    section: ERRORS,
    cases: [{ name: 'no destinationWallet', field: 'destinationWallet', overrides: { destinationWallet: undefined } }],
  },
  { id: 'validation.amount-string', title: 'amount as a string ("1000") → 400', section: ERRORS, cases: [{ name: 'amount "1000"', field: 'amount', overrides: { amount: '1000' } }] },
  { id: 'validation.amount-zero', title: 'amount 0 → 400', section: ERRORS, cases: [{ name: 'amount 0', field: 'amount', overrides: { amount: 0 } }] },
  { id: 'validation.amount-negative', title: 'A negative amount → 400', section: ERRORS, cases: [{ name: 'amount -1000', field: 'amount', overrides: { amount: -1000 } }] },
  {
    id: 'validation.description-too-long',
    title: 'A description of 256 characters → 400',
    section: 'Limits',
    cases: [{ name: 'description of 256 characters', field: 'description', overrides: { description: 'a'.repeat(256) } }],
  },
  {
    id: 'validation.destination-wallet-not-address',
    title: 'A destinationWallet without "@" → 400',
    section: CREATE,
    cases: [{ name: 'destinationWallet "conformance.example.com"', field: 'destinationWallet', overrides: { destinationWallet: 'conformance.example.com' } }],
  },
];

/** The SHOULD cases: invalid by the spec's types, where the spec does not say 400 in so many words. */
const SHOULD_CASES: ReadonlyArray<{ id: string; title: string; section: string; cases: Case[] }> = [
  { id: 'validation.amount-fractional', title: 'A fractional amount (100.5 sats) → 400', section: ERRORS, cases: [{ name: 'amount 100.5', field: 'amount', overrides: { amount: 100.5 } }] },
  {
    id: 'validation.metadata-not-object',
    title: 'metadata that is not an object (a string, an array) → 400',
    section: CREATE,
    cases: [
      { name: 'metadata "order-1"', field: 'metadata', overrides: { metadata: 'order-1' } },
      { name: 'metadata ["order-1"]', field: 'metadata', overrides: { metadata: ['order-1'] } },
    ],
  },
  {
    id: 'validation.expires-in-not-positive',
    title: 'expiresIn 0 or negative → 400',
    section: CREATE,
    cases: [
      { name: 'expiresIn 0', field: 'expiresIn', overrides: { expiresIn: 0 } },
      { name: 'expiresIn -60', field: 'expiresIn', overrides: { expiresIn: -60 } },
    ],
  },
  {
    id: 'validation.wrong-types',
    title: 'Fields of the wrong type (description 42, destinationWallet 42, expiresIn "600") → 400',
    section: CREATE,
    cases: [
      { name: 'description 42', field: 'description', overrides: { description: 42 } },
      { name: 'destinationWallet 42', field: 'destinationWallet', overrides: { destinationWallet: 42 } },
      { name: 'expiresIn "600"', field: 'expiresIn', overrides: { expiresIn: '600' } },
    ],
  },
];

function caseAnswer(context: CheckContext, item: Case): Promise<ApiAnswer> {
  return sharedAnswer(context, item.name, () => postWith(context, item.overrides));
}

function rejectionCheck(level: Check['level'], definition: (typeof MUST_CASES)[number]): Check {
  return {
    id: definition.id,
    title: definition.title,
    section: definition.section,
    level,
    profile: 'core',
    async run(context) {
      for (const item of definition.cases) expectRejected(await caseAnswer(context, item), `POST with ${item.name}`);
    },
  };
}

/** The shape of an error body, for the observation: its top-level keys, or its JSON type. */
function errorShape(answer: ApiAnswer): string {
  if (!answer.isJson) return 'not JSON';
  if (isObject(answer.body)) return `{${Object.keys(answer.body).sort().join(', ')}}`;
  return Array.isArray(answer.body) ? 'an array' : typeof answer.body;
}

async function minimumAmount(context: CheckContext): Promise<void> {
  const post = (amount: number) => sharedAnswer(context, `amount ${amount}`, () => postWith(context, { amount, description: `lnpr conformance minimum, ${amount} sats` }));
  const pinned = context.options.minAmount;
  if (pinned !== undefined) {
    if (pinned > 1) expectRejected(await post(pinned - 1), `minimum pinned to ${pinned}: POST with amount ${pinned - 1}`);
    expectCreated(await post(pinned), `minimum pinned to ${pinned}: POST with amount ${pinned}`);
    context.observe('minimumAmount', String(pinned));
    return;
  }
  const twenty = await post(20);
  if (twenty.status === 400) {
    expectRejected(twenty, 'POST with amount 20');
    expectCreated(await post(21), 'POST with amount 21 (20 was rejected, so the minimum must be 21)');
    context.observe('minimumAmount', '21');
    return;
  }
  assert(twenty.status === 201, `POST with amount 20: expected 400 (minimum 21) or 201 (minimum 1), got ${twenty.status} ${describeBody(twenty)}`);
  const one = await post(1);
  assert(one.status === 201, `POST with amount 1: 20 sats were accepted, so the minimum is 1 and 1 must be accepted: expected 201, got ${one.status} ${describeBody(one)}`);
  context.observe('minimumAmount', '1');
}

/** The validation checks. */
export const validationChecks: Check[] = [
  ...MUST_CASES.map((definition) => rejectionCheck('MUST', definition)),
  {
    id: 'validation.minimum-amount',
    title: 'Below the minimum amount → 400 (21 sats or 1 sat; --min-amount pins one)',
    section: 'Limits',
    level: 'MUST',
    profile: 'core',
    run: minimumAmount,
  },
  {
    id: 'validation.description-255-accepted',
    title: 'A description of exactly 255 characters is accepted',
    section: 'Limits',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const description = 'b'.repeat(255);
      const body = expectCreated(await postCreate(context, { description }), 'POST with a description of 255 characters');
      assert(body.description === description, `expected the 255-character description echoed, got ${show(body.description)}`);
    },
  },
  {
    id: 'validation.malformed-json',
    title: 'A malformed JSON body → 4xx, never 5xx',
    section: ERRORS,
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const answer = await sharedAnswer(context, 'malformed JSON', () => context.client.post(COLLECTION, { rawBody: '{"amount": 1000, "description": ' }));
      assert(answer.status >= 400 && answer.status < 500, `POST with a malformed JSON body: expected HTTP 4xx, got ${answer.status} ${describeBody(answer)}`);
    },
  },
  {
    id: 'validation.malformed-json-400',
    title: 'A malformed JSON body → 400 with a JSON body',
    section: ERRORS,
    level: 'SHOULD',
    profile: 'core',
    async run(context) {
      const answer = await sharedAnswer(context, 'malformed JSON', () => context.client.post(COLLECTION, { rawBody: '{"amount": 1000, "description": ' }));
      expectRejected(answer, 'POST with a malformed JSON body');
    },
  },
  {
    id: 'validation.non-object-body',
    title: 'A JSON body that is not an object (an array) → 4xx, never 5xx',
    section: ERRORS,
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const answer = await sharedAnswer(context, 'array body', () => context.client.post(COLLECTION, { body: [validBody()] }));
      assert(answer.status >= 400 && answer.status < 500, `POST with a JSON array as the body: expected HTTP 4xx, got ${answer.status} ${describeBody(answer)}`);
    },
  },
  ...SHOULD_CASES.map((definition) => rejectionCheck('SHOULD', definition)),
  {
    id: 'validation.error-names-field',
    title: 'A 400 body names the offending field',
    section: ERRORS,
    level: 'SHOULD',
    profile: 'core',
    async run(context) {
      const cases = MUST_CASES.flatMap((definition) => definition.cases);
      const answers = await Promise.all(cases.map((item) => caseAnswer(context, item)));
      const rejected = answers.filter((answer) => answer.status === 400);
      if (rejected[0] !== undefined) context.observe('errorBody', errorShape(rejected[0]));
      const silent = cases.filter((item, index) => answers[index]!.status === 400 && !answers[index]!.text.toLowerCase().includes(item.field.toLowerCase()));
      assert(
        silent.length === 0,
        `expected each 400 body to mention the field at fault; these do not: ${silent.map((item) => `${item.name} (no "${item.field}" in ${show(describeBody(answers[cases.indexOf(item)]!))})`).join('; ')}`,
      );
    },
  },
];
