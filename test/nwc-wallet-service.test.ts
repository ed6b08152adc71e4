/**
 * Our NIP-47 wallet service (NwcWalletService) answering an independent client: @getalby/sdk
 * 7.0.0's NWCClient, through a real relay on 127.0.0.1 (test harness relay). Every method over
 * NIP-44 and over NIP-04 (the sdk picks NIP-04 when the info event offers only that), error
 * answers, notifications, and the service's bounds: a removed connection goes quiet, a throwing
 * backend answers INTERNAL and the service carries on, requests in flight are capped, a request
 * is answered once, and what it must not answer it ignores.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';
import * as nip44 from 'nostr-tools/nip44';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { Nip47Error, type Nip47Encryption, type Nip47Transaction } from '../src/nostr/nwc/nip47.js';
import { formatNwcUrl } from '../src/nostr/nwc/nwc-url.js';
import { NwcWalletService, type NwcRequestRecord, type WalletBackend } from '../src/nostr/nwc/wallet-service.js';
import { webSocketRelaySession, type WebSocketRelaySession } from '../src/nostr/web-socket-relay-session.node.js';
import { startNostrTestRelay, type NostrTestRelay } from './support/nostr-test-relay.js';
import { tappedSession } from './support/tapped-session.js';

// Node 20 has no global WebSocket; the sdk's bundled nostr-tools reads it when the sdk loads,
// hence the dynamic import below.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
type Sdk = typeof import('@getalby/sdk/nwc');
type SdkClient = InstanceType<Sdk['NWCClient']>;

const ALL_METHODS = ['get_info', 'get_balance', 'pay_invoice', 'make_invoice', 'lookup_invoice', 'list_transactions'];
const NOTIFICATIONS = ['payment_received', 'payment_sent'];
const seconds = () => Math.floor(Date.now() / 1000);

/** An in-memory wallet: invoices it makes, payments it sends (5,000 sats unless `amount` says). */
function testWallet(balance: number) {
  const wallet = {
    balance,
    transactions: [] as Nip47Transaction[],
    failNext: undefined as Error | undefined,
    made: [] as unknown[],
    backend: undefined as unknown as WalletBackend,
  };
  const failing = () => {
    const failure = wallet.failNext;
    wallet.failNext = undefined;
    if (failure) throw failure;
  };
  wallet.backend = {
    getInfo: () => ({ alias: 'test wallet', color: '#3399ff', pubkey: `02${'ab'.repeat(32)}`, network: 'regtest', block_height: 101, block_hash: '00'.repeat(32) }),
    getBalance: () => {
      failing();
      return { balance: wallet.balance };
    },
    async makeInvoice(params) {
      failing();
      wallet.made.push(params);
      const paymentHash = bytesToHex(sha256(randomBytes(32)));
      const transaction: Nip47Transaction = {
        type: 'incoming',
        state: 'pending',
        invoice: `lnbcrt${params.amount}test${paymentHash.slice(0, 16)}`,
        ...(params.description !== undefined ? { description: params.description } : {}),
        payment_hash: paymentHash,
        amount: params.amount,
        fees_paid: 0,
        created_at: seconds(),
        expires_at: seconds() + (params.expiry ?? 3600),
      };
      wallet.transactions.unshift(transaction);
      return transaction;
    },
    lookupInvoice(params) {
      const found = wallet.transactions.find((transaction) => transaction.payment_hash === params.payment_hash || (params.invoice !== undefined && transaction.invoice === params.invoice));
      if (!found) throw new Nip47Error('NOT_FOUND', 'no such invoice');
      return found;
    },
    async payInvoice(params) {
      const amount = params.amount ?? 5_000_000;
      if (amount > wallet.balance) throw new Nip47Error('INSUFFICIENT_BALANCE', `balance ${wallet.balance} msats, need ${amount}`);
      wallet.balance -= amount;
      const preimage = bytesToHex(randomBytes(32));
      const paymentHash = bytesToHex(sha256(Buffer.from(preimage, 'hex')));
      wallet.transactions.unshift({ type: 'outgoing', state: 'settled', invoice: params.invoice, preimage, payment_hash: paymentHash, amount, fees_paid: 0, created_at: seconds(), settled_at: seconds() });
      return { preimage, fees_paid: 0 };
    },
    listTransactions(params) {
      const offset = params.offset ?? 0;
      return { transactions: wallet.transactions.filter((transaction) => !params.type || transaction.type === params.type).slice(offset, offset + (params.limit ?? 20)) };
    },
  };
  return wallet;
}

