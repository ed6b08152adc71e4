/** Preimages, payment hashes and secrets. */
import { describe, expect, it } from 'vitest';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { newPaymentSecret, newPreimage, paymentHashOf } from './preimage.js';

describe('preimage', () => {
  it('hashes a preimage with SHA-256', () => {
    // FIPS 180-2 test vector: SHA-256("abc").
    expect(bytesToHex(paymentHashOf(utf8ToBytes('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('draws 32 fresh random bytes by default', () => {
    const a = newPreimage();
    const b = newPreimage();
    expect(a).toHaveLength(32);
    expect(bytesToHex(a)).not.toBe(bytesToHex(b));
    expect(newPaymentSecret()).toHaveLength(32);
  });

  it('uses an injected random source, and refuses one that returns the wrong length', () => {
    const asked: number[] = [];
    const fixed = (length: number) => {
      asked.push(length);
      return new Uint8Array(length).fill(9);
    };
    expect(bytesToHex(newPreimage(fixed))).toBe('09'.repeat(32));
    expect(bytesToHex(newPaymentSecret(fixed))).toBe('09'.repeat(32));
    expect(asked).toEqual([32, 32]);
    expect(() => newPreimage(() => new Uint8Array(16))).toThrow(/32 bytes/);
  });
});
