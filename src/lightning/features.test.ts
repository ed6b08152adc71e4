/** The `9` field: minimal encoding and the it's-OK-to-be-odd rule. */
import { describe, expect, it } from 'vitest';
import { featureBitsOf, featureBitsToWords, invoiceFeaturesProblem } from './features.js';

describe('features', () => {
  it('encodes bits 8 and 14 in the three words the spec uses (sgq)', () => {
    expect(featureBitsToWords([8, 14])).toEqual([16, 8, 0]);
    expect(featureBitsOf([16, 8, 0])).toEqual([8, 14]);
  });

  it('uses no more words than the highest bit needs, and none for no bits', () => {
    expect(featureBitsToWords([4])).toEqual([16]);
    expect(featureBitsToWords([5])).toEqual([1, 0]);
    expect(featureBitsToWords([])).toEqual([]);
    expect(featureBitsOf([0, 0, 16, 8, 0])).toEqual([8, 14]);
  });

  it('refuses unknown even bits, ignores unknown odd ones', () => {
    expect(invoiceFeaturesProblem([8, 14, 99])).toBeNull();
    expect(invoiceFeaturesProblem([8, 14, 48])).toBeNull();
    expect(invoiceFeaturesProblem([8, 14, 100])).toBe('unknown required feature bit(s) 100');
    expect(invoiceFeaturesProblem([8, 14, 22, 100])).toBe('unknown required feature bit(s) 22, 100');
  });

  it('refuses basic_mpp without payment_secret', () => {
    expect(invoiceFeaturesProblem([8, 17])).toMatch(/basic_mpp/);
    expect(invoiceFeaturesProblem([8, 15, 17])).toBeNull();
  });
});
