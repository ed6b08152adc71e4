/**
 * Reading (spec: "Endpoints › Get a payment request", "Endpoints › Get a payment request status"):
 * GET returns what create returned, the status endpoint is exactly `{"status": …}`, an unknown id is
 * 404 on both, and another account's request is not readable.
 */
import type { Check, CheckContext } from '../check.js';
import type { ApiAnswer } from '../client.js';
import { assertEvery, receivedPaymentRequests, type Origin } from './received.js';
import {
  assert,
  deepEqual,
  describeBody,
  FIELD_RULES,
  fieldsProblem,
  getPaymentRequest,
  getStatus,
  has,
  reportedStatus,
  requestPath,
  sharedPaymentRequest,
  twoAccountsRequests,
  show,
  timeOf,
} from './support.js';

const GET = 'Endpoints › Get a payment request';
const STATUS = 'Endpoints › Get a payment request status';

/** The shared request as GET shows it, read once. */
function sharedRead(context: CheckContext): Promise<Record<string, any>> {
  return context.shared('GET of the shared request', async () => getPaymentRequest(context, (await sharedPaymentRequest(context)).id));
}

/** Fields whose presence other checks hold: the "always" fields (create.*), nwcRelay (nwc.relay-on-get), preimage (lifecycle.preimage). */
const OWNED_PRESENCE = new Set([...Object.keys(FIELD_RULES), 'nwcRelay', 'preimage']);

/**
 * The fields of `created` that `read` shows differently or lacks (updatedAt may move forward). A
 * field whose presence another check holds (OWNED_PRESENCE) and that `read` lacks, or whose value
 * in `read` breaks its format (create.*' business), is not counted.
 */
export function differences(created: Record<string, unknown>, read: Record<string, unknown>, ignore: readonly string[] = []): string[] {
  const problems: string[] = [];
  for (const [field, value] of Object.entries(created)) {
    if (ignore.includes(field) || (OWNED_PRESENCE.has(field) && !has(read, field)) || FIELD_RULES[field]?.(read[field]) !== undefined) continue;
    if (field === 'updatedAt') {
      if (!(timeOf(read.updatedAt) >= timeOf(value))) problems.push(`updatedAt: expected ${show(value)} or later, got ${show(read.updatedAt)}`);
    } else if (!has(read, field)) problems.push(`${field}: expected ${show(value)}, got absent`);
    else if (!deepEqual(read[field], value)) problems.push(`${field}: expected ${show(value)}, got ${show(read[field])}`);
  }
  return problems;
}

/**
 * Fails unless every GET answer of a request the run created (whose create `of` selects, and which
 * `reads` selects) shows the values of its 201: the same rule as read.get-equals-create, on every
 * read the run made. Status, updatedAt and preimage move on with a transition (their checks:
 * lifecycle.*), so a read that moved on ignores them.
 */
export function everyLaterRead(context: CheckContext, of: (origin: Origin) => boolean, reads: (body: Record<string, any>) => boolean = () => true): void {
  const later = receivedPaymentRequests(context).filter(({ kind, origin, body }) => kind === 'read' && origin !== undefined && of(origin) && reads(body));
  assertEvery(later, 'GETs of requests the run created', ({ body, origin }) => {
    const ignore = body.status === origin!.body.status ? ['status'] : ['status', 'updatedAt', 'preimage'];
    const problems = differences(origin!.body, body, ignore);
    const moved = body.status === origin!.body.status ? '' : ` (then ${show(origin!.body.status)}, now ${show(body.status)})`;
    return problems.length === 0 ? undefined : `differs from its 201${moved}: ${problems.join('; ')}`;
  });
}

/** Ids no request has: one shaped like ours, one without the `pr_` prefix. */
const UNKNOWN_IDS = [
  {
    id: 'read.unknown-id-404',
    holds: ['spec.get.404', 'spec.status.404'],
    unknown: 'pr_doesnotexist000',
    title: 'An unknown id (pr_doesnotexist000) → 404 on GET and on the status endpoint',
    statement: 'Get, Get status: "404 Not Found: No payment request with that identifier"',
  },
  {
    id: 'read.unprefixed-id-404',
    holds: ['spec.get.404', 'spec.status.404'],
    unknown: 'doesnotexist000',
    title: 'An id without the pr_ prefix (doesnotexist000) → 404 on both endpoints',
    statement: 'Get, Get status: "404 Not Found: No payment request with that identifier" (whatever its shape)',
  },
] as const;

/** Whether an answer reveals a payment request: a field equal to its id, or its invoice or payment hash anywhere. */
function reveals(answer: ApiAnswer, request: Record<string, any>): string | undefined {
  const text = answer.text.toLowerCase();
  if (typeof request.invoice === 'string' && text.includes(request.invoice.toLowerCase())) return 'its invoice';
  if (typeof request.paymentHash === 'string' && text.includes(request.paymentHash.toLowerCase())) return 'its paymentHash';
  const hasIdField = (value: unknown): boolean =>
    typeof value === 'object' && value !== null && Object.entries(value).some(([key, inner]) => (key === 'id' && inner === request.id) || hasIdField(inner));
  if (answer.isJson && hasIdField(answer.body)) return 'a field "id" equal to its id';
  return undefined;
}

