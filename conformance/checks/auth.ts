/**
 * Authentication (spec: "Authentication"): a missing, malformed or unknown key gets 401 everywhere,
 * so does a key one character off a valid one (a prefix or suffix of it, one more character, the
 * other case), and the key is judged before the body or the id (no key and no amount: 401).
 */
import type { Check, CheckContext } from '../check.js';
import { CheckSkipped } from '../check-errors.js';
import { CONTROL, readClockOf, transitionPath } from './control-support.js';
import { assert, assertStatus, COLLECTION, createPaymentRequest, getPaymentRequest, sharedPaymentRequest, validBody } from './support.js';

const SECTION = 'Authentication';

/** Every endpoint, as (method, path) pairs, for a request that exists. */
async function endpoints(context: CheckContext): Promise<Array<[string, string]>> {
  const { id } = await sharedPaymentRequest(context);
  return [
    ['POST', COLLECTION],
    ['GET', `${COLLECTION}/${encodeURIComponent(id)}`],
    ['GET', `${COLLECTION}/${encodeURIComponent(id)}/status`],
  ];
}

function rejects(id: string, holds: readonly string[], title: string, statement: string, authorization: string | null): Check {
  return {
    id,
    holds,
    title,
    section: SECTION,
    statement,
    level: 'MUST',
    profile: 'core',
    async run(context) {
      for (const [method, path] of await endpoints(context)) {
        const answer = await context.client.request(method, path, {
          key: null,
          ...(authorization !== null ? { headers: { authorization } } : {}),
          ...(method === 'POST' ? { body: validBody() } : {}),
        });
        assertStatus(answer, 401, `${method} ${path} with ${title.toLowerCase()}`);
      }
    },
  };
}

/** The main key sent the ways rule 2 does not name: without the Bearer scheme, as Basic credentials, in other headers. */
function elsewhere(key: string): Array<{ what: string; headers: Record<string, string> }> {
  return [
    { what: 'the key as the whole Authorization header (no Bearer scheme)', headers: { authorization: key } },
    { what: 'the key as Basic credentials', headers: { authorization: `Basic ${btoa(`${key}:`)}` } },
    { what: 'the key in X-API-Key (no Authorization)', headers: { 'x-api-key': key } },
    { what: 'the key in Api-Key (no Authorization)', headers: { 'api-key': key } },
    // Other schemes than Bearer, with the valid key.
    ...['Token', 'Key', 'ApiKey', 'Digest'].map((scheme) => ({ what: `the key under the ${scheme} scheme`, headers: { authorization: `${scheme} ${key}` } })),
    // The scheme and the key are separated by spaces (RFC 9110 §11.4: 1*SP), nothing else.
    ...[',', ':', ';', '='].map((separator) => ({ what: `"Bearer${separator}<key>" (no space after the scheme)`, headers: { authorization: `Bearer${separator}${key}` } })),
    { what: '"Bearer<key>" (the scheme and the key run together)', headers: { authorization: `Bearer${key}` } },
  ];
}

/** A key no account has, far from any valid one. */
const UNKNOWN_KEY = 'sk_lnpr_conformance_unknown_key';

/** The endpoints that refuse `key` (null: none) with 401 when nothing else is wrong: a valid body, an existing request. */
async function refusingEndpoints(context: CheckContext, key: string | null): Promise<Array<[string, string]>> {
  const all = await endpoints(context);
  const answers = await Promise.all(
    all.map(([method, path]) => context.client.request(method, path, { key, ...(method === 'POST' ? { body: validBody({ description: 'lnpr conformance: refused key' }) } : {}) })),
  );
  return all.filter((_endpoint, index) => answers[index]!.status === 401);
}

/** A key that differs from a valid one by a little, named without showing it (messages never carry keys). */
interface NearMiss {
  what: string;
  key: string;
}

/** Keys one edit away from `key`: a character cut from either end, one added at either end, the letters' case swapped. */
function nearMisses(key: string, role: string): NearMiss[] {
  const swapped = [...key].map((char) => (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase())).join('');
  return [
    { what: `the ${role} without its last character (a prefix of it)`, key: key.slice(0, -1) },
    { what: `the ${role} without its first character (a suffix of it)`, key: key.slice(1) },
    { what: `the ${role} with a character appended`, key: `${key}0` },
    { what: `the ${role} with a character prepended`, key: `x${key}` },
    { what: `the ${role} with the case of its letters swapped`, key: swapped },
  ];
}

/** The ways a body is invalid, each of which a create with a valid key answers with 400. */
const INVALID_BODIES: ReadonlyArray<{ what: string; call: { body?: unknown; rawBody?: string } }> = [
  { what: 'a body without amount', call: { body: { description: 'lnpr conformance: no amount', destinationWallet: 'conformance@example.com' } } },
  { what: 'amount as a string', call: { body: validBody({ amount: '1000' }) } },
  { what: 'malformed JSON', call: { rawBody: '{"amount": 1000, "description": ' } },
  { what: 'a JSON array', call: { body: [validBody()] } },
];

