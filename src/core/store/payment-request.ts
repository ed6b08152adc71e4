/**
 * The payment request as the engine keeps it. The stored record carries more than any response
 * shows (the owning account, `destinationWallet`, the preimage before completion); what a client
 * sees is derived from it by `toPaymentRequestView`.
 */

export const PAYMENT_REQUEST_STATUSES = ['pending', 'completed', 'expired', 'failed'] as const;

/** One of the four v1 states. */
export type PaymentRequestStatus = (typeof PAYMENT_REQUEST_STATUSES)[number];

/** States no transition leaves. */
export const TERMINAL_STATUSES: ReadonlySet<PaymentRequestStatus> = new Set(['completed', 'expired', 'failed']);

/** A payment request as stored. Records are values: the engine replaces them, never mutates them. */
export interface PaymentRequestRecord {
  id: string;
  accountId: string;
  status: PaymentRequestStatus;
  amount: number;
  description: string;
  /** Kept for records, never returned (spec: "not among the fields shown in responses"). */
  destinationWallet: string;
  metadata?: Record<string, unknown>;
  expiresIn: number;
  invoice: string;
  /** Hex, 64 characters. */
  paymentHash: string;
  /**
   * Hex, 64 characters, shown only once completed: drawn at creation (custodial), the sandbox-run
   * connected wallet's (NWC), or, for a wallet outside the sandbox, learned when it reports the
   * payment (absent until then).
   */
  preimage?: string;
  isNwc: boolean;
  nwcRelay?: string;
  feeAmount: number;
  feePercentage: number;
  /** ISO-8601 UTC with milliseconds. */
  createdAt: string;
  expiresAt: string;
  updatedAt: string;
  /** An outcome a behaviour rule chose at creation; it takes effect on the first read at or after `at`. */
  scheduledOutcome?: ScheduledOutcome;
}

/** The three ways a pending payment request ends. */
export type Transition = 'complete' | 'fail' | 'expire';

/** What a behaviour rule decided for a payment request, and when (on its account's clock). */
export interface ScheduledOutcome {
  transition: Transition;
  /** ISO-8601 UTC with milliseconds. */
  at: string;
  /** The rule's name, for the record. */
  rule: string;
}