/** Cross-account reads: the main key reading the NWC key's request and the other way round. */
function crossReads(context: CheckContext): Promise<Array<{ what: string; answer: ApiAnswer; request: Record<string, any> }>> {
  return context.shared('cross-account reads', async () => {
    const { own, other, nwcKey } = await twoAccountsRequests(context);
    const reads = [
      { what: `GET ${requestPath(other.id)} (NWC key's request) with the main key`, path: requestPath(other.id), key: undefined, request: other },
      { what: `GET ${requestPath(other.id, true)} (NWC key's request) with the main key`, path: requestPath(other.id, true), key: undefined, request: other },
      { what: `GET ${requestPath(own.id)} (main key's request) with the NWC key`, path: requestPath(own.id), key: nwcKey, request: own },
      { what: `GET ${requestPath(own.id, true)} (main key's request) with the NWC key`, path: requestPath(own.id, true), key: nwcKey, request: own },
    ];
    return Promise.all(reads.map(async ({ what, path, key, request }) => ({ what, request, answer: await context.client.get(path, key === undefined ? {} : { key }) })));
  });
}

/** The read checks. */
export const readChecks: Check[] = [
  {
    id: 'read.get-fields',
    holds: ['spec.get.200', 'spec.resource.invoice-present', 'spec.resource.payment-hash-present'],
    title: 'GET of a request answers 200 with the whole payment request: every field the spec marks "always" or "on read", each of its type and format, in every GET the run received',
    section: GET,
    statement: 'Get: "200 OK: Payment request object as above"',
    level: 'MUST',
    profile: 'core',
    last: true,
    ask: sharedRead,
    async run(context) {
      await sharedRead(context);
      const reads = receivedPaymentRequests(context).filter(({ kind }) => kind === 'read');
      assertEvery(reads, 'GET answers', ({ body }) => fieldsProblem(body));
    },
  },
  {
    id: 'read.get-equals-create',
    holds: ['spec.get.200', 'contract.reading.created-at-fixed', 'contract.reading.updated-at-only-on-change'],
    title: 'Every GET of a pending request returns the same fields and values as its create (updatedAt may only move forward)',
    section: GET,
    statement: 'Get: "200 OK: Payment request object as above" (the same request: the same values)',
    level: 'MUST',
    profile: 'core',
    last: true,
    ask: sharedRead,
    async run(context) {
      const [created, read] = await Promise.all([sharedPaymentRequest(context), sharedRead(context)]);
      const problems = differences(created, read, ['status']);
      assert(problems.length === 0, `GET differs from the 201 body: ${problems.join('; ')}`);
      // The NWC key's requests: nwc.get-equals-create; requests that moved on: lifecycle.completed-fields.
      everyLaterRead(context, (origin) => origin.key !== 'nwc', (body) => body.status === 'pending');
    },
  },
  {
    id: 'read.status-exact',
    holds: ['spec.status.200-one-field', 'spec.resource.status-values'],
    title: 'The status endpoint answers exactly {"status": …}, one of the four states',
    section: STATUS,
    statement: 'Get status: "200 OK: JSON object with one field: status, one of pending, completed, expired, failed"',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const { id } = await sharedPaymentRequest(context);
      await getStatus(context, id);
    },
  },
  {
    id: 'read.status-agrees',
    holds: ['spec.status.agrees'],
    title: 'The status endpoint agrees with GET (pending for a new request)',
    section: STATUS,
    statement: 'Get status: the status of the payment request (the one GET shows)',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const [{ id }, read] = await Promise.all([sharedPaymentRequest(context), sharedRead(context)]);
      const status = await reportedStatus(context, id);
      assert(status === read.status && status === 'pending', `expected the status endpoint and GET to say "pending"; status endpoint ${show(status)}, GET ${show(read.status)}`);
    },
  },
  ...UNKNOWN_IDS.map(
    ({ id, holds, unknown, title, statement }): Check => ({
      id,
      holds,
      title,
      section: 'Errors',
      statement,
      level: 'MUST',
      profile: 'core',
      async run(context) {
        for (const path of [requestPath(unknown), requestPath(unknown, true)]) {
          const answer = await context.client.get(path);
          assert(answer.status === 404, `GET ${path}: expected HTTP 404, got ${answer.status} ${describeBody(answer)}`);
        }
      },
    }),
  ),
  {
    id: 'read.other-account-hidden',
    holds: ['spec.get.404', 'spec.status.404'],
    title: "Another account's payment request is not readable (4xx, nothing of it revealed)",
    section: 'Authentication',
    statement: 'Authentication: the API key is the account\'s; Get: 404 for "No payment request with that identifier" (of this account)',
    level: 'MUST',
    profile: 'core',
    needs: ['nwcKey'],
    async run(context) {
      for (const { what, answer, request } of await crossReads(context)) {
        assert(answer.status >= 400 && answer.status < 500, `${what}: expected HTTP 404 (or another 4xx), got ${answer.status} ${answer.status === 200 ? '(the request of another account was readable)' : describeBody(answer)}`);
        const revealed = reveals(answer, request);
        assert(revealed === undefined, `${what}: the ${answer.status} body reveals ${revealed}`);
      }
    },
  },
  {
    id: 'read.other-account-404',
    holds: ['spec.get.404', 'spec.status.404'],
    title: "Another account's payment request reads as 404, as if it did not exist",
    section: 'Errors',
    statement: 'Errors: 404, "Payment request with the given identifier does not exist" (for this account)',
    level: 'SHOULD',
    profile: 'core',
    needs: ['nwcKey'],
    async run(context) {
      for (const { what, answer } of await crossReads(context)) {
        assert(answer.status === 404, `${what}: expected HTTP 404, got ${answer.status} ${describeBody(answer)}`);
      }
    },
  },
];
