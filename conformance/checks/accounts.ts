/**
 * The accounts API and the reset (CONTRACT.md "Sandbox control API", "Accounts for isolated runs"),
 * held in scratch accounts the checks make with the admin key and delete again, so a reset or a
 * deletion never touches the accounts the rest of the run works in: the create, list and delete
 * answers; a new account empty with its own clock; what a reset deletes, keeps and does to the
 * clock, and that it reaches no other account; an unknown invoice to `/pay` (a reset one) is 404.
 * `full` profile only, and only with `--admin-key`.
 */
import type { Check, CheckContext } from '../check.js';
import type { ApiAnswer } from '../client.js';
import { clockOf, CONTROL, readClockOf, withScratchAccount, type ScratchAccount } from './control-support.js';
import { assert, COLLECTION, createPaymentRequest, describeBody, isObject, requestPath, sharedPaymentRequest, show, timeOf } from './support.js';

const SECTION = 'CONTRACT: Accounts for isolated runs';

/** A URL an endpoint can be registered with that no event of the scratch account will ever reach (only failures are asked for). */
const QUIET_ENDPOINT = { url: 'http://127.0.0.1:9/lnpr-conformance-never-called', events: ['payment_request.failed'] };

/** Answers with a body made of keys of a scratch account are described without it. */
function describeSafely(answer: ApiAnswer, account: ScratchAccount): string {
  const text = describeBody(answer);
  return text.includes(account.secret) || text.includes(account.readOnly) ? '(a body holding the account\'s keys)' : text;
}

/** The events of the account of `key`, or undefined when the target offers no events list. */
async function eventsOf(context: CheckContext, key: string): Promise<unknown[] | undefined> {
  const answer = await context.client.get(`${CONTROL}/events`, { key });
  return answer.status === 200 && isObject(answer.body) && Array.isArray(answer.body.data) ? answer.body.data : undefined;
}

/** The accounts the admin key lists (data), failing unless the answer is 200 {"data": [...]}. */
async function listAccounts(context: CheckContext): Promise<{ answer: ApiAnswer; data: Array<Record<string, any>> }> {
  const answer = await context.client.get(`${CONTROL}/accounts?limit=1000`, { key: context.options.adminKey! });
  assert(answer.status === 200 && isObject(answer.body) && Array.isArray(answer.body.data), `GET ${CONTROL}/accounts with the admin key: expected 200 {"data": [...]}, got ${answer.status} ${describeBody(answer)}`);
  return { answer, data: answer.body.data };
}

function accountsCheck(id: string, holds: readonly string[], title: string, statement: string, run: Check['run'], needs: Check['needs'] = ['adminKey']): Check {
  return { id, holds, title, section: SECTION, statement, level: 'MUST', profile: 'full', needs, run };
}