/** The authentication checks. */
export const authChecks: Check[] = [
  rejects('auth.missing-key', ['spec.auth.missing-401', 'spec.endpoints.auth-required'], 'No Authorization header', 'Authentication 1 and 3: "Every request carries an API key"; "A request with a missing … key gets 401"', null),
  rejects('auth.malformed-header', ['spec.auth.bearer-header', 'spec.auth.invalid-401'], 'A malformed Authorization header', 'Authentication 2 and 3: the key goes as "Authorization: Bearer <API_KEY>"; an invalid one gets 401', 'Token not-a-bearer-key'),
  rejects('auth.empty-bearer', ['spec.auth.invalid-401'], 'A Bearer scheme without a key', 'Authentication 3: "A request with a missing or invalid key gets 401 Unauthorized"', 'Bearer'),
  rejects('auth.unknown-key', ['spec.auth.invalid-401'], 'An unknown API key', 'Authentication 3: "A request with a missing or invalid key gets 401 Unauthorized"', `Bearer ${UNKNOWN_KEY}`),
  {
    id: 'auth.bearer-only',
    holds: ['spec.auth.bearer-header', 'contract.reading.bearer-only'],
    title: 'The valid key sent other than as "Authorization: Bearer <key>" (bare, Basic, Token and other schemes, X-API-Key, Api-Key, "Bearer:<key>" and other separators) is refused',
    section: SECTION,
    statement: 'Authentication 2: "The key is sent in the header Authorization as a bearer token: Authorization: Bearer <API_KEY>"',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const ways = elsewhere(context.options.apiKey);
      const answers = await Promise.all(
        (await endpoints(context)).flatMap(([method, path]) =>
          ways.map(async ({ what, headers }) => ({
            what: `${method} ${path} with ${what}`,
            answer: await context.client.request(method, path, { key: null, headers, ...(method === 'POST' ? { body: validBody() } : {}) }),
          })),
        ),
      );
      // Refused is what rule 2 asks; that the refusal is a 401 is auth.missing-key's and auth.malformed-header's business.
      const wrong = answers.filter(({ answer }) => answer.status >= 200 && answer.status < 300).map(({ what, answer }) => `${what}: expected a refusal (401), got ${answer.status}`);
      assert(wrong.length === 0, wrong.join('; '));
    },
  },
  {
    id: 'auth.near-miss-keys',
    holds: ['spec.auth.invalid-401'],
    title: 'Keys one character off a valid key (a prefix, a suffix, one more character either end, letters in the other case) get 401',
    section: SECTION,
    statement: 'Authentication 3: "A request with a missing or invalid key gets 401 Unauthorized" (a key is valid only as issued)',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const { apiKey, readOnlyKey, nwcKey } = context.options;
      const valid = new Set([apiKey, readOnlyKey, nwcKey].filter((key): key is string => key !== undefined));
      const misses = [
        ...nearMisses(apiKey, 'main key'),
        ...(readOnlyKey !== undefined ? nearMisses(readOnlyKey, 'read-only key') : []),
        ...(nwcKey !== undefined ? nearMisses(nwcKey, 'NWC key') : []),
      ].filter(({ key }) => key.length > 0 && !valid.has(key));
      // Where a key far from any valid one is not refused, near ones prove nothing more: auth.unknown-key's business.
      const refusing = await refusingEndpoints(context, UNKNOWN_KEY);
      const answers = await Promise.all(
        refusing.flatMap(([method, path]) =>
          misses.map(async ({ what, key }) => ({
            what: `${method} ${path} with ${what}`,
            answer: await context.client.request(method, path, { key, ...(method === 'POST' ? { body: validBody({ description: 'lnpr conformance: near-miss key' }) } : {}) }),
          })),
        ),
      );
      const wrong = answers.filter(({ answer }) => answer.status !== 401).map(({ what, answer }) => `${what}: expected HTTP 401, got ${answer.status}`);
      assert(wrong.length === 0, `${wrong.length} of ${answers.length} requests: ${wrong.slice(0, 4).join('; ')}${wrong.length > 4 ? '; …' : ''}`);
    },
  },
  {
    id: 'auth.key-checked-first',
    holds: ['spec.auth.missing-401', 'spec.auth.invalid-401', 'spec.endpoints.auth-required'],
    title: 'Without a key, or with an unknown one, an invalid body or an unknown id still gets 401 (the key is checked first)',
    section: SECTION,
    statement: 'Authentication 1 and 3: "Every request carries an API key"; "A request with a missing or invalid key gets 401" (whatever else is wrong with it)',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const unknown = 'pr_doesnotexist000';
      // Each key condition is judged where the same request with valid input is refused with 401 (else: auth.missing-key's, auth.unknown-key's business).
      const calls = (
        await Promise.all(
          [
            { what: 'no key', key: null },
            { what: 'an unknown key', key: UNKNOWN_KEY },
          ].map(async ({ what, key }) =>
            (await refusingEndpoints(context, key)).flatMap(([method, path]) =>
              method === 'POST'
                ? INVALID_BODIES.map((invalid) => ({ what: `POST ${COLLECTION} with ${invalid.what} and ${what}`, method, path: COLLECTION, call: { key, ...invalid.call } }))
                : [{ what: `GET ${path.replace(/\/payment-requests\/[^/]+/, `/payment-requests/${unknown}`)} (no such request) with ${what}`, method, path: path.replace(/\/payment-requests\/[^/]+/, `/payment-requests/${unknown}`), call: { key } }],
            ),
          ),
        )
      ).flat();
      if (calls.length === 0) throw new CheckSkipped('neither a missing nor an unknown key is refused with 401 when nothing else is wrong (auth.missing-key\'s and auth.unknown-key\'s business)');
      const answers = await Promise.all(calls.map(async ({ what, method, path, call }) => ({ what, answer: await context.client.request(method, path, call) })));
      const wrong = answers.filter(({ answer }) => answer.status !== 401).map(({ what, answer }) => `${what}: expected HTTP 401 (as with valid input), got ${answer.status}`);
      assert(wrong.length === 0, wrong.join('; '));
    },
  },
  {
    id: 'auth.control-api-401',
    holds: ['contract.control.same-keys', 'contract.reading.refused-changes-nothing'],
    title: 'The control API reads keys as v1 does: no key, an unknown key or the valid key under another scheme get 401 on a read, a transition and a clock advance, which then change nothing',
    section: 'CONTRACT: Sandbox control API',
    statement: 'CONTRACT: "Same bearer keys; every call acts on the key\'s own account only"; Authentication 3: "A request with a missing or invalid key gets 401"',
    level: 'MUST',
    profile: 'full',
    needs: ['controls'],
    async run(context) {
      const created = await createPaymentRequest(context, { amount: 1000, description: 'lnpr conformance: control calls without a valid key' });
      const before = await getPaymentRequest(context, created.id);
      const ways: Array<{ what: string; call: { key: null; headers?: Record<string, string> } }> = [
        { what: 'no key', call: { key: null } },
        { what: 'an unknown key', call: { key: null, headers: { authorization: `Bearer ${UNKNOWN_KEY}` } } },
        { what: 'the valid key without the Bearer scheme', call: { key: null, headers: { authorization: context.options.apiKey } } },
      ];
      const wrong: string[] = [];
      await context.lifecycle!.holdingClock(async () => {
        const clockBefore = await readClockOf(context);
        for (const { what, call } of ways) {
          const answers = await Promise.all([
            context.client.get(`${CONTROL}/clock`, call).then((answer) => ({ where: `GET ${CONTROL}/clock`, answer })),
            context.client.post(transitionPath(created.id, 'fail'), call).then((answer) => ({ where: `POST ${transitionPath(created.id, 'fail')}`, answer })),
            context.client.post(`${CONTROL}/clock/advance`, { ...call, body: { seconds: 86_400 } }).then((answer) => ({ where: `POST ${CONTROL}/clock/advance`, answer })),
          ]);
          for (const { where, answer } of answers) if (answer.status !== 401) wrong.push(`${where} with ${what}: expected HTTP 401, got ${answer.status}`);
        }
        const clockAfter = await readClockOf(context);
        if (clockAfter.nowMs - clockBefore.nowMs >= 3_600_000) wrong.push(`the clock moved ${Math.round((clockAfter.nowMs - clockBefore.nowMs) / 1000)} s after advances refused for their key`);
      });
      const after = await getPaymentRequest(context, created.id);
      if (after.status !== before.status || after.updatedAt !== before.updatedAt) wrong.push(`the request after fails refused for their key: expected it unchanged, got status ${String(before.status)} → ${String(after.status)}, updatedAt ${String(before.updatedAt)} → ${String(after.updatedAt)}`);
      assert(wrong.length === 0, wrong.join('; '));
    },
  },
  {
    id: 'auth.read-only-cannot-create',
    holds: ['spec.auth.permission-401'],
    title: 'A key without create permission gets 401 on create',
    section: SECTION,
    statement: 'Authentication 4: "A key that lacks permission for an action also gets 401 (stated for creation)"',
    level: 'MUST',
    profile: 'core',
    needs: ['readOnlyKey'],
    async run(context) {
      const answer = await context.client.post(COLLECTION, { key: context.options.readOnlyKey!, body: validBody() });
      assertStatus(answer, 401, 'POST with the read-only key');
    },
  },
];
