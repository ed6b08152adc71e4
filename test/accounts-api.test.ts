/**
 * Isolation through the real server (CONTRACT.md, "Sandbox control API" and "Accounts for isolated
 * runs"): a reset that leaves nothing of the account's activity behind (its pending deliveries
 * and expiries cancelled, its clock back), `{"scope": "all"}` that takes endpoints and rules too,
 * and accounts made, used, listed and deleted with a key that only manages accounts, persisting
 * with `--data` with their keys kept only as digests.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeInvoice } from '../src/lightning/index.js';
import { createBody, KEYS, startServer, type RunningServer } from './support/sandbox-server.js';
import { startReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

let server: RunningServer;
let receiver: WebhookReceiver;
beforeEach(async () => {
  [server, receiver] = await Promise.all([startServer({ clock: 'frozen' }), startReceiver()]);
});
afterEach(async () => {
  await server.close();
  await receiver.close();
});

const control = (path: string, body?: unknown, key: string = KEYS.custodial) => server.api(`/sandbox/v1${path}`, { method: 'POST', key, ...(body !== undefined ? { body } : {}) });
const list = async (path: string, key: string = KEYS.custodial) => (await server.api(`/sandbox/v1${path}`, { key })).body.data as Array<Record<string, any>>;
/** How far the key's account's clock is from where a clock starts (this server's clocks start frozen at its start). */
const clockMovedMs = async (key: string = KEYS.custodial) => Date.parse((await server.api('/sandbox/v1/clock', { key })).body.now) - server.sandbox.clocks.now('acct_never_used');
const settled = () => server.sandbox.events.settle();
const register = async (key: string = KEYS.custodial, body: Record<string, unknown> = {}) => {
  const res = await server.api('/sandbox/v1/webhook-endpoints', { key, body: { url: receiver.url, ...body } });
  expect(res.status).toBe(201);
  receiver.secret = res.body.secret;
  return res.body as { id: string };
};
const newAccount = async (body: Record<string, unknown> = { mode: 'custodial' }) => {
  const res = await server.api('/sandbox/v1/accounts', { key: KEYS.admin, body });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; name: string | null; mode: string; keys: { secret: string; readOnly: string }; createdAt: string };
};

