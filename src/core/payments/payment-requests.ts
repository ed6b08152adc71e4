/**
 * The payment-request operations: create and read (v1), and the sandbox's transitions (complete,
 * fail, expire, pay by invoice). Everything a response depends on is decided here (fees,
 * mode, expiry, the invoice, scheduled outcomes), so every transport answers alike.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { CreatePaymentRequestBody } from '../../schemas/create-payment-request.js';
import type { Caller } from '../accounts/accounts.js';
import { ApiError } from '../errors/errors.js';
import { feeFor } from './fees.js';
import { newPaymentRequestId } from '../ids.js';
import { TERMINAL_STATUSES, type PaymentRequestRecord, type Transition } from '../store/payment-request.js';
import type { RuleBook } from './rules.js';
import { applyTransition, asOf } from './state-machine.js';
import type { AccountClocks, ConnectedWallets, InvoiceIssuer, RandomSource } from '../ports.js';
import type { SandboxStore, StoreChange } from '../store/sandbox-store.js';
import { WalletError } from './wallet-error.js';
import type { SandboxSettings } from '../settings.js';

/**
 * Where a payment request's changes are recorded: the change log (events/change-log.ts), which
 * sits above payments because it writes their events and deliveries, implements this.
 */
export interface PaymentChanges {
  /** Saves `record` (new, or changed from `previous`), with `alongside` in the same write; resolves once durable. */
  save(record: PaymentRequestRecord, previous?: PaymentRequestRecord, alongside?: StoreChange): Promise<void>;
}

/** What the operations need. */
export interface PaymentRequestDeps {
  settings: SandboxSettings;
  store: SandboxStore;
  clocks: AccountClocks;
  invoices: InvoiceIssuer;
  random: RandomSource;
  /** Signs custodial invoices; NWC accounts sign with their own wallet node key. */
  serviceNodeKey: Uint8Array;
  rules: RuleBook;
  /** Saves each change with its event and the deliveries it owes. */
  changes: PaymentChanges;
  /** Where NWC accounts' invoices come from: their connected wallets. */
  connectedWallets: ConnectedWallets;
}

/** The part of a payment-request record its invoice decides. */
interface InvoiceParts {
  invoice: string;
  paymentHash: string;
  preimage?: string;
  /** The invoice's timestamp (Unix seconds, the account's clock) when a sandbox-run wallet made it. */
  stampedAtSeconds?: number;
}

/** Creates and reads payment requests on behalf of callers. */
export class PaymentRequests {
  readonly #deps: PaymentRequestDeps;

  constructor(deps: PaymentRequestDeps) {
    this.#deps = deps;
  }

