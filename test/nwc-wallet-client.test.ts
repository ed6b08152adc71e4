/**
 * Our NIP-47 client (NwcClient) against an independent wallet service: @getalby/sdk 7.0.0's
 * NWCWalletService, through a real relay on 127.0.0.1 (test harness relay). That service cannot
 * publish notifications, so the tests publish those as a wallet would (nostr-tools finalizeEvent
 * + NIP-44 / NIP-04). Also: the encryption read from the info event, timeouts that leave nothing
 * pending, and answers that must not count (another signer, another addressee, a forged signature).
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import type { NWCWalletServiceRequestHandler, Nip47Transaction as SdkTransaction } from '@getalby/sdk/nwc';
import * as nip04 from 'nostr-tools/nip04';
import * as nip44 from 'nostr-tools/nip44';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { Nip47Error, type Nip47Notification, type Nip47Transaction } from '../src/nostr/nwc/nip47.js';
import { NwcClient, NwcTimeoutError, NwcUnavailableError } from '../src/nostr/nwc/wallet-client.js';
import type { RelaySession } from '../src/nostr/relay-session.js';
import { webSocketRelaySession, type WebSocketRelaySession } from '../src/nostr/web-socket-relay-session.node.js';
import { startNostrTestRelay, type NostrTestRelay } from './support/nostr-test-relay.js';
import { tappedSession } from './support/tapped-session.js';

// Node 20 has no global WebSocket; the sdk's bundled nostr-tools reads it when the sdk loads.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
type Sdk = typeof import('@getalby/sdk/nwc');

const seconds = () => Math.floor(Date.now() / 1000);
/** A transaction as a wallet answers it (the sdk's type marks every field required; NIP-47 does not). */
const transaction = (fields: Partial<Nip47Transaction> = {}): SdkTransaction =>
  ({
    type: 'incoming',
    state: 'pending',
    invoice: 'lnbcrt210n1sdkwallet',
    description: 'coffee',
    payment_hash: 'cd'.repeat(32),
    amount: 21_000,
    fees_paid: 0,
    created_at: seconds(),
    expires_at: seconds() + 600,
    ...fields,
  }) as SdkTransaction;

