/** Prose of the routes of `core/routes/control-routes.ts`: payment requests, clock, rules, reset. */
import { completedExample, pendingExample } from '../examples.js';
import { invalidTransitionExample, PAYMENT_REQUEST_ID, type OperationProse, type ProseRecord } from './prose.js';
import { LIST_LIMIT_TEXT } from './webhooks.js';

function transition(summary: string, description: string, examples?: Record<string, unknown>): OperationProse {
  return {
    tag: 'Sandbox: payment requests',
    summary,
    description: `${description} From a terminal state: 409, and nothing changes.`,
    pathParameters: { id: PAYMENT_REQUEST_ID },
    answer: { description: 'The payment request after the change.', ...(examples ? { examples } : {}) },
    errorExamples: invalidTransitionExample,
  };
}

function clock(summary: string): OperationProse {
  return {
    tag: 'Sandbox: clock',
    summary,
    answer: { description: "The account's clock.", examples: { running: { now: '2026-03-14T15:09:26.000Z', frozen: false } } },
  };
}

/** The prose of the control routes. */
export const controlProse: ProseRecord = {
  listPaymentRequests: {
    tag: 'Sandbox: payment requests',
    summary: "The account's payment requests",
    description: "Newest (last created) first, each as `GET /api/v1/payment-requests/{id}` shows it on the account's clock. v1 has no list; the dashboard uses this one.",
    queryParameters: { limit: LIST_LIMIT_TEXT },
    answer: { description: 'The payment requests.', examples: { one: { data: [pendingExample] } } },
  },
  completePaymentRequest: transition('Pay a payment request', 'A wallet pays it: `completed`, `preimage` set, `updatedAt` moves.', { completed: completedExample }),
  failPaymentRequest: transition('Fail a payment request', 'The payment fails: `failed`.'),
  expirePaymentRequest: transition('Expire a payment request', 'It expires now: `expired`.'),
  payInvoice: {
    tag: 'Sandbox: payment requests',
    summary: 'Pay an invoice as a wallet would',
    description: "Completes the key's account's payment request that has this invoice.",
    bodyExamples: { invoice: { invoice: pendingExample.invoice } },
    answer: { description: 'Paid.', examples: { paid: { paymentRequestId: completedExample.id, status: 'completed', preimage: completedExample.preimage } } },
    errorExamples: {
      invalid_request: {
        error: {
          code: 'invalid_request',
          message: 'Invalid payment: invoice is not a valid BOLT11 invoice: Invalid checksum.',
          details: [{ field: 'invoice', code: 'invalid_invoice', message: 'invoice is not a valid BOLT11 invoice: Invalid checksum' }],
        },
      },
    },
  },
  getClock: clock("The account's clock"),
  advanceClock: {
    ...clock("Move the account's clock on"),
    description: "Moves the account's clock on; expiries, rule outcomes and webhook retries that fall due run before the answer.",
    bodyExamples: { hour: { seconds: 3600 } },
  },
  freezeClock: clock("Freeze the account's clock"),
  unfreezeClock: clock("Let the account's clock run again"),
  getRules: {
    tag: 'Sandbox: rules',
    summary: 'Behaviour rules in force',
    answer: { description: "The account's rules and the fixed ones." },
  },
  putRules: {
    tag: 'Sandbox: rules',
    summary: "Replace the account's behaviour rules",
    bodyExamples: { bigOrdersFail: { rules: [{ name: 'big orders fail', match: { amount: { min: 100000 } }, outcome: 'fail', after: 30 }] } },
    answer: { description: 'The rules now in force.' },
  },
  resetAccount: {
    tag: 'Sandbox: payment requests',
    summary: "Reset the key's account",
    description:
      "Deletes the account's payment requests, events and webhook deliveries (pending ones are cancelled: none is attempted afterwards) and sets its clock back to real time. Webhook endpoints and the account's rules stay; `{\"scope\": \"all\"}` removes them too. The body may be left out.",
    bodyExamples: { activity: {}, all: { scope: 'all' } },
    answer: { description: 'Done.' },
  },
};
