/**
 * What a sandbox records of the traffic it sees (CONTRACT.md "Webhooks", "Resilience testing"):
 * the delivery attempts of an event and its redelivery, and the request journal. Like the other
 * surfaces, `full` holds a target that offers one to its promises, skipped where it answers 404 or
 * 405; with `--admin-key` each check works in a scratch account of its own, else in the main
 * account, picking out its own items and removing the endpoint it made.
 */
import type { CheckContext } from '../check.js';
import { CheckSkipped } from '../check-errors.js';
import type { ApiAnswer } from '../client.js';
import { Webhook } from 'standardwebhooks';
import { CONTROL, transitionPath } from './control-support.js';
import { isAbsent, inOwnPlace, isTimestamp, listAnswer, objectAnswer, safeBody, surfaceCheck, type Place } from './surface-support.js';
import { assert, COLLECTION, createPaymentRequest, fieldsProblem, isObject, show, sleep, validBody } from './support.js';
import { startReceiver, type ReceivedDelivery, type WebhookReceiver } from './webhook-receiver.js';

/** A URL that refuses every connection (the discard port of loopback): each attempt fails at once. */
const REFUSING_URL = 'http://127.0.0.1:9/lnpr-conformance-refused';
const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'];
/** How long an attempt (or a redelivery's first attempt) may take to be listed. */
const LISTED_WITHIN_MS = 5_000;

/** Reads `path` until `done` holds of the list or the time is up; the last list. */
async function listUntil(context: CheckContext, place: Place, path: string, done: (list: unknown[]) => boolean): Promise<unknown[]> {
  const deadline = Date.now() + LISTED_WITHIN_MS;
  for (;;) {
    const list = listAnswer(await context.client.get(path, place.call), `GET ${path}`);
    if (done(list) || Date.now() > deadline) return list;
    await sleep(25);
  }
}

/** What is wrong with one listed attempt of `event` to `endpoint`, or undefined. */
function attemptProblem(attempt: unknown, event: string, endpoint: string): string | undefined {
  if (!isObject(attempt)) return `expected an attempt object, got ${show(attempt)}`;
  const problems: string[] = [];
  if (typeof attempt.id !== 'string' || attempt.id === '') problems.push(`id: expected a string, got ${show(attempt.id)}`);
  if (attempt.event !== event) problems.push(`event: expected ${show(event)}, got ${show(attempt.event)}`);
  if (attempt.endpoint !== endpoint) problems.push(`endpoint: expected ${show(endpoint)}, got ${show(attempt.endpoint)}`);
  if (!(Number.isInteger(attempt.attempt) && (attempt.attempt as number) >= 1)) problems.push(`attempt: expected a whole number from 1, got ${show(attempt.attempt)}`);
  if (!DELIVERY_STATUSES.includes(attempt.status as string)) problems.push(`status: expected one of ${DELIVERY_STATUSES.join(', ')}, got ${show(attempt.status)}`);
  for (const field of ['responseStatus', 'error', 'attemptedAt', 'durationMs']) if (!(field in attempt)) problems.push(`${field}: expected present (null until known), got absent`);
  if (!isTimestamp(attempt.scheduledAt)) problems.push(`scheduledAt: expected an ISO 8601 timestamp, got ${show(attempt.scheduledAt)}`);
  if (attempt.attemptedAt !== null && attempt.attemptedAt !== undefined && !isTimestamp(attempt.attemptedAt)) problems.push(`attemptedAt: expected an ISO 8601 timestamp or null, got ${show(attempt.attemptedAt)}`);
  return problems.length === 0 ? undefined : `attempt ${show(attempt.id)} #${show(attempt.attempt)}: ${problems.join('; ')}`;
}

/** An attempt's identity: its delivery and its number. */
const attemptKey = (attempt: Record<string, any>) => `${String(attempt.id)}#${String(attempt.attempt)}`;

/**
 * Newest first, where a delivery (its `id`) may have several attempts: each delivery's attempts
 * from the last to the first, and every attempt of the redelivery before every attempt listed
 * before it was asked for (those are older). Attempts of different deliveries made meanwhile may
 * interleave. Returns a problem, or undefined.
 */
