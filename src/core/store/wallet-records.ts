/**
 * Lightning wallets as the engine keeps them: the test wallets an account makes (payers, an
 * offline NWC faucet) and the transactions of every wallet the sandbox runs, merchants' connected
 * wallets included. Amounts are msats, as NIP-47 counts them; the HTTP API shows sats. Records
 * are values: replaced, never mutated.
 */

/** A test wallet as stored. Its Nostr keys are secrets: the file holding them is its owner's only. */
export interface WalletRecord {
  id: string;
  accountId: string;
  name: string | null;
  balanceMsats: number;
  /** Real time of the creation, ISO 8601 with milliseconds. */
  createdAt: string;
  /** Hex secret key of the wallet service's Nostr identity (its pubkey is the NWC URL's host). */
  serviceSecret: string;
  /** Hex secret key handed to the app in the NWC URL (`secret=`). */
  clientSecret: string;
}

export const TRANSACTION_STATES = ['pending', 'settled', 'failed', 'expired'] as const;

/**
 * One payment in or out of a wallet the sandbox runs. `walletId` is a test wallet's id, or
 * `merchant:<accountId>` for an NWC account's sandbox-run connected wallet.
 */
export interface WalletTransactionRecord {
  id: string;
  walletId: string;
  accountId: string;
  type: 'incoming' | 'outgoing';
  state: (typeof TRANSACTION_STATES)[number];
  invoice: string;
  description?: string;
  descriptionHash?: string;
  /** Hex; for incoming invoices known from the start, for outgoing ones once settled. */
  preimage?: string;
  paymentHash: string;
  amountMsats: number;
  feesPaidMsats: number;
  /** Unix seconds, on the account's clock. */
  createdAt: number;
  expiresAt?: number;
  settledAt?: number;
}

/** The id under which an NWC account's sandbox-run connected wallet keeps its transactions. */
export function merchantWalletId(accountId: string): string {
  return `merchant:${accountId}`;
}
