/**
 * The body of `POST /api/v1/payment-requests`. Limits the spec leaves open come from settings, so
 * the schema is built per sandbox; the defaults give the published schema.
 */

/** The limits the schema depends on. */
export interface CreateBodyLimits {
  minAmount: number;
  maxAmount: number;
  minExpiresIn: number;
  maxExpiresIn: number;
}

/**
 * A Lightning address (LUD-16): `<name>@<domain>`. The name takes the characters LUD-16 allows,
 * in either case; the domain is a host name with at least one dot, or `localhost`.
 */
export const LIGHTNING_ADDRESS_PATTERN =
  '^[A-Za-z0-9._+-]+@(?:localhost|(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)$';

/** The spec's description limit: 255 characters, counted as Unicode code points. */
export const MAX_DESCRIPTION_LENGTH = 255;

/** The JSON Schema of a create body under `limits`. */
export function createPaymentRequestBodySchema(limits: CreateBodyLimits) {
  return {
    $id: 'https://lnpr-sandbox.dev/schemas/v1/create-payment-request.json',
    type: 'object',
    required: ['amount', 'description', 'destinationWallet'],
    properties: {
      amount: { type: 'integer', minimum: limits.minAmount, maximum: limits.maxAmount },
      description: { type: 'string', maxLength: MAX_DESCRIPTION_LENGTH },
      destinationWallet: { type: 'string', maxLength: 320, pattern: LIGHTNING_ADDRESS_PATTERN },
      metadata: { type: 'object', additionalProperties: true },
      expiresIn: { type: 'integer', minimum: limits.minExpiresIn, maximum: limits.maxExpiresIn },
    },
  } as const;
}

/** The create body as the engine receives it once valid. */
export interface CreatePaymentRequestBody {
  amount: number;
  description: string;
  destinationWallet: string;
  metadata?: Record<string, unknown>;
  expiresIn?: number;
}