describe('POST /sandbox/v1/reset', () => {
  it("deletes the account's requests, events and deliveries, cancels what was due, sets the clock back; endpoints and rules stay", async () => {
    receiver.answer = () => 500;
    const endpoint = await register();
    const rule = { name: 'tiny ones fail', match: { amount: 21 }, outcome: 'fail' };
    expect((await server.api('/sandbox/v1/rules', { method: 'PUT', body: { rules: [rule] } })).status).toBe(200);
    const paid = await server.create();
    await control(`/payment-requests/${paid.id}/complete`);
    const expiring = await server.create({ expiresIn: 60 });
    await settled();
    // Three events (created, completed, created), each tried once and failed; their retries are due in 5 s.
    expect(receiver.received).toHaveLength(3);
    expect((await list('/webhook-deliveries')).filter((d) => d.status === 'pending')).toHaveLength(3);
    await control('/clock/advance', { seconds: 2 });
    const theirs = await server.create({}, KEYS.nwc);

    const res = await control('/reset');
    expect([res.status, res.text]).toEqual([204, '']);
    for (const id of [paid.id, expiring.id]) expect((await server.api(`/api/v1/payment-requests/${id}`)).status).toBe(404);
    expect(await list('/payment-requests')).toEqual([]);
    expect(await list('/events')).toEqual([]);
    expect(await list('/webhook-deliveries')).toEqual([]);
    expect(Math.abs(await clockMovedMs())).toBeLessThan(1_000);
    expect((await list('/webhook-endpoints')).map((e) => e.id)).toEqual([endpoint.id]);
    expect((await server.api('/sandbox/v1/rules')).body.rules).toEqual([rule]);

    // Nothing of the old data runs any more: no retry, no expiry, however far the clock moves.
    await control('/clock/advance', { seconds: 86_400 });
    await settled();
    expect(receiver.received).toHaveLength(3);
    expect(await list('/events')).toEqual([]);
    // The endpoint still works for what comes next.
    receiver.answer = () => 204;
    const fresh = await server.create();
    await settled();
    expect(receiver.received.at(-1)!.event).toMatchObject({ type: 'payment_request.created', data: { id: fresh.id } });
    expect((await list('/events')).map((e) => e.data.id)).toEqual([fresh.id]);
    // Other accounts keep theirs.
    expect((await server.api(`/api/v1/payment-requests/${theirs.id}`, { key: KEYS.nwc })).status).toBe(200);
  });

  it('{"scope": "all"} removes the webhook endpoints and the account\'s rules too; the fixed rules stay', async () => {
    await register();
    await server.api('/sandbox/v1/rules', { method: 'PUT', body: { rules: [{ outcome: 'fail' }] } });
    await register(KEYS.nwc);
    expect((await control('/reset', { scope: 'all' })).status).toBe(204);
    expect(await list('/webhook-endpoints')).toEqual([]);
    expect((await server.api('/sandbox/v1/rules')).body.rules).toEqual([]);
    expect(await list('/webhook-endpoints', KEYS.nwc)).toHaveLength(1);
    expect((await server.create()).status).toBe('pending');
  });

  it('takes no body, an empty object or an explicit default scope; anything else is a field-named 400', async () => {
    for (const init of [{}, { body: {} }, { body: { scope: 'activity' } }, { rawBody: '', headers: { 'content-type': 'application/json' } }]) {
      expect((await server.api('/sandbox/v1/reset', { method: 'POST', ...init })).status, JSON.stringify(init)).toBe(204);
    }
    const bad = await control('/reset', { scope: 'everything' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ field: 'scope', code: 'invalid_value', message: expect.stringContaining('activity') }]);
    expect((await control('/reset', { scope: 'all', also: 1 })).body.error.details[0]).toMatchObject({ field: 'also', code: 'unknown_field' });
    expect((await control('/reset', [])).body.error.details[0]).toMatchObject({ field: 'body', code: 'invalid_type' });
    expect((await server.api('/sandbox/v1/reset', { method: 'POST', rawBody: '{}', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await control('/reset', undefined, KEYS.readonly)).body.error.code).toBe('insufficient_permission');
  });
});

describe('accounts for isolated runs', () => {
  it('POST /sandbox/v1/accounts: a new, empty account with its own clock and two keys that work at once', async () => {
    const before = Date.now();
    const account = await newAccount({ mode: 'custodial', name: 'CI job 7' });
    expect(account).toEqual({
      id: expect.stringMatching(/^acct_[0-9A-Za-z]{24}$/),
      name: 'CI job 7',
      mode: 'custodial',
      configured: false,
      keys: { secret: expect.stringMatching(/^sk_test_[0-9A-Za-z]{32}$/), readOnly: expect.stringMatching(/^sk_test_[0-9A-Za-z]{32}$/) },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Date.parse(account.createdAt)).toBeGreaterThanOrEqual(before - 1);
    const { secret, readOnly } = account.keys;
    expect(await list('/payment-requests', secret)).toEqual([]);
    const created = await server.create({}, secret);
    expect(created).toMatchObject({ isNwc: false, status: 'pending' });
    expect((await server.api(`/api/v1/payment-requests/${created.id}`, { key: readOnly })).status).toBe(200);
    expect((await server.api('/api/v1/payment-requests', { key: readOnly, body: createBody() })).body.error.code).toBe('insufficient_permission');
    // Nothing crosses accounts, either way.
    expect((await server.api(`/api/v1/payment-requests/${created.id}`)).status).toBe(404);
    const mine = await server.create();
    expect((await server.api(`/api/v1/payment-requests/${mine.id}`, { key: secret })).status).toBe(404);
    // Its own clock: the default account's clock is frozen (this server starts frozen); the new one's too, and moves alone.
    await control('/clock/advance', { seconds: 600 }, secret);
    expect(Math.round((await clockMovedMs(secret)) / 1000) - Math.round((await clockMovedMs()) / 1000)).toBe(600);
    // Two accounts, two different keys each.
    const other = await newAccount();
    expect(new Set([secret, readOnly, other.keys.secret, other.keys.readOnly]).size).toBe(4);
  });

  it("an NWC account: non-custodial requests on the sandbox's own relay, signed by a wallet key of its own", async () => {
    const account = await newAccount({ mode: 'nwc' });
    expect(account).toMatchObject({ mode: 'nwc', name: null });
    const created = await server.create({}, account.keys.secret);
    expect(created).toMatchObject({ isNwc: true, nwcRelay: `${server.url.replace('http', 'ws')}/nostr` });
    const signers = new Set([created, await server.create(), await server.create({}, KEYS.nwc)].map((pr) => decodeInvoice(pr.invoice).payeeNodeKey));
    expect(signers.size).toBe(3);
  });

  it('GET /sandbox/v1/accounts: every account, newest first, never a key; `limit` pages it', async () => {
    const first = await newAccount();
    const second = await newAccount({ mode: 'nwc', name: 'second' });
    const res = await server.api('/sandbox/v1/accounts', { key: KEYS.admin });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { id: second.id, name: 'second', mode: 'nwc', configured: false, createdAt: second.createdAt },
      { id: first.id, name: null, mode: 'custodial', configured: false, createdAt: first.createdAt },
      { id: 'acct_custodial', name: null, mode: 'custodial', configured: true, createdAt: null },
      { id: 'acct_nwc', name: null, mode: 'nwc', configured: true, createdAt: null },
    ]);
    expect(res.text).not.toContain('sk_test_');
    expect((await list('/accounts?limit=1', KEYS.admin)).map((a) => a.id)).toEqual([second.id]);
    expect((await server.api('/sandbox/v1/accounts?limit=1001', { key: KEYS.admin })).body.error.details[0]).toMatchObject({ field: 'limit', code: 'above_maximum' });
  });

  it('DELETE /sandbox/v1/accounts/{id}: the account, its keys and all its data go; deliveries due are never attempted', async () => {
    const account = await newAccount();
    const { secret, readOnly } = account.keys;
    receiver.answer = () => 500;
    await register(secret);
    const created = await server.create({}, secret);
    await control('/clock/advance', { seconds: 1 }, secret);
    await settled();
    expect(receiver.received).toHaveLength(1);
    expect(server.sandbox.store.getClock(account.id)).toBeDefined();

    const res = await server.api(`/sandbox/v1/accounts/${account.id}`, { method: 'DELETE', key: KEYS.admin });
    expect([res.status, res.text]).toEqual([204, '']);
    for (const key of [secret, readOnly]) {
      const refused = await server.api('/sandbox/v1/clock', { key });
      expect([refused.status, refused.body.error.code]).toEqual([401, 'unauthorized']);
    }
    // Its request is gone even where no key is needed (the pay page), and nothing of it is kept.
    expect((await server.api(`/sandbox/v1/pay-page/${created.id}`, { key: null })).status).toBe(404);
    const { store } = server.sandbox;
    expect([store.paymentRequestsOf(account.id), store.eventsOf(account.id), store.endpointsOf(account.id), store.deliveriesOf(account.id)]).toEqual([[], [], [], []]);
    expect(store.getClock(account.id)).toBeUndefined();
    expect(store.pendingDeliveries().filter((d) => d.accountId === account.id)).toEqual([]);
    // The retry due in 5 s never comes.
    await control('/clock/advance', { seconds: 3_600 });
    await settled();
    expect(receiver.received).toHaveLength(1);
    expect((await list('/accounts', KEYS.admin)).map((a) => a.id)).not.toContain(account.id);

    const again = await server.api(`/sandbox/v1/accounts/${account.id}`, { method: 'DELETE', key: KEYS.admin });
    expect([again.status, again.body.error.code]).toEqual([404, 'account_not_found']);
    const configured = await server.api('/sandbox/v1/accounts/acct_custodial', { method: 'DELETE', key: KEYS.admin });
    expect([configured.status, configured.body.error.code]).toEqual([409, 'account_not_deletable']);
    expect((await server.api('/sandbox/v1/clock')).status).toBe(200);
  });

  it('takes a key with the accounts permission, which does nothing else', async () => {
    for (const key of [KEYS.custodial, KEYS.readonly]) {
      const refused = await server.api('/sandbox/v1/accounts', { key, body: { mode: 'custodial' } });
      expect([refused.status, refused.body.error.code], key).toEqual([401, 'insufficient_permission']);
      expect((await server.api('/sandbox/v1/accounts', { key })).status).toBe(401);
    }
    expect((await server.api('/sandbox/v1/accounts', { key: null })).body.error.code).toBe('unauthorized');
    for (const [method, path, body] of [
      ['POST', '/api/v1/payment-requests', createBody()],
      ['GET', '/api/v1/payment-requests/pr_x', undefined],
      ['GET', '/sandbox/v1/clock', undefined],
      ['POST', '/sandbox/v1/reset', undefined],
      ['GET', '/sandbox/v1/webhook-endpoints', undefined],
    ] as const) {
      const refused = await server.api(path, { method, key: KEYS.admin, ...(body ? { body } : {}) });
      expect([refused.status, refused.body.error.code], path).toEqual([401, 'insufficient_permission']);
      expect(refused.body.error.message).toMatch(/only manages accounts .*no account of its own/);
    }
    // The dashboard's live stream refuses it the same way.
    const stream = await server.api('/sandbox/v1/stream', { key: KEYS.admin });
    expect([stream.status, stream.body.error.code]).toEqual([401, 'insufficient_permission']);
  });

  it('refuses bodies it cannot take, naming the field', async () => {
    const noMode = await server.api('/sandbox/v1/accounts', { key: KEYS.admin, body: { name: 'x' } });
    expect(noMode.body.error.details).toEqual([{ field: 'mode', code: 'missing_field', message: expect.any(String) }]);
    expect((await server.api('/sandbox/v1/accounts', { key: KEYS.admin, body: { mode: 'hybrid' } })).body.error.details[0]).toMatchObject({ field: 'mode', code: 'invalid_value' });
    expect((await server.api('/sandbox/v1/accounts', { key: KEYS.admin, body: { mode: 'nwc', name: 'x'.repeat(101) } })).body.error.details[0]).toMatchObject({ field: 'name', code: 'too_long' });
    expect((await server.api('/sandbox/v1/accounts', { key: KEYS.admin, body: { mode: 'nwc', keys: {} } })).body.error.details[0]).toMatchObject({ field: 'keys', code: 'unknown_field' });
  });
});

