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
  ])('%j → %s', (step, line, body) => {
    const request = requestOf(step);
    expect(`${request.method} ${request.path}`).toBe(line);
    expect(request.body).toEqual(body);
  });

  it('escapes ids in paths, so an id cannot reach another endpoint', () => {
    expect(requestOf({ read: '../x?y' }).path).toBe('/api/v1/payment-requests/..%2Fx%3Fy');
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

  it('shows short resolved values (ids) and keeps the reference for long ones (invoices)', () => {
    expect(describeStep({ read: '${order.id}' }, { read: 'pr_1' })).toBe('read pr_1');
    expect(describeStep({ pay: '${order.invoice}' }, { pay: `lnbcrt${'q'.repeat(200)}` })).toBe('pay ${order.invoice}');
  });
});
