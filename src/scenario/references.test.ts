import { describe, expect, it } from 'vitest';
import { malformedReferences, resolveReferences, UnresolvedReferenceError } from './references.js';

const scope = {
  results: {
    order: { id: 'pr_1', amount: 1000, paid: false, metadata: { orderId: 'A-1', lines: [{ sku: 'x' }] }, note: null },
    empty: null,
  },
  keys: { default: 'sk_default', nwc: 'sk_nwc' },
};

describe('resolveReferences', () => {
  it('keeps the type of a value that is exactly one reference', () => {
    expect(resolveReferences('${order.amount}', scope)).toBe(1000);
    expect(resolveReferences('${order.paid}', scope)).toBe(false);
    expect(resolveReferences('${order.note}', scope)).toBeNull();
    expect(resolveReferences('${order.metadata}', scope)).toEqual({ orderId: 'A-1', lines: [{ sku: 'x' }] });
  });

  it('interpolates references inside a longer string, non-strings as JSON', () => {
    expect(resolveReferences('/api/v1/payment-requests/${order.id}/status', scope)).toBe('/api/v1/payment-requests/pr_1/status');
    expect(resolveReferences('${order.id}:${order.amount}', scope)).toBe('pr_1:1000');
    expect(resolveReferences('meta ${order.metadata.lines}', scope)).toBe('meta [{"sku":"x"}]');
  });

  it('walks objects and arrays, and indexes arrays with a field number', () => {
    expect(resolveReferences({ a: ['${order.id}', { b: '${order.metadata.lines.0.sku}' }], n: 3, t: true }, scope)).toEqual({
      a: ['pr_1', { b: 'x' }],
      n: 3,
      t: true,
    });
  });

  it('resolves named keys', () => {
    expect(resolveReferences('${keys.nwc}', scope)).toBe('sk_nwc');
    expect(resolveReferences('Bearer ${keys.default}', scope)).toBe('Bearer sk_default');
  });

  it('leaves strings without references alone (a lone $ or braces too)', () => {
    expect(resolveReferences('costs $5 {really}', scope)).toBe('costs $5 {really}');
  });

  it('fails on an unknown name, saying which names exist', () => {
    expect(() => resolveReferences('${ordr.id}', scope)).toThrow(UnresolvedReferenceError);
    expect(() => resolveReferences('${ordr.id}', scope)).toThrow(/no earlier step is named "ordr" \(named so far: order, empty/);
  });

  it('fails on an unknown field, naming the fields there are', () => {
    expect(() => resolveReferences('${order.idd}', scope)).toThrow(/order has no field "idd" \(it has: id, amount/);
    expect(() => resolveReferences('${order.id.x}', scope)).toThrow(/order.id has no field "x" \(it is "pr_1"\)/);
    expect(() => resolveReferences('${empty.id}', scope)).toThrow(/empty has no field "id" \(it is null\)/);
    expect(() => resolveReferences('${keys.other}', scope)).toThrow(/keys has no field "other"/);
  });

  it('does not reach into the prototype', () => {
    expect(() => resolveReferences('${order.constructor}', scope)).toThrow(UnresolvedReferenceError);
    expect(() => resolveReferences('${toString}', scope)).toThrow(UnresolvedReferenceError);
  });
});

describe('malformedReferences', () => {
  it('finds references that could never resolve', () => {
    expect(malformedReferences({ a: '${ order.id }', b: ['${order..id}', '${}'], c: '${order.id}', d: 5 })).toEqual([
      '${ order.id }',
      '${order..id}',
      '${}',
    ]);
  });
});
