/** Authentication (spec: "Authentication"): a missing, malformed or unknown key gets 401 everywhere. */
import type { Check } from '../check.js';
import { assertStatus, COLLECTION, sharedPaymentRequest, validBody } from './support.js';

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

function rejects(id: string, title: string, authorization: string | null): Check {
  return {
    id,
    title,
    section: SECTION,
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

/** The authentication checks. */
export const authChecks: Check[] = [
  rejects('auth.missing-key', 'No Authorization header', null),
  rejects('auth.malformed-header', 'A malformed Authorization header', 'Token not-a-bearer-key'),
  rejects('auth.empty-bearer', 'A Bearer scheme without a key', 'Bearer'),
  rejects('auth.unknown-key', 'An unknown API key', 'Bearer sk_lnpr_conformance_unknown_key'),
  {
    id: 'auth.read-only-cannot-create',
    title: 'A key without create permission gets 401 on create',
    section: SECTION,
    level: 'MUST',
    profile: 'core',
    needs: ['readOnlyKey'],
    async run(context) {
      const answer = await context.client.post(COLLECTION, { key: context.options.readOnlyKey!, body: validBody() });
      assertStatus(answer, 401, 'POST with the read-only key');
    },
  },
];
