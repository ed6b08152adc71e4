/**
 * NWC connection URIs: what we format, @getalby/sdk 7.0.0 reads the same way; what we parse, we
 * refuse with the part that is wrong and never echo the secret. And the NIP-47 content encryption
 * against nostr-tools' own NIP-44 / NIP-04.
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import * as nip04 from 'nostr-tools/nip04';
import * as nip44 from 'nostr-tools/nip44';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { nip44ConversationKey, nip47Decrypt, nip47Encrypt } from '../src/nostr/nwc/nip47-crypto.js';
import { formatNwcUrl, NwcUrlError, parseNwcUrl } from '../src/nostr/nwc/nwc-url.js';

(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;

const walletPubkey = getPublicKey(generateSecretKey());
const secret = generateSecretKey();
const secretHex = bytesToHex(secret);

describe('NWC connection URIs', () => {
  let sdk: typeof import('@getalby/sdk/nwc');
  beforeAll(async () => {
    sdk = await import('@getalby/sdk/nwc');
  });

  it('formats relays URL-encoded, in order, and parses back; the sdk reads it the same', () => {
    const relays = ['ws://127.0.0.1:7000/nostr', 'wss://relay.example.com/?a=b&c=d'];
    const uri = formatNwcUrl({ walletPubkey, relays, secret, lud16: 'alice@example.com' });
    expect(uri).toBe(`nostr+walletconnect://${walletPubkey}?relay=${encodeURIComponent(relays[0]!)}&relay=${encodeURIComponent(relays[1]!)}&secret=${secretHex}&lud16=alice%40example.com`);
    expect(parseNwcUrl(uri)).toEqual({ walletPubkey, relays, secret, lud16: 'alice@example.com' });
    expect(sdk.NWCClient.parseWalletConnectUrl(uri)).toEqual({ walletPubkey, relayUrls: relays, secret: secretHex, lud16: 'alice@example.com' });
  });

  it("reads NIP-47's example, unencoded relays, upper-case hex and the legacy scheme", () => {
    const example =
      'nostr+walletconnect://b889ff5b1513b641e2a139f661a661364979c5beee91842f8f0ef42ab558e9d4?relay=wss%3A%2F%2Frelay.damus.io&secret=71a8c14c1407c113601079c4302dab36460f0ccd0ad506f1f2dc73b5100e4f3c';
    expect(parseNwcUrl(example)).toMatchObject({ walletPubkey: 'b889ff5b1513b641e2a139f661a661364979c5beee91842f8f0ef42ab558e9d4', relays: ['wss://relay.damus.io'] });
    expect(parseNwcUrl(`nostrwalletconnect:${walletPubkey.toUpperCase()}/?relay=ws://localhost:1&secret=${secretHex.toUpperCase()}`)).toEqual({ walletPubkey, relays: ['ws://localhost:1'], secret });
  });

  it.each([
    ['https://example.com', 'scheme', /nostr\+walletconnect/],
    [`nostr+walletconnect://abc?relay=wss%3A%2F%2Fr.example&secret=${secretHex}`, 'walletPubkey', /64 hex/],
    [`nostr+walletconnect://${walletPubkey}?secret=${secretHex}`, 'relay', /no relay parameter/],
    [`nostr+walletconnect://${walletPubkey}?relay=https%3A%2F%2Fr.example&secret=${secretHex}`, 'relay', /not a ws:\/\/ or wss:\/\/ URL/],
    [`nostr+walletconnect://${walletPubkey}?relay=wss%3A%2F%2Fr.example`, 'secret', /no secret parameter/],
    [`nostr+walletconnect://${walletPubkey}?relay=wss%3A%2F%2Fr.example&secret=${secretHex.slice(2)}`, 'secret', /64 hex characters \(got 62/],
    [`nostr+walletconnect://${walletPubkey}?relay=wss%3A%2F%2Fr.example&secret=${'0'.repeat(64)}`, 'secret', /not a valid secp256k1 secret key/],
    [`nostr+walletconnect://${walletPubkey}?relay=wss%3A%2F%2Fr.example&secret=${secretHex}&secret=${secretHex}`, 'secret', /more than one/],
    [`nostr+walletconnect://${walletPubkey}?relay=wss%3A%2F%2Fr.example&secret=${secretHex}&lud16=nobody`, 'lud16', /lightning address/],
  ])('refuses %s: the %s is wrong', (uri, part, message) => {
    let thrown: unknown;
    try {
      parseNwcUrl(uri);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(NwcUrlError);
    expect((thrown as NwcUrlError).part).toBe(part);
    expect((thrown as NwcUrlError).message).toMatch(message);
    expect((thrown as NwcUrlError).message).not.toContain(secretHex.slice(2, 40));
  });
});

describe('NIP-47 content encryption', () => {
  const wallet = generateSecretKey();
  const client = generateSecretKey();

  it('nip44_v2 reads and writes what nostr-tools NIP-44 v2 does, with the conversation key computed once per pair', () => {
    const key = nip44.v2.utils.getConversationKey(client, getPublicKey(wallet));
    expect(nip47Decrypt('nip44_v2', wallet, getPublicKey(client), nip44.v2.encrypt('{"method":"get_info"}', key))).toBe('{"method":"get_info"}');
    expect(nip44.v2.decrypt(nip47Encrypt('nip44_v2', wallet, getPublicKey(client), 'answer'), key)).toBe('answer');
    expect(nip44ConversationKey(wallet, getPublicKey(client))).toBe(nip44ConversationKey(wallet, getPublicKey(client)));
  });

  it('nip04 reads and writes what nostr-tools NIP-04 does; the wrong scheme or key throws', () => {
    expect(nip47Decrypt('nip04', wallet, getPublicKey(client), nip04.encrypt(client, getPublicKey(wallet), 'legacy'))).toBe('legacy');
    expect(nip04.decrypt(client, getPublicKey(wallet), nip47Encrypt('nip04', wallet, getPublicKey(client), 'back'))).toBe('back');
    const payload = nip47Encrypt('nip44_v2', wallet, getPublicKey(client), 'secret');
    expect(() => nip47Decrypt('nip04', client, getPublicKey(wallet), payload)).toThrow();
    expect(() => nip47Decrypt('nip44_v2', generateSecretKey(), getPublicKey(wallet), payload)).toThrow();
  });
});
