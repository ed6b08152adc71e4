import { describe, expect, it } from 'vitest';
import type { Step } from './scenario-schema.js';
import { describeStep, requestOf } from './step-request.js';

describe('requestOf', () => {
  it.each<[Step, string, unknown]>([
    [{ reset: true }, 'POST /sandbox/v1/reset', undefined],
    [{ create: { amount: 1 } }, 'POST /api/v1/payment-requests', { amount: 1 }],
    [{ read: 'pr_1' }, 'GET /api/v1/payment-requests/pr_1', undefined],
    [{ status: 'pr_1' }, 'GET /api/v1/payment-requests/pr_1/status', undefined],
    [{ complete: 'pr_1' }, 'POST /sandbox/v1/payment-requests/pr_1/complete', undefined],
    [{ fail: 'pr_1' }, 'POST /sandbox/v1/payment-requests/pr_1/fail', undefined],
    [{ expire: 'pr_1' }, 'POST /sandbox/v1/payment-requests/pr_1/expire', undefined],
    [{ pay: 'lnbcrt1' }, 'POST /sandbox/v1/pay', { invoice: 'lnbcrt1' }],
    [{ advance: 60 }, 'POST /sandbox/v1/clock/advance', { seconds: 60 }],
    [{ freeze: true }, 'POST /sandbox/v1/clock/freeze', undefined],
    [{ unfreeze: true }, 'POST /sandbox/v1/clock/unfreeze', undefined],
    [{ clock: true }, 'GET /sandbox/v1/clock', undefined],
    [{ request: { method: 'PUT', path: '/sandbox/v1/rules', body: { rules: [] } } }, 'PUT /sandbox/v1/rules', { rules: [] }],
    [{ webhook: { url: 'http://127.0.0.1:9/x', faults: { duplicate: 1 } } }, 'POST /sandbox/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/x', faults: { duplicate: 1 } }],
    [{ events: {} }, 'GET /sandbox/v1/events', undefined],
    [{ events: { paymentRequest: 'pr_1', type: 'payment_request.created', limit: 2 } }, 'GET /sandbox/v1/events?paymentRequest=pr_1&type=payment_request.created&limit=2', undefined],
    [{ deliveries: { event: 'evt_1', endpoint: 'we_1' } }, 'GET /sandbox/v1/webhook-deliveries?event=evt_1&endpoint=we_1', undefined],
    [{ redeliver: 'evt_1' }, 'POST /sandbox/v1/events/evt_1/redeliver', undefined],
  ])('%j → %s', (step, line, body) => {
    const request = requestOf(step);
    expect(`${request.method} ${request.path}`).toBe(line);
    expect(request.body).toEqual(body);
  });

  it('escapes ids in paths and values in queries, so an id cannot reach another endpoint', () => {
    expect(requestOf({ read: '../x?y' }).path).toBe('/api/v1/payment-requests/..%2Fx%3Fy');
    expect(requestOf({ redeliver: '../x' }).path).toBe('/sandbox/v1/events/..%2Fx/redeliver');
    expect(requestOf({ deliveries: { event: 'a&endpoint=b' } }).path).toBe('/sandbox/v1/webhook-deliveries?event=a%26endpoint%3Db');
  });

  it('has no request for the steps that send none', () => {
    expect(() => requestOf({ receiver: true, as: 'shop' })).toThrow('a receiver step sends no request');
    expect(() => requestOf({ received: 'shop' })).toThrow('a received step sends no request');
    expect(() => requestOf({ walletPay: { nwcUrl: 'x', invoice: 'y' } })).toThrow('a walletPay step sends no request');
  });
});

describe('describeStep', () => {
  it('prefers the title, else the action with its argument, key and name', () => {
    expect(describeStep({ read: 'x', title: 'the read' })).toBe('the read');
    expect(describeStep({ create: { amount: 1000, description: 'Coffee beans' }, as: 'order', key: 'nwc' })).toBe(
      'create 1000 sats "Coffee beans" [key nwc] as order',
    );
    expect(describeStep({ create: [1] })).toBe('create [1]');
    expect(describeStep({ advance: '${w.s}' }, { advance: 5 })).toBe('advance the clock 5 s');
  });

  it('describes the webhook steps', () => {
    expect(describeStep({ receiver: true, as: 'shop' })).toBe('start a webhook receiver as shop');
    expect(describeStep({ receiver: { answer: [500, 500, 204] }, as: 'shop' })).toBe('start a webhook receiver answering 500, 500, then 204 as shop');
    expect(describeStep({ receiver: { answer: 503 }, as: 'down' })).toBe('start a webhook receiver answering 503 as down');
    expect(describeStep({ webhook: { url: '${shop.url}' }, as: 'hook' }, { webhook: { url: 'http://127.0.0.1:5/webhooks' }, as: 'hook' })).toBe(
      'register a webhook endpoint for http://127.0.0.1:5/webhooks as hook',
    );
    expect(describeStep({ received: 'shop' })).toBe('deliveries received by shop');
    expect(describeStep({ events: {} })).toBe('list events');
    expect(describeStep({ deliveries: { event: '${e.id}' } }, { deliveries: { event: 'evt_1' } })).toBe('list delivery attempts event=evt_1');
    expect(describeStep({ redeliver: '${e.id}' }, { redeliver: 'evt_1' })).toBe('redeliver evt_1');
  });

  it('shows short resolved values (ids) and keeps the reference for long ones (invoices)', () => {
    expect(describeStep({ read: '${order.id}' }, { read: 'pr_1' })).toBe('read pr_1');
    expect(describeStep({ pay: '${order.invoice}' }, { pay: `lnbcrt${'q'.repeat(200)}` })).toBe('pay ${order.invoice}');
  });

  it('describes walletPay without ever showing the connection URI: it holds the secret', () => {
    const uri = `nostr+walletconnect://${'a'.repeat(64)}?relay=ws%3A%2F%2Fr&secret=${'5'.repeat(64)}`;
    const invoice = `lnbcrt${'q'.repeat(200)}`;
    expect(describeStep({ walletPay: { nwcUrl: '${payer.nwcUrl}', invoice: '${order.invoice}' }, as: 'paid' }, { walletPay: { nwcUrl: uri, invoice }, as: 'paid' })).toBe(
      'pay ${order.invoice} through the NWC wallet ${payer.nwcUrl} as paid',
    );
    const literal = describeStep({ walletPay: { nwcUrl: uri, invoice: 'lnbcrt1short' } });
    expect(literal).toBe('pay lnbcrt1short through an NWC wallet');
    expect(literal).not.toContain('5555');
  });
});