function orderProblem(attempts: ReadonlyArray<Record<string, any>>, redelivery: string, older: ReadonlySet<string>): string | undefined {
  for (let index = 0; index < attempts.length; index++) {
    const { id, attempt } = attempts[index]!;
    const later = attempts.slice(0, index).find((other) => other.id === id && !(other.attempt > attempt));
    if (later !== undefined) return `attempt #${attempt} of ${id} is listed after its attempt #${later.attempt}`;
  }
  const firstOlder = attempts.findIndex((attempt) => older.has(attemptKey(attempt)));
  const lastRedelivery = attempts.map((attempt) => attempt.id).lastIndexOf(redelivery);
  if (firstOlder >= 0 && lastRedelivery > firstOlder) return `an attempt of the redelivery (${redelivery}) is listed after attempt #${attempts[firstOlder]!.attempt} of ${attempts[firstOlder]!.id}, listed before the redelivery was asked for`;
  return undefined;
}

/**
 * Registers an endpoint that refuses connections for created events, creates a request, reads its
 * event's attempts (at least one, each with its fields), asks for a redelivery (202), and reads the
 * attempts again: a delivery not seen before, listed before the attempts that were there.
 */
async function holdDeliveries(context: CheckContext, place: Place): Promise<void> {
  const endpoints = `${CONTROL}/webhook-endpoints`;
  const made = await context.client.post(endpoints, { ...place.call, body: { url: REFUSING_URL, events: ['payment_request.created'] } });
  if (isAbsent(made)) throw new CheckSkipped(`the target has no webhook endpoints (POST ${endpoints} answered ${made.status})`);
  if (made.status === 400 || made.status === 422) {
    throw new CheckSkipped(`POST ${endpoints} refused a loopback URL (${made.status} ${safeBody(made)}): a sandbox that listens beyond loopback may (CONTRACT: Webhooks), and the check has no other URL to fail at`);
  }
  const endpoint = objectAnswer(made, 201, `POST ${endpoints} {"url": "${REFUSING_URL}"}`).id as string;
  try {
    const request = await createPaymentRequest(context, { description: 'lnpr conformance: delivered to a refusing URL' }, place.call);
    // A second one, whose attempts ?event= must leave out.
    await createPaymentRequest(context, { description: 'lnpr conformance: delivered to a refusing URL too' }, place.call);
    const eventsPath = `${CONTROL}/events?limit=${place.scratch ? 100 : 1000}`;
    const events = await listUntil(context, place, eventsPath, (list) => list.some((event) => isObject(event) && isObject(event.data) && event.data.id === request.id));
    const created = events.find((event) => isObject(event) && isObject(event.data) && event.data.id === request.id && event.type === 'payment_request.created') as Record<string, any> | undefined;
    if (created === undefined) throw new CheckSkipped(`GET ${eventsPath} lists no payment_request.created event of ${request.id}: sandbox.events-list holds the events`);
    const event = String(created.id);

    const deliveries = `${CONTROL}/webhook-deliveries?event=${encodeURIComponent(event)}`;
    const first = await context.client.get(deliveries, place.call);
    if (isAbsent(first)) throw new CheckSkipped(`the target lists no delivery attempts (GET ${deliveries} answered ${first.status})`);
    // In the main account other endpoints (other checks', or the owner's) may match the event too:
    // only the attempts to this check's endpoint are its own. In a scratch account there are no others.
    const toEndpoint = (list: unknown[]) => (place.scratch ? list : list.filter((attempt) => !isObject(attempt) || attempt.endpoint === endpoint)) as Array<Record<string, any>>;
    const before = toEndpoint(await listUntil(context, place, deliveries, (list) => toEndpoint(list).length > 0));
    assert(before.length > 0, `GET ${deliveries}: expected the attempt to deliver ${event} to ${endpoint} within ${LISTED_WITHIN_MS / 1000} s, got none`);
    const shapes = before.map((attempt) => attemptProblem(attempt, event, endpoint)).filter((problem) => problem !== undefined);
    assert(shapes.length === 0, `GET ${deliveries}: ${shapes.slice(0, 3).join('; ')}`);
    const known = new Set(before.map((attempt) => attempt.id));
    const older = new Set(before.map((attempt) => attemptKey(attempt)));

    const redeliver = `${CONTROL}/events/${encodeURIComponent(event)}/redeliver`;
    const asked = await context.client.post(redeliver, place.call);
    assert(asked.status === 202, `POST ${redeliver}: expected 202, got ${asked.status} ${safeBody(asked)}`);
    const after = toEndpoint(await listUntil(context, place, deliveries, (list) => toEndpoint(list).some((attempt) => isObject(attempt) && !known.has(attempt.id))));
    const redelivery = after.find((attempt) => isObject(attempt) && !known.has(attempt.id));
    assert(redelivery !== undefined, `GET ${deliveries} after POST ${redeliver} (202): expected a new delivery of ${event} within ${LISTED_WITHIN_MS / 1000} s, got only the ${known.size} known before`);
    const afterShapes = after.map((attempt) => attemptProblem(attempt, event, endpoint)).filter((problem) => problem !== undefined);
    assert(afterShapes.length === 0, `GET ${deliveries} after the redelivery: ${afterShapes.slice(0, 3).join('; ')}`);
    const order = orderProblem(after, String(redelivery.id), older);
    assert(order === undefined, `GET ${deliveries}: expected every delivery attempt newest first; ${order}`);
  } finally {
    await context.client.request('DELETE', `${endpoints}/${encodeURIComponent(endpoint)}`, place.call);
  }
}

