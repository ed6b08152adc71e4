/**
 * The engine's invoices read by an independent decoder, the `bolt11` package (Node only: it
 * needs Buffer). Signature, payee, amount, hashes, expiry, c and the unpadded feature field.
 */
import { describe, expect, it } from 'vitest';
import bolt11 from 'bolt11';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { createInvoice, type InvoiceInput } from './invoice.js';
import { NETWORKS, type Network } from './networks.js';
import { nodeKeyFromSeed, publicKeyOf } from './node-key.js';
import { nobleSigner } from './signer.js';

// bolt11 1.4 knows bc, tb, bcrt and sb by itself; signet's tbs needs a network object.
const BOLT11_NETWORKS: Readonly<Record<Network, Parameters<typeof bolt11.decode>[1]>> = {
  mainnet: undefined,
  testnet: undefined,
  regtest: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  signet: { bech32: 'tbs', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
};

const nodeKey = nodeKeyFromSeed('invoice-bolt11.node.test');
const baseInput: InvoiceInput = {
  network: 'regtest',
  amountSats: 21,
  timestampSeconds: 1_717_171_717,
  paymentHash: sha256(utf8ToBytes('preimage')),
  paymentSecret: new Uint8Array(32).fill(0x5e),
  description: 'coffee ☕',
  expirySeconds: 3600,
};

function tag(decoded: ReturnType<typeof bolt11.decode>, name: string): unknown {
  return decoded.tags.find((t) => t.tagName === name)?.data;
}

describe('createInvoice, decoded by the bolt11 package', () => {
  for (const network of NETWORKS) {
    for (const amountSats of [21, 999, 1000, 250_000, 2_100_000_000_000_000]) {
      it(`${network}, ${amountSats} sats`, () => {
        const invoice = createInvoice({ ...baseInput, network, amountSats }, nodeKey, nobleSigner);
        const decoded = bolt11.decode(invoice, BOLT11_NETWORKS[network]);
        expect(decoded.payeeNodeKey).toBe(publicKeyOf(nodeKey));
        expect(decoded.satoshis).toBe(amountSats);
        expect(decoded.millisatoshis).toBe(`${amountSats}000`);
        expect(decoded.timestamp).toBe(baseInput.timestampSeconds);
        expect(decoded.tagsObject.payment_hash).toBe(bytesToHex(baseInput.paymentHash));
        expect(decoded.tagsObject.payment_secret).toBe('5e'.repeat(32));
        expect(decoded.tagsObject.description).toBe('coffee ☕');
        expect(decoded.tagsObject.expire_time).toBe(3600);
        expect(decoded.timeExpireDate).toBe(baseInput.timestampSeconds + 3600);
        expect(decoded.tagsObject.min_final_cltv_expiry).toBe(80);
        const features = decoded.tagsObject.feature_bits;
        expect(features?.word_length).toBe(3);
        // bolt11 reports the even (required) and odd (optional) bit of each pair separately.
        expect(features?.var_onion_optin).toEqual({ required: true, supported: false });
        expect(features?.payment_secret).toEqual({ required: true, supported: false });
        const others = Object.entries(features ?? {}).filter(
          ([name]) => !['word_length', 'var_onion_optin', 'payment_secret', 'extra_bits'].includes(name),
        );
        expect(others.length).toBeGreaterThan(5);
        for (const [, value] of others) expect(value).toEqual({ required: false, supported: false });
        expect(features?.extra_bits?.bits.every((bit) => !bit)).toBe(true);
        expect(decoded.tags.map((t) => t.tagName)).toEqual([
          'payment_hash',
          'payment_secret',
          'description',
          'expire_time',
          'min_final_cltv_expiry',
          'feature_bits',
        ]);
      });
    }
  }

  it('reads a 640-byte description as its SHA-256 in h, and a 639-byte one in d', () => {
    const long = '€'.repeat(213) + 'a';
    const hashed = bolt11.decode(createInvoice({ ...baseInput, description: long }, nodeKey, nobleSigner), BOLT11_NETWORKS.regtest);
    expect(tag(hashed, 'purpose_commit_hash')).toBe(bytesToHex(sha256(utf8ToBytes(long))));
    expect(tag(hashed, 'description')).toBeUndefined();
    expect(hashed.payeeNodeKey).toBe(publicKeyOf(nodeKey));

    const fits = '€'.repeat(213);
    const inline = bolt11.decode(createInvoice({ ...baseInput, description: fits }, nodeKey, nobleSigner), BOLT11_NETWORKS.regtest);
    expect(tag(inline, 'description')).toBe(fits);
    expect(tag(inline, 'purpose_commit_hash')).toBeUndefined();
  });

  it('reads an empty description', () => {
    const decoded = bolt11.decode(createInvoice({ ...baseInput, description: '' }, nodeKey, nobleSigner), BOLT11_NETWORKS.regtest);
    expect(decoded.tagsObject.description).toBe('');
    expect(decoded.payeeNodeKey).toBe(publicKeyOf(nodeKey));
  });
});
