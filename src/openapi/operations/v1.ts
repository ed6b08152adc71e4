/** Prose of the routes of `core/routes/v1-routes.ts`: the v1 endpoints of the spec and the health check. */
import type { SandboxSettings } from '../../core/settings.js';
import { completedExample, createBodyExample, nwcExample, pendingExample } from '../examples.js';
import { LOCATION_HEADER, PAYMENT_REQUEST_ID, type ProseRecord } from './prose.js';

/** The prose of v1 and the health check, for a sandbox with these settings. */
export function v1Prose(settings: SandboxSettings): ProseRecord {
  const minAmountMessage = `amount must be at least ${settings.minAmount} sats`;
  return {
    getHealth: {
      tag: 'Server',
      summary: 'Health check',
      answer: { description: 'The server is up.', examples: { ok: { status: 'ok' } } },
    },
    createPaymentRequest: {
      tag: 'Payment requests',
      summary: 'Create a payment request',
      description:
        "Creates a payment request: a Lightning invoice to be paid, in the mode of the key's account (custodial, or non-custodial through the connected wallet). The answer is `pending`.",
      bodyExamples: { order: createBodyExample, tip: { amount: 21, description: 'Tip', destinationWallet: 'alice@wallet.example', expiresIn: 600 } },
      answer: { description: 'Created: the payment request, `pending`.', examples: { custodial: pendingExample, nonCustodial: nwcExample }, headers: LOCATION_HEADER },
      errorExamples: {
        invalid_request: {
          error: {
            code: 'invalid_request',
            message: `Invalid payment request: ${minAmountMessage}.`,
            details: [{ field: 'amount', code: 'amount_below_minimum', message: minAmountMessage }],
          },
        },
      },
    },
    getPaymentRequest: {
      tag: 'Payment requests',
      summary: 'Get a payment request',
      description:
        "The payment request, with `nwcRelay` when `isNwc` is `true` and `preimage` once completed. A pending request whose `expiresAt` has passed on its account's clock reads as `expired`.",
      pathParameters: { id: PAYMENT_REQUEST_ID },
      answer: { description: 'The payment request.', examples: { pending: pendingExample, completed: completedExample, nonCustodial: nwcExample } },
    },
    getPaymentRequestStatus: {
      tag: 'Payment requests',
      summary: "Get a payment request's status",
      pathParameters: { id: PAYMENT_REQUEST_ID },
      answer: { description: 'The status alone.', examples: { completed: { status: 'completed' } } },
    },
  };
}
