/**
 * The payment-request operations of v1: create and read. Everything a response depends on is
 * decided here (fees, mode, expiry, the invoice), so every transport answers alike.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { CreatePaymentRequestBody } from '../schemas/create-payment-request.js';
import type { Caller } from './accounts.js';
import { ApiError } from './errors.js';
import { feeFor } from './fees.js';
import { newPaymentRequestId } from './ids.js';
import type { PaymentRequestRecord } from './payment-request.js';
import { asOf } from './payment-request-view.js';
import type { AccountClocks, InvoiceIssuer, RandomSource, SandboxStore } from './ports.js';
import type { SandboxSettings } from './settings.js';

/** What the operations need. */
export interface PaymentRequestDeps {
  settings: SandboxSettings;
  store: SandboxStore;
  clocks: AccountClocks;
  invoices: InvoiceIssuer;
  random: RandomSource;
  /** Signs custodial invoices; NWC accounts sign with their own wallet node key. */
  serviceNodeKey: Uint8Array;
}

/** Creates and reads payment requests on behalf of callers. */
export class PaymentRequests {
  readonly #deps: PaymentRequestDeps;

  constructor(deps: PaymentRequestDeps) {
    this.#deps = deps;
  }

  /** Creates a pending payment request with a signed invoice; resolves once it is stored durably. */
  async create(caller: Caller, body: CreatePaymentRequestBody): Promise<PaymentRequestRecord> {
    const { settings, store, clocks, invoices, random, serviceNodeKey } = this.#deps;
    const { account } = caller;
    // Whole seconds, because the invoice's timestamp is: `createdAt` and the invoice then agree
    // exactly, and so do `expiresAt` and the invoice's timestamp + expiry.
    const createdAtMs = Math.floor(clocks.now(account.id) / 1000) * 1000;
    const expiresIn = body.expiresIn ?? settings.defaultExpiresIn;
    const preimage = random.bytes(32);
    const paymentHash = sha256(preimage);
    const createdAt = new Date(createdAtMs).toISOString();
    const invoice = invoices.issue({
      amountSats: body.amount,
      timestampSeconds: createdAtMs / 1000,
      paymentHash,
      paymentSecret: random.bytes(32),
      description: body.description,
      expirySeconds: expiresIn,
      nodePrivateKey: account.walletNodeKey ?? serviceNodeKey,
    });
    const record: PaymentRequestRecord = {
      id: newPaymentRequestId(random),
      accountId: account.id,
      status: 'pending',
      amount: body.amount,
      description: body.description,
      destinationWallet: body.destinationWallet,
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
      expiresIn,
      invoice,
      paymentHash: bytesToHex(paymentHash),
      preimage: bytesToHex(preimage),
      isNwc: account.isNwc,
      ...(account.nwcRelay !== undefined ? { nwcRelay: account.nwcRelay } : {}),
      ...feeFor(body.amount, settings.feeRounding, settings.feePercentageBelowThreshold),
      createdAt,
      expiresAt: new Date(createdAtMs + expiresIn * 1000).toISOString(),
      updatedAt: createdAt,
    };
    await store.savePaymentRequest(record);
    return record;
  }

  /** The caller's payment request as of its account's clock; another account's reads as absent. */
  read(caller: Caller, id: string): PaymentRequestRecord {
    const record = this.#deps.store.getPaymentRequest(id);
    if (record === undefined || record.accountId !== caller.account.id) {
      throw new ApiError('payment_request_not_found', `No payment request with the id ${JSON.stringify(id.slice(0, 64))}.`);
    }
    return asOf(record, this.#deps.clocks.now(caller.account.id));
  }
}
