/**
 * Exactness and structure on v1 (CONTRACT.md "Readings the suite holds"): an id answers only for
 * itself (a prefix or a near miss of a real id is a 404 on both endpoints); another account's id
 * answers exactly as an unknown id does (status and body, ids aside); `nwcRelay` is a ws:// or
 * wss:// URL; a character is a code point (255 emoji are a description of 255 characters). Core
 * checks: they need no control API.
 */
import type { Check } from '../check.js';
import { CheckSkipped } from '../check-errors.js';
import { taggedFieldProblems } from './bolt11-fields.js';
import { assertAnswersAsUnknown, nearMisses } from './control-support.js';
import { receivedPaymentRequests } from './received.js';
import { assert, describeBody, getPaymentRequest, postCreate, requestPath, sharedNwcRequest, sharedPaymentRequest, show, twoAccountsRequests } from './support.js';

/**
 * Whether `value` is a ws:// or wss:// URL with a host. The text itself must name one: the WHATWG
 * parser reads `ws:///nostr` as the host `nostr`, which RFC 3986 (an empty authority) does not.
 */
function isRelayUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !/^wss?:\/\/[^/?#\s@]+/i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'ws:' || url.protocol === 'wss:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * Descriptions within 255 code points whose UTF-16 length is over 255 (an astral character is two
 * UTF-16 units): a count in UTF-16 units or in bytes refuses them.
 */
const CODE_POINT_DESCRIPTIONS = [
  { what: '255 × "😀" (255 code points, 510 UTF-16 units)', description: '😀'.repeat(255) },
  { what: '128 × "😀" (128 code points, 256 UTF-16 units)', description: '😀'.repeat(128) },
  { what: '200 × "a" then 55 × "𝄞" (255 code points, 310 UTF-16 units)', description: `${'a'.repeat(200)}${'𝄞'.repeat(55)}` },
];

