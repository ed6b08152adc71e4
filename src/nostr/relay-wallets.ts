/**
 * The sandbox's wallets on its relay, speaking NIP-47 for real: every test wallet and every NWC
 * account's sandbox-run connected wallet is a connection of one NIP-47 wallet service, and the
 * service side of the sandbox reaches each account's connected wallet with a NIP-47 client, over
 * the same relay (or, for a wallet an accounts file names by `nwcUrl`, over that wallet's relay).
 * Money moves in the engine's ledger either way; this file only carries it over Nostr.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { getPublicKey } from 'nostr-tools/pure';
import type { ConnectedWallets, WalletOwner } from '../core/ports.js';
import { WalletUnavailableError } from '../core/ports.js';
import { merchantConnection, merchantWalletOf } from '../core/wallets/in-process-wallets.js';
import { toNip47Transaction } from '../core/wallets/nip47-transaction.js';
import { WalletError } from '../core/payments/wallet-error.js';
import { merchantWalletKeys, testWalletNodeKey } from '../core/wallets/wallet-keys.js';
import type { WalletRef } from '../core/wallets/wallet-ledger.js';
import type { WalletParts } from '../core/wallets/wallet-parts.js';
import { merchantWalletId, type WalletRecord } from '../core/store/wallet-records.js';
import { isNip47ErrorCode, NIP47_METHODS, NIP47_NOTIFICATION_TYPES, Nip47Error, parseNwcUrl, type Nip47Info } from './nwc/nip47.js';
import { NwcClient, NwcUnavailableError } from './nwc/wallet-client.js';
import { NwcWalletService, type NwcRequestRecord, type WalletBackend } from './nwc/wallet-service.js';
import type { NostrEventSigner } from './event-signer.js';
import type { RelaySession } from './relay-session.js';

/** What the relay wallets need besides the engine's parts. */
export interface RelayWalletOptions {
  /** An in-process session of the sandbox's own relay. */
  session: RelaySession;
  /** The invoices' network, as `get_info` tells it. */
  network: string;
  /** Hears every NIP-47 request the sandbox's wallets answer (the dashboard's recent requests). */
  onRequest?(record: NwcRequestRecord): void;
  /** Signs and checks Nostr events (Node: libsecp256k1 in WASM); nostr-tools' pure JS by default. */
  signer?: NostrEventSigner;
  /** A session on another relay, for wallets an accounts file names by `nwcUrl` (Node: a WebSocket). */
  externalSession?(relayUrl: string): RelaySession & { readonly connected?: boolean };
}

const METHODS = [...NIP47_METHODS];
const NOTIFICATIONS = [...NIP47_NOTIFICATION_TYPES];

/** A wallet run elsewhere: the session on its relay, its encryption once read, whether it last answered. */
interface ExternalWallet {
  session: RelaySession & { readonly connected?: boolean };
  encryption?: 'nip44_v2' | 'nip04';
  /** Whether the last request got an answer (a result or an error); unknown before the first. */
  answered?: boolean;
}

/** Connected wallets over the sandbox's relay; pass to the engine as its `connectedWallets`. */
export function relayConnectedWallets(options: RelayWalletOptions): (parts: WalletParts) => ConnectedWallets {
  return (parts) => new RelayWallets(options, parts);
}

class RelayWallets implements ConnectedWallets {
  readonly #options: RelayWalletOptions;
  readonly #parts: WalletParts;
  readonly #service: NwcWalletService;
  /** The service side's client of each NWC account's connected wallet. */
  readonly #clients = new Map<string, NwcClient>();
  /** Sessions on the relays of wallets run elsewhere, by account, with the encryption their wallet speaks once known. */
  readonly #external = new Map<string, ExternalWallet>();
  /** Service secrets of the sandbox-run wallets served, by account. */
  readonly #merchantSecrets = new Map<string, string>();
  readonly #stops: Array<() => void> = [];
  #onSettled: ((accountId: string, paymentHash: string, preimage: string) => void) | undefined;

