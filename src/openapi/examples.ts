/**
 * Examples for the document: real answers of this sandbox (default accounts, regtest, a frozen
 * clock at 2026-03-14T15:09:26Z), so the invoices decode and `sha256(preimage) == paymentHash`.
 * The document's tests validate each against its schema.
 */
import type { PaymentRequest } from '../schemas/payment-request.js';
import type { WebhookDelivery, WebhookEndpoint, WebhookEvent } from '../schemas/webhooks.js';

/** A create body. */
export const createBodyExample = {
  amount: 1000,
  description: 'Order #1042: 2 bags of coffee beans',
  destinationWallet: 'merchant@example.com',
  metadata: { orderId: 'ord_1042', customerId: 'cus_7781' },
};

/** The answer to `createBodyExample` (custodial account). */
export const pendingExample: PaymentRequest = {
  id: 'pr_4eFthBRT3ez7vwY2TRyQ5Ic8',
  status: 'pending',
  amount: 1000,
  description: 'Order #1042: 2 bags of coffee beans',
  invoice:
    'lnbcrt10u1p5m273xpp5hd6ggl5xphcnsq5rev8u8jzvytgf9uulxaus5y3fcu2tjg7qwdsqsp5pj33gk68phd3nagscv7k3xga5ajs7my25z3l8y4pc6cj7f9a05cqdpcfaexgetjyq3nzvp5xgazqv3qvfskwueqdanzqcm0venx2efqvfjkzmnnxqrrsscqzzs9qrsgqkuldw3m5f4z5du4aznudpkrpl7tzrz7jwwu6t8jz9skq46c0t83h6sftrvvckuhyyyf5e6838xxvhw7rv3wgmrw87yc8yd9s4lcspkqqj8t2gt',
  paymentHash: 'bb74847e860df1380283cb0fc3c84c22d092f39f37790a1229c714b923c07360',
  expiresAt: '2026-03-14T16:09:26.000Z',
  isNwc: false,
  feeAmount: 5,
  feePercentage: 0.5,
  metadata: { orderId: 'ord_1042', customerId: 'cus_7781' },
  createdAt: '2026-03-14T15:09:26.000Z',
  updatedAt: '2026-03-14T15:09:26.000Z',
};

/** The same request once paid. */
export const completedExample: PaymentRequest = {
  ...pendingExample,
  status: 'completed',
  preimage: '3b0cda7cc4c1c8b588636c1da0d21f7085f6ecf26feed47448338398cf0c2946',
  updatedAt: '2026-03-14T15:11:02.417Z',
};

/** A non-custodial (NWC) request of 21 sats: the 10-sat floor applies. */
export const nwcExample: PaymentRequest = {
  id: 'pr_qpFQz0yoQm2vMOUp64DjsSZe',
  status: 'pending',
  amount: 21,
  description: 'Tip',
  invoice:
    'lnbcrt210n1p5m273xpp5qseemnu2lxe4rrj0hzmckqpfx9k2yf3qrkmrmqpzz94297wehyrssp5at4jg8wlkphl48wr5lrlga948jdqtnuygkede5swmhqvm486762sdq9235hqxqzjccqzzs9qrsgqjdnz70zjmcq0sfgsfql4pt207kjrclsz4f3p6763waxtqzdkpr6z46f4y62qv2cdmn6m2eqlu2nzdrs47hsu2j2mahsqhkstnysvqxcpccjl5x',
  paymentHash: '04339dcf8af9b3518e4fb8b78b0029316ca226201db63d8022116aa2f9d9b907',
  expiresAt: '2026-03-14T15:19:26.000Z',
  isNwc: true,
  nwcRelay: 'wss://relay.sandbox.lnpr.test',
  feeAmount: 10,
  feePercentage: 0.5,
  createdAt: '2026-03-14T15:09:26.000Z',
  updatedAt: '2026-03-14T15:09:26.000Z',
};

/** A registered webhook endpoint. */
export const endpointExample: WebhookEndpoint = {
  id: 'we_5Jq0mZkR2bX8tWc1Yh3KdN7e',
  url: 'http://127.0.0.1:3000/webhooks/lnpr',
  events: ['payment_request.completed', 'payment_request.expired'],
  faults: {},
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  createdAt: '2026-03-14T15:09:26.000Z',
};

/** The event the completion above emits. */
export const completedEventExample: WebhookEvent = {
  id: 'evt_2Vb7QpXc9LmN4sTzR8gW1kEa',
  type: 'payment_request.completed',
  timestamp: '2026-03-14T15:11:02.417Z',
  data: completedExample,
};

/** The event each type emits, for the `webhooks` section. */
export const eventExamples: Record<WebhookEvent['type'], WebhookEvent> = {
  'payment_request.created': { id: 'evt_1Hc4RtYw8KpD2fGau6Jm0QsZ', type: 'payment_request.created', timestamp: pendingExample.createdAt, data: pendingExample },
  'payment_request.completed': completedEventExample,
  'payment_request.failed': {
    id: 'evt_7Nd3WqLs5ZcV1xBeTy4Ho9Fr',
    type: 'payment_request.failed',
    timestamp: '2026-03-14T15:12:40.000Z',
    data: { ...pendingExample, status: 'failed', updatedAt: '2026-03-14T15:12:40.000Z' },
  },
  'payment_request.expired': {
    id: 'evt_9Pk2MhTr6YbQ3wJuCx5Ga2Nv',
    type: 'payment_request.expired',
    timestamp: pendingExample.expiresAt,
    data: { ...pendingExample, status: 'expired', updatedAt: pendingExample.expiresAt },
  },
};

/** The first attempt of delivering `completedEventExample`, answered 204. */
export const deliveryExample: WebhookDelivery = {
  id: 'wd_3Fz8KcQm1VtR6pLxWb0Ej7Sy',
  event: completedEventExample.id,
  endpoint: endpointExample.id,
  attempt: 1,
  status: 'succeeded',
  responseStatus: 204,
  error: null,
  scheduledAt: '2026-03-14T15:11:02.417Z',
  attemptedAt: '2026-03-14T15:11:02.421Z',
  durationMs: 4,
};
