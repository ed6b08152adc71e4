/**
 * The engine's ports: what it needs from the world, each implemented per platform. The engine
 * itself does no I/O, so the same code runs behind Fastify in Node and behind MSW in a browser.
 */
import type { PaymentRequestRecord } from './payments/payment-request.js';

/** An account's clock: wall time plus an offset, or frozen at an instant (epoch ms). */
export interface ClockState {
  offsetMs: number;
  frozenAtMs: number | null;
}

/**
 * Where payment requests and account clocks live. Reads are synchronous (every store keeps an
 * in-memory index); writes resolve only once durable, so a transport may acknowledge them.
 */
export interface SandboxStore {
  getPaymentRequest(id: string): PaymentRequestRecord | undefined;
  findPaymentRequestByHash(paymentHash: string): PaymentRequestRecord | undefined;
  /** Inserts or replaces the record with the same id. */
  savePaymentRequest(record: PaymentRequestRecord): Promise<void>;
  /** Deletes every payment request of the account. */
  deletePaymentRequestsOf(accountId: string): Promise<void>;
  getClock(accountId: string): ClockState | undefined;
  saveClock(accountId: string, state: ClockState): Promise<void>;
  /** Number of stored payment requests, all accounts. */
  size(): number;
  /** Flushes pending writes and releases the store (file handles, locks). */
  close(): Promise<void>;
}

/** secp256k1 ECDSA with public-key recovery, RFC 6979 deterministic nonces. */
export interface RecoverableSigner {
  /** Signs a 32-byte message hash; returns the 64-byte compact (r || s, low-S) signature. */
  signRecoverable(messageHash: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recoveryId: number };
}

/** Real time, as epoch milliseconds. Injected so tests and fixtures can pin it. */
export interface WallClock {
  now(): number;
}

/** What an invoice needs from a new payment request; the network is the issuer's own setting. */
export interface InvoiceInput {
  amountSats: number;
  timestampSeconds: number;
  /** 32 bytes: SHA-256 of the preimage. */
  paymentHash: Uint8Array;
  /** 32 bytes, random per invoice. */
  paymentSecret: Uint8Array;
  description: string;
  expirySeconds: number;
  /** The key of the node that would be paid: the service's, or the account's connected wallet's. */
  nodePrivateKey: Uint8Array;
}

/** Signs BOLT11 invoices and reads them back. */
export interface InvoiceIssuer {
  issue(input: InvoiceInput): string;
  /** The payment hash (hex) of a BOLT11 invoice; throws on anything that is not a valid invoice. */
  paymentHashOf(invoice: string): string;
}

/** Randomness: ids, preimages, payment secrets. Seeded in fixtures, crypto-strong otherwise. */
export interface RandomSource {
  bytes(length: number): Uint8Array;
}

/** The account clocks: one per account, wall time plus an offset, or frozen. */
export interface AccountClocks {
  /** The account's current time, epoch ms. */
  now(accountId: string): number;
  /** Whether the account's clock is frozen. */
  isFrozen(accountId: string): boolean;
  /** Moves the account's clock on by `seconds` (frozen or not). */
  advance(accountId: string, seconds: number): Promise<void>;
  /** Stops the account's clock at its current time. */
  freeze(accountId: string): Promise<void>;
  /** Lets the account's clock run again from where it stands. */
  unfreeze(accountId: string): Promise<void>;
  /** Sets the account's clock to read `epochMs` now, frozen or running as it is (e.g. to a fixtures file's time). */
  setTime(accountId: string, epochMs: number): Promise<void>;
  /** Back to wall time, in the sandbox's starting mode. */
  reset(accountId: string): Promise<void>;
}