/** Whether the target runs on this machine's loopback (so it can reach a receiver on 127.0.0.1). */
function onLoopback(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** How long a delivery may take to arrive. */
const DELIVERED_WITHIN_MS = 10_000;
/** How far a delivery's `webhook-timestamp` (real Unix seconds) may be from the receiver's clock. */
const TIMESTAMP_TOLERANCE_S = 300;

/**
 * Registers a receiver of its own for completions only, creates a request and completes it, and
 * reads what arrives: one POST of the completion event (never of the create), `content-type:
 * application/json`, `webhook-id` the event's id, `webhook-timestamp` real Unix seconds, and a
 * `webhook-signature` that the `standardwebhooks` library verifies with the endpoint's secret;
 * the body the event (its id and type) with a whole payment request, completed, as its data.
 */
async function holdWebhookDelivery(context: CheckContext, place: Place): Promise<void> {
  if (!onLoopback(context.client.baseUrl)) throw new CheckSkipped(`the check's receiver listens on 127.0.0.1, which a target at ${new URL(context.client.baseUrl).host} cannot reach`);
  let receiver: WebhookReceiver;
  try {
    receiver = await startReceiver();
  } catch (error) {
    throw new CheckSkipped(`no webhook receiver can run here (${(error as Error).message.slice(0, 100)})`);
  }
  const endpoints = `${CONTROL}/webhook-endpoints`;
  let endpoint: string | undefined;
  let everyEndpoint: string | undefined;
  try {
    const made = await context.client.post(endpoints, { ...place.call, body: { url: receiver.url, events: ['payment_request.completed'] } });
    if (isAbsent(made)) throw new CheckSkipped(`the target has no webhook endpoints (POST ${endpoints} answered ${made.status})`);
    if (made.status === 400 || made.status === 422) throw new CheckSkipped(`POST ${endpoints} refused a loopback URL (${made.status} ${safeBody(made)}): a sandbox that listens beyond loopback may`);
    const registered = objectAnswer(made, 201, `POST ${endpoints} {"url": "<a receiver on 127.0.0.1>", "events": ["payment_request.completed"]}`);
    endpoint = String(registered.id);
    const secret = String(registered.secret);
    // A second endpoint without `events`: every type (the default), at another path of the receiver.
    const everyUrl = `${receiver.url}/every`;
    const every = await context.client.post(endpoints, { ...place.call, body: { url: everyUrl } });
    everyEndpoint = String(objectAnswer(every, 201, `POST ${endpoints} {"url": "<a receiver on 127.0.0.1>"} (no events: every type)`).id);
    // In a scratch account the clock moves on a day first: webhook-timestamp is real time, not the account's.
    if (place.scratch) await context.client.post(`${CONTROL}/clock/advance`, { ...place.call, body: { seconds: 86_400 } });

    const request = await createPaymentRequest(context, { description: 'lnpr conformance: a delivered completion' }, place.call);
    const completed = await context.client.post(transitionPath(request.id, 'complete'), place.call);
    assert(completed.status === 200, `POST ${transitionPath(request.id, 'complete')}: expected 200, got ${completed.status} ${safeBody(completed)}`);
    // The request's events as the target lists them: what its deliveries must carry.
    const eventsPath = `${CONTROL}/events?limit=${place.scratch ? 100 : 1000}`;
    const eventOf = (list: unknown[], type: string) => list.find((event) => isObject(event) && event.type === type && isObject(event.data) && event.data.id === request.id) as Record<string, any> | undefined;
    const listed = await context.client.get(eventsPath, place.call);
    if (isAbsent(listed)) throw new CheckSkipped(`the target lists no events (GET ${eventsPath} answered ${listed.status}): a delivery is told apart by its event`);
    const events = await listUntil(context, place, eventsPath, (list) => eventOf(list, 'payment_request.completed') !== undefined);
    const [createdEvent, completedEvent] = [eventOf(events, 'payment_request.created'), eventOf(events, 'payment_request.completed')];
    if (completedEvent === undefined) throw new CheckSkipped(`GET ${eventsPath} lists no payment_request.completed event of ${request.id}: sandbox.events-list holds the events`);

    const bodyOf = (delivery: ReceivedDelivery) => parseJson(delivery.text) as Record<string, any> | undefined;
    const deliveriesOf = (event: Record<string, any> | undefined, path: string) =>
      event === undefined ? [] : receiver.received().filter((delivery) => delivery.path === path && (bodyOf(delivery)?.id === event.id || delivery.headers['webhook-id'] === event.id));
    const [filteredPath, everyPath] = [new URL(receiver.url).pathname, new URL(everyUrl).pathname];
    const deadline = Date.now() + DELIVERED_WITHIN_MS;
    const arrived = () => deliveriesOf(completedEvent, filteredPath).length > 0 && deliveriesOf(completedEvent, everyPath).length > 0 && deliveriesOf(createdEvent, everyPath).length > 0;
    while (!arrived() && Date.now() < deadline) await sleep(20);
    const delivery = deliveriesOf(completedEvent, filteredPath)[0];
    assert(delivery !== undefined, `an endpoint registered for payment_request.completed: expected the completion of ${request.id} (${completedEvent.id}) delivered within ${DELIVERED_WITHIN_MS / 1000} s, got nothing (${receiver.received().length} other deliveries)`);
    assert(deliveriesOf(createdEvent, filteredPath).length === 0, `an endpoint registered for payment_request.completed only: the payment_request.created event of ${request.id} was delivered to it too`);
    const missing = [createdEvent, completedEvent].filter((event) => event !== undefined && deliveriesOf(event, everyPath).length === 0).map((event) => event!.type);
    assert(missing.length === 0, `an endpoint registered without "events" (every type, the default): expected both events of ${request.id} delivered within ${DELIVERED_WITHIN_MS / 1000} s, ${missing.join(' and ')} did not arrive`);

    const problems: string[] = [];
    if (delivery.method !== 'POST') problems.push(`method: expected POST, got ${delivery.method}`);
    if (!/^application\/json\b/i.test(delivery.headers['content-type'] ?? '')) problems.push(`content-type: expected application/json, got ${show(delivery.headers['content-type'])}`);
    if (delivery.headers['webhook-id'] !== completedEvent.id) problems.push(`webhook-id: expected the event's id (${show(completedEvent.id)}), got ${show(delivery.headers['webhook-id'])}`);
    const timestamp = Number(delivery.headers['webhook-timestamp']);
    if (!(/^\d+$/.test(delivery.headers['webhook-timestamp'] ?? '') && Math.abs(timestamp - Date.now() / 1000) <= TIMESTAMP_TOLERANCE_S)) {
      problems.push(`webhook-timestamp: expected real Unix seconds (about ${Math.round(Date.now() / 1000)}), got ${show(delivery.headers['webhook-timestamp'])}`);
    }
    try {
      new Webhook(secret).verify(delivery.text, delivery.headers);
    } catch (error) {
      problems.push(`webhook-signature: the standardwebhooks library does not verify it with the endpoint's secret (${(error as Error).message})`);
    }
    // The body: the event (its id and type), its data a whole payment request, completed. Not compared
    // value for value with the events list: what data holds is sandbox.events-list's business, and a
    // proxied variant may rewrite the list but not the deliveries, which bypass the proxy.
    const body = bodyOf(delivery);
    if (body?.id !== completedEvent.id || body?.type !== 'payment_request.completed') problems.push(`the body: expected {"id": ${show(completedEvent.id)}, "type": "payment_request.completed", …}, got id ${show(body?.id)}, type ${show(body?.type)}`);
    const data = isObject(body?.data) ? body.data : undefined;
    const dataProblem = data === undefined ? 'expected the payment request object' : data.status !== 'completed' ? `status: expected "completed", got ${show(data.status)}` : fieldsProblem(data);
    if (dataProblem !== undefined) problems.push(`the body's data: ${dataProblem}`);
    assert(problems.length === 0, `the delivery of payment_request.completed of ${request.id}: ${problems.join('; ')}`);
  } finally {
    for (const id of [endpoint, everyEndpoint]) if (id !== undefined) await context.client.request('DELETE', `${endpoints}/${encodeURIComponent(id)}`, place.call);
    await receiver.close();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Header names in a journal entry's `headers`, lower-cased (an object or a list of pairs). */
function headerNames(headers: unknown): string[] {
  if (Array.isArray(headers)) return headers.map((pair) => String(Array.isArray(pair) ? pair[0] : isObject(pair) ? pair.name : pair).toLowerCase());
  return isObject(headers) ? Object.keys(headers).map((name) => name.toLowerCase()) : [];
}

/**
 * Makes three v1 calls (a read, a create, a read) carrying the key, a cookie and a marker header,
 * and a control call, then reads the journal: the three listed newest first, once each, with their
 * method, path and status as answered, no `authorization` or `cookie` in their headers (nor the
 * key or the cookie anywhere in the answer), and no call but /api/v1 ones (in a scratch account,
 * nothing but the three).
 */
async function holdJournal(context: CheckContext, place: Place): Promise<void> {
  const journal = `${CONTROL}/requests?limit=${place.scratch ? 100 : 1000}`;
  const probe = await context.client.get(`${CONTROL}/requests?limit=1`, place.call);
  if (isAbsent(probe)) throw new CheckSkipped(`the target keeps no request journal (GET ${CONTROL}/requests answered ${probe.status})`);
  const marker = `lnpr-conformance-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const cookie = `lnpr_session=${marker}`;
  const headers = { cookie, 'x-lnpr-conformance': marker };
  // Three v1 calls, oldest first: a read of an unknown id (404), a create (201), another read (404).
  const unknown = (which: string) => `${COLLECTION}/pr_${marker.replace(/-/g, '')}${which}`;
  const calls: Array<{ method: string; path: string; answer?: ApiAnswer }> = [
    { method: 'GET', path: unknown('first') },
    { method: 'POST', path: COLLECTION },
    { method: 'GET', path: unknown('second') },
  ];
  for (const call of calls) {
    call.answer =
      call.method === 'POST'
        ? await context.client.post(COLLECTION, { ...place.call, headers, body: validBody({ description: `lnpr conformance: journal ${marker}` }) })
        : await context.client.get(call.path, { ...place.call, headers });
  }
  // A control call between them and the read: the journal keeps /api/v1 calls only.
  await context.client.get(`${CONTROL}/clock`, { ...place.call, headers });

  const list = listAnswer(await context.client.get(journal, place.call), `GET ${journal}`);
  const ids = list.map((entry) => (isObject(entry) ? entry.id : undefined));
  const repeated = ids.filter((id, index) => id !== undefined && ids.indexOf(id) !== index);
  assert(repeated.length === 0, `GET ${journal}: expected each call listed once, got ${show(repeated[0])} more than once`);
  const text = JSON.stringify(list);
  const key = place.key ?? context.options.apiKey;
  assert(!text.includes(key), `GET ${journal}: the journal holds the API key the calls carried`);
  assert(!text.includes(cookie), `GET ${journal}: the journal holds the Cookie the calls carried`);
  const notV1 = list.filter((entry) => isObject(entry) && typeof entry.path === 'string' && !entry.path.startsWith('/api/v1/')).map((entry) => (entry as Record<string, any>).path);
  assert(notV1.length === 0, `GET ${journal}: expected the account's /api/v1 calls only, got ${show(notV1.slice(0, 3))}`);
  const ours = (entry: unknown) => isObject(entry) && headerNames(entry.headers).includes('x-lnpr-conformance') && isObject(entry.headers) && Object.values(entry.headers).includes(marker);
  const entries = calls.map(({ method, path }) => list.findIndex((entry) => isObject(entry) && entry.method === method && typeof entry.path === 'string' && entry.path.split('?')[0] === path && (method === 'GET' || ours(entry))));
  const missing = calls.filter((_, index) => entries[index]! < 0).map(({ method, path }) => `${method} ${path}`);
  assert(missing.length === 0, `GET ${journal}: expected the calls just made (${missing.join(', ')}) among ${list.length} entries`);
  assert(entries[2]! < entries[1]! && entries[1]! < entries[0]!, `GET ${journal}: expected the calls newest first (GET, POST, GET made in that order), got them at places ${entries.join(', ')}`);
  // Its filters: ?method= and ?status= list only what matches (the check's calls among them).
  for (const [query, matches, wanted] of [
    ['method=POST', (entry: Record<string, any>) => entry.method === 'POST', [1]],
    ['status=404', (entry: Record<string, any>) => entry.status === 404, calls.flatMap((call, index) => (call.answer!.status === 404 ? [index] : []))],
  ] as const) {
    const filtered = `${CONTROL}/requests?${query}&limit=1000`;
    const got = listAnswer(await context.client.get(filtered, place.call), `GET ${filtered}`) as Array<Record<string, any>>;
    const others = got.filter((entry) => !(isObject(entry) && matches(entry)));
    const ids = new Set(got.map((entry) => entry?.id));
    const left = wanted.filter((index) => !ids.has((list[entries[index]!] as Record<string, any>).id));
    assert(others.length === 0 && left.length === 0, `GET ${filtered}: expected only the entries with ${query}, the check's among them; got ${others.length} others, and ${left.length} of the check's missing`);
  }
  // In a scratch account nothing else called /api/v1: the journal holds exactly these three.
  if (place.scratch) assert(list.length === calls.length, `GET ${journal} in a new account: expected the ${calls.length} calls the check made, got ${list.length} entries`);
  calls.forEach(({ method, path, answer }, index) => {
    const entry = list[entries[index]!] as Record<string, any>;
    const problems: string[] = [];
    if (!(typeof entry.id === 'string' && /^req_./.test(entry.id))) problems.push(`id: expected "req_…", got ${show(entry.id)}`);
    if (entry.status !== answer!.status) problems.push(`status: expected ${answer!.status} (as answered), got ${show(entry.status)}`);
    if (!isTimestamp(entry.receivedAt)) problems.push(`receivedAt: expected an ISO 8601 timestamp, got ${show(entry.receivedAt)}`);
    const names = headerNames(entry.headers);
    if (!names.includes('x-lnpr-conformance')) problems.push(`headers: expected the headers sent (x-lnpr-conformance among them), got ${show(names)}`);
    const secret = names.filter((name) => name === 'authorization' || name === 'cookie');
    if (secret.length > 0) problems.push(`headers: expected no authorization or cookie, got ${secret.join(' and ')}`);
    assert(problems.length === 0, `GET ${journal}: the entry of ${method} ${path}: ${problems.join('; ')}`);
  });

  // Emptied on request: only in a scratch account (the main account's journal is its owner's).
  if (!place.scratch) return;
  const emptied = await context.client.request('DELETE', `${CONTROL}/requests`, place.call);
  assert(emptied.status >= 200 && emptied.status < 300, `DELETE ${CONTROL}/requests: expected a 2xx, got ${emptied.status} ${safeBody(emptied)}`);
  const after = listAnswer(await context.client.get(journal, place.call), `GET ${journal} after DELETE ${CONTROL}/requests`);
  assert(after.length === 0, `GET ${journal} after DELETE ${CONTROL}/requests (${emptied.status}): expected an empty journal, got ${after.length} entries`);
}

/** The checks of what the sandbox records. */
export const sandboxRecordChecks = [
  surfaceCheck(
    'sandbox.webhook-deliveries',
    ['contract.webhooks.deliveries-list', 'contract.webhooks.redeliver'],
    'GET /sandbox/v1/webhook-deliveries?event= lists an event\'s attempts to an endpoint (each {id, event, endpoint, attempt, status, responseStatus, error, scheduledAt, attemptedAt, durationMs}); POST /sandbox/v1/events/{id}/redeliver answers 202 and a new delivery is listed before the older attempts; each delivery\'s attempts the last first',
    'CONTRACT: Webhooks',
    'CONTRACT: "GET /sandbox/v1/webhook-deliveries (?event=evt_…): every delivery attempt, newest first → 200 {"data": [{"id", "event", "endpoint", "attempt", "status", "responseStatus", "error", "scheduledAt", "attemptedAt", "durationMs"}, …]}"; "POST /sandbox/v1/events/{id}/redeliver: sends the event again to the account\'s matching endpoints → 202"',
    (context) => inOwnPlace(context, (place) => holdDeliveries(context, place)),
  ),
  surfaceCheck(
    'sandbox.webhook-delivery',
    ['contract.webhooks.emit', 'contract.webhooks.standard-signed', 'contract.webhooks.headers', 'contract.webhooks.events-filter'],
    "A completion is delivered to an endpoint registered for completions only (and nothing else of the request): POST, application/json, webhook-id the event's id, webhook-timestamp real Unix seconds, a webhook-signature the standardwebhooks library verifies; the body the event with a whole payment request, completed, as data (a receiver on 127.0.0.1: targets on this machine)",
    'CONTRACT: Webhooks',
    'CONTRACT: "The sandbox emits an event on every change of a payment request and delivers it to the account\'s webhook endpoints, signed per the Standard Webhooks specification, so any Standard Webhooks library verifies it"; "events filters by type"; "Each attempt: POST, content-type: application/json, webhook-id (the event id …), webhook-timestamp (real Unix seconds), webhook-signature"',
    (context) => inOwnPlace(context, (place) => holdWebhookDelivery(context, place)),
    ['httpServer'],
  ),
  surfaceCheck(
    'sandbox.request-journal',
    ['contract.journal.list', 'contract.journal.no-secrets', 'contract.journal.delete'],
    "GET /sandbox/v1/requests lists the account's /api/v1 calls newest first, each {id: \"req_…\", method, path, headers, status, receivedAt, …}; headers never hold authorization or cookie; DELETE empties it (in a scratch account)",
    'CONTRACT: Resilience testing',
    'CONTRACT: "GET /sandbox/v1/requests → 200 {"data": [{"id": "req_…", "method", "path", "query", "headers", "body", "status", "responseBody", "fault", "receivedAt", "durationMs"}, …]}, the account\'s own /api/v1 calls, newest first; headers never hold authorization or cookie"; "DELETE /sandbox/v1/requests empties it"',
    (context) => inOwnPlace(context, (place) => holdJournal(context, place)),
  ),
];
