/**
 * The hosted pay page's API (`/sandbox/v1/pay-page/{id}`): what a merchant's customer may see of
 * one payment request, and its test wallet. No key: the id is the secret, as with any hosted
 * invoice page, so the answer carries public fields only (never metadata, fees or the preimage).
 */
import { payPageSchema } from '../../schemas/answers.js';
import type { ClockView, PayPageView } from '../../schemas/control.js';
import type { PaymentRequestRecord } from '../store/payment-request.js';
import type { AccountClocks } from '../ports.js';
import { route, type EngineRoute } from './route-deps.js';

/** The pay-page routes. */
export function payPageRoutes(): EngineRoute[] {
  return [
    route({
      name: 'getPayPage',
      method: 'GET',
      path: '/sandbox/v1/pay-page/:id',
      access: 'public',
      answer: { status: 200, schema: payPageSchema },
      errors: ['payment_request_not_found'],
      handle: ({ params }, { paymentRequests, clocks }) => ({ status: 200, body: viewOf(clocks, paymentRequests.readHosted(params.id!)) }),
    }),
    route({
      name: 'payFromPayPage',
      method: 'POST',
      path: '/sandbox/v1/pay-page/:id/pay',
      access: 'public',
      answer: { status: 200, schema: payPageSchema },
      errors: ['payment_request_not_found', 'invalid_transition'],
      handle: async ({ params }, { paymentRequests, ledger, clocks }) => ({
        status: 200,
        body: viewOf(clocks, await ledger.payForTheWorld(paymentRequests.payableHosted(params.id!))),
      }),
    }),
  ];
}

function viewOf(clocks: AccountClocks, record: PaymentRequestRecord): PayPageView {
  const clock: ClockView = { now: new Date(clocks.now(record.accountId)).toISOString(), frozen: clocks.isFrozen(record.accountId) };
  return toPayPageView(record, clock);
}

/** The public fields of a record, in a fixed order, with the account's clock. */
export function toPayPageView(record: PaymentRequestRecord, clock: ClockView): PayPageView {
  const { id, status, amount, description, invoice, createdAt, expiresAt, updatedAt } = record;
  return { id, status, amount, description, invoice, createdAt, expiresAt, updatedAt, clock };
}
