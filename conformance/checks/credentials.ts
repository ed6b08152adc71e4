/**
 * How credentials are read, and what a refused request leaves behind (CONTRACT.md "Default
 * accounts": the read-only key, the `accounts` key; "Readings the suite holds": a refused request
 * changes nothing and emits nothing). The read-only key GETs what the create key does (core); every
 * control call it makes answers 401 and moves nothing; it never sees a secret; the accounts key does
 * nothing but accounts, and no other key manages accounts (full).
 */
import type { Check, CheckContext } from '../check.js';
import { CheckSkipped } from '../check-errors.js';
import { differences } from './read.js';
import { CONTROL, readClockOf, transitionPath, TRANSITIONS, withScratchAccount } from './control-support.js';
import { assert, COLLECTION, createPaymentRequest, describeBody, getPaymentRequest, isObject, requestPath, sharedPaymentRequest, show, sleep, timeOf, validBody } from './support.js';

const SECTION = 'CONTRACT: Default accounts › read-only key';

/** The secrets a body shows: `whsec_…` secrets and the `secret` of NWC URIs. */
function secretsIn(text: string): string[] {
  return [...text.matchAll(/whsec_[A-Za-z0-9+/=_-]{8,}/g), ...text.matchAll(/[?&]secret=([0-9a-fA-F]{16,})/g)].map((match) => match[1] ?? match[0]);
}

/** What a refusal may be where the contract says "401" of the permission but the call may not exist: 401, or 404/405 when the target has no such call. */
const isRefusedOrAbsent = (status: number) => status === 401 || status === 404 || status === 405;

/** The things with secrets a create key makes, and their lists. */
const SECRET_HOLDERS = [
  { list: `${CONTROL}/webhook-endpoints`, body: { url: 'http://127.0.0.1:9/lnpr-conformance-never-called', events: ['payment_request.failed'] } },
  { list: `${CONTROL}/wallets`, body: { balance: 1, name: 'lnpr conformance' } },
] as const;

/**
 * Makes a webhook endpoint and a test wallet with `keys.secret`, then fails unless their lists, read
 * with `keys.readOnly`, show no secret; deletes them again when `removeAfter` (an account the run does not own).
 */
async function assertListsHideSecrets(context: CheckContext, keys: { secret: string; readOnly: string }, removeAfter: boolean): Promise<void> {
  const made = await Promise.all(SECRET_HOLDERS.map(({ list, body }) => context.client.post(list, { key: keys.secret, body })));
  try {
    const lists = SECRET_HOLDERS.filter((_holder, index) => made[index]!.status === 201).map(({ list }) => list);
    if (lists.length === 0) throw new CheckSkipped('the target makes neither webhook endpoints nor test wallets: no secret to hide');
    const wrong: string[] = [];
    for (const path of lists) {
      const [full, readOnly] = await Promise.all([context.client.get(path, { key: keys.secret }), context.client.get(path, { key: keys.readOnly })]);
      const secrets = secretsIn(full.text);
      if (readOnly.status !== 200) wrong.push(`GET ${path} with the read-only key: expected 200, got ${readOnly.status}`);
      else if (secrets.some((secret) => readOnly.text.includes(secret))) wrong.push(`GET ${path} with the read-only key shows a secret the create key sees`);
      else if (secretsIn(readOnly.text).length > 0) wrong.push(`GET ${path} with the read-only key shows a secret`);
    }
    assert(wrong.length === 0, wrong.join('; '));
  } finally {
    if (removeAfter) {
      await Promise.all(
        made.map((answer, index) => (answer.status === 201 && isObject(answer.body) && typeof answer.body.id === 'string' ? context.client.request('DELETE', `${SECRET_HOLDERS[index]!.list}/${encodeURIComponent(answer.body.id)}`, { key: keys.secret }) : undefined)),
      );
    }
  }
}