describe('accounts with --data', () => {
  let dir: string;
  let crashed: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lnpr-accounts-'));
    crashed = mkdtempSync(join(tmpdir(), 'lnpr-accounts-crashed-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(crashed, { recursive: true, force: true });
  });

  it('a reset holds after a restart and after a crash: what it erased does not come back', async () => {
    const dataFile = join(dir, 'reset.json');
    const first = await startServer({ dataFile });
    await first.api('/sandbox/v1/webhook-endpoints', { body: { url: 'http://127.0.0.1:9/gone' } });
    await first.api('/sandbox/v1/webhook-endpoints', { key: KEYS.nwc, body: { url: 'http://127.0.0.1:9/gone' } });
    const gone = await first.create();
    const kept = await first.create({}, KEYS.nwc);
    await first.sandbox.events.settle();
    expect((await first.api('/sandbox/v1/reset', { method: 'POST', body: { scope: 'all' } })).status).toBe(204);
    expect((await first.api('/sandbox/v1/reset', { method: 'POST', key: KEYS.nwc })).status).toBe(204);
    const after = await first.create({}, KEYS.nwc);
    for (const name of readdirSync(dir)) if (name.startsWith('reset.json') && !name.endsWith('.lock')) cpSync(join(dir, name), join(crashed, name));
    await first.close();

    for (const file of [dataFile, join(crashed, 'reset.json')]) {
      const again = await startServer({ dataFile: file });
      try {
        const { store } = again.sandbox;
        expect(store.getPaymentRequest(gone.id), file).toBeUndefined();
        expect(store.getPaymentRequest(kept.id), file).toBeUndefined();
        expect(store.getPaymentRequest(after.id)?.id, file).toBe(after.id);
        expect(store.endpointsOf('acct_custodial'), file).toEqual([]);
        expect(store.endpointsOf('acct_nwc'), file).toHaveLength(1);
        expect(store.eventsOf('acct_custodial'), file).toEqual([]);
        expect(store.eventsOf('acct_nwc').map((event) => event.data.id), file).toEqual([after.id]);
        expect(store.pendingDeliveries().filter((d) => d.event !== store.eventsOf('acct_nwc')[0]!.id), file).toEqual([]);
      } finally {
        await again.close();
      }
    }
  });

  it('persist across a restart, their keys kept only as SHA-256 digests; a deleted one stays deleted', async () => {
    const dataFile = join(dir, 'sandbox.json');
    const first = await startServer({ dataFile });
    const account = await (async () => {
      const res = await first.api('/sandbox/v1/accounts', { key: KEYS.admin, body: { mode: 'nwc', name: 'kept' } });
      expect(res.status).toBe(201);
      return res.body as { id: string; keys: { secret: string; readOnly: string } };
    })();
    const doomed = (await first.api('/sandbox/v1/accounts', { key: KEYS.admin, body: { mode: 'custodial' } })).body as { id: string; keys: { secret: string } };
    const created = await first.create({}, account.keys.secret);
    await first.api('/sandbox/v1/clock/advance', { key: account.keys.secret, body: { seconds: 90 } });

    // A crash now: the journal alone holds the accounts (a copy of the files, taken while open).
    for (const name of readdirSync(dir)) if (name.startsWith('sandbox.json') && !name.endsWith('.lock')) cpSync(join(dir, name), join(crashed, name));
    const replayed = await startServer({ dataFile: join(crashed, 'sandbox.json') });
    try {
      expect((await replayed.api(`/api/v1/payment-requests/${created.id}`, { key: account.keys.readOnly })).body.isNwc).toBe(true);
    } finally {
      await replayed.close();
    }

    await first.close();
    const onDisk = readdirSync(dir).filter((name) => name.startsWith('sandbox.json')).map((name) => readFileSync(join(dir, name), 'utf8')).join('\n');
    for (const key of [account.keys.secret, account.keys.readOnly, doomed.keys.secret]) {
      expect(onDisk).not.toContain(key);
      expect(onDisk).toContain(bytesToHex(sha256(utf8ToBytes(key))));
    }

    let second = await startServer({ dataFile });
    const read = await second.api(`/api/v1/payment-requests/${created.id}`, { key: account.keys.readOnly });
    expect(read.body).toMatchObject({ id: created.id, isNwc: true, invoice: created.invoice });
    expect((await second.api('/sandbox/v1/accounts', { key: KEYS.admin })).body.data.slice(0, 2).map((a: { id: string }) => a.id)).toEqual([doomed.id, account.id]);
    // The same wallet node key signs its new invoices, and its clock is where it was left.
    const again = await second.create({}, account.keys.secret);
    expect(decodeInvoice(again.invoice).payeeNodeKey).toBe(decodeInvoice(created.invoice).payeeNodeKey);
    expect(Date.parse((await second.api('/sandbox/v1/clock', { key: account.keys.secret })).body.now) - Date.now()).toBeGreaterThan(80_000);
    expect((await second.api(`/sandbox/v1/accounts/${doomed.id}`, { method: 'DELETE', key: KEYS.admin })).status).toBe(204);
    await second.close();

    second = await startServer({ dataFile });
    try {
      expect((await second.api('/sandbox/v1/clock', { key: doomed.keys.secret })).status).toBe(401);
      expect((await second.api('/sandbox/v1/clock', { key: account.keys.secret })).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
