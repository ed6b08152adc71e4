/** The Node entry only swaps the signer: its handlers answer byte for byte as the browser entry's. */
import { getResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../fixtures/seeded-random.js';
import { createHandlers as createBrowserHandlers } from './index.js';
import { createHandlers as createNodeHandlers } from './index.node.js';

describe('lnpr-sandbox/msw entries', () => {
  it('give identical invoices (noble in browsers, WASM libsecp256k1 in Node)', async () => {
    const deterministic = () => ({ random: seededRandom(3, 'msw entries'), wallClock: { now: () => Date.UTC(2026, 0, 1) } });
    const answers = await Promise.all(
      [createBrowserHandlers(deterministic()), createNodeHandlers(deterministic())].map(async (handlers) => {
        const request = new Request('http://x.test/api/v1/payment-requests', {
          method: 'POST',
          headers: { authorization: 'Bearer sk_test_nwc', 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 2100, description: 'Tea', destinationWallet: 'shop@example.com' }),
        });
        return (await getResponse(handlers, request))!.text();
      }),
    );
    expect(JSON.parse(answers[0]!).invoice).toMatch(/^lnbcrt21u1/);
    expect(answers[1]).toBe(answers[0]);
  });
});
