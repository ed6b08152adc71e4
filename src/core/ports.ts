/**
 * The engine's ports: what it needs from the world, each implemented per platform. The engine
 * itself does no I/O, so the same code runs behind Fastify in Node and behind MSW in a browser.
 */
import type { PaymentRequestRecord } from './payment-request.js';

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
