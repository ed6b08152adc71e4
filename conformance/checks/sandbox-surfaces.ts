/**
 * The sandbox surfaces under /sandbox/v1 a target may offer beyond the transitions and the clock
 * (CONTRACT.md "Webhooks", "Nostr Wallet Connect › Test wallets", "Sandbox control API"): the
 * events list, webhook endpoints, test wallets and `GET /healthz`. `full` holds a target that offers
 * one to its promises; a target that answers the surface's first call with 404 or 405 does not offer
 * it, and the check is skipped saying so.
 *
 * With `--admin-key` each check works in a scratch account of its own (made and deleted around it),
 * where it knows every item there is; without it, in the main account, where it picks out its own
 * items (by id; events by the payment requests it created) and removes what it made (endpoints,
 * wallets) afterwards. Secrets (`whsec_…`, an `nwcUrl`'s secret) never reach a message.
 */
import type { Check, CheckContext } from '../check.js';
import { CheckSkipped } from '../check-errors.js';
import { CONTROL, readClockOf, transitionPath } from './control-support.js';
import { isAbsent, isTimestamp, inOwnPlace, listAnswer, objectAnswer, safeBody, surfaceCheck, type Place } from './surface-support.js';
import { assert, createPaymentRequest, deepEqual, getPaymentRequest, has, isObject, show, timeOf } from './support.js';

/** The fields in which two payment request objects differ, for a message (values shown, never whole objects). */
function fieldDifferences(expected: Record<string, unknown>, got: Record<string, unknown>): string[] {
  const names = [...new Set([...Object.keys(expected), ...Object.keys(got)])];
  return names
    .filter((name) => has(expected, name) !== has(got, name) || !deepEqual(expected[name], got[name]))
    .map((name) => `${name}: expected ${has(expected, name) ? show(expected[name]) : 'absent'}, got ${has(got, name) ? show(got[name]) : 'absent'}`);
}

const EVENT_TYPES = ['payment_request.created', 'payment_request.completed', 'payment_request.failed', 'payment_request.expired'];

/** What is wrong with the shape of one listed event, or undefined. */
function eventProblem(event: unknown): string | undefined {
  if (!isObject(event)) return `expected an event object, got ${show(event)}`;
  const problems: string[] = [];
  if (!(typeof event.id === 'string' && /^evt_./.test(event.id))) problems.push(`id: expected "evt_…", got ${show(event.id)}`);
  if (!EVENT_TYPES.includes(event.type as string)) problems.push(`type: expected one of ${EVENT_TYPES.join(', ')}, got ${show(event.type)}`);
  if (!isTimestamp(event.timestamp)) problems.push(`timestamp: expected an ISO 8601 timestamp, got ${show(event.timestamp)}`);
  if (!isObject(event.data)) problems.push(`data: expected the payment request object, got ${show(event.data)}`);
  return problems.length === 0 ? undefined : `event ${show(event.id)}: ${problems.join('; ')}`;
}

/** One event for a message: its type and request. */
const nameOf = (event: any) => `${String(event?.type)} of ${String(event?.data?.id)}`;

/**
 * The events of two requests the check creates (one completed, one left pending): the list shows,
 * newest first, exactly completed(first), created(second), created(first); each event's `data` is
 * the request as GET answered at that moment (the 201 for the creates, the GET after completion
 * for the completion); each timestamp is the account's clock at the change (its whole second will
 * do); event ids are distinct. In a scratch account the list holds nothing else, and was empty
 * before; in the main account the check reads its own events among the others'.
 */
