/** Authentication (spec: "Authentication"): a missing, malformed or unknown key gets 401 everywhere. */
import type { Check } from '../check.js';
import { assert, assertStatus, COLLECTION, sharedPaymentRequest, validBody } from './support.js';

const SECTION = 'Authentication';

/** Every endpoint, as (method, path) pairs, for a request that exists. */
async function endpoints(context: Parameters<Check['run']>[0]): Promise<Array<[string, string]>> {
  const { id } = await sharedPaymentRequest(context);
  return [
    ['POST', COLLECTION],
    ['GET', `${COLLECTION}/${encodeURIComponent(id)}`],
    ['GET', `${COLLECTION}/${encodeURIComponent(id)}/status`],
  ];
}

function rejects(id: string, title: string, statement: string, authorization: string | null): Check {
  return {
    id,
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
  ];
}

/** The authentication checks. */
export const authChecks: Check[] = [
  rejects('auth.missing-key', 'No Authorization header', 'Authentication 1 and 3: "Every request carries an API key"; "A request with a missing … key gets 401"', null),
  rejects('auth.malformed-header', 'A malformed Authorization header', 'Authentication 2 and 3: the key goes as "Authorization: Bearer <API_KEY>"; an invalid one gets 401', 'Token not-a-bearer-key'),
  rejects('auth.empty-bearer', 'A Bearer scheme without a key', 'Authentication 3: "A request with a missing or invalid key gets 401 Unauthorized"', 'Bearer'),
  rejects('auth.unknown-key', 'An unknown API key', 'Authentication 3: "A request with a missing or invalid key gets 401 Unauthorized"', 'Bearer sk_lnpr_conformance_unknown_key'),
  {
    id: 'auth.bearer-only',
    title: 'The valid key sent other than as "Authorization: Bearer <key>" (bare, Basic, X-API-Key, Api-Key) is refused',
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
    id: 'auth.read-only-cannot-create',
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
