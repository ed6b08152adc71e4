/**
 * The connection URI a wallet hands to a client (NIP-47):
 * `nostr+walletconnect://<walletPubkey>?relay=<url-encoded>[&relay=…]&secret=<hex>[&lud16=…]`.
 * Parse errors say which part is wrong and never repeat the secret.
 */
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { getPublicKey } from 'nostr-tools/pure';

export interface NwcConnectionUri {
  /** The wallet service's public key (64 lowercase hex). */
  walletPubkey: string;
  /** Where the wallet listens, in the URI's order; at least one ws:// or wss:// URL. */
  relays: string[];
  /** The client's secret key (32 bytes): it signs requests and encrypts to the wallet. */
  secret: Uint8Array;
  lud16?: string;
}

export class NwcUrlError extends Error {
  /** Which part is wrong: 'scheme', 'walletPubkey', 'relay', 'secret' or 'lud16'. */
  readonly part: 'scheme' | 'walletPubkey' | 'relay' | 'secret' | 'lud16';

  constructor(part: NwcUrlError['part'], message: string) {
    super(`invalid NWC connection URI: ${message}`);
    this.name = 'NwcUrlError';
    this.part = part;
  }
}

// The current scheme, then the legacy one some wallets still print; with or without `//`.
const SCHEMES = ['nostr+walletconnect://', 'nostr+walletconnect:', 'nostrwalletconnect://', 'nostrwalletconnect:'];
const HEX_32_BYTES = /^[0-9a-f]{64}$/i;

export function parseNwcUrl(uri: string): NwcConnectionUri {
  if (typeof uri !== 'string') throw new NwcUrlError('scheme', 'not a string');
  const trimmed = uri.trim();
  const scheme = SCHEMES.find((prefix) => trimmed.slice(0, prefix.length).toLowerCase() === prefix);
  if (!scheme) throw new NwcUrlError('scheme', 'it must start with nostr+walletconnect://');
  const rest = trimmed.slice(scheme.length);
  const queryAt = rest.indexOf('?');
  const path = (queryAt === -1 ? rest : rest.slice(0, queryAt)).replace(/\/+$/, '');
  const query = new URLSearchParams(queryAt === -1 ? '' : rest.slice(queryAt + 1));

  if (!HEX_32_BYTES.test(path)) {
    throw new NwcUrlError('walletPubkey', `the wallet pubkey after the scheme must be 64 hex characters (got ${path.length} characters)`);
  }
  const walletPubkey = path.toLowerCase();

  const relays = query.getAll('relay').map((relay) => relay.trim());
  if (relays.length === 0) throw new NwcUrlError('relay', 'no relay parameter');
  for (const relay of relays) {
    if (!isRelayUrl(relay)) throw new NwcUrlError('relay', `relay ${JSON.stringify(relay.slice(0, 200))} is not a ws:// or wss:// URL`);
  }

  const secrets = query.getAll('secret');
  if (secrets.length === 0) throw new NwcUrlError('secret', 'no secret parameter');
  if (secrets.length > 1) throw new NwcUrlError('secret', 'more than one secret parameter');
  const secretHex = secrets[0]!.trim();
  if (!HEX_32_BYTES.test(secretHex)) throw new NwcUrlError('secret', `the secret must be 64 hex characters (got ${secretHex.length} characters)`);
  const secret = hexToBytes(secretHex.toLowerCase());
  try {
    getPublicKey(secret);
  } catch {
    throw new NwcUrlError('secret', 'the secret is not a valid secp256k1 secret key (zero or not below the curve order)');
  }

  const lud16 = query.get('lud16');
  if (lud16 !== null && !/^[^@\s]+@[^@\s]+$/.test(lud16)) throw new NwcUrlError('lud16', 'lud16 must be a lightning address (name@domain)');
  return { walletPubkey, relays, secret, ...(lud16 !== null ? { lud16 } : {}) };
}

export function formatNwcUrl(connection: NwcConnectionUri): string {
  if (!HEX_32_BYTES.test(connection.walletPubkey)) throw new NwcUrlError('walletPubkey', 'the wallet pubkey must be 64 hex characters');
  if (connection.relays.length === 0) throw new NwcUrlError('relay', 'at least one relay is needed');
  if (connection.secret.length !== 32) throw new NwcUrlError('secret', 'the secret must be 32 bytes');
  const params = [
    ...connection.relays.map((relay) => `relay=${encodeURIComponent(relay)}`),
    `secret=${bytesToHex(connection.secret)}`,
    ...(connection.lud16 !== undefined ? [`lud16=${encodeURIComponent(connection.lud16)}`] : []),
  ];
  return `nostr+walletconnect://${connection.walletPubkey.toLowerCase()}?${params.join('&')}`;
}

function isRelayUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'ws:' || url.protocol === 'wss:') && url.hostname !== '';
  } catch {
    return false;
  }
}