async function holdEvents(context: CheckContext, place: Place): Promise<void> {
  const path = `${CONTROL}/events?limit=${place.scratch ? 100 : 1000}`;
  const before = await context.client.get(path, place.call);
  if (isAbsent(before)) throw new CheckSkipped(`the target lists no events (GET ${path} answered ${before.status})`);
  const listedBefore = listAnswer(before, `GET ${path}`);
  if (place.scratch) assert(listedBefore.length === 0, `GET ${path} in a new account, before any change: expected no events, got ${listedBefore.length} (${listedBefore.slice(0, 3).map(nameOf).join('; ')})`);

  const steps = async (advance: () => Promise<unknown>) => {
    const createdFrom = (await readClockOf(context, place.key)).nowMs;
    const first = await createPaymentRequest(context, { description: 'lnpr conformance: events, completed' }, place.call);
    const second = await createPaymentRequest(context, { description: 'lnpr conformance: events, left pending' }, place.call);
    const createdUntil = (await readClockOf(context, place.key)).nowMs;
    // The account's clock moves on, so the completion is stamped later than the creations.
    await advance();
    const completedFrom = (await readClockOf(context, place.key)).nowMs;
    const completed = await context.client.post(transitionPath(first.id, 'complete'), place.call);
    assert(completed.status === 200, `POST ${transitionPath(first.id, 'complete')}: expected 200, got ${completed.status} ${safeBody(completed)}`);
    const completedUntil = (await readClockOf(context, place.key)).nowMs;
    return { first, second, created: [createdFrom, createdUntil], completed: [completedFrom, completedUntil] };
  };
  // A scratch account's clock is the check's own: a minute on, so a stamp of real time shows. The
  // main account's is held (no other check moves it meanwhile) and moved one second.
  const made = place.scratch
    ? await steps(() => context.client.post(`${CONTROL}/clock/advance`, { ...place.call, body: { seconds: 60 } }))
    : await context.lifecycle!.holdingClock((clock) => steps(() => clock.advance(1)));
  const { first, second } = made;
  const read = await getPaymentRequest(context, first.id, place.call);
  const list = listAnswer(await context.client.get(path, place.call), `GET ${path}`);

  const ours = new Set([first.id, second.id]);
  const mine = list.filter((event) => isObject(event) && isObject(event.data) && ours.has(event.data.id));
  const considered = place.scratch ? list : mine;
  const wrongShape = considered.map(eventProblem).filter((problem) => problem !== undefined);
  assert(wrongShape.length === 0, `GET ${path}: ${wrongShape.slice(0, 3).join('; ')}`);
  if (place.scratch) {
    const strangers = list.filter((event) => !mine.includes(event));
    assert(strangers.length === 0, `GET ${path} in a new account: expected only the events of its two requests, got ${strangers.length} more (${strangers.slice(0, 3).map(nameOf).join('; ')})`);
  }

  const expected = [
    { type: 'payment_request.completed', of: first, data: read, what: `the GET after completion` },
    { type: 'payment_request.created', of: second, data: second, what: 'its 201' },
    { type: 'payment_request.created', of: first, data: first, what: 'its 201' },
  ];
  const describeList = (events: readonly unknown[]) => events.map(nameOf).join(', ') || 'none';
  assert(
    mine.length === expected.length && expected.every((want, index) => (mine[index] as any).type === want.type && (mine[index] as any).data.id === want.of.id),
    `GET ${path}: expected the events of the two requests, newest first: ${expected.map((want) => `${want.type} of ${want.of.id}`).join(', ')}; got ${describeList(mine)}`,
  );
  const events = mine as Array<Record<string, any>>;
  const ids = events.map((event) => event.id);
  assert(new Set(ids).size === ids.length, `GET ${path}: expected a distinct id per event, got ${show(ids)}`);
  expected.forEach((want, index) => {
    const differences = fieldDifferences(want.data, events[index]!.data);
    assert(differences.length === 0, `GET ${path}: the data of ${want.type} of ${want.of.id}: expected the payment request as GET answered then (${want.what}); ${differences.join('; ')}`);
  });

  // Each timestamp is the account's clock at the change: between the readings before and after it (its whole second will do).
  const stamps: Array<[Record<string, any>, number[]]> = [[events[0]!, made.completed], [events[1]!, made.created], [events[2]!, made.created]];
  for (const [event, [from, until]] of stamps) {
    const at = timeOf(event.timestamp);
    assert(
      at >= Math.floor(from! / 1000) * 1000 && at <= until!,
      `GET ${path}: ${nameOf(event)} has timestamp ${show(event.timestamp)}; expected the account's clock at the change, between ${new Date(from!).toISOString()} and ${new Date(until!).toISOString()}`,
    );
  }
  // Newest first: timestamps never increase down the list (in the main account, down the check's own events:
  // a time-driven expiry there is stamped when it fell due and may be listed after later changes of other checks).
  const times = considered.map((event: any) => timeOf(event.timestamp));
  const rising = times.findIndex((time, index) => index > 0 && time > times[index - 1]!);
  assert(rising < 0, `GET ${path}: expected the events newest first; ${nameOf(considered[rising])} (${show((considered[rising] as any)?.timestamp)}) is listed after ${nameOf(considered[rising - 1])} (${show((considered[rising - 1] as any)?.timestamp)})`);

  // "Every /sandbox/v1 list answers at most `limit` items, newest first": two of at least three.
  const limited = `${CONTROL}/events?limit=2`;
  const two = listAnswer(await context.client.get(limited, place.call), `GET ${limited}`);
  assert(two.length <= 2, `GET ${limited}: expected at most 2 events, got ${two.length}`);
  if (place.scratch) assert(two.length === 2 && two.every((event: any, index) => event?.id === events[index]!.id), `GET ${limited} in the check's account: expected its two newest events (${events.slice(0, 2).map(nameOf).join(', ')}), got ${describeList(two)}`);

  // The other two changes have their events too: a failure (the request left pending) and an expiry.
  for (const [transition, type, of] of [
    ['fail', 'payment_request.failed', second],
    ['expire', 'payment_request.expired', await createPaymentRequest(context, { description: 'lnpr conformance: events, expired' }, place.call)],
  ] as const) {
    const moved = await context.client.post(transitionPath(of.id, transition), place.call);
    assert(moved.status === 200, `POST ${transitionPath(of.id, transition)}: expected 200, got ${moved.status} ${safeBody(moved)}`);
    const newest = listAnswer(await context.client.get(path, place.call), `GET ${path}`).find((event) => isObject(event) && isObject(event.data) && event.data.id === of.id) as Record<string, any> | undefined;
    assert(
      newest?.type === type && deepEqual(newest.data, moved.body),
      `GET ${path} after POST ${transitionPath(of.id, transition)}: expected its newest event ${type} with data as the transition answered (status ${show(moved.body?.status)}), got ${newest === undefined ? 'none' : `${nameOf(newest)} with status ${show(newest.data?.status)}`}`,
    );
  }

  // An expiry by the clock is a change too: "at once when the clock is advanced past" expiresAt.
  // Only in a scratch account, whose clock is the check's own (the main account's would expire others' requests).
  if (!place.scratch) return;
  const expiring = await createPaymentRequest(context, { description: 'lnpr conformance: events, expired by the clock', expiresIn: 300 }, place.call);
  await context.client.post(`${CONTROL}/clock/advance`, { ...place.call, body: { seconds: 301 } });
  const expiredEvent = listAnswer(await context.client.get(path, place.call), `GET ${path}`).find((event) => isObject(event) && isObject(event.data) && event.data.id === expiring.id) as Record<string, any> | undefined;
  assert(
    expiredEvent?.type === 'payment_request.expired' && expiredEvent.data?.status === 'expired',
    `GET ${path} after the clock moved 301 s past the creation of ${expiring.id} (expiresIn 300): expected its newest event payment_request.expired (data status "expired"), got ${expiredEvent === undefined ? 'none' : `${nameOf(expiredEvent)} with status ${show(expiredEvent.data?.status)}`}`,
  );
}