/** The accounts checks. */
export const accountsChecks: Check[] = [
  accountsCheck(
    'accounts.create-answer',
    ['contract.accounts.create'],
    'POST /sandbox/v1/accounts answers 201 {id: "acct_…", name, mode, keys: {secret, readOnly}, createdAt}; the secret key creates, the read-only key reads',
    'CONTRACT: "POST /sandbox/v1/accounts {"mode", "name"?} → 201 {"id": "acct_…", "name", "mode", "keys": {"secret": "sk_test_…", "readOnly": "sk_test_…"}, "createdAt"}"',
    (context) =>
      withScratchAccount(context, 'custodial', async (account) => {
        const body = account.created;
        const what = `POST ${CONTROL}/accounts {"mode": "custodial", "name"} with the admin key`;
        assert(/^acct_./.test(account.id), `${what}: expected id "acct_…", got ${show(account.id)}`);
        assert(typeof body.name === 'string' && body.name.startsWith('lnpr conformance scratch'), `${what}: expected the name sent back, got ${show(body.name)}`);
        assert(body.mode === 'custodial', `${what}: expected mode "custodial", got ${show(body.mode)}`);
        assert(Number.isFinite(timeOf(body.createdAt)), `${what}: expected createdAt a timestamp, got ${show(body.createdAt)}`);
        assert(account.secret.startsWith('sk_test_') && account.readOnly.startsWith('sk_test_') && account.secret !== account.readOnly, `${what}: expected two different keys "sk_test_…" (secret and readOnly)`);
        const made = await context.client.post(COLLECTION, { key: account.secret, body: { amount: 1000, description: 'lnpr conformance: a new account creates', destinationWallet: 'conformance@example.com' } });
        assert(made.status === 201 && isObject(made.body) && made.body.isNwc === false, `POST ${COLLECTION} with the new account's secret key: expected 201 with isNwc false (a custodial account), got ${made.status} ${describeSafely(made, account)}`);
        const madeId = String(made.body.id);
        const read = await context.client.get(requestPath(madeId), { key: account.readOnly });
        assert(read.status === 200, `GET ${requestPath(madeId)} with the new account's read-only key: expected 200, got ${read.status} ${describeSafely(read, account)}`);
        const refused = await context.client.post(COLLECTION, { key: account.readOnly, body: { amount: 1000, description: 'lnpr conformance: read-only create', destinationWallet: 'conformance@example.com' } });
        assert(refused.status === 401, `POST ${COLLECTION} with the new account's read-only key: expected 401, got ${refused.status} ${describeSafely(refused, account)}`);
      }),
  ),
  accountsCheck(
    'accounts.list',
    ['contract.accounts.list'],
    'GET /sandbox/v1/accounts answers 200 {data: [...]} with the new account, and no keys anywhere',
    'CONTRACT: "GET /sandbox/v1/accounts → 200 {"data": [account without keys, …]}"',
    (context) =>
      withScratchAccount(context, 'custodial', async (account) => {
        const { answer, data } = await listAccounts(context);
        const listed = data.find((entry) => isObject(entry) && entry.id === account.id);
        assert(listed !== undefined, `GET ${CONTROL}/accounts?limit=1000: expected the account just made (${account.id}) among ${data.length}`);
        assert(listed.mode === 'custodial' && listed.name === account.created.name, `GET ${CONTROL}/accounts: expected ${account.id} with mode "custodial" and its name, got mode ${show(listed.mode)}, name ${show(listed.name)}`);
        const withKeys = data.filter((entry) => isObject(entry) && Object.prototype.hasOwnProperty.call(entry, 'keys')).map((entry) => entry.id);
        assert(withKeys.length === 0, `GET ${CONTROL}/accounts: expected accounts without keys, got "keys" on ${show(withKeys)}`);
        assert(!answer.text.includes(account.secret) && !answer.text.includes(account.readOnly), `GET ${CONTROL}/accounts: the answer holds the new account's keys`);
      }),
  ),
  accountsCheck(
    'accounts.delete',
    ['contract.accounts.delete'],
    'DELETE /sandbox/v1/accounts/{id} answers 204; the account is no longer listed and its keys get 401',
    'CONTRACT: "DELETE /sandbox/v1/accounts/{id}: the account, its keys and all its data → 204"',
    (context) =>
      withScratchAccount(context, 'custodial', async (account) => {
        const made = await createPaymentRequest(context, { description: 'lnpr conformance: deleted with its account' }, { key: account.secret });
        const path = `${CONTROL}/accounts/${encodeURIComponent(account.id)}`;
        const answer = await context.client.request('DELETE', path, { key: context.options.adminKey! });
        assert(answer.status === 204, `DELETE ${path} with the admin key: expected 204, got ${answer.status} ${describeBody(answer)}`);
        const { data } = await listAccounts(context);
        assert(!data.some((entry) => isObject(entry) && entry.id === account.id), `GET ${CONTROL}/accounts after DELETE ${path}: the account is still listed`);
        const after = await Promise.all([
          { what: `GET ${requestPath(made.id)} with its secret key`, path: requestPath(made.id), key: account.secret },
          { what: `GET ${requestPath(made.id)} with its read-only key`, path: requestPath(made.id), key: account.readOnly },
          { what: `GET ${CONTROL}/clock with its secret key`, path: `${CONTROL}/clock`, key: account.secret },
        ].map(async ({ what, path: asked, key }) => ({ what, answer: await context.client.get(asked, { key }) })));
        const wrong = after.filter(({ answer: got }) => got.status !== 401).map(({ what, answer: got }) => `${what}: expected 401 (a deleted account's key), got ${got.status}`);
        assert(wrong.length === 0, `after DELETE ${path}: ${wrong.join('; ')}`);
      }),
  ),
  accountsCheck(
    'accounts.new-empty',
    ['contract.accounts.new-empty', 'contract.accounts.isolated', 'contract.control.clock-per-account'],
    "A new account is empty (no events; the run's requests are 404 to it, its own to the run), its clock moves alone, and an account made after that starts on real time",
    'CONTRACT: "a new, empty account with its own clock"; "no run sees or resets another\'s data"',
    (context) =>
      withScratchAccount(context, 'custodial', async (account) => {
        const shared = await sharedPaymentRequest(context);
        const events = await eventsOf(context, account.secret);
        assert(events === undefined || events.length === 0, `GET ${CONTROL}/events of a new account: expected none, got ${events?.length}`);
        const theirs = await context.client.get(requestPath(shared.id), { key: account.secret });
        assert(theirs.status === 404, `GET ${requestPath(shared.id)} (the run's request) with a new account's key: expected 404, got ${theirs.status}`);
        const made = await createPaymentRequest(context, { description: 'lnpr conformance: a new account\'s request' }, { key: account.secret });
        const ours = await context.client.get(requestPath(made.id));
        assert(ours.status === 404, `GET ${requestPath(made.id)} (a new account's request) with the main key: expected 404, got ${ours.status}`);
        const mainBefore = await readClockOf(context);
        const advanced = await context.client.post(`${CONTROL}/clock/advance`, { key: account.secret, body: { seconds: 7200 } });
        clockOf(advanced, `POST ${CONTROL}/clock/advance {"seconds": 7200} in a new account`);
        const mainAfter = await readClockOf(context);
        assert(mainAfter.nowMs - mainBefore.nowMs < 3_600_000, `the main account's clock moved ${Math.round((mainAfter.nowMs - mainBefore.nowMs) / 1000)} s while a new account's was advanced 7,200 s: the accounts share a clock`);
        // An account made after another's clock moved starts on real time, not on that clock.
        await withScratchAccount(context, 'custodial', async (later) => {
          const clock = await readClockOf(context, later.secret);
          assert(
            Math.abs(clock.nowMs - Date.now()) < 3_600_000,
            `the clock of an account made after another's was advanced 7,200 s: expected real time (about ${new Date().toISOString()}), got ${new Date(clock.nowMs).toISOString()}`,
          );
        });
      }),
    ['adminKey', 'controls'],
  ),
  accountsCheck(
    'accounts.reset',
    [
      'contract.control.reset-204',
      'contract.control.reset-deletes',
      'contract.control.reset-clock',
      'contract.control.reset-keeps',
      'contract.control.pay-unknown-404',
      'contract.accounts.isolated',
    ],
    "POST /sandbox/v1/reset answers 204: the account's requests, events and request journal are gone, its clock is back to real time, its endpoints stay ({\"scope\": \"all\"} removes them); an invoice it deleted is unknown to /pay (404); other accounts keep their data",
    'CONTRACT: "POST /sandbox/v1/reset: deletes the account\'s payment requests, events, … and sets its clock back to real time; webhook endpoints, rules and faults stay. {"scope": "all"} removes those too → 204"; "an unknown invoice to /pay, 404"',
    (context) =>
      withScratchAccount(context, 'custodial', async (account) => {
        const key = account.secret;
        const [paid, pending] = await Promise.all(
          ['paid', 'pending'].map((what) => createPaymentRequest(context, { description: `lnpr conformance reset: ${what}` }, { key })),
        );
        await context.client.post(`${CONTROL}/clock/advance`, { key, body: { seconds: 1 } });
        const completed = await context.client.post(`${CONTROL}/payment-requests/${encodeURIComponent(paid.id)}/complete`, { key });
        assert(completed.status === 200, `POST …/${paid.id}/complete in a scratch account: expected 200, got ${completed.status} ${describeSafely(completed, account)}`);
        const endpoint = await context.client.post(`${CONTROL}/webhook-endpoints`, { key, body: QUIET_ENDPOINT });
        const endpointId = endpoint.status === 201 && isObject(endpoint.body) && typeof endpoint.body.id === 'string' ? endpoint.body.id : undefined;
        const advanced = clockOf(await context.client.post(`${CONTROL}/clock/advance`, { key, body: { seconds: 86_400 } }), `POST ${CONTROL}/clock/advance {"seconds": 86400}`);

        const reset = await context.client.post(`${CONTROL}/reset`, { key });
        assert(reset.status === 204, `POST ${CONTROL}/reset: expected 204, got ${reset.status} ${describeSafely(reset, account)}`);
        // The request journal goes too (the account's creates were in it), where the target keeps one:
        // read before any other v1 call of the check, which would be its first entry.
        const journal = await context.client.get(`${CONTROL}/requests?limit=1000`, { key });
        if (journal.status === 200 && isObject(journal.body) && Array.isArray(journal.body.data)) {
          assert(journal.body.data.length === 0, `GET ${CONTROL}/requests after the reset: expected an empty request journal, got ${journal.body.data.length} entries`);
        }
        const gone = await Promise.all(
          [paid, pending].flatMap((request) => [requestPath(request.id), requestPath(request.id, true)]).map(async (path) => ({ path, answer: await context.client.get(path, { key }) })),
        );
        const kept = gone.filter(({ answer }) => answer.status !== 404).map(({ path, answer }) => `GET ${path}: expected 404 after the reset, got ${answer.status}`);
        assert(kept.length === 0, kept.join('; '));
        const events = await eventsOf(context, key);
        assert(events === undefined || events.length === 0, `GET ${CONTROL}/events after the reset: expected none, got ${events?.length}`);
        const clock = await readClockOf(context, key);
        assert(
          clock.nowMs < advanced.nowMs - 80_000_000 && Math.abs(clock.nowMs - Date.now()) < 3_600_000,
          `the clock after the reset: expected real time (about ${new Date().toISOString()}; it had been moved to ${new Date(advanced.nowMs).toISOString()}), got ${new Date(clock.nowMs).toISOString()}`,
        );
        const pay = await context.client.post(`${CONTROL}/pay`, { key, body: { invoice: pending.invoice } });
        assert(pay.status === 404, `POST ${CONTROL}/pay with the invoice of a request the reset deleted (an unknown invoice): expected 404, got ${pay.status} ${describeSafely(pay, account)}`);
        const shared = await sharedPaymentRequest(context);
        const other = await context.client.get(requestPath(shared.id));
        assert(other.status === 200, `GET ${requestPath(shared.id)} (the run's own request) after another account's reset: expected 200, got ${other.status}`);

        // Endpoints stay, where the target offers them; the scope "all" removes them.
        if (endpointId === undefined) return;
        const listed = async () => {
          const answer = await context.client.get(`${CONTROL}/webhook-endpoints`, { key });
          return answer.status === 200 && isObject(answer.body) && Array.isArray(answer.body.data) && answer.body.data.some((entry: any) => isObject(entry) && entry.id === endpointId);
        };
        assert(await listed(), `GET ${CONTROL}/webhook-endpoints after a reset: expected the endpoint ${endpointId} kept`);
        const all = await context.client.post(`${CONTROL}/reset`, { key, body: { scope: 'all' } });
        assert(all.status === 204, `POST ${CONTROL}/reset {"scope": "all"}: expected 204, got ${all.status} ${describeSafely(all, account)}`);
        assert(!(await listed()), `GET ${CONTROL}/webhook-endpoints after a reset {"scope": "all"}: expected the endpoint ${endpointId} gone`);
      }),
    ['adminKey', 'controls'],
  ),
];
