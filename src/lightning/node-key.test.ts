/** Node keys: derivation from a label, parsing, public keys. */
import { describe, expect, it } from 'vitest';
import { bytesToHex } from '@noble/hashes/utils.js';
import vectors from '../../fixtures/bolt11-spec-vectors.json' with { type: 'json' };
import { nodeKeyFromSeed, parsePrivateKey, publicKeyOf } from './node-key.js';

const CURVE_ORDER_HEX = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';

describe('node keys', () => {
  it('gives the BOLT #11 examples\' node id for their private key', () => {
    expect(publicKeyOf(parsePrivateKey(vectors.privateKey))).toBe(vectors.publicKey);
  });

  it('derives a stable key from a label: SHA-256 of its UTF-8 bytes', () => {
    // SHA-256("abc"), a FIPS 180-2 test vector.
    expect(bytesToHex(nodeKeyFromSeed('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(bytesToHex(nodeKeyFromSeed('service'))).toBe(bytesToHex(nodeKeyFromSeed('service')));
    expect(bytesToHex(nodeKeyFromSeed('service'))).not.toBe(bytesToHex(nodeKeyFromSeed('wallet')));
  });

  it('parses upper- and lower-case hex', () => {
    expect(bytesToHex(parsePrivateKey(vectors.privateKey.toUpperCase()))).toBe(vectors.privateKey);
  });

  const invalid: ReadonlyArray<readonly [label: string, hex: string, reason: RegExp]> = [
    ['too short', 'ab'.repeat(31), /64 hex characters/],
    ['not hex', 'zz'.repeat(32), /64 hex characters/],
    ['zero', '00'.repeat(32), /1\.\.n-1/],
    ['the curve order', CURVE_ORDER_HEX, /1\.\.n-1/],
  ];
  for (const [label, hex, reason] of invalid) {
    it(`refuses a key that is ${label}, without echoing it`, () => {
      expect(() => parsePrivateKey(hex)).toThrow(reason);
      try {
        parsePrivateKey(hex);
      } catch (error) {
        expect((error as Error).message).not.toContain(hex);
      }
    });
  }
});