/** A URL no event of the check will reach: the endpoint is filtered to failures, and nothing fails in a scratch account. */
const NEVER_CALLED = 'http://127.0.0.1:9/lnpr-conformance-never-called';
const FILTER = ['payment_request.failed'];

/** Registers an endpoint, reads it in the list, deletes it and reads the list again. */
async function holdWebhookEndpoints(context: CheckContext, place: Place): Promise<void> {
  const collection = `${CONTROL}/webhook-endpoints`;
  const what = `POST ${collection} {"url": "${NEVER_CALLED}", "events": ${JSON.stringify(FILTER)}}`;
  const made = await context.client.post(collection, { ...place.call, body: { url: NEVER_CALLED, events: FILTER } });
  if (isAbsent(made)) throw new CheckSkipped(`the target has no webhook endpoints (POST ${collection} answered ${made.status})`);
  if (made.status === 400 || made.status === 422) {
    throw new CheckSkipped(`POST ${collection} refused a loopback URL (${made.status} ${safeBody(made)}): a sandbox that listens beyond loopback may (CONTRACT: Webhooks), and the check has no other URL that is never called`);
  }
  let id: string | undefined = isObject(made.body) && typeof made.body.id === 'string' ? made.body.id : undefined;
  try {
    const body = objectAnswer(made, 201, what);
    const problems: string[] = [];
    if (!(typeof body.id === 'string' && /^we_./.test(body.id))) problems.push(`id: expected "we_…", got ${show(body.id)}`);
    if (body.url !== NEVER_CALLED) problems.push(`url: expected the URL sent, got ${show(body.url)}`);
    if (!deepEqual(body.events, FILTER)) problems.push(`events: expected the filter as given, ${show(FILTER)}, got ${show(body.events)}`);
    if (!has(body, 'faults') || !(body.faults === null || isObject(body.faults))) problems.push(`faults: expected an object, got ${show(body.faults)}`);
    if (!(typeof body.secret === 'string' && body.secret.startsWith('whsec_') && body.secret.length > 'whsec_'.length)) {
      problems.push(`secret: expected "whsec_…", got ${typeof body.secret === 'string' ? 'a string of another form (not shown)' : show(body.secret)}`);
    }
    if (!isTimestamp(body.createdAt)) problems.push(`createdAt: expected an ISO 8601 timestamp, got ${show(body.createdAt)}`);
    assert(problems.length === 0, `${what}: ${problems.join('; ')}`);

    const listed = listAnswer(await context.client.get(collection, place.call), `GET ${collection}`);
    const entry = listed.find((item) => isObject(item) && item.id === id) as Record<string, any> | undefined;
    assert(entry !== undefined, `GET ${collection}: expected the endpoint just registered (${id}) among ${listed.length}`);
    if (place.scratch) assert(listed.length === 1, `GET ${collection} in a new account: expected only the endpoint just registered, got ${listed.length}`);
    assert(entry.url === NEVER_CALLED && deepEqual(entry.events, FILTER), `GET ${collection}: expected ${id} with its url and events ${show(FILTER)}, got url ${show(entry.url)}, events ${show(entry.events)}`);

    const one = `${collection}/${encodeURIComponent(id!)}`;
    const deleted = await context.client.request('DELETE', one, place.call);
    assert(deleted.status === 204, `DELETE ${one}: expected 204, got ${deleted.status} ${safeBody(deleted)}`);
    const gone = id;
    id = undefined;
    const after = listAnswer(await context.client.get(collection, place.call), `GET ${collection} after DELETE ${one}`);
    assert(!after.some((item) => isObject(item) && item.id === gone), `GET ${collection} after DELETE ${one} (204): expected it gone, it is still listed`);

    // "an http or https URL": another scheme is refused.
    const ftp = 'ftp://127.0.0.1/lnpr-conformance';
    const refused = await context.client.post(collection, { ...place.call, body: { url: ftp } });
    if (refused.status === 201 && isObject(refused.body) && typeof refused.body.id === 'string') await context.client.request('DELETE', `${collection}/${encodeURIComponent(refused.body.id)}`, place.call);
    assert(refused.status >= 400 && refused.status < 500, `POST ${collection} {"url": "${ftp}"}: expected a refusal (400: only http or https URLs), got ${refused.status}`);
  } finally {
    if (id !== undefined && !place.scratch) await context.client.request('DELETE', `${collection}/${encodeURIComponent(id)}`, place.call);
  }
}

