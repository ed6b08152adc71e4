/**
 * The hosted pay page's API (`/sandbox/v1/pay-page/{id}`): what a merchant's customer may see of
 * one payment request, and its test wallet. No key: the id is the secret, as with any hosted
 * invoice page, so the answer carries public fields only (never metadata, fees or the preimage).
 */
import type { ClockView, PayPageView } from '../../schemas/control.js';
import type { PaymentRequestRecord } from '../payments/payment-request.js';
import type { PaymentRequests } from '../payments/payment-requests.js';
import type { RouteHandler } from '../pipeline/handler.js';
import type { Route } from '../pipeline/router.js';
import type { AccountClocks } from '../ports.js';

/** What the pay-page routes need. */
export interface PayPageRouteDeps {
  paymentRequests: PaymentRequests;
  clocks: AccountClocks;
}

/** The pay-page routes. */
export function payPageRoutes({ paymentRequests, clocks }: PayPageRouteDeps): Array<Route<RouteHandler>> {
  const viewOf = (record: PaymentRequestRecord): PayPageView => {
    const clock: ClockView = { now: new Date(clocks.now(record.accountId)).toISOString(), frozen: clocks.isFrozen(record.accountId) };
    return toPayPageView(record, clock);
  };
  return [
    {
      method: 'GET',
      pattern: '/sandbox/v1/pay-page/:id',
      handler: ({ params }) => ({ status: 200, body: viewOf(paymentRequests.readHosted(params.id!)) }),
    },
    {
      method: 'POST',
      pattern: '/sandbox/v1/pay-page/:id/pay',
      handler: async ({ params }) => ({ status: 200, body: viewOf(await paymentRequests.payHosted(params.id!)) }),
    },
  ];
}

/** The public fields of a record, in a fixed order, with the account's clock. */
export function toPayPageView(record: PaymentRequestRecord, clock: ClockView): PayPageView {
  const { id, status, amount, description, invoice, createdAt, expiresAt, updatedAt } = record;
  return { id, status, amount, description, invoice, createdAt, expiresAt, updatedAt, clock };
}
