/**
 * What holds for every endpoint (spec: "Endpoints": "use JSON"; "Versioning": the version is
 * carried in the path). The media type is checked by construction: the client logs every answer of
 * a v1 path, and one check, run after all others, asks each endpoint for each status the spec lists
 * and then reviews every logged answer with one of those statuses.
 */
import type { Check, CheckContext } from '../check.js';
import type { LoggedAnswer } from '../client.js';
import { differences } from './read.js';
import { assert, COLLECTION, getPaymentRequest, requestPath, sharedCreateAnswer, sharedPaymentRequest, validBody } from './support.js';

/** The statuses the spec's endpoint tables list (create: 201, 400, 401; get and status: 200, 401, 404). */
const SPEC_STATUSES = new Set([200, 201, 400, 401, 404]);

/** `application/json` or a `+json` type (e.g. application/problem+json), parameters allowed; a charset, if any, UTF-8 (RFC 8259 §8.1). */
function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const [type, ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (!/^application\/([a-z0-9!#$&^_.-]+\+)?json$/.test(type ?? '')) return false;
  const charset = parameters.find((parameter) => parameter.startsWith('charset='));
  return charset === undefined || /^charset="?utf-8"?$/.test(charset);
}

/** The endpoint of a v1 path, with the id as `{id}`, for messages. */
function endpointOf(answer: LoggedAnswer): string {
  const path = answer.path.startsWith(`${COLLECTION}/`) ? `${COLLECTION}/{id}${answer.path.endsWith('/status') ? '/status' : ''}` : answer.path;
  return `${answer.method} ${path}`;
}

/** One request for each endpoint × status the spec lists, so the review sees every combination. */
async function askEveryCombination(context: CheckContext): Promise<void> {
  const created = await sharedCreateAnswer(context);
  const id = typeof created.body?.id === 'string' ? created.body.id : 'pr_conformance_unknown';
  const unknown = 'pr_doesnotexist000';
  await Promise.all([
    // create: 201 (the shared create), 400, 401
    context.client.post(COLLECTION, { body: { description: 'lnpr conformance: no amount', destinationWallet: 'conformance@example.com' } }),
    context.client.post(COLLECTION, { key: null, body: validBody() }),
    // get and status: 200, 401, 404
    ...[false, true].flatMap((status) => [
      context.client.get(requestPath(id, status)),
      context.client.get(requestPath(id, status), { key: null }),
      context.client.get(requestPath(unknown, status)),
    ]),
  ]);
}

/** The endpoint checks. */
export const endpointChecks: Check[] = [
  {
    id: 'endpoints.json-responses',
    holds: ['spec.endpoints.json'],
    title: 'Every answer of every endpoint (201, 200, 400, 401, 404) is labelled application/json and is JSON, each member named once per object',
    section: 'Endpoints',
    statement: 'Endpoints: "All endpoints … use JSON"',
    level: 'MUST',
    profile: 'core',
    last: true,
    ask: (context) => context.shared('every endpoint × status asked', () => askEveryCombination(context)),
    async run(context) {
      await context.shared('every endpoint × status asked', () => askEveryCombination(context));
      const seen = new Map<string, string>();
      for (const answer of context.client.v1Answers()) {
        if (!SPEC_STATUSES.has(answer.status)) continue;
        const problems = [
          ...(isJsonMediaType(answer.contentType) ? [] : [`Content-Type ${answer.contentType === null ? 'absent' : JSON.stringify(answer.contentType)}`]),
          ...(answer.isJson ? [] : ['a body that is not JSON']),
          // Parsers differ on a repeated name (the first, the last, an error): the answer says two things.
          ...(answer.repeatedNames ? [`a JSON object naming ${answer.repeatedNames.map((name) => JSON.stringify(name)).join(', ')} twice`] : []),
        ];
        const where = `${endpointOf(answer)} → ${answer.status}`;
        if (problems.length > 0 && !seen.has(where)) seen.set(where, `${where}: ${problems.join(', ')}`);
      }
      const total = context.client.v1Answers().filter((answer) => SPEC_STATUSES.has(answer.status)).length;
      assert(seen.size === 0, `expected application/json (or +json) with a JSON body, no member named twice in one object, on every answer; of ${total} answers reviewed: ${[...seen.values()].join('; ')}`);
    },
  },
  {
    id: 'versioning.version-in-path',
    holds: ['spec.endpoints.prefix'],
    title: 'The version is the path\'s: headers naming another version (API-Version: 2 …) change nothing',
    section: 'Versioning',
    statement: 'Versioning: "The current version is v1. All endpoints are prefixed with /api/v1/. The version is carried in the path."',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const { id } = await sharedPaymentRequest(context);
      const plain = await getPaymentRequest(context, id);
      const headers = { 'api-version': '2', 'accept-version': 'v2', 'x-api-version': '2' };
      const versioned = await context.client.get(requestPath(id), { headers });
      assert(versioned.status === 200, `GET ${requestPath(id)} with the headers ${JSON.stringify(headers)}: expected HTTP 200 as without them (the path says v1), got ${versioned.status} ${versioned.text.slice(0, 200)}`);
      const problems = differences(plain, versioned.body ?? {});
      assert(problems.length === 0, `GET with version headers differs from GET without: ${problems.join('; ')}`);
    },
  },
];