/** Makes a wallet of 1 sat, reads it, tops it up by 2 sats, reads it, lists its transactions, deletes it. */
async function holdTestWallets(context: CheckContext, place: Place): Promise<void> {
  const collection = `${CONTROL}/wallets`;
  const name = 'lnpr conformance wallet';
  const what = `POST ${collection} {"balance": 1, "name": "${name}"}`;
  const made = await context.client.post(collection, { ...place.call, body: { balance: 1, name } });
  if (isAbsent(made)) throw new CheckSkipped(`the target has no test wallets (POST ${collection} answered ${made.status})`);
  let id: string | undefined = isObject(made.body) && typeof made.body.id === 'string' ? made.body.id : undefined;
  const balanceProblem = (balance: unknown, sats: number) =>
    balance === sats ? undefined : `balance: expected ${sats} (sats)${balance === sats * 1000 ? `, got ${show(balance)}: millisatoshis` : `, got ${show(balance)}`}`;
  try {
    const body = objectAnswer(made, 201, what);
    const problems: string[] = [];
    if (!(typeof body.id === 'string' && /^wal_./.test(body.id))) problems.push(`id: expected "wal_…", got ${show(body.id)}`);
    if (body.name !== name) problems.push(`name: expected the name sent, got ${show(body.name)}`);
    const balance = balanceProblem(body.balance, 1);
    if (balance) problems.push(balance);
    if (!(typeof body.nwcUrl === 'string' && body.nwcUrl.startsWith('nostr+walletconnect:'))) {
      problems.push(`nwcUrl: expected a "nostr+walletconnect:" URI, got ${typeof body.nwcUrl === 'string' ? 'a string of another form (not shown)' : show(body.nwcUrl)}`);
    }
    if (!isTimestamp(body.createdAt)) problems.push(`createdAt: expected an ISO 8601 timestamp, got ${show(body.createdAt)}`);
    assert(problems.length === 0, `${what}: ${problems.join('; ')}`);

    const one = `${collection}/${encodeURIComponent(id!)}`;
    const readOne = async (when: string, sats: number) => {
      const wallet = objectAnswer(await context.client.get(one, place.call), 200, `GET ${one} ${when}`);
      assert(wallet.id === id, `GET ${one} ${when}: expected the wallet ${id}, got id ${show(wallet.id)}`);
      const problem = balanceProblem(wallet.balance, sats);
      assert(problem === undefined, `GET ${one} ${when}: ${problem}`);
    };
    await readOne('after its creation with 1 sat', 1);
    const listed = listAnswer(await context.client.get(collection, place.call), `GET ${collection}`);
    assert(listed.some((item) => isObject(item) && item.id === id), `GET ${collection}: expected the wallet just made (${id}) among ${listed.length}`);
    if (place.scratch) assert(listed.length === 1, `GET ${collection} in a new account: expected only the wallet just made, got ${listed.length}`);

    const topup = `${one}/topup`;
    const topped = objectAnswer(await context.client.post(topup, { ...place.call, body: { amount: 2 } }), 200, `POST ${topup} {"amount": 2}`);
    const toppedProblem = topped.id === id ? balanceProblem(topped.balance, 3) : `expected the wallet ${id}, got id ${show(topped.id)}`;
    assert(toppedProblem === undefined, `POST ${topup} {"amount": 2} on a wallet of 1 sat: ${toppedProblem}`);
    await readOne('after a top-up of 2 sats on 1', 3);
    listAnswer(await context.client.get(`${one}/transactions`, place.call), `GET ${one}/transactions`);

    const deleted = await context.client.request('DELETE', one, place.call);
    assert(deleted.status === 204, `DELETE ${one}: expected 204, got ${deleted.status} ${safeBody(deleted)}`);
    id = undefined;
    const after = await context.client.get(one, place.call);
    assert(after.status === 404, `GET ${one} after DELETE (204): expected 404, got ${after.status} ${safeBody(after)}`);
  } finally {
    if (id !== undefined && !place.scratch) await context.client.request('DELETE', `${collection}/${encodeURIComponent(id)}`, place.call);
  }
}