describe('NwcClient against @getalby/sdk 7.0.0 NWCWalletService', () => {
  let sdk: Sdk;
  let relay: NostrTestRelay;
  let session: WebSocketRelaySession;
  const cleanups: Array<() => void> = [];

  beforeAll(async () => {
    for (const method of ['info', 'warn', 'error'] as const) vi.spyOn(console, method).mockImplementation(() => {});
    sdk = await import('@getalby/sdk/nwc');
    relay = await startNostrTestRelay();
    session = webSocketRelaySession(relay.url, { publishTimeoutMs: 3_000 });
  });

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) cleanup();
    session.close();
    await relay.close();
    vi.restoreAllMocks();
  });

  /**
   * An sdk wallet service for a fresh wallet key, serving a fresh client key with `handler`, and
   * our client for it. `info: 'sdk'` lets the sdk publish its info event (it offers "nip04
   * nip44_v2"); otherwise the test publishes the given tags.
   */
  async function sdkWallet(handler: NWCWalletServiceRequestHandler, options: { info?: 'sdk' | string[][] | 'none'; timeoutMs?: number; clientSession?: RelaySession } = {}) {
    const walletSecretKey = generateSecretKey();
    const clientSecretKey = generateSecretKey();
    const walletPubkey = getPublicKey(walletSecretKey);
    const clientPubkey = getPublicKey(clientSecretKey);
    const service = new sdk.NWCWalletService({ relayUrl: relay.url });
    const info = options.info ?? 'sdk';
    if (info === 'sdk') {
      await service.publishWalletServiceInfoEvent(bytesToHex(walletSecretKey), ['get_info', 'get_balance', 'make_invoice', 'pay_invoice', 'lookup_invoice'], ['payment_received']);
    } else if (info !== 'none') {
      await session.publish(finalizeEvent({ kind: 13194, created_at: seconds(), tags: info, content: 'get_info make_invoice pay_invoice' }, walletSecretKey));
    }
    const unsubscribe = await service.subscribe(new sdk.NWCWalletServiceKeyPair(bytesToHex(walletSecretKey), clientPubkey), handler);
    cleanups.push(() => {
      unsubscribe();
      service.close();
    });
    // The sdk subscribes in the background: wait until the relay has its REQ.
    await relay.waitForSubscription((filters) => filters.some((filter) => filter.kinds?.includes(23194) && filter['#p']?.includes(walletPubkey)));
    const client = new NwcClient(options.clientSession ?? session, { walletPubkey, clientSecretKey }, { timeoutMs: options.timeoutMs ?? 5_000 });
    cleanups.push(() => client.close());
    return { client, walletSecretKey, walletPubkey, clientSecretKey, clientPubkey };
  }

  const requestsOf = (clientPubkey: string) => relay.events.filter((event) => event.kind === 23194 && event.pubkey === clientPubkey);

  it('reads nip44_v2 from the info event and makes an invoice: params arrive as sent, the answer is parsed', async () => {
    const received: unknown[] = [];
    const made = transaction();
    const { client, clientPubkey } = await sdkWallet({
      makeInvoice: async (request) => {
        received.push(request);
        return { result: made, error: undefined };
      },
    });
    await expect(client.encryption()).resolves.toBe('nip44_v2');
    await expect(client.makeInvoice({ amount: 21_000, description: 'coffee', expiry: 600 })).resolves.toEqual(made);
    expect(received).toEqual([{ amount: 21_000, description: 'coffee', expiry: 600 }]);
    const [request] = requestsOf(clientPubkey);
    expect(request?.tags).toContainEqual(['encryption', 'nip44_v2']);
    expect(request?.tags.find(([name]) => name === 'expiration')).toBeDefined();
    expect(client.pendingRequests).toBe(0);
  });

  it('get_info, get_balance, lookup_invoice and pay_invoice answers come back as the wallet sent them', async () => {
    const settled = transaction({ state: 'settled', preimage: 'ef'.repeat(32), settled_at: seconds() });
    const { client } = await sdkWallet({
      getInfo: async () => ({ result: { alias: 'sdk', color: '#000000', pubkey: '02'.padEnd(66, '1'), network: 'regtest', block_height: 7, block_hash: '00'.repeat(32), methods: ['get_info'] }, error: undefined }),
      getBalance: async () => ({ result: { balance: 123_000 }, error: undefined }),
      lookupInvoice: async (request) => ({ result: request.payment_hash === settled.payment_hash ? settled : undefined, error: request.payment_hash === settled.payment_hash ? undefined : { code: 'NOT_FOUND', message: 'unknown invoice' } }),
      payInvoice: async () => ({ result: { preimage: 'ab'.repeat(32), fees_paid: 1_000 }, error: undefined }),
    });
    await expect(client.getInfo()).resolves.toMatchObject({ alias: 'sdk', network: 'regtest', block_height: 7, methods: ['get_info'] });
    await expect(client.getBalance()).resolves.toEqual({ balance: 123_000 });
    await expect(client.lookupInvoice({ payment_hash: settled.payment_hash })).resolves.toEqual(settled);
    await expect(client.payInvoice({ invoice: 'lnbcrt1payme' })).resolves.toEqual({ preimage: 'ab'.repeat(32), fees_paid: 1_000 });
    const notFound = await client.lookupInvoice({ payment_hash: '00'.repeat(32) }).catch((error: unknown) => error);
    expect(notFound).toBeInstanceOf(Nip47Error);
    expect(notFound).toMatchObject({ code: 'NOT_FOUND', message: 'unknown invoice' });
  });

  it("wallet errors reject with Nip47Error and the wallet's code", async () => {
    const { client } = await sdkWallet({
      payInvoice: async () => ({ result: undefined, error: { code: 'INSUFFICIENT_BALANCE', message: 'not enough sats' } }),
    });
    const failure = await client.payInvoice({ invoice: 'lnbcrt1big' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Nip47Error);
    expect(failure).toMatchObject({ code: 'INSUFFICIENT_BALANCE', message: 'not enough sats' });
    // A method the sdk's handler lacks: the sdk answers NOT_IMPLEMENTED.
    await expect(client.request('list_transactions', {})).rejects.toMatchObject({ name: 'Nip47Error', code: 'NOT_IMPLEMENTED' });
    expect(client.pendingRequests).toBe(0);
  });

  it('no answer: NwcTimeoutError within the timeout, nothing left pending', async () => {
    const { client } = await sdkWallet({ makeInvoice: () => new Promise(() => {}) }, { timeoutMs: 400 });
    await client.encryption();
    const started = Date.now();
    const failure = await client.makeInvoice({ amount: 1_000 }).catch((error: unknown) => error);
    const elapsed = Date.now() - started;
    expect(failure).toBeInstanceOf(NwcTimeoutError);
    expect(failure).toBeInstanceOf(NwcUnavailableError);
    expect(failure).toMatchObject({ method: 'make_invoice', timeoutMs: 400 });
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(1_400);
    expect(client.pendingRequests).toBe(0);
  });

  it('no info event at all: NwcTimeoutError too (the wallet is not there)', async () => {
    const { client } = await sdkWallet({}, { info: 'none', timeoutMs: 300 });
    await expect(client.getBalance()).rejects.toBeInstanceOf(NwcTimeoutError);
    expect(client.pendingRequests).toBe(0);
  });

  it('nip04 when the info event has no encryption tag; the sdk service answers over NIP-04', async () => {
    const made = transaction({ amount: 5_000 });
    const { client, clientPubkey } = await sdkWallet({ makeInvoice: async () => ({ result: made, error: undefined }) }, { info: [['notifications', 'payment_received']] });
    await expect(client.encryption()).resolves.toBe('nip04');
    await expect(client.makeInvoice({ amount: 5_000 })).resolves.toEqual(made);
    expect(requestsOf(clientPubkey)[0]?.tags).toContainEqual(['encryption', 'nip04']);
  });

  it('an info event offering no scheme it speaks: UNSUPPORTED_ENCRYPTION', async () => {
    const { client } = await sdkWallet({}, { info: [['encryption', 'nip44_v3']] });
    await expect(client.encryption()).rejects.toMatchObject({ name: 'Nip47Error', code: 'UNSUPPORTED_ENCRYPTION' });
  });

  it('notifications reach onNotification, once, in its scheme; others’ are ignored', async () => {
    const { client, walletSecretKey, walletPubkey, clientPubkey } = await sdkWallet({});
    const received: Nip47Notification[] = [];
    const stop = client.onNotification((notification) => received.push(notification));
    await relay.waitForSubscription((filters) => filters.some((filter) => filter.kinds?.includes(23197) && filter['#p']?.includes(clientPubkey)));
    await client.encryption();
    const payload = { notification_type: 'payment_received', notification: transaction({ state: 'settled', preimage: '12'.repeat(32), settled_at: seconds() }) };
    const text = JSON.stringify(payload);
    const conversation = nip44.v2.utils.getConversationKey(walletSecretKey, clientPubkey);
    const impostor = generateSecretKey();
    // As a wallet speaking both schemes publishes it: 23197 (NIP-44) and 23196 (NIP-04).
    await session.publish(finalizeEvent({ kind: 23197, created_at: seconds(), tags: [['p', clientPubkey]], content: nip44.v2.encrypt(text, conversation) }, walletSecretKey));
    await session.publish(finalizeEvent({ kind: 23196, created_at: seconds(), tags: [['p', clientPubkey]], content: nip04.encrypt(walletSecretKey, clientPubkey, text) }, walletSecretKey));
    // Someone else's, encrypted to the client all the same.
    await session.publish(
      finalizeEvent({ kind: 23197, created_at: seconds(), tags: [['p', clientPubkey]], content: nip44.v2.encrypt(text, nip44.v2.utils.getConversationKey(impostor, clientPubkey)) }, impostor),
    );
    await expect.poll(() => received, { timeout: 3_000 }).toEqual([payload]);
    // A second notification proves the ignored ones were not merely late.
    const sent = { notification_type: 'payment_sent', notification: transaction({ type: 'outgoing', state: 'settled', payment_hash: 'aa'.repeat(32) }) };
    await session.publish(finalizeEvent({ kind: 23197, created_at: seconds(), tags: [['p', clientPubkey]], content: nip44.v2.encrypt(JSON.stringify(sent), conversation) }, walletSecretKey));
    await expect.poll(() => received, { timeout: 3_000 }).toEqual([payload, sent]);
    stop();
    expect(walletPubkey).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers signed by another key, with a forged signature or addressed to another client are ignored', async () => {
    const tap = tappedSession(session);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const real = transaction({ invoice: 'lnbcrt1thereal' });
    const { client, walletSecretKey, clientPubkey } = await sdkWallet(
      {
        makeInvoice: async () => {
          await gate;
          return { result: real, error: undefined };
        },
      },
      { clientSession: tap.session },
    );
    const answer = client.makeInvoice({ amount: 21_000 });
    await expect.poll(() => requestsOf(clientPubkey).length, { timeout: 3_000 }).toBe(1);
    const requestId = requestsOf(clientPubkey)[0]!.id;
    const fake = JSON.stringify({ result_type: 'make_invoice', result: transaction({ invoice: 'lnbcrt1fake' }), error: null });
    const impostor = generateSecretKey();
    const byImpostor = finalizeEvent(
      {
        kind: 23195,
        created_at: seconds(),
        tags: [['p', clientPubkey], ['e', requestId]],
        content: nip44.v2.encrypt(fake, nip44.v2.utils.getConversationKey(impostor, clientPubkey)),
      },
      impostor,
    );
    const walletConversation = nip44.v2.utils.getConversationKey(walletSecretKey, clientPubkey);
    // Claims the wallet's key; content changed after signing, as it would arrive off a socket (JSON).
    const genuine = finalizeEvent({ kind: 23195, created_at: seconds(), tags: [['p', clientPubkey], ['e', requestId]], content: nip44.v2.encrypt(fake, walletConversation) }, walletSecretKey);
    const forged = { ...JSON.parse(JSON.stringify(genuine)), content: nip44.v2.encrypt(JSON.stringify({ result_type: 'make_invoice', result: transaction({ invoice: 'lnbcrt1forged' }) }), walletConversation) };
    const elsewhere = finalizeEvent(
      { kind: 23195, created_at: seconds(), tags: [['p', getPublicKey(generateSecretKey())], ['e', requestId]], content: nip44.v2.encrypt(fake, walletConversation) },
      walletSecretKey,
    );
    // Through the relay (which drops none of them by itself: no #p filter) and handed straight in.
    await session.publish(byImpostor);
    for (const bad of [byImpostor, forged, elsewhere]) tap.inject(bad);
    expect(client.pendingRequests).toBe(1);
    release();
    await expect(answer).resolves.toEqual(real);
  });

  it('close() rejects what is pending', async () => {
    const { client } = await sdkWallet({ getBalance: () => new Promise(() => {}) });
    const pending = client.getBalance();
    await expect.poll(() => client.pendingRequests).toBe(1);
    client.close();
    await expect(pending).rejects.toBeInstanceOf(NwcUnavailableError);
    expect(client.pendingRequests).toBe(0);
    await expect(client.getBalance()).rejects.toThrow('closed');
  });
});
