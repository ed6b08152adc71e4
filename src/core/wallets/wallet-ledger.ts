/**
 * What every wallet the sandbox runs does with money: make invoices, look them up, list
 * transactions, and pay. Paying is the one settlement path of the sandbox: a test wallet's
 * `pay_invoice`, the pay page's "Pay with test wallet" and `POST /sandbox/v1/pay` all come here, so
 * an invoice settles the same way whoever pays it. I/O-free: the NIP-47 transport (Node, over the
 * relay) and the in-process wallets (MSW) call it, and publish the notifications it emits.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { newId } from '../ids.js';
import { cryptoRandom } from '../random.js';
import { Listeners } from '../listeners.js';
import { ApiError } from '../errors/errors.js';
import type { PaymentRequestRecord } from '../store/payment-request.js';
import { asOf } from '../payments/state-machine.js';
import type { AccountClocks, InvoiceIssuer, RandomSource, RemotePayees } from '../ports.js';
import type { SandboxStore, StoreChange } from '../store/sandbox-store.js';
import { toNip47Transaction, type Nip47Notification, type Nip47Transaction } from './nip47-transaction.js';
import { WalletError } from '../payments/wallet-error.js';
import { canReceive, MAX_WALLET_BALANCE_WORDS } from './wallet-limits.js';
import { merchantWalletId, type WalletRecord, type WalletTransactionRecord } from '../store/wallet-records.js';

/** A wallet the sandbox runs: a test wallet, or an NWC account's connected wallet. */
export interface WalletRef {
  walletId: string;
  accountId: string;
  /** Signs the wallet's invoices. */
  nodeKey: Uint8Array;
}

/** What `make_invoice` asks for. */
export interface MakeInvoiceParams {
  amountMsats: number;
  description?: string;
  /**
   * Hex SHA-256 of a description kept elsewhere (NIP-47 `description_hash`): the invoice commits to
   * it (`h`, no `d`), as payers of an LNURL-pay server's invoices check.
   */
  descriptionHash?: string;
  /** Seconds; 1 hour when absent. */
  expirySeconds?: number;
}

/** Hears each notification a wallet sends (the transport publishes it to the wallet's client). */
export type WalletNotificationListener = (walletId: string, notification: Nip47Notification) => void;

/** What the ledger needs. */
export interface WalletLedgerDeps {
  store: SandboxStore;
  clocks: AccountClocks;
  invoices: InvoiceIssuer;
  random: RandomSource;
  /**
   * Completes a custodial payment request paid by a wallet, writing `alongside` (the payer's
   * side) in the same durable write; rejects as a transition would.
   */
  completeRequest(record: PaymentRequestRecord, alongside: StoreChange): Promise<PaymentRequestRecord>;
  /**
   * Runs `task` after the current work (e.g. a timer of 0): notifications go out once the payer
   * has its answer, which then does not wait for their encryption and signatures.
   */
  defer(task: () => void): void;
  /** Invoices another process holds (a replica serving other accounts); none by default. */
  remotePayees?: RemotePayees;
  onError(error: unknown): void;
}

const DEFAULT_INVOICE_EXPIRY_SECONDS = 3600;

/** Invoices, lookups and payments of the sandbox's wallets. */
export class WalletLedger {
  readonly #deps: WalletLedgerDeps;
  readonly #listeners: Listeners<Parameters<WalletNotificationListener>>;
  /** Payments in flight by payment hash, so two payers cannot both pay one invoice. */
  readonly #paying = new Set<string>();
  /** Msats each wallet is paying elsewhere right now (another replica's invoices): not spendable meanwhile. */
  readonly #reserved = new Map<string, number>();

  constructor(deps: WalletLedgerDeps) {
    this.#deps = deps;
    this.#listeners = new Listeners(deps.onError);
  }

  /** Calls `listener` with every notification from now on; returns the function that stops it. */
  onNotification(listener: WalletNotificationListener): () => void {
    return this.#listeners.add(listener);
  }

