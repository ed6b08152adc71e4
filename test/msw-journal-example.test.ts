/**
 * The Vitest example of docs/guides/resilience-testing.md, as written there (but for the import
 * of `createHandlers`, from the source), with a `placeOrder` standing in for the app's code: the
 * journal through MSW shows what the app sent. And faults through MSW: a lost answer is a network
 * error, with the request made all the same.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHandlers } from '../src/msw/index.node.js';

/** The app under test: creates one payment request per order. */
async function placeOrder(order: { id: string; amount: number }): Promise<void> {
  const response = await fetch('https://payments.example.com/api/v1/payment-requests', {
    method: 'POST',
    headers: { authorization: 'Bearer sk_test_custodial', 'content-type': 'application/json', cookie: 'session=secret' },
    body: JSON.stringify({ amount: order.amount, description: `Order ${order.id}`, destinationWallet: 'shop@example.com', metadata: { orderId: order.id } }),
  });
  if (response.status !== 201) throw new Error(`create answered ${response.status}`);
}

const handlers = createHandlers({ baseUrl: 'https://payments.example.com' });
const server = setupServer(...handlers);
beforeAll(() => server.listen());
afterAll(() => server.close());

it('sends exactly one create, with the order id', async () => {
  await placeOrder({ id: 'A-1', amount: 2100 }); // your code, calling https://payments.example.com/api/v1/…
  const creates = handlers.sandbox.requests('acct_custodial', { method: 'POST', path: '/api/v1/payment-requests' });
  expect(creates).toHaveLength(1);
  expect(creates[0]!.body).toMatchObject({ metadata: { orderId: 'A-1' } });
  // What the journal keeps of it: never the credentials.
  expect(creates[0]!.headers).not.toHaveProperty('authorization');
  expect(creates[0]!.headers).not.toHaveProperty('cookie');
  expect(creates[0]!.status).toBe(201);
});

it('through MSW, a lost answer is a network error, and the request was made all the same', async () => {
  handlers.sandbox.apiFaults.set('acct_custodial', { faults: [{ match: { method: 'POST' }, times: 1, fault: { resetAfterCommit: true } }] });
  await expect(placeOrder({ id: 'A-2', amount: 2100 })).rejects.toThrow(TypeError);
  const [lost] = handlers.sandbox.requests('acct_custodial', { method: 'POST' });
  expect(lost).toMatchObject({ status: null, responseBody: null, fault: { resetAfterCommit: true }, body: { metadata: { orderId: 'A-2' } } });
  const made = handlers.sandbox.store.paymentRequestsOf('acct_custodial').filter((request) => request.metadata?.orderId === 'A-2');
  expect(made).toHaveLength(1);
});
