/**
 * The errors a wallet answers with: NIP-47's codes, the one list both the HTTP API and the NIP-47
 * transport translate from. Core keeps them because settling a payment decides them.
 */

/** NIP-47 error codes (https://github.com/nostr-protocol/nips/blob/master/47.md#error-codes). */
export const NIP47_ERROR_CODES = [
  'RATE_LIMITED',
  'NOT_IMPLEMENTED',
  'INSUFFICIENT_BALANCE',
  'QUOTA_EXCEEDED',
  'RESTRICTED',
  'UNAUTHORIZED',
  'INTERNAL',
  'UNSUPPORTED_ENCRYPTION',
  'PAYMENT_FAILED',
  'NOT_FOUND',
  'OTHER',
] as const;

export type Nip47ErrorCode = (typeof NIP47_ERROR_CODES)[number];

/** A wallet's refusal, with its NIP-47 code. */
export class WalletError extends Error {
  readonly code: Nip47ErrorCode;

  constructor(code: Nip47ErrorCode, message: string) {
    super(message);
    this.name = 'WalletError';
    this.code = code;
  }
}