/** The exactness checks. */
export const exactnessChecks: Check[] = [
  {
    id: 'invoice.field-multiplicities',
    holds: ['contract.reading.invoice-multiplicities', 'spec.resource.invoice-bolt11'],
    title: 'Every invoice received has the tagged fields BOLT 11 asks of a writer: one p, one s, one of d and h, at most one x, c, n, 9, m, at their lengths',
    section: 'CONTRACT: Readings the suite holds',
    statement: 'CONTRACT: "an invoice has the multiplicities BOLT 11 requires of a writer (exactly one p, one s, one d or h, …)"',
    level: 'MUST',
    profile: 'core',
    last: true,
    async run(context) {
      await sharedPaymentRequest(context);
      const invoices = new Map<string, string>();
      for (const { body, where } of receivedPaymentRequests(context)) if (typeof body.invoice === 'string' && !invoices.has(body.invoice)) invoices.set(body.invoice, where);
      const wrong: string[] = [];
      for (const [invoice, where] of invoices) {
        let problems: string[];
        try {
          problems = taggedFieldProblems(invoice);
        } catch {
          continue; // Not bech32 at all: invoice.decodes' business.
        }
        if (problems.length > 0) wrong.push(`${where}: the invoice has ${problems.join(', ')}`);
      }
      assert(wrong.length === 0, `${wrong.length} of ${invoices.size} invoices: ${wrong.slice(0, 3).join(' | ')}${wrong.length > 3 ? ' | …' : ''}`);
    },
  },
  {
    id: 'validation.description-code-points',
    holds: ['contract.reading.character', 'spec.create.description-max'],
    title: 'A description of at most 255 code points is accepted and echoed exactly, however many UTF-16 units its astral characters take',
    section: 'CONTRACT: Readings the suite holds',
    statement: 'CONTRACT: "a character is a Unicode code point (an emoji counts one)"; spec: description "at most 255 characters"',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const answers = await Promise.all(CODE_POINT_DESCRIPTIONS.map(async ({ what, description }) => ({ what, description, answer: await postCreate(context, { description }) })));
      const wrong = answers
        .filter(({ answer, description }) => !(answer.status === 201 && answer.body?.description === description))
        .map(({ what, answer }) => `a description of ${what}: expected 201 with it echoed exactly, got ${answer.status} ${answer.status === 201 ? `description ${show(answer.body?.description)}` : describeBody(answer)}`);
      assert(wrong.length === 0, wrong.join('; '));
    },
  },
  {
    id: 'read.id-exact',
    holds: ['contract.reading.id-exact', 'spec.get.404', 'spec.status.404'],
    title: 'Ids one edit away from a real one (a prefix, one more character, the last changed, a space appended, the other case) → 404 on both endpoints',
    section: 'CONTRACT: Readings the suite holds',
    statement: 'CONTRACT: "an id answers only for itself (a prefix or near miss of a real id is a 404)"',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const { id } = await sharedPaymentRequest(context);
      const answers = await Promise.all(
        nearMisses(id).flatMap(({ what, id: miss }) =>
          [requestPath(miss), requestPath(miss, true)].map(async (path) => ({ what: `GET ${path} (${what})`, answer: await context.client.get(path) })),
        ),
      );
      const wrong = answers.filter(({ answer }) => answer.status !== 404).map(({ what, answer }) => `${what}: expected HTTP 404, got ${answer.status} ${answer.status === 200 ? '(the real request answered)' : describeBody(answer)}`);
      assert(wrong.length === 0, wrong.join('; '));
    },
  },
  {
    id: 'read.other-account-as-unknown',
    holds: ['contract.reading.other-account', 'spec.get.404', 'spec.status.404'],
    title: "Another account's request answers exactly as an unknown id does (same status, same body but for the id), on both endpoints, both ways",
    section: 'CONTRACT: Readings the suite holds',
    statement: 'CONTRACT: "another account\'s id answers exactly as an unknown one (the same status and body)"',
    level: 'MUST',
    profile: 'core',
    needs: ['nwcKey'],
    async run(context) {
      const { own, other, nwcKey } = await twoAccountsRequests(context);
      for (const { request, key, whose } of [
        { request: other, key: undefined, whose: "the NWC key's request, with the main key" },
        { request: own, key: nwcKey, whose: "the main key's request, with the NWC key" },
      ]) {
        const call = key === undefined ? {} : { key };
        const [unknownId, againId] = [nearMisses(request.id)[2]!.id, `${request.id.slice(0, -2)}zz`];
        for (const status of [false, true]) {
          const [answer, unknown, again] = await Promise.all([request.id, unknownId, againId].map((id) => context.client.get(requestPath(id, status), call)));
          assertAnswersAsUnknown(`GET ${requestPath(request.id, status)} (${whose})`, answer!, request.id, unknown!, unknownId, again!, againId);
        }
      }
    },
  },
  {
    id: 'nwc.relay-ws-url',
    holds: ['contract.reading.nwc-relay-url'],
    title: 'nwcRelay of an NWC request is a ws:// or wss:// URL on GET, and on the 201 where it is there',
    section: 'CONTRACT: Readings the suite holds',
    statement: 'CONTRACT: "nwcRelay … a ws:// or wss:// URL on NWC ones"',
    level: 'MUST',
    profile: 'core',
    needs: ['nwcKey'],
    async run(context) {
      const created = await sharedNwcRequest(context);
      if (created.isNwc !== true) throw new CheckSkipped(`the NWC key's request reads isNwc ${show(created.isNwc)} (nwc.is-nwc-true's business)`);
      const read = await getPaymentRequest(context, created.id, { key: context.options.nwcKey! });
      // Whether the 201 carries it is nwc.relay-on-create's business (a SHOULD: the spec's 201 list does not name it).
      assert(created.nwcRelay === undefined || isRelayUrl(created.nwcRelay), `the 201 body of an NWC request: expected nwcRelay a ws:// or wss:// URL, got ${show(created.nwcRelay)}`);
      assert(isRelayUrl(read.nwcRelay), `GET ${requestPath(created.id)} of an NWC request: expected nwcRelay a ws:// or wss:// URL, got ${show(read.nwcRelay)}`);
    },
  },
];