  /** Makes an invoice the wallet will be paid by; resolves once stored. */
  async makeInvoice(wallet: WalletRef, params: MakeInvoiceParams): Promise<WalletTransactionRecord> {
    const { clocks, invoices, random, store } = this.#deps;
    // A test wallet erased since its connection was served must not take payments into nothing.
    if (!wallet.walletId.startsWith('merchant:') && store.getWallet(wallet.walletId) === undefined) {
      throw new WalletError('UNAUTHORIZED', 'this test wallet no longer exists');
    }
    // Past 2^53 msats (~90,000 BTC) a JSON number cannot hold every multiple of 1000: the nearest
    // sat is taken there (a merchant's connected wallet, whose payment requests may be that large),
    // as the amount cannot have been meant to the msat.
    const exact = Number.isSafeInteger(params.amountMsats);
    if (!(params.amountMsats >= 1000) || (exact && params.amountMsats % 1000 !== 0) || (!exact && !Number.isFinite(params.amountMsats))) {
      throw new WalletError('OTHER', 'amount must be a whole number of sats: a multiple of 1000 msats, at least 1000');
    }
    // A test wallet refuses an invoice it could not be paid by: one that would take its balance past the cap.
    const payee = wallet.walletId.startsWith('merchant:') ? undefined : store.getWallet(wallet.walletId);
    if (payee !== undefined && !canReceive(payee.balanceMsats, params.amountMsats)) {
      throw new WalletError('OTHER', `this wallet holds ${payee.balanceMsats} msats and cannot be paid ${params.amountMsats}: its balance would pass ${MAX_WALLET_BALANCE_WORDS}, the most a test wallet holds`);
    }
    const amountSats = Math.round(params.amountMsats / 1000);
    const expirySeconds = params.expirySeconds ?? DEFAULT_INVOICE_EXPIRY_SECONDS;
    if (!Number.isSafeInteger(expirySeconds) || expirySeconds < 1) throw new WalletError('OTHER', 'expiry must be a positive whole number of seconds');
    const createdAt = Math.floor(clocks.now(wallet.accountId) / 1000);
    const preimage = random.bytes(32);
    const paymentHash = sha256(preimage);
    const { descriptionHash } = params;
    if (descriptionHash !== undefined && !/^[0-9a-f]{64}$/.test(descriptionHash)) throw new WalletError('OTHER', 'description_hash must be 64 lower-case hex characters');
    // With a hash, the description is only what was given (none: none), as the invoice has no `d`.
    const description = params.description ?? (descriptionHash !== undefined ? undefined : '');
    const invoice = invoices.issue({
      amountSats,
      timestampSeconds: createdAt,
      paymentHash,
      paymentSecret: random.bytes(32),
      description: description ?? '',
      ...(descriptionHash !== undefined ? { descriptionHash: hexToBytes(descriptionHash) } : {}),
      expirySeconds,
      nodePrivateKey: wallet.nodeKey,
    });
    const transaction: WalletTransactionRecord = {
      // Not the engine's random source, which fixtures seed: invoices stay what they were.
      id: newId('tx_', cryptoRandom),
      walletId: wallet.walletId,
      accountId: wallet.accountId,
      type: 'incoming',
      state: 'pending',
      invoice,
      ...(description !== undefined ? { description } : {}),
      ...(descriptionHash !== undefined ? { descriptionHash } : {}),
      preimage: bytesToHex(preimage),
      paymentHash: bytesToHex(paymentHash),
      amountMsats: amountSats * 1000,
      feesPaidMsats: 0,
      createdAt,
      expiresAt: createdAt + expirySeconds,
    };
    await store.commit({ walletTransactions: [transaction] });
    return transaction;
  }

