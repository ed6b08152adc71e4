/**
 * NIP-47 (Nostr Wallet Connect) vocabulary shared by the wallet service and the client: event
 * kinds, methods, error codes, the objects requests and answers carry.
 * https://github.com/nostr-protocol/nips/blob/master/47.md
 */

export const NIP47_KIND = {
  /** The wallet's replaceable info event: its methods, encryptions and notifications. */
  info: 13194,
  request: 23194,
  response: 23195,
  /** Notifications encrypted with NIP-04, for legacy clients. */
  notificationNip04: 23196,
  /** Notifications encrypted with NIP-44 v2. */
  notification: 23197,
} as const;

/** Encryption schemes, as the `encryption` tags name them. */
export const NIP47_ENCRYPTIONS = ['nip44_v2', 'nip04'] as const;
export type Nip47Encryption = (typeof NIP47_ENCRYPTIONS)[number];

export function isNip47Encryption(value: unknown): value is Nip47Encryption {
  return value === 'nip44_v2' || value === 'nip04';
}

/** The methods this implementation serves (a subset of NIP-47's). */
export const NIP47_METHODS = ['get_info', 'get_balance', 'pay_invoice', 'make_invoice', 'lookup_invoice', 'list_transactions'] as const;
export type Nip47Method = (typeof NIP47_METHODS)[number];

export const NIP47_NOTIFICATION_TYPES = ['payment_received', 'payment_sent'] as const;
export type Nip47NotificationType = (typeof NIP47_NOTIFICATION_TYPES)[number];

// NIP-47's error codes: one list, the engine's (a wallet may answer others: `Nip47Error.code` is any string).
import { NIP47_ERROR_CODES, type Nip47ErrorCode } from '../../core/payments/wallet-error.js';

export { NIP47_ERROR_CODES, type Nip47ErrorCode };

export function isNip47ErrorCode(value: unknown): value is Nip47ErrorCode {
  return typeof value === 'string' && (NIP47_ERROR_CODES as readonly string[]).includes(value);
}

/** A wallet's error answer (client side), or what a backend throws to answer one (service side). */
export class Nip47Error extends Error {
  readonly code: Nip47ErrorCode | (string & {});

  constructor(code: Nip47ErrorCode | (string & {}), message: string) {
    super(message);
    this.name = 'Nip47Error';
    this.code = code;
  }
}

/** NIP-47's transaction object: amounts in msats, times in Unix seconds. */
export interface Nip47Transaction {
  type: 'incoming' | 'outgoing';
  state?: 'pending' | 'settled' | 'failed' | 'expired' | 'accepted';
  invoice?: string;
  description?: string;
  description_hash?: string;
  preimage?: string;
  payment_hash: string;
  amount: number;
  fees_paid?: number;
  created_at: number;
  expires_at?: number;
  settled_at?: number;
  metadata?: Record<string, unknown>;
}

/** `get_info`'s answer. `methods` and `notifications` are the connection's. */
export interface Nip47Info {
  alias?: string;
  color?: string;
  /** The wallet's Lightning node key (hex). */
  pubkey?: string;
  network?: 'mainnet' | 'testnet' | 'signet' | 'regtest' | (string & {});
  block_height?: number;
  block_hash?: string;
  methods: string[];
  notifications?: string[];
}

export interface Nip47Notification {
  notification_type: Nip47NotificationType | (string & {});
  notification: Nip47Transaction;
}

export interface Nip47PayInvoiceParams {
  invoice: string;
  /** msats, for an invoice without an amount. */
  amount?: number;
  metadata?: Record<string, unknown>;
}

export interface Nip47PayResult {
  preimage: string;
  fees_paid?: number;
}

export interface Nip47MakeInvoiceParams {
  /** msats */
  amount: number;
  description?: string;
  description_hash?: string;
  /** seconds */
  expiry?: number;
  metadata?: Record<string, unknown>;
}

export interface Nip47LookupInvoiceParams {
  payment_hash?: string;
  invoice?: string;
}

export interface Nip47ListTransactionsParams {
  from?: number;
  until?: number;
  limit?: number;
  offset?: number;
  unpaid?: boolean;
  type?: 'incoming' | 'outgoing';
}

/** NIP-47 metadata must be at most 4096 characters (as JSON) or be dropped. */
export const NIP47_MAX_METADATA_CHARS = 4096;

export { formatNwcUrl, parseNwcUrl, NwcUrlError, type NwcConnectionUri } from './nwc-url.js';