describe('NwcWalletService answering @getalby/sdk 7.0.0 NWCClient', () => {
  let sdk: Sdk;
  let relay: NostrTestRelay;
  let session: WebSocketRelaySession;
  let service: NwcWalletService;
  const errors: unknown[] = [];
  const records: NwcRequestRecord[] = [];
  const clients: SdkClient[] = [];

  beforeAll(async () => {
    // The sdk logs every request and failure; the assertions say what matters.
    for (const method of ['info', 'warn', 'error'] as const) vi.spyOn(console, method).mockImplementation(() => {});
    sdk = await import('@getalby/sdk/nwc');
    relay = await startNostrTestRelay();
    session = webSocketRelaySession(relay.url, { publishTimeoutMs: 3_000 });
    service = new NwcWalletService(session, { onError: (error) => errors.push(error), onRequest: (record) => records.push(record) });
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    service.close();
    session.close();
    await relay.close();
    vi.restoreAllMocks();
  });

  /** A connection served by `target` and an sdk client holding its connection URI. */
  async function connect(options: { encryptions?: Nip47Encryption[]; methods?: string[]; balance?: number; target?: NwcWalletService } = {}) {
    const walletSecretKey = generateSecretKey();
    const clientSecretKey = generateSecretKey();
    const wallet = testWallet(options.balance ?? 100_000_000);
    await (options.target ?? service).add({
      walletSecretKey,
      clientPubkey: getPublicKey(clientSecretKey),
      backend: wallet.backend,
      methods: options.methods ?? ALL_METHODS,
      notifications: NOTIFICATIONS,
      ...(options.encryptions ? { encryptions: options.encryptions } : {}),
    });
    const walletPubkey = getPublicKey(walletSecretKey);
    const client = new sdk.NWCClient({ nostrWalletConnectUrl: formatNwcUrl({ walletPubkey, relays: [relay.url], secret: clientSecretKey }) });
    clients.push(client);
    return { client, wallet, walletPubkey, walletSecretKey, clientSecretKey, clientPubkey: getPublicKey(clientSecretKey) };
  }

  /** What the client asserts about an error answer: the sdk's Nip47WalletError with the code. */
  async function expectWalletError(promise: Promise<unknown>, code: string) {
    const error = await promise.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(sdk.Nip47WalletError);
    expect((error as InstanceType<Sdk['Nip47WalletError']>).code).toBe(code);
  }

  describe.each([
    ['nip44_v2', undefined],
    ['nip04', ['nip04'] as Nip47Encryption[]],
  ])('over %s', (encryption, encryptions) => {
    let connection: Awaited<ReturnType<typeof connect>>;

    beforeAll(async () => {
      connection = await connect({ ...(encryptions ? { encryptions } : {}) });
    });

    it('get_info: the connection’s methods and notifications, the backend’s node facts; the sdk chose this encryption', async () => {
      const info = await connection.client.getInfo();
      expect(info).toMatchObject({ alias: 'test wallet', network: 'regtest', block_height: 101, methods: ALL_METHODS, notifications: NOTIFICATIONS });
      expect(connection.client.encryptionType).toBe(encryption);
      const requests = relay.events.filter((event) => event.kind === 23194 && event.pubkey === connection.clientPubkey);
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) expect(request.tags).toContainEqual(['encryption', encryption]);
      // The answer: p = the client, e = the request.
      const answer = relay.events.find((event) => event.kind === 23195 && event.tags.some(([name, value]) => name === 'e' && value === requests[0]!.id));
      expect(answer?.pubkey).toBe(connection.walletPubkey);
      expect(answer?.tags).toContainEqual(['p', connection.clientPubkey]);
    });

    it('get_balance', async () => {
      await expect(connection.client.getBalance()).resolves.toEqual({ balance: connection.wallet.balance });
    });

    it('make_invoice: the params reach the backend, the transaction comes back', async () => {
      const invoice = await connection.client.makeInvoice({ amount: 21_000, description: 'coffee', expiry: 600 });
      expect(connection.wallet.made.at(-1)).toEqual({ amount: 21_000, description: 'coffee', expiry: 600 });
      expect(invoice).toMatchObject({ type: 'incoming', state: 'pending', amount: 21_000, description: 'coffee', invoice: expect.stringMatching(/^lnbcrt21000test/) });
    });

    it('lookup_invoice, by payment hash and by invoice; NOT_FOUND for an unknown one', async () => {
      const made = await connection.client.makeInvoice({ amount: 1_000, description: 'look me up' });
      await expect(connection.client.lookupInvoice({ payment_hash: made.payment_hash })).resolves.toMatchObject({ invoice: made.invoice, amount: 1_000 });
      await expect(connection.client.lookupInvoice({ invoice: made.invoice })).resolves.toMatchObject({ payment_hash: made.payment_hash });
      await expectWalletError(connection.client.lookupInvoice({ payment_hash: '00'.repeat(32) }), 'NOT_FOUND');
    });

    it('pay_invoice: the preimage; INSUFFICIENT_BALANCE beyond the balance', async () => {
      const before = connection.wallet.balance;
      const paid = await connection.client.payInvoice({ invoice: 'lnbcrt50u1payee' });
      expect(paid.preimage).toMatch(/^[0-9a-f]{64}$/);
      expect(paid.fees_paid).toBe(0);
      expect(connection.wallet.balance).toBe(before - 5_000_000);
      await expectWalletError(connection.client.payInvoice({ invoice: 'lnbcrt1payee', amount: before * 10 }), 'INSUFFICIENT_BALANCE');
    });

    it('list_transactions: newest first, filtered and paged as asked', async () => {
      const all = await connection.client.listTransactions({});
      expect(all.transactions.length).toBe(connection.wallet.transactions.length);
      expect(all.transactions[0]).toEqual(connection.wallet.transactions[0]);
      const incoming = await connection.client.listTransactions({ type: 'incoming', limit: 1, offset: 1 });
      expect(incoming.transactions).toEqual([connection.wallet.transactions.filter((transaction) => transaction.type === 'incoming')[1]]);
    });

    it('notifications: subscribeNotifications receives payment_received sent by notify()', async () => {
      const received: unknown[] = [];
      const unsubscribe = await connection.client.subscribeNotifications((notification) => received.push(notification));
      try {
        const kind = encryption === 'nip04' ? 23196 : 23197;
        await relay.waitForSubscription((filters) => filters.some((filter) => filter.kinds?.includes(kind) && filter['#p']?.includes(connection.clientPubkey)));
        const transaction = connection.wallet.transactions.find((candidate) => candidate.type === 'incoming')!;
        const settled = { ...transaction, state: 'settled' as const, preimage: 'ab'.repeat(32), settled_at: seconds() };
        await service.notify(connection.walletPubkey, { notification_type: 'payment_received', notification: settled });
        await expect.poll(() => received, { timeout: 3_000 }).toEqual([{ notification_type: 'payment_received', notification: settled }]);
        // A NIP-04-only connection publishes 23196 alone; a connection with both publishes both.
        const published = relay.events.filter((event) => event.pubkey === connection.walletPubkey && (event.kind === 23196 || event.kind === 23197));
        expect(published.map((event) => event.kind).sort()).toEqual(encryption === 'nip04' ? [23196] : [23196, 23197]);
      } finally {
        unsubscribe();
      }
    });
  });

  it('an unknown method answers NOT_IMPLEMENTED; a method the connection may not call, RESTRICTED', async () => {
    const { client } = await connect({ methods: ['get_info', 'get_balance'] });
    await expectWalletError(client.signMessage({ message: 'hello' }), 'NOT_IMPLEMENTED');
    await expectWalletError(client.makeInvoice({ amount: 1_000 }), 'RESTRICTED');
    await expect(client.getBalance()).resolves.toEqual({ balance: 100_000_000 });
  });

  it('bad params answer OTHER naming the parameter', async () => {
    const { client } = await connect();
    await expectWalletError(client.makeInvoice({ amount: 1.5 }), 'OTHER');
    await expectWalletError(client.listTransactions({ type: 'sideways' as 'incoming' }), 'OTHER');
  });

  it('a removed connection stops answering (the client times out)', async () => {
    const { client, walletPubkey } = await connect();
    await expect(client.getBalance()).resolves.toBeDefined();
    service.remove(walletPubkey);
    expect(service.has(walletPubkey)).toBe(false);
    // The sdk's getBalance waits 10 s; its own request path with a short reply timeout instead.
    const execute = (client as unknown as { executeNip47Request: (...args: unknown[]) => Promise<unknown> }).executeNip47Request.bind(client);
    const failure = await execute('get_balance', {}, () => true, { replyTimeout: 700 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(sdk.Nip47ReplyTimeoutError);
  });

  it('a backend that throws answers INTERNAL, is reported, and the next request is answered', async () => {
    const { client, wallet } = await connect();
    const thrown = new Error('database on fire');
    wallet.failNext = thrown;
    await expectWalletError(client.getBalance(), 'INTERNAL');
    expect(errors).toContain(thrown);
    wallet.failNext = new TypeError('not even an Error with a code');
    await expectWalletError(client.makeInvoice({ amount: 5_000 }), 'INTERNAL');
    await expect(client.getBalance()).resolves.toEqual({ balance: 100_000_000 });
  });

  it('more requests in flight than the limit: the extra one answers RATE_LIMITED', async () => {
    const limited = new NwcWalletService(session, { limits: { maxInFlightPerConnection: 2 } });
    try {
      const { client, wallet } = await connect({ target: limited });
      await client.getInfo(); // the sdk reads the info event once, before any request
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const getBalance = wallet.backend.getBalance;
      wallet.backend.getBalance = async () => {
        await gate;
        return getBalance();
      };
      const attempts = [client.getBalance(), client.getBalance(), client.getBalance()].map((attempt) =>
        attempt.then(
          () => 'answered',
          (error: { code?: string }) => error.code,
        ),
      );
      // The refusal comes while the first two still wait.
      await expect(Promise.race(attempts)).resolves.toBe('RATE_LIMITED');
      release();
      expect((await Promise.all(attempts)).sort()).toEqual(['RATE_LIMITED', 'answered', 'answered']);
    } finally {
      limited.close();
    }
  });

  it('the same request event delivered twice is answered once', async () => {
    const { walletPubkey, clientSecretKey, clientPubkey } = await connect();
    const key = nip44.v2.utils.getConversationKey(clientSecretKey, walletPubkey);
    const request = (method: string) =>
      finalizeEvent(
        { kind: 23194, created_at: seconds(), tags: [['p', walletPubkey], ['encryption', 'nip44_v2']], content: nip44.v2.encrypt(JSON.stringify({ method, params: {} }), key) },
        clientSecretKey,
      );
    const answersTo = (id: string) => relay.events.filter((event) => event.kind === 23195 && event.tags.some(([name, value]) => name === 'e' && value === id));
    const raw = webSocketRelaySession(relay.url);
    try {
      const first = request('get_balance');
      await raw.publish(first);
      await expect.poll(() => answersTo(first.id).length, { timeout: 3_000 }).toBe(1);
      await raw.publish(first); // the harness relay passes duplicates on
      const second = request('get_info');
      await raw.publish(second);
      // Requests are handled in order: once the second is answered, the duplicate has been seen.
      await expect.poll(() => answersTo(second.id).length, { timeout: 3_000 }).toBe(1);
      expect(answersTo(first.id)).toHaveLength(1);
      expect(answersTo(first.id)[0]!.tags).toContainEqual(['p', clientPubkey]);
    } finally {
      raw.close();
    }
  });

  it('requests it must not answer are ignored, and it keeps answering: expired, too large, undecryptable, from a stranger, bad signature', async () => {
    const tap = tappedSession(session);
    const seen: NwcRequestRecord[] = [];
    const guarded = new NwcWalletService(tap.session, { onRequest: (record) => seen.push(record), limits: { maxContentChars: 10_000 } });
    try {
      const { client, walletPubkey, clientSecretKey } = await connect({ target: guarded });
      const key = nip44.v2.utils.getConversationKey(clientSecretKey, walletPubkey);
      const body = JSON.stringify({ method: 'get_balance', params: {} });
      const event = (content: string, extraTags: string[][] = [], signer = clientSecretKey) =>
        finalizeEvent({ kind: 23194, created_at: seconds(), tags: [['p', walletPubkey], ['encryption', 'nip44_v2'], ...extraTags], content }, signer);
      const expired = event(nip44.v2.encrypt(body, key), [['expiration', String(seconds() - 60)]]);
      const huge = event('A'.repeat(20_000));
      const garbage = event(nip44.v2.encrypt(body, key).slice(0, -8) + 'AAAAAAAA');
      const stranger = event(nip44.v2.encrypt(body, key), [], generateSecretKey());
      // As it would come off a socket: JSON (nostr-tools marks events it signed as verified, and a spread copies the mark).
      const forged = { ...JSON.parse(JSON.stringify(event(nip44.v2.encrypt(body, key)))), content: nip44.v2.encrypt(JSON.stringify({ method: 'pay_invoice', params: { invoice: 'x' } }), key) };
      for (const bad of [expired, huge, garbage, stranger, forged]) tap.inject(bad);
      await expect(client.getBalance()).resolves.toEqual({ balance: 100_000_000 });
      const reasons = seen.filter((record) => record.outcome === 'ignored').map((record) => record.reason);
      expect([...reasons].sort()).toEqual(['bad id or signature', 'content does not decrypt to JSON', 'content over 10000 characters', 'expired', "not signed by the connection's client"]);
      for (const bad of [expired, huge, garbage, stranger, forged]) {
        expect(relay.events.some((answer) => answer.kind === 23195 && answer.tags.some(([name, value]) => name === 'e' && value === bad.id))).toBe(false);
      }
      // Recorded once the relay took the answer, which may be just after the client read it.
      await expect.poll(() => seen.filter((record) => record.outcome === 'result').map((record) => record.method)).toContain('get_balance');
    } finally {
      guarded.close();
    }
  });

  it('records each request for the dashboard', () => {
    expect(records.length).toBeGreaterThan(10);
    expect(records).toContainEqual(expect.objectContaining({ method: 'get_balance', outcome: 'result', encryption: 'nip04' }));
    expect(records).toContainEqual(expect.objectContaining({ method: 'lookup_invoice', outcome: 'error', errorCode: 'NOT_FOUND', encryption: 'nip44_v2' }));
    for (const record of records) expect(record.durationMs).toBeGreaterThanOrEqual(0);
  });
});