  /** An invoice of this wallet, in or out, by payment hash or invoice text; NOT_FOUND otherwise. */
  lookup(wallet: Pick<WalletRef, 'walletId' | 'accountId'>, query: { paymentHash?: string; invoice?: string }): Nip47Transaction {
    const paymentHash = query.paymentHash ?? (query.invoice !== undefined ? this.#paymentHashOf(query.invoice, 'NOT_FOUND') : undefined);
    if (paymentHash === undefined) throw new WalletError('OTHER', 'lookup_invoice needs payment_hash or invoice');
    const found = this.#deps.store.walletTransactionsOf(wallet.walletId).find((transaction) => transaction.paymentHash === paymentHash);
    if (found === undefined) throw new WalletError('NOT_FOUND', `this wallet has no invoice or payment with payment hash ${paymentHash.slice(0, 64)}`);
    return toNip47Transaction(found, this.#nowSeconds(wallet.accountId));
  }

  /** The wallet's transactions, newest first, as `list_transactions` filters them. */
  transactions(
    wallet: Pick<WalletRef, 'walletId' | 'accountId'>,
    filter: { from?: number; until?: number; limit?: number; offset?: number; unpaid?: boolean; type?: 'incoming' | 'outgoing' } = {},
  ): Nip47Transaction[] {
    const nowSeconds = this.#nowSeconds(wallet.accountId);
    const shown = this.#deps.store
      .walletTransactionsOf(wallet.walletId)
      .filter(
        (transaction) =>
          (filter.from === undefined || transaction.createdAt >= filter.from) &&
          (filter.until === undefined || transaction.createdAt <= filter.until) &&
          (filter.type === undefined || transaction.type === filter.type) &&
          (filter.unpaid === true || transaction.state === 'settled'),
      )
      .map((transaction) => toNip47Transaction(transaction, nowSeconds));
    const offset = filter.offset ?? 0;
    return shown.slice(offset, filter.limit === undefined ? undefined : offset + filter.limit);
  }

  /**
   * Pays `invoice` from `payer` (a test wallet; none when the world pays: the pay page, `POST
   * /sandbox/v1/pay`). Settles at once whatever the sandbox's own wallets wait for: a pending
   * payment request of any account (custodial: completed here; NWC: its connected wallet is
   * paid and reports it), or another test wallet's invoice. `fees_paid` is 0. Errors are NIP-47's:
   * INSUFFICIENT_BALANCE, PAYMENT_FAILED for an invoice that is unknown, expired, paid or failed,
   * or whose payee's balance would pass the cap (`wallet-limits.ts`).
   */
  async pay(payer: WalletRecord | undefined, invoice: string): Promise<{ preimage: string; feesPaidMsats: number; paymentRequest?: PaymentRequestRecord }> {
    const paymentHash = this.#paymentHashOf(invoice, 'PAYMENT_FAILED');
    if (this.#paying.has(paymentHash)) throw new WalletError('PAYMENT_FAILED', 'this invoice is being paid already');
    this.#paying.add(paymentHash);
    try {
      return await this.#pay(payer, invoice.trim(), paymentHash);
    } finally {
      this.#paying.delete(paymentHash);
    }
  }

  async #pay(payer: WalletRecord | undefined, invoice: string, paymentHash: string) {
    const { store } = this.#deps;
    const request = store.findPaymentRequestByHash(paymentHash);
    const walletInvoice = store.findWalletInvoice(paymentHash);
    if (request === undefined && walletInvoice === undefined && payer !== undefined && this.#deps.remotePayees !== undefined) {
      const elsewhere = await this.#deps.remotePayees.find(paymentHash);
      if (elsewhere !== undefined) return this.#payElsewhere(payer, invoice, paymentHash, elsewhere);
    }
    const amountMsats = request !== undefined ? request.amount * 1000 : walletInvoice?.amountMsats;
    if (amountMsats === undefined) throw new WalletError('PAYMENT_FAILED', 'no wallet of this sandbox can be paid by this invoice (an invoice of another node)');
    if (request !== undefined) {
      const current = asOf(request, this.#deps.clocks.now(request.accountId));
      if (current.status !== 'pending') throw new WalletError('PAYMENT_FAILED', `the invoice's payment request is ${current.status}`);
    }
    if (walletInvoice !== undefined) this.#checkPayable(walletInvoice);
    // An NWC request whose wallet is outside the sandbox: only that wallet can be paid. (One with a
    // preimage but no wallet invoice, loaded from a fixtures file, is settled like a custodial one.)
    else if (request?.isNwc && request.preimage === undefined) throw new WalletError('PAYMENT_FAILED', "the invoice belongs to a connected wallet outside this sandbox, which it cannot pay");
    if (payer !== undefined && walletInvoice?.walletId === payer.id) throw new WalletError('PAYMENT_FAILED', 'a wallet cannot pay its own invoice');
    if (payer !== undefined && payer.balanceMsats < amountMsats) {
      throw new WalletError('INSUFFICIENT_BALANCE', `the wallet holds ${payer.balanceMsats} msats; the invoice asks ${amountMsats}`);
    }
    // The payee's balance rule, checked as the money would arrive (its balance may have grown since
    // it made the invoice): refused, nothing moves and the payer keeps its balance.
    const payee = walletInvoice !== undefined ? store.getWallet(walletInvoice.walletId) : undefined;
    if (payee !== undefined && !canReceive(payee.balanceMsats, amountMsats)) {
      throw new WalletError('PAYMENT_FAILED', `the payee's wallet cannot receive ${amountMsats} msats: its balance would pass ${MAX_WALLET_BALANCE_WORDS}, the most a test wallet holds`);
    }
    const change: StoreChange = { walletTransactions: [], wallets: [] };
    const notifications: Array<[string, Nip47Notification]> = [];
    let preimage: string;
    if (walletInvoice !== undefined) {
      preimage = walletInvoice.preimage!;
      const settledAt = this.#nowSeconds(walletInvoice.accountId);
      const received: WalletTransactionRecord = { ...walletInvoice, state: 'settled', settledAt };
      change.walletTransactions!.push(received);
      if (payee !== undefined && payee.id !== payer?.id) change.wallets!.push({ ...payee, balanceMsats: payee.balanceMsats + amountMsats });
      notifications.push([walletInvoice.walletId, { notification_type: 'payment_received', notification: toNip47Transaction(received, settledAt) }]);
    } else if (request!.preimage !== undefined) {
      preimage = request!.preimage;
    } else {
      throw new WalletError('PAYMENT_FAILED', "the invoice belongs to a connected wallet outside this sandbox, which it cannot pay");
    }
    if (payer !== undefined) {
      const description = request !== undefined ? request.description : walletInvoice?.description;
      const { sent, sentAt } = this.#outgoing(payer, { invoice, paymentHash, preimage, amountMsats, description, descriptionHash: walletInvoice?.descriptionHash });
      change.walletTransactions!.push(sent);
      const current = change.wallets!.find((wallet) => wallet.id === payer.id) ?? store.getWallet(payer.id) ?? payer;
      const debited = { ...current, balanceMsats: current.balanceMsats - amountMsats };
      change.wallets = [...change.wallets!.filter((wallet) => wallet.id !== payer.id), debited];
      notifications.push([payer.id, { notification_type: 'payment_sent', notification: toNip47Transaction(sent, sentAt) }]);
    }
    let paymentRequest: PaymentRequestRecord | undefined;
    // A custodial request is the service's own invoice: completed here, with the payer's side in
    // the same write. An NWC request's invoice is its connected wallet's, which was just paid: the
    // service learns it from that wallet's notification (or lookup), as a real one would; unless
    // the world paid (the control API, the pay page), whose answer is the completed request, or no
    // wallet of the sandbox made the invoice (fixtures), so none would report it.
    if (request !== undefined && (!request.isNwc || payer === undefined || walletInvoice === undefined)) paymentRequest = await this.#deps.completeRequest(request, change);
    else await store.commit(change);
    this.#deps.defer(() => {
      for (const [walletId, notification] of notifications) this.#listeners.emit(walletId, notification);
    });
    return { preimage, feesPaidMsats: 0, ...(paymentRequest ? { paymentRequest } : {}) };
  }

  /**
   * Pays an invoice another process holds (an account another replica serves): settled there as
   * the world pays, then the payer's side written here. Not one write, as two accounts of one
   * process are: if this write fails after the payment there, the payee has been paid and the
   * payer keeps its balance (said in the replicas guide).
   */
  async #payElsewhere(payer: WalletRecord, invoice: string, paymentHash: string, payee: { amountMsats: number; description?: string }) {
    const current = this.#deps.store.getWallet(payer.id) ?? payer;
    const reserved = this.#reserved.get(payer.id) ?? 0;
    if (current.balanceMsats - reserved < payee.amountMsats) {
      throw new WalletError('INSUFFICIENT_BALANCE', `the wallet holds ${current.balanceMsats} msats${reserved > 0 ? ` (${reserved} of them being paid out)` : ''}; the invoice asks ${payee.amountMsats}`);
    }
    // Held while the other replica pays, so a second payment meanwhile cannot spend it too.
    this.#reserved.set(payer.id, reserved + payee.amountMsats);
    let preimage: string;
    try {
      ({ preimage } = await this.#deps.remotePayees!.pay(invoice, paymentHash));
    } finally {
      const left = (this.#reserved.get(payer.id) ?? 0) - payee.amountMsats;
      if (left > 0) this.#reserved.set(payer.id, left);
      else this.#reserved.delete(payer.id);
    }
    const { sent, sentAt } = this.#outgoing(payer, { invoice, paymentHash, preimage, amountMsats: payee.amountMsats, description: payee.description });
    const latest = this.#deps.store.getWallet(payer.id) ?? current;
    await this.#deps.store.commit({ walletTransactions: [sent], wallets: [{ ...latest, balanceMsats: latest.balanceMsats - payee.amountMsats }] });
    this.#deps.defer(() => this.#listeners.emit(payer.id, { notification_type: 'payment_sent', notification: toNip47Transaction(sent, sentAt) }));
    return { preimage, feesPaidMsats: 0 };
  }

  /**
   * Pays a pending payment request as the world would (the control API's `POST /sandbox/v1/pay`,
   * the pay page's test wallet): the same settlement, answered with the completed request; a
   * refusal is a 409 saying why.
   */
  async payForTheWorld(record: PaymentRequestRecord): Promise<PaymentRequestRecord> {
    try {
      const { paymentRequest } = await this.pay(undefined, record.invoice);
      return paymentRequest!;
    } catch (error) {
      if (!(error instanceof WalletError)) throw error;
      throw new ApiError('invalid_transition', `Cannot pay payment request ${record.id}: ${error.message}.`);
    }
  }

  /** The payer's side of a payment: its outgoing transaction, settled now, no fees. */
  #outgoing(
    payer: WalletRecord,
    paid: { invoice: string; paymentHash: string; preimage: string; amountMsats: number; description?: string | undefined; descriptionHash?: string | undefined },
  ): { sent: WalletTransactionRecord; sentAt: number } {
    const sentAt = this.#nowSeconds(payer.accountId);
    const { description, descriptionHash } = paid;
    const sent: WalletTransactionRecord = {
      id: newId('tx_', this.#deps.random),
      walletId: payer.id,
      accountId: payer.accountId,
      type: 'outgoing',
      state: 'settled',
      invoice: paid.invoice,
      ...(description !== undefined ? { description } : {}),
      ...(descriptionHash !== undefined ? { descriptionHash } : {}),
      preimage: paid.preimage,
      paymentHash: paid.paymentHash,
      amountMsats: paid.amountMsats,
      feesPaidMsats: 0,
      createdAt: sentAt,
      settledAt: sentAt,
    };
    return { sent, sentAt };
  }

  #checkPayable(walletInvoice: WalletTransactionRecord): void {
    const state = toNip47Transaction(walletInvoice, this.#nowSeconds(walletInvoice.accountId)).state;
    if (state !== 'pending') throw new WalletError('PAYMENT_FAILED', `the invoice is ${state === 'settled' ? 'paid already' : state}`);
  }

  #paymentHashOf(invoice: string, code: 'PAYMENT_FAILED' | 'NOT_FOUND'): string {
    try {
      return this.#deps.invoices.paymentHashOf(invoice.trim());
    } catch (error) {
      throw new WalletError(code, `not a valid BOLT11 invoice: ${(error as Error).message}`);
    }
  }

  #nowSeconds(accountId: string): number {
    return Math.floor(this.#deps.clocks.now(accountId) / 1000);
  }
}

export { merchantWalletId };