/** The credential checks. */
export const credentialChecks: Check[] = [
  {
    id: 'credentials.read-only-get',
    holds: ['contract.read-only.get'],
    title: 'The read-only key GETs a request and its status as the create key does',
    section: SECTION,
    statement: 'CONTRACT: "A read-only key … may GET anything of its account"',
    level: 'MUST',
    profile: 'core',
    needs: ['readOnlyKey'],
    async run(context) {
      const { id } = await sharedPaymentRequest(context);
      const key = context.options.readOnlyKey!;
      const [mine, theirs] = await Promise.all([getPaymentRequest(context, id), getPaymentRequest(context, id, { key })]);
      const problems = [...differences(mine, theirs, ['updatedAt']), ...differences(theirs, mine, ['updatedAt']).map((problem) => `(the main key's ${problem})`)];
      assert(problems.length === 0, `GET ${requestPath(id)} with the read-only key differs from the main key's: ${problems.join('; ')}`);
      const status = await context.client.get(requestPath(id, true), { key });
      assert(status.status === 200 && isObject(status.body) && status.body.status === mine.status, `GET ${requestPath(id, true)} with the read-only key: expected 200 {"status": ${show(mine.status)}}, got ${status.status} ${describeBody(status)}`);
      // "may GET anything of its account": the control API's reads too, where the target has them.
      if (context.lifecycle?.controls === true) {
        const clock = await context.client.get(`${CONTROL}/clock`, { key });
        assert(clock.status === 200, `GET ${CONTROL}/clock with the read-only key: expected 200 (a read-only key may GET anything of its account), got ${clock.status} ${describeBody(clock)}`);
      }
    },
  },
  {
    id: 'credentials.read-only-control-401',
    holds: ['contract.read-only.control-401', 'contract.reading.refused-changes-nothing'],
    title: 'Every control call with the read-only key (complete, fail, expire, pay, clock advance, reset, webhook endpoint, wallet) answers 401 and changes nothing',
    section: SECTION,
    statement: 'CONTRACT: "every other /sandbox/v1 call (a control call, a webhook endpoint, a reset, a wallet change) answers 401"; "a refused request (401, 400) changes nothing"',
    level: 'MUST',
    profile: 'full',
    needs: ['readOnlyKey', 'controls'],
    async run(context) {
      const key = context.options.readOnlyKey!;
      const created = await createPaymentRequest(context, { amount: 1000, description: 'lnpr conformance: read-only control calls' });
      const before = await getPaymentRequest(context, created.id);
      const wrong: string[] = [];
      await context.lifecycle!.holdingClock(async () => {
        const clockBefore = await readClockOf(context);
        const calls: Array<{ path: string; body?: unknown; absentOk?: boolean }> = [
          ...TRANSITIONS.map((transition) => ({ path: transitionPath(created.id, transition) })),
          { path: `${CONTROL}/pay`, body: { invoice: created.invoice } },
          { path: `${CONTROL}/clock/advance`, body: { seconds: 86_400 } },
          { path: `${CONTROL}/webhook-endpoints`, body: { url: 'http://127.0.0.1:9/lnpr-conformance-never-called', events: ['payment_request.failed'] }, absentOk: true },
          { path: `${CONTROL}/wallets`, body: { balance: 1 }, absentOk: true },
          // Last: a reset the target wrongly took would take the run's requests with it.
          { path: `${CONTROL}/reset` },
        ];
        for (const { path, body, absentOk } of calls) {
          const answer = await context.client.post(path, { key, ...(body !== undefined ? { body } : {}) });
          if (answer.status !== 401 && !(absentOk && isRefusedOrAbsent(answer.status))) wrong.push(`POST ${path} with the read-only key: expected 401, got ${answer.status} ${describeBody(answer)}`);
        }
        const clockAfter = await readClockOf(context);
        if (clockAfter.nowMs - clockBefore.nowMs >= 3_600_000) wrong.push(`the clock moved ${Math.round((clockAfter.nowMs - clockBefore.nowMs) / 1000)} s after a refused advance of 86,400 s`);
      });
      const after = await context.client.get(requestPath(created.id));
      if (after.status !== 200) wrong.push(`GET ${requestPath(created.id)} after the refused calls: expected 200, got ${after.status} (a refused reset deleted it?)`);
      else {
        const problems = [...differences(before, after.body), ...differences(after.body, before)];
        if (problems.length > 0 || after.body.updatedAt !== before.updatedAt) wrong.push(`the request after the refused calls: expected it unchanged; ${problems.join('; ') || `updatedAt ${show(before.updatedAt)} → ${show(after.body.updatedAt)}`}`);
      }
      assert(wrong.length === 0, wrong.join('; '));
    },
  },
  {
    id: 'credentials.read-only-no-secrets',
    holds: ['contract.read-only.secrets-hidden', 'contract.read-only.get', 'contract.nwc.wallet-endpoint'],
    title: 'The read-only key reads webhook endpoints, test wallets and an NWC account\'s connection without their secrets (whsec_…, an nwcUrl\'s secret); the connection answers {relay, walletPubkey, online, encryption}',
    section: SECTION,
    statement: 'CONTRACT: "with every secret left out (whsec_…, an nwcUrl\'s secret: shown to create keys only)"',
    level: 'MUST',
    profile: 'full',
    needs: ['readOnlyKey', 'controls'],
    async run(context) {
      // In scratch accounts with --admin-key; else in the main account, removing what it made there.
      if (context.options.adminKey === undefined) {
        await assertListsHideSecrets(context, { secret: context.options.apiKey, readOnly: context.options.readOnlyKey! }, true);
        if (context.options.nwcKey !== undefined) await assertConnection(context, context.options.nwcKey);
        return;
      }
      await withScratchAccount(context, 'custodial', (account) => assertListsHideSecrets(context, account, false));
      // An NWC account's connection (GET /sandbox/v1/wallet) holds the nwcUrl's secret.
      await withScratchAccount(context, 'nwc', async (account) => {
        const path = `${CONTROL}/wallet`;
        const [full, readOnly] = await Promise.all([context.client.get(path, { key: account.secret }), context.client.get(path, { key: account.readOnly })]);
        await assertConnection(context, account.secret);
        if (full.status !== 200) return;
        const secrets = secretsIn(full.text);
        assert(readOnly.status === 200 || readOnly.status === 401, `GET ${path} with an NWC account's read-only key: expected 200 (or a refusal), got ${readOnly.status}`);
        assert(!secrets.some((secret) => readOnly.text.includes(secret)) && secretsIn(readOnly.text).length === 0, `GET ${path} with an NWC account's read-only key shows the nwcUrl's secret the create key sees`);
      });
    },
  },
  {
    id: 'credentials.accounts-key-only',
    holds: ['contract.accounts.keys-permission', 'contract.reading.refused-changes-nothing'],
    title: 'The accounts key gets 401 on v1 and is refused on the control API; other keys are refused on the accounts API, which then changes nothing',
    section: 'CONTRACT: Default accounts',
    statement: 'CONTRACT: "`accounts`: creates and deletes accounts, nothing else"; the accounts API takes "a key with the accounts permission"',
    level: 'MUST',
    profile: 'full',
    needs: ['adminKey', 'controls'],
    async run(context: CheckContext) {
      const adminKey = context.options.adminKey!;
      const { id } = await sharedPaymentRequest(context);
      const wrong: string[] = [];
      const v1 = await Promise.all([
        context.client.post(COLLECTION, { key: adminKey, body: validBody({ description: 'lnpr conformance: accounts key' }) }),
        context.client.get(requestPath(id), { key: adminKey }),
      ]);
      v1.forEach((answer, index) => {
        if (answer.status !== 401) wrong.push(`${index === 0 ? `POST ${COLLECTION}` : `GET ${requestPath(id)}`} with the accounts key: expected 401, got ${answer.status}`);
      });
      // The contract names no status for the accounts key on the control API: any refusal (401 or 403) holds "nothing else".
      for (const [method, path] of [['GET', `${CONTROL}/clock`], ['POST', transitionPath(id, 'fail')]] as const) {
        const answer = await context.client.request(method, path, { key: adminKey });
        if (answer.status !== 401 && answer.status !== 403) wrong.push(`${method} ${path} with the accounts key: expected a refusal (401), got ${answer.status} ${describeBody(answer)}`);
      }
      await withScratchAccount(context, 'custodial', async (account) => {
        const name = `lnpr conformance refused ${Math.random().toString(36).slice(2)}`;
        for (const { what, key } of [{ what: 'the main key', key: undefined }, { what: "an account's read-only key", key: account.readOnly }, { what: "an account's secret key", key: account.secret }]) {
          const asKey = key === undefined ? {} : { key };
          const answers = await Promise.all([
            context.client.post(`${CONTROL}/accounts`, { ...asKey, body: { mode: 'custodial', name } }),
            context.client.get(`${CONTROL}/accounts`, asKey),
            context.client.request('DELETE', `${CONTROL}/accounts/${encodeURIComponent(account.id)}`, asKey),
          ]);
          ['POST', 'GET', 'DELETE'].forEach((method, index) => {
            const status = answers[index]!.status;
            if (status !== 401 && status !== 403) wrong.push(`${method} ${CONTROL}/accounts with ${what}: expected a refusal (401), got ${status}`);
          });
        }
        const listed = await context.client.get(`${CONTROL}/accounts?limit=1000`, { key: adminKey });
        const data: unknown[] = isObject(listed.body) && Array.isArray(listed.body.data) ? listed.body.data : [];
        if (data.some((entry) => isObject(entry) && entry.name === name)) wrong.push(`a refused POST ${CONTROL}/accounts made an account anyway`);
        if (!data.some((entry) => isObject(entry) && entry.id === account.id)) wrong.push(`a refused DELETE ${CONTROL}/accounts/{id} deleted the account anyway`);
      });
      assert(wrong.length === 0, wrong.join('; '));
    },
  },
  {
    id: 'credentials.refused-leaves-nothing',
    holds: ['contract.reading.refused-changes-nothing'],
    title: 'Refused requests (400 and 401 creates, 401 and 409 control calls, a 400 clock advance) store nothing, emit no event and move nothing',
    section: 'CONTRACT: Readings the suite holds',
    statement: 'CONTRACT: "a refused request (401, 400) changes nothing and emits nothing"',
    level: 'MUST',
    profile: 'full',
    needs: ['adminKey', 'controls'],
    async run(context) {
      await withScratchAccount(context, 'custodial', async (account) => {
        const key = account.secret;
        const pending = await createPaymentRequest(context, { description: 'lnpr conformance: refusals, pending' }, { key });
        const paid = await createPaymentRequest(context, { description: 'lnpr conformance: refusals, paid' }, { key });
        // Timestamps may be whole seconds: let the completion move updatedAt (lifecycle.updated-at-every-transition reviews it).
        await context.client.post(`${CONTROL}/clock/advance`, { key, body: { seconds: 1 } });
        const completed = await context.client.post(transitionPath(paid.id, 'complete'), { key });
        assert(completed.status === 200, `POST ${transitionPath(paid.id, 'complete')} in a scratch account: expected 200, got ${completed.status}`);
        const eventsPath = `${CONTROL}/events`;
        const countEvents = async () => {
          const answer = await context.client.get(eventsPath, { key });
          return answer.status === 200 && isObject(answer.body) && Array.isArray(answer.body.data) ? answer.body.data.length : undefined;
        };
        const [eventsBefore, pendingBefore, paidBefore, clockBefore] = await Promise.all([countEvents(), getPaymentRequest(context, pending.id, { key }), getPaymentRequest(context, paid.id, { key }), readClockOf(context, key)]);
        const refused: Array<{ what: string; status: number; expected: number[] }> = [];
        const send = async (what: string, expected: number[], make: () => Promise<{ status: number }>) => refused.push({ what, expected, status: (await make()).status });
        await send(`POST ${COLLECTION} without amount`, [400], () => context.client.post(COLLECTION, { key, body: { description: 'lnpr conformance: refused', destinationWallet: 'conformance@example.com' } }));
        await send(`POST ${COLLECTION} with the read-only key`, [401], () => context.client.post(COLLECTION, { key: account.readOnly, body: validBody({ description: 'lnpr conformance: refused' }) }));
        await send(`POST ${transitionPath(pending.id, 'fail')} with the read-only key`, [401], () => context.client.post(transitionPath(pending.id, 'fail'), { key: account.readOnly }));
        await send(`POST ${transitionPath(paid.id, 'fail')} on a completed request`, [409], () => context.client.post(transitionPath(paid.id, 'fail'), { key }));
        // The contract names no status for a bad control body; a 4xx that is a refusal of the input.
        await send(`POST ${CONTROL}/clock/advance {"seconds": "a day"}`, [400, 422], () => context.client.post(`${CONTROL}/clock/advance`, { key, body: { seconds: 'a day' } }));
        const [eventsAfter, pendingAfter, paidAfter, clockAfter] = await Promise.all([countEvents(), getPaymentRequest(context, pending.id, { key }), getPaymentRequest(context, paid.id, { key }), readClockOf(context, key)]);
        const wrong = refused.filter(({ status, expected }) => !expected.includes(status)).map(({ what, status, expected }) => `${what}: expected ${expected.join(' or ')}, got ${status}`);
        if (eventsBefore !== undefined && eventsAfter !== eventsBefore) wrong.push(`GET ${eventsPath}: ${eventsBefore} events before the refused requests, ${eventsAfter} after (a refused request emits nothing)`);
        for (const [what, before, after] of [['the pending request', pendingBefore, pendingAfter], ['the completed request', paidBefore, paidAfter]] as const) {
          const problems = [...differences(before, after), ...differences(after, before)];
          if (problems.length > 0 || after.updatedAt !== before.updatedAt) wrong.push(`${what} after the refused requests: expected it unchanged; ${problems.join('; ') || `updatedAt ${show(before.updatedAt)} → ${show(after.updatedAt)}`}`);
        }
        if (clockAfter.nowMs - clockBefore.nowMs >= 3_600_000) wrong.push(`the clock moved ${Math.round((clockAfter.nowMs - clockBefore.nowMs) / 1000)} s after a refused advance`);
        assert(wrong.length === 0, wrong.join('; '));
      });
    },
  },
  {
    id: 'credentials.created-only-when-answered',
    holds: ['contract.reading.refused-changes-nothing', 'spec.create.201'],
    title: "Every payment request the main account's events show created during the run is one the run was answered 201 for: refused creates (400, 401) and answered ones stored twice leave none",
    section: 'CONTRACT: Readings the suite holds',
    statement: 'CONTRACT: "a refused request (401, 400) changes nothing and emits nothing"; Webhooks: "The sandbox emits an event on every change of a payment request"',
    level: 'MUST',
    profile: 'full',
    needs: ['controls'],
    last: true,
    before: (context) => eventIdsBeforeRun(context),
    async run(context) {
      // What the run made in the main account (the main and read-only keys' account): every 201 of a create.
      const madeByRun = () => {
        const made = context.client
          .v1Answers()
          .filter((answer) => answer.method === 'POST' && answer.path === COLLECTION && answer.status === 201 && (answer.key === 'main' || answer.key === 'read-only') && isObject(answer.body))
          .map((answer) => answer.body as Record<string, unknown>);
        return { ids: new Set(made.map((body) => body.id)), first: made[0], start: Math.min(...made.map((body) => timeOf(body.createdAt)).filter(Number.isFinite)) };
      };
      if (!Number.isFinite(madeByRun().start)) throw new CheckSkipped('the run made no payment request in the main account');
      const path = `${CONTROL}/events?limit=1000`;
      const answer = await context.client.get(path);
      if (answer.status === 404 || answer.status === 405) throw new CheckSkipped(`the target lists no events (GET ${path} answered ${answer.status})`);
      assert(answer.status === 200 && isObject(answer.body) && Array.isArray(answer.body.data), `GET ${path}: expected 200 {"data": [...]}, got ${answer.status} ${describeBody(answer)}`);
      const created = answer.body.data.filter((event: unknown) => isObject(event) && event.type === 'payment_request.created' && isObject(event.data));
      // With --admin-key the main account is the run's own, new and empty: every created event is the run's business.
      // Without it, the events listed before the run began (read first, before any check) are not the run's; if
      // that read failed, only what came after the run's first create: listed before its event (newest first)
      // and made in a later instant (an earlier run's last creates may share the second of this run's first).
      const isolated = context.options.adminKey !== undefined;
      const before = await eventIdsBeforeRun(context).catch(() => undefined);
      const strangers = () => {
        const { ids, first, start } = madeByRun();
        const firstAt = created.findIndex((event: any) => event.data.id === first?.id);
        const duringRun = (event: any, index: number) =>
          isolated || (before !== undefined ? !before.has(event.id) : (firstAt < 0 || index < firstAt) && timeOf(event.data.createdAt) > start);
        return created.filter((event: any, index: number) => !ids.has(event.data.id) && duringRun(event, index));
      };
      // Other checks create while this one reads: a create whose event is listed may not have had its 201 read yet. Give those a moment.
      let unknown = strangers();
      for (let wait = 0; unknown.length > 0 && wait < 10; wait++) {
        await sleep(300);
        unknown = strangers();
      }
      assert(
        unknown.length === 0,
        `GET ${path}: ${unknown.length} payment_request.created event(s) since the run's first create for requests the run was never answered 201 for (${unknown
          .slice(0, 3)
          .map((event: any) => `${show(event.data.id)}: ${show(event.data.description)}`)
          .join('; ')}): a refused create stored something, or one create stored two (without --admin-key, another client of the account would show here too)`,
      );
    },
  },
];