/** The checks of the sandbox surfaces. */
export const sandboxSurfaceChecks: Check[] = [
  surfaceCheck(
    'sandbox.events-list',
    ['contract.webhooks.events-list', 'contract.webhooks.events-every-change', 'contract.webhooks.body'],
    'GET /sandbox/v1/events lists, newest first, a payment_request.created event for every create and a payment_request.completed, .failed or .expired for each transition, each {id: "evt_…", type, timestamp, data} with data the request as GET answered then and timestamp the account\'s clock then',
    'CONTRACT: Webhooks',
    'CONTRACT: "GET /sandbox/v1/events: the account\'s events, newest first"; "The sandbox emits an event on every change of a payment request"; "Body: {"id": "evt_…", "type", "timestamp", "data"} where data is the payment request exactly as GET /api/v1/payment-requests/{id} answered at that moment and timestamp is the account\'s clock then"',
    (context) => inOwnPlace(context, (place) => holdEvents(context, place)),
  ),
  surfaceCheck(
    'sandbox.webhook-endpoints',
    ['contract.webhooks.endpoint-create', 'contract.webhooks.endpoint-list', 'contract.webhooks.endpoint-delete'],
    'POST /sandbox/v1/webhook-endpoints answers 201 {id: "we_…", url, events (the filter as given), faults, secret: "whsec_…", createdAt}; GET lists it; DELETE answers 204 and it is no longer listed',
    'CONTRACT: Webhooks',
    'CONTRACT: "POST /sandbox/v1/webhook-endpoints {"url", "events"?, "faults"?} → 201 {"id": "we_…", "url", "events", "faults", "secret": "whsec_…", "createdAt"}"; "GET /sandbox/v1/webhook-endpoints → 200 {"data": [endpoint, …]}"; "DELETE /sandbox/v1/webhook-endpoints/{id}: removes it → 204"',
    (context) => inOwnPlace(context, (place) => holdWebhookEndpoints(context, place)),
  ),
  surfaceCheck(
    'sandbox.test-wallets',
    ['contract.wallets.api', 'contract.wallets.balance-sats', 'contract.wallets.topup-adds'],
    'POST /sandbox/v1/wallets {balance: 1} answers 201 {id: "wal_…", name, balance 1 (sats), nwcUrl, createdAt}; GET …/{id} shows 1 sat, the list holds it; a top-up of 2 sats answers and shows 3; its transactions are listed; DELETE answers 204 and GET …/{id} is then 404',
    'CONTRACT: Nostr Wallet Connect › Test wallets',
    'CONTRACT: "POST /sandbox/v1/wallets {"balance": sats, "name"?}: a funded payer wallet (balances are sats over HTTP, msats over NIP-47) → 201 {"id": "wal_…", "name", "balance", "nwcUrl", "createdAt"}"; "GET /sandbox/v1/wallets/{id}: one, with its balance"; "POST /sandbox/v1/wallets/{id}/topup {"amount": sats}: adds funds → 200 wallet"; "DELETE /sandbox/v1/wallets/{id}: removes it → 204"',
    (context) => inOwnPlace(context, (place) => holdTestWallets(context, place)),
  ),
  surfaceCheck(
    'sandbox.healthz',
    ['contract.healthz'],
    'GET /healthz answers 200 without a key',
    'CONTRACT: Sandbox control API',
    'CONTRACT: "GET /healthz answers 200 without a key"',
    async (context) => {
      const answer = await context.client.get('/healthz', { key: null });
      if (isAbsent(answer)) throw new CheckSkipped(`the target has no health endpoint (GET /healthz answered ${answer.status})`);
      assert(answer.status === 200, `GET /healthz without a key: expected 200, got ${answer.status} ${safeBody(answer)}`);
    },
  ),
];