  /** Creates a pending payment request with a signed invoice; resolves once it is stored durably. */
  async create(caller: Caller, body: CreatePaymentRequestBody): Promise<PaymentRequestRecord> {
    const { settings, clocks, random, rules } = this.#deps;
    const { account } = caller;
    // Whole seconds, because the invoice's timestamp is: `createdAt` and the invoice then agree
    // exactly, and so do `expiresAt` and the invoice's timestamp + expiry.
    const startedAtMs = Math.floor(clocks.now(account.id) / 1000) * 1000;
    const expiresIn = body.expiresIn ?? settings.defaultExpiresIn;
    const invoiced = account.isNwc
      ? await this.#connectedInvoice(caller, body, expiresIn)
      : this.#serviceInvoice(body, expiresIn, startedAtMs);
    // A sandbox-run wallet stamped its invoice when it made it, after the clock was read above (the
    // request went over the relay meanwhile, maybe into the next second): that moment is the
    // request's, so the invoice's timestamp and expiry are `createdAt` and `expiresAt` exactly.
    const createdAtMs = invoiced.stampedAtSeconds !== undefined ? invoiced.stampedAtSeconds * 1000 : startedAtMs;
    const { stampedAtSeconds: _stamped, ...invoiceParts } = invoiced;
    const createdAt = new Date(createdAtMs).toISOString();
    const id = newPaymentRequestId(random);
    const scheduledOutcome = rules.scheduleFor(
      { id, accountId: account.id, amount: body.amount, description: body.description, ...(body.metadata ? { metadata: body.metadata } : {}) },
      createdAtMs,
    );
    const record: PaymentRequestRecord = {
      id,
      accountId: account.id,
      status: 'pending',
      amount: body.amount,
      description: body.description,
      destinationWallet: body.destinationWallet,
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
      expiresIn,
      ...invoiceParts,
      isNwc: account.isNwc,
      // The relay of the account's connection (the sandbox's own for a wallet it runs).
      ...(account.isNwc ? { nwcRelay: this.#deps.connectedWallets.connection(account).relay } : {}),
      ...feeFor(body.amount, settings.feeRounding, settings.feePercentageBelowThreshold),
      createdAt,
      expiresAt: new Date(createdAtMs + expiresIn * 1000).toISOString(),
      updatedAt: createdAt,
      ...(scheduledOutcome ? { scheduledOutcome } : {}),
    };
    await this.#deps.changes.save(record);
    return record;
  }

  /** A custodial request's invoice: the service's node signs it, with a preimage drawn here. */
  #serviceInvoice(body: CreatePaymentRequestBody, expiresIn: number, createdAtMs: number): InvoiceParts {
    const { invoices, random, serviceNodeKey } = this.#deps;
    const preimage = random.bytes(32);
    const paymentHash = sha256(preimage);
    const invoice = invoices.issue({
      amountSats: body.amount,
      timestampSeconds: createdAtMs / 1000,
      paymentHash,
      paymentSecret: random.bytes(32),
      description: body.description,
      expirySeconds: expiresIn,
      nodePrivateKey: serviceNodeKey,
    });
    return { invoice, paymentHash: bytesToHex(paymentHash), preimage: bytesToHex(preimage) };
  }

  /**
   * An NWC request's invoice: `make_invoice` to the account's connected wallet. The preimage of a
   * sandbox-run wallet's invoice is known here (that wallet's ledger is this process's), kept
   * secret until completion like a custodial one; a wallet elsewhere tells it when paid.
   */
  async #connectedInvoice(caller: Caller, body: CreatePaymentRequestBody, expiresIn: number): Promise<InvoiceParts> {
    const { connectedWallets, store } = this.#deps;
    try {
      const made = await connectedWallets.makeInvoice(caller.account, { amountMsats: body.amount * 1000, description: body.description, expirySeconds: expiresIn });
      const own = store.findWalletInvoice(made.paymentHash);
      const preimage = own?.preimage;
      // Its stamp is on this account's clock only if the wallet is this account's (a test wallet of
      // another account, named by an accounts file's nwcUrl, keeps its own clock).
      const stamped = own !== undefined && own.invoice === made.invoice && own.accountId === caller.account.id;
      return { invoice: made.invoice, paymentHash: made.paymentHash, ...(preimage !== undefined ? { preimage } : {}), ...(stamped ? { stampedAtSeconds: own.createdAt } : {}) };
    } catch (error) {
      if (!(error instanceof WalletError)) throw error;
      const message = `the wallet answered ${error.code}: ${error.message}`.slice(0, 500);
      throw new ApiError('wallet_error', `The connected wallet refused make_invoice: ${message}.`, [{ field: 'wallet', code: 'wallet_refused', message }]);
    }
  }

