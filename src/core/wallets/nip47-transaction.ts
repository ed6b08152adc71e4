/**
 * A wallet transaction as NIP-47 shows it (`lookup_invoice`, `list_transactions`, `make_invoice`
 * and notifications): amounts in msats, times in Unix seconds.
 */
import type { WalletTransactionRecord } from '../store/wallet-records.js';

/** NIP-47's transaction object. */
export interface Nip47Transaction {
  type: 'incoming' | 'outgoing';
  state: 'pending' | 'settled' | 'failed' | 'expired';
  invoice: string;
  description?: string;
  description_hash?: string;
  preimage?: string;
  payment_hash: string;
  amount: number;
  fees_paid: number;
  created_at: number;
  expires_at?: number;
  settled_at?: number;
}

/** What a wallet publishes when money moves. */
export interface Nip47Notification {
  notification_type: 'payment_received' | 'payment_sent';
  notification: Nip47Transaction;
}

/**
 * The record as NIP-47 shows it, as of `nowSeconds` on its account's clock (a pending invoice past
 * its expiry reads as expired). The preimage of an unpaid incoming invoice is the wallet's secret:
 * shown only once settled.
 */
export function toNip47Transaction(record: WalletTransactionRecord, nowSeconds: number): Nip47Transaction {
  const expired = record.state === 'pending' && record.expiresAt !== undefined && record.expiresAt <= nowSeconds;
  return {
    type: record.type,
    state: expired ? 'expired' : record.state,
    invoice: record.invoice,
    ...(record.description !== undefined ? { description: record.description } : {}),
    ...(record.descriptionHash !== undefined ? { description_hash: record.descriptionHash } : {}),
    ...(record.state === 'settled' && record.preimage !== undefined ? { preimage: record.preimage } : {}),
    payment_hash: record.paymentHash,
    amount: record.amountMsats,
    fees_paid: record.feesPaidMsats,
    created_at: record.createdAt,
    ...(record.expiresAt !== undefined ? { expires_at: record.expiresAt } : {}),
    ...(record.settledAt !== undefined ? { settled_at: record.settledAt } : {}),
  };
}
