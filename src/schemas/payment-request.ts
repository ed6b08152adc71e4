/**
 * The v1 response objects: the payment request and its status. These schemas describe what any
 * conforming implementation returns, so they hold only what the spec states: extra fields and any
 * id alphabet after `pr_` are allowed.
 */

/** ISO-8601 UTC with milliseconds, as the spec shows `expiresAt`. */
export const ISO_UTC_MILLIS_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';
/** ISO-8601 UTC, fractional seconds optional. */
export const ISO_UTC_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z$';

/** The status values. */
export const STATUS_VALUES = ['pending', 'completed', 'expired', 'failed'] as const;

/** The payment request object of every v1 response. */
export const paymentRequestSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/v1/payment-request.json',
  type: 'object',
  // The spec's "always" fields, and invoice and paymentHash, present "on create; on read": in
  // every answer of v1.
  required: [
    'id', 'status', 'amount', 'description', 'invoice', 'paymentHash', 'expiresAt', 'isNwc', 'feeAmount', 'feePercentage', 'createdAt', 'updatedAt',
  ],
  properties: {
    id: { type: 'string', pattern: '^pr_\\S+$' },
    status: { type: 'string', enum: STATUS_VALUES },
    amount: { type: 'integer', minimum: 1 },
    description: { type: 'string', maxLength: 255 },
    invoice: { type: 'string', minLength: 1 },
    paymentHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    expiresAt: { type: 'string', pattern: ISO_UTC_MILLIS_PATTERN },
    isNwc: { type: 'boolean' },
    nwcRelay: { type: 'string', minLength: 1 },
    preimage: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    feeAmount: { type: 'integer', minimum: 0 },
    feePercentage: { type: 'number', minimum: 0 },
    // Any keys, any JSON values: `additionalProperties` said aloud, as generators read a bare
    // `object` as one with no keys at all.
    metadata: { type: 'object', additionalProperties: true },
    createdAt: { type: 'string', pattern: ISO_UTC_PATTERN },
    updatedAt: { type: 'string', pattern: ISO_UTC_PATTERN },
  },
} as const;

/** The body of `GET .../{id}/status`: exactly one field. */
export const paymentRequestStatusSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/v1/payment-request-status.json',
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: { status: { type: 'string', enum: STATUS_VALUES } },
} as const;

/** A payment request as responses show it. */
export interface PaymentRequest {
  id: string;
  status: (typeof STATUS_VALUES)[number];
  amount: number;
  description: string;
  invoice: string;
  paymentHash: string;
  expiresAt: string;
  isNwc: boolean;
  nwcRelay?: string;
  preimage?: string;
  feeAmount: number;
  feePercentage: number;
  metadata?: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** The status endpoint's body. */
export interface PaymentRequestStatusBody {
  status: PaymentRequest['status'];
}
