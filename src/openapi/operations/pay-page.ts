/** Prose of the routes of `core/routes/pay-page-routes.ts`: the hosted pay page's API (no key). */
import { invalidTransitionExample, PAYMENT_REQUEST_ID, type ProseRecord } from './prose.js';

/** The prose of the pay-page routes. */
export const payPageProse: ProseRecord = {
  getPayPage: {
    tag: 'Sandbox: pay page',
    summary: 'What the hosted pay page shows',
    description: 'No key: the id is the secret, as with any hosted invoice page (`GET /pay/{id}`). Public fields only, and the account clock.',
    pathParameters: { id: PAYMENT_REQUEST_ID },
    answer: { description: 'The public view.' },
  },
  payFromPayPage: {
    tag: 'Sandbox: pay page',
    summary: "The pay page's test wallet pays",
    description: 'No key. Completes the payment request, as `POST /sandbox/v1/payment-requests/{id}/complete` does; from a terminal state 409, and nothing changes.',
    pathParameters: { id: PAYMENT_REQUEST_ID },
    answer: { description: 'The public view, `completed`.' },
    errorExamples: invalidTransitionExample,
  },
};