/** The ids of the events the main account listed before the run began (its newest 1,000), read once per run. */
function eventIdsBeforeRun(context: CheckContext): Promise<Set<string>> {
  return context.shared('credentials.event-ids-before-run', async () => {
    const answer = await context.client.get(`${CONTROL}/events?limit=1000`);
    if (!(answer.status === 200 && isObject(answer.body) && Array.isArray(answer.body.data))) throw new Error(`GET ${CONTROL}/events answered ${answer.status}`);
    return new Set(answer.body.data.map((event: unknown) => (isObject(event) ? String(event.id) : '')));
  });
}

/** `GET /sandbox/v1/wallet` with an NWC account's create key: `{relay, walletPubkey, nwcUrl?, online, encryption}` (skipped where the target has none). */
async function assertConnection(context: CheckContext, key: string): Promise<void> {
  const path = `${CONTROL}/wallet`;
  const answer = await context.client.get(path, { key });
  if (answer.status === 404 || answer.status === 405) return;
  assert(answer.status === 200 && isObject(answer.body), `GET ${path} with an NWC account's key: expected 200 with its connection, got ${answer.status} ${answer.status === 200 ? 'a body that is not a JSON object' : ''}`);
  const { relay, walletPubkey, online, encryption } = answer.body;
  const problems: string[] = [];
  if (!(typeof relay === 'string' && /^wss?:\/\/[^/]/.test(relay))) problems.push(`relay: expected a ws:// or wss:// URL, got ${show(relay)}`);
  if (!(typeof walletPubkey === 'string' && /^[0-9a-f]{64}$/i.test(walletPubkey))) problems.push(`walletPubkey: expected 64 hex digits, got ${show(walletPubkey)}`);
  if (typeof online !== 'boolean') problems.push(`online: expected a boolean, got ${show(online)}`);
  if (!(typeof encryption === 'string' && encryption !== '')) problems.push(`encryption: expected a string, got ${show(encryption)}`);
  assert(problems.length === 0, `GET ${path} with an NWC account's key: ${problems.join('; ')}`);
}
