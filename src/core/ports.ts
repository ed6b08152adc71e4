/**
 * The engine's ports: what it needs from the world, each implemented per platform. The engine
 * itself does no I/O, so the same code runs behind Fastify in Node and behind MSW in a browser.
 * Two ports live beside what they carry: the store (`store/sandbox-store.ts`, with its records)
 * and the webhook sender (`webhooks/webhook-sender.ts`). This file imports no other part but the
 * error catalogue, so every part may use it.
 */
import { ApiError } from './errors/errors.js';

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
  /**
   * 32 bytes: the SHA-256 of a description kept elsewhere (NIP-47 `description_hash`, an LNURL-pay
   * server's metadata). When given, the invoice carries it as `h` and no `d`, whatever `description` is.
   */
  descriptionHash?: Uint8Array;
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

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** An NWC account, as its connected wallet is found: by id, and for a sandbox-run wallet its node key. */
export interface WalletOwner {
  id: string;
  walletNodeKey?: Uint8Array;
  /** A wallet run elsewhere, by its NWC connection URL. */
  nwcUrl?: string;
}

/** What `make_invoice` asks an NWC account's connected wallet for. */
export interface ConnectedInvoiceRequest {
  amountMsats: number;
  description: string;
  expirySeconds: number;
}

/** A connected wallet's invoice. */
export interface ConnectedInvoice {
  invoice: string;
  /** Hex. */
  paymentHash: string;
}

/** How an account's connection looks (`GET /sandbox/v1/wallet`); `nwcUrl` holds the secret. */
export interface ConnectionState {
  relay: string;
  walletPubkey: string;
  nwcUrl: string;
  online: boolean;
  encryption: 'nip44_v2' | 'nip04';
}

/**
 * The connected wallets of NWC accounts, as the service reaches them: NIP-47 over a relay in Node
 * (the sandbox-run wallets on the sandbox's own relay, or any wallet an accounts file names), the
 * sandbox-run wallets in-process in MSW. Rejects with WalletUnavailableError when a wallet does
 * not answer in time and WalletError (NIP-47 code) when it refuses.
 */
export interface ConnectedWallets {
  makeInvoice(account: WalletOwner, request: ConnectedInvoiceRequest): Promise<ConnectedInvoice>;
  /** `lookup_invoice`: the invoice's state, with the preimage once settled. */
  lookupInvoice(account: WalletOwner, paymentHash: string): Promise<{ state: string; preimage?: string }>;
  /** The account's connection as `GET /sandbox/v1/wallet` shows it. */
  connection(account: WalletOwner): ConnectionState;
  /**
   * Starts hearing the wallets: `onSettled` is called for every incoming payment a wallet reports
   * settled (a `payment_received` notification), at most once per payment hash is not promised.
   */
  start(onSettled: (accountId: string, paymentHash: string, preimage: string) => void): void;
  /** Serves the account's test wallets, just loaded into the store (a replica taking the account over). */
  adopt?(accountId: string): void;
  close(): void;
}

/**
 * Invoices of this sandbox held by another process: a replica serving other accounts
 * (`lnpr serve --database-url`). A test wallet here pays them there, as the world pays.
 */
export interface RemotePayees {
  /** Whether another process holds the invoice with this payment hash unpaid, and its amount. */
  find(paymentHash: string): Promise<{ amountMsats: number; description?: string } | undefined>;
  /** Pays it there; resolves to its preimage; rejects with a WalletError saying why not. */
  pay(invoice: string, paymentHash: string): Promise<{ preimage: string }>;
}

/** A connected wallet that did not answer in time. */
export class WalletUnavailableError extends ApiError {
  constructor(message?: string) {
    super('wallet_unavailable', message);
    this.name = 'WalletUnavailableError';
  }
}