  /**
   * Completes the NWC request whose invoice `paymentHash` names, as its connected wallet reports it
   * paid with `preimage`; nothing for an unknown, another account's, already settled request or a
   * preimage that does not match. Resolves once stored.
   */
  async settledByWallet(accountId: string, paymentHash: string, preimage: string): Promise<PaymentRequestRecord | undefined> {
    const stored = this.#deps.store.findPaymentRequestByHash(paymentHash);
    if (stored === undefined || stored.accountId !== accountId || !stored.isNwc) return undefined;
    if (bytesToHex(sha256(hexBytes(preimage))) !== paymentHash) return undefined;
    const current = asOf(stored, this.#deps.clocks.now(accountId));
    if (current.status !== 'pending') return undefined;
    return this.#transition(accountId, { ...stored, preimage }, 'complete');
  }

  /** Completes a request a wallet of the sandbox paid, its side of the payment in the same write. */
  completePaid(record: PaymentRequestRecord, alongside: StoreChange): Promise<PaymentRequestRecord> {
    return this.#transition(record.accountId, record, 'complete', alongside);
  }

  /** The caller's payment request as of its account's clock; another account's reads as absent. */
  read(caller: Caller, id: string): PaymentRequestRecord {
    return asOf(this.#owned(caller, id), this.#deps.clocks.now(caller.account.id));
  }

  /** The caller's account's payment requests as of its clock, newest first, at most `limit`. */
  list(caller: Caller, limit: number): PaymentRequestRecord[] {
    const nowMs = this.#deps.clocks.now(caller.account.id);
    return this.#deps.store.paymentRequestsOf(caller.account.id).slice(0, limit).map((record) => asOf(record, nowMs));
  }

  /** Moves the caller's pending payment request on; 409 from a terminal state. Resolves once stored. */
  transition(caller: Caller, id: string, transition: Transition): Promise<PaymentRequestRecord> {
    return this.#transition(caller.account.id, this.#owned(caller, id), transition);
  }

  /**
   * Any account's payment request by id alone, as of its account's clock (the hosted pay page,
   * where the id is the secret); 404 for an unknown id.
   */
  readHosted(id: string): PaymentRequestRecord {
    const stored = this.#hosted(id);
    return asOf(stored, this.#deps.clocks.now(stored.accountId));
  }

  /**
   * The payment request a wallet of the world would pay with `invoice`, checked as the caller's
   * and still pending: 400 for text that is not a valid BOLT11 invoice, 404 for an invoice of no
   * request of this account, 409 for one already paid, failed or expired. Paying it is the
   * ledger's (one settlement path for every payer).
   */
  payable(caller: Caller, invoice: string): PaymentRequestRecord {
    let paymentHash: string;
    try {
      paymentHash = this.#deps.invoices.paymentHashOf(invoice.trim());
    } catch (error) {
      const message = `invoice is not a valid BOLT11 invoice: ${(error as Error).message}`;
      throw new ApiError('invalid_request', `Invalid payment: ${message}.`, [{ field: 'invoice', code: 'invalid_invoice', message }]);
    }
    const record = this.#deps.store.findPaymentRequestByHash(paymentHash);
    if (record === undefined || record.accountId !== caller.account.id) throw new ApiError('invoice_not_found');
    return this.#pending(record);
  }

  /** The caller's pending payment request by id, to be paid; 404, or 409 from a terminal state. */
  payableOwned(caller: Caller, id: string): PaymentRequestRecord {
    return this.#pending(this.#owned(caller, id));
  }

  /** Any account's pending payment request by id alone, for the hosted page's test wallet; 404, or 409 from a terminal state. */
  payableHosted(id: string): PaymentRequestRecord {
    return this.#pending(this.#hosted(id));
  }

  #pending(stored: PaymentRequestRecord): PaymentRequestRecord {
    const current = asOf(stored, this.#deps.clocks.now(stored.accountId));
    // Throws 409 from a terminal state, saying which.
    applyTransition(current, 'complete', this.#deps.clocks.now(stored.accountId));
    return current;
  }

  async #transition(accountId: string, stored: PaymentRequestRecord, transition: Transition, alongside?: StoreChange): Promise<PaymentRequestRecord> {
    const nowMs = this.#deps.clocks.now(accountId);
    const current = asOf(stored, nowMs);
    if (TERMINAL_STATUSES.has(current.status) && current !== stored) {
      // Expired (or settled by a rule) only as derived on read, the scheduler not having run yet:
      // record it now, with its event, before refusing the transition.
      await this.#deps.changes.save(current, stored);
    }
    const next = applyTransition(current, transition, nowMs);
    await this.#deps.changes.save(next, current, alongside);
    return next;
  }

  #owned(caller: Caller, id: string): PaymentRequestRecord {
    const record = this.#deps.store.getPaymentRequest(id);
    if (record === undefined || record.accountId !== caller.account.id) throw notFound(id);
    return record;
  }

  #hosted(id: string): PaymentRequestRecord {
    const record = this.#deps.store.getPaymentRequest(id);
    if (record === undefined) throw notFound(id);
    return record;
  }
}

function hexBytes(hex: string): Uint8Array {
  return /^[0-9a-f]{64}$/.test(hex) ? hexToBytes(hex) : new Uint8Array(0);
}

function notFound(id: string): ApiError {
  return new ApiError('payment_request_not_found', `No payment request with the id ${JSON.stringify(id.slice(0, 64))}.`);
}