  constructor(options: RelayWalletOptions, parts: WalletParts) {
    this.#options = options;
    this.#parts = parts;
    this.#service = new NwcWalletService(options.session, {
      onError: parts.onError,
      ...(options.signer ? { signer: options.signer } : {}),
      ...(options.onRequest ? { onRequest: options.onRequest } : {}),
    });
  }

  start(onSettled: (accountId: string, paymentHash: string, preimage: string) => void): void {
    this.#onSettled = onSettled;
    const { store, testWallets, ledger, onError } = this.#parts;
    for (const wallet of store.allWallets()) this.#serveTestWallet(wallet);
    this.#stops.push(
      testWallets.onChange((change) => {
        if ('made' in change) this.#serveTestWallet(change.made);
        else this.#service.remove(nostrPubkey(change.removed.serviceSecret));
      }),
      ledger.onNotification((walletId, notification) => {
        const merchant = walletId.startsWith('merchant:') ? walletId.slice('merchant:'.length) : undefined;
        const secret = merchant !== undefined ? this.#merchantSecret(merchant) : store.getWallet(walletId)?.serviceSecret;
        if (secret === undefined) return;
        const publish = () => this.#service.notify(nostrPubkey(secret), notification).catch(onError);
        if (merchant === undefined) {
          publish();
          return;
        }
        // The merchant's wallet may be told to misbehave: its notifications dropped, repeated, late.
        const fate = this.#parts.faults.fateOf(merchant, notification.notification.payment_hash);
        const send = () => {
          for (let copy = 0; copy < fate.copies; copy++) publish();
        };
        if (fate.delayMs > 0) this.#parts.timers.setTimeout(send, fate.delayMs);
        else send();
      }),
    );
  }

  adopt(accountId: string): void {
    for (const wallet of this.#parts.store.walletsOf(accountId)) this.#serveTestWallet(wallet);
  }

  async makeInvoice(account: WalletOwner, request: { amountMsats: number; description: string; expirySeconds: number }) {
    const made = await this.#ask(account, (client) =>
      client.makeInvoice({ amount: request.amountMsats, description: request.description, expiry: request.expirySeconds }),
    );
    if (typeof made.invoice !== 'string' || !/^[0-9a-f]{64}$/.test(made.payment_hash)) {
      throw new WalletError('INTERNAL', 'the wallet answered make_invoice without an invoice and a payment hash');
    }
    return { invoice: made.invoice, paymentHash: made.payment_hash };
  }

  async lookupInvoice(account: WalletOwner, paymentHash: string) {
    const found = await this.#ask(account, (client) => client.lookupInvoice({ payment_hash: paymentHash }));
    return { state: found.state ?? 'pending', ...(found.preimage !== undefined ? { preimage: found.preimage } : {}) };
  }

  connection(account: WalletOwner) {
    if (account.nwcUrl !== undefined) {
      // Reached once asked about, so its relay connects and its info event (encryption) is read.
      if (!this.#clients.has(account.id)) {
        try {
          this.#externalClientOf(account, account.nwcUrl);
        } catch {
          // unreachable from here: shown offline
        }
      }
      const external = this.#external.get(account.id);
      const online = external?.answered ?? external?.session.connected ?? false;
      return { ...merchantConnection(account, '', online), ...(external?.encryption !== undefined ? { encryption: external.encryption } : {}) };
    }
    // Served once shown (if online), so the relay holds its info event (kind 13194) before any
    // client handed this connection asks for it: NIP-47 says the wallet service publishes it. The
    // publish runs in-process and is stored before this answer is sent.
    if (account.walletNodeKey !== undefined) this.#clientOf(account);
    return merchantConnection(account, this.#parts.relayUrl(), this.#parts.faults.isOnline(account.id));
  }

  close(): void {
    for (const stop of this.#stops.splice(0)) stop();
    for (const client of this.#clients.values()) client.close();
    this.#clients.clear();
    for (const { session } of this.#external.values()) session.close();
    this.#external.clear();
    this.#service.close();
  }

  /** A request to the account's connected wallet, its errors in the engine's terms. */
  async #ask<T>(account: WalletOwner, call: (client: NwcClient) => Promise<T>): Promise<T> {
    const external = () => this.#external.get(account.id);
    try {
      const answer = await call(this.#clientOf(account));
      const reached = external();
      if (reached) reached.answered = true;
      return answer;
    } catch (error) {
      const reached = external();
      if (reached) reached.answered = !(error instanceof NwcUnavailableError);
      if (error instanceof NwcUnavailableError) {
        const seconds = this.#parts.timeoutMs / 1000;
        throw new WalletUnavailableError(`The connected wallet of account ${account.id} did not answer within ${seconds} s (${error.message}); nothing was stored.`);
      }
      if (error instanceof Nip47Error) {
        // A code outside NIP-47's list is kept in the message, which the answer shows after the code.
        throw isNip47ErrorCode(error.code) ? new WalletError(error.code, error.message) : new WalletError('OTHER', `${error.code}: ${error.message}`);
      }
      throw error;
    }
  }

  /**
   * The client of the account's sandbox-run wallet, its connection served (or, while the wallet
   * is offline, withdrawn: requests then go unanswered, as to a wallet that is off).
   */
  #clientOf(account: WalletOwner): NwcClient {
    if (account.nwcUrl !== undefined) return this.#externalClientOf(account, account.nwcUrl);
    const { serviceSecret, clientSecret } = merchantWalletKeys(account.walletNodeKey!);
    const walletPubkey = nostrPubkey(serviceSecret);
    this.#merchantSecrets.set(account.id, serviceSecret);
    const online = this.#parts.faults.isOnline(account.id);
    if (!online) this.#service.remove(walletPubkey);
    else if (!this.#service.has(walletPubkey)) {
      this.#service
        .add({
          walletSecretKey: hexToBytes(serviceSecret),
          clientPubkey: nostrPubkey(clientSecret),
          backend: this.#merchantBackend(account),
          methods: ['get_info', 'get_balance', 'make_invoice', 'lookup_invoice', 'list_transactions'],
          notifications: ['payment_received'],
          // Its one client is the sandbox's own, which speaks NIP-44: no NIP-04 copy of every
          // notification (each would cost a key exchange).
          encryptions: ['nip44_v2'],
        })
        .catch(this.#parts.onError);
    }
    let client = this.#clients.get(account.id);
    if (client === undefined) {
      client = new NwcClient(this.#options.session, { walletPubkey, clientSecretKey: hexToBytes(clientSecret) }, {
        timeoutMs: this.#parts.timeoutMs,
        encryption: 'nip44_v2',
        onError: this.#parts.onError,
        ...(this.#options.signer ? { signer: this.#options.signer } : {}),
      });
      this.#hear(account.id, client);
    }
    return client;
  }

  /** The client of a wallet run elsewhere, on its own relay; its encryption read from its info event. */
  #externalClientOf(account: WalletOwner, nwcUrl: string): NwcClient {
    let client = this.#clients.get(account.id);
    if (client !== undefined) return client;
    const { externalSession } = this.#options;
    if (externalSession === undefined) throw new NwcUnavailableError('wallets outside the sandbox cannot be reached from here');
    const connection = parseNwcUrl(nwcUrl);
    const external: ExternalWallet = {
      session: externalSession(connection.relays[0]!),
    };
    this.#external.set(account.id, external);
    client = new NwcClient(external.session, { walletPubkey: connection.walletPubkey, clientSecretKey: connection.secret }, {
      timeoutMs: this.#parts.timeoutMs,
      onError: this.#parts.onError,
      ...(this.#options.signer ? { signer: this.#options.signer } : {}),
    });
    client.encryption().then((encryption) => (external.encryption = encryption), () => {});
    this.#hear(account.id, client);
    return client;
  }

  /** Completes requests from the `payment_received` notifications of the account's wallet. */
  #hear(accountId: string, client: NwcClient): void {
    client.onNotification(({ notification_type, notification }) => {
      if (notification_type === 'payment_received' && typeof notification.preimage === 'string') {
        this.#onSettled?.(accountId, notification.payment_hash, notification.preimage);
      }
    });
    this.#clients.set(accountId, client);
  }

  /** The service secret of the account's sandbox-run wallet, once it has been reached. */
  #merchantSecret(accountId: string): string | undefined {
    return this.#merchantSecrets.get(accountId);
  }

  #serveTestWallet(wallet: WalletRecord): void {
    this.#service
      .add({
        walletSecretKey: hexToBytes(wallet.serviceSecret),
        clientPubkey: nostrPubkey(wallet.clientSecret),
        backend: this.#testWalletBackend(wallet),
        methods: METHODS,
        notifications: NOTIFICATIONS,
      })
      .catch(this.#parts.onError);
  }

  /** A test wallet as NIP-47 sees it: the ledger's money, its balance read fresh each time. */
  #testWalletBackend(wallet: WalletRecord): WalletBackend {
    const { ledger, store } = this.#parts;
    const ref: WalletRef = { walletId: wallet.id, accountId: wallet.accountId, nodeKey: testWalletNodeKey(wallet.serviceSecret) };
    const current = (): WalletRecord => {
      const found = store.getWallet(wallet.id);
      if (found === undefined) throw new WalletError('UNAUTHORIZED', 'this test wallet no longer exists');
      return found;
    };
    return {
      ...this.#readBackend(ref, wallet.name ?? 'lnpr-sandbox test wallet'),
      getBalance: () => ({ balance: current().balanceMsats }),
      payInvoice: async ({ invoice }) => {
        const paid = await ledger.pay(current(), invoice);
        return { preimage: paid.preimage, fees_paid: paid.feesPaidMsats };
      },
    };
  }

  /** The account's sandbox-run connected wallet: it receives (make_invoice) and reports payments. */
  #merchantBackend(account: WalletOwner): WalletBackend {
    const ref = merchantWalletOf(account);
    return {
      ...this.#readBackend(ref, `merchant wallet of ${account.id}`),
      getBalance: () => ({
        balance: this.#parts.store
          .walletTransactionsOf(merchantWalletId(account.id))
          .reduce((sum, transaction) => sum + (transaction.state === 'settled' && transaction.type === 'incoming' ? transaction.amountMsats : 0), 0),
      }),
      payInvoice: () => Promise.reject(new WalletError('RESTRICTED', "the merchant's connected wallet only receives in the sandbox")),
    };
  }

  /** What every sandbox-run wallet answers alike: info, invoices, lookups, its transactions. */
  #readBackend(ref: WalletRef, alias: string): Omit<WalletBackend, 'getBalance' | 'payInvoice'> {
    const { ledger } = this.#parts;
    const info: Omit<Nip47Info, 'methods'> = {
      alias,
      color: '#f7931a',
      pubkey: bytesToHex(secp256k1.getPublicKey(ref.nodeKey, true)),
      network: this.#options.network,
      block_height: 0,
      block_hash: '0'.repeat(64),
    };
    return {
      getInfo: () => info,
      makeInvoice: async ({ amount, description, description_hash, expiry }) => {
        const made = await ledger.makeInvoice(ref, {
          amountMsats: amount,
          ...(description !== undefined ? { description } : {}),
          ...(description_hash !== undefined ? { descriptionHash: description_hash } : {}),
          ...(expiry !== undefined ? { expirySeconds: expiry } : {}),
        });
        return toNip47Transaction(made, made.createdAt);
      },
      lookupInvoice: ({ payment_hash, invoice }) =>
        ledger.lookup(ref, { ...(payment_hash !== undefined ? { paymentHash: payment_hash } : {}), ...(invoice !== undefined ? { invoice } : {}) }),
      listTransactions: (params) => ({ transactions: ledger.transactions(ref, params) }),
    };
  }
}

function nostrPubkey(secretHex: string): string {
  return getPublicKey(hexToBytes(secretHex));
}
