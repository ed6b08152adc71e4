/**
 * NWC connection URLs as the engine shows them: `nostr+walletconnect://<walletPubkey>?relay=<url>&secret=<hex>`.
 * The full parser (every relay, checks naming the bad part) is the NIP-47 transport's
 * (`src/nostr/nwc/nwc-url.ts`); the engine only writes URLs and reads where one points.
 */

/** The NWC URL of a connection: the wallet's pubkey, its relay and the client's secret. */
export function nwcUrlOf(walletPubkey: string, relay: string, clientSecret: string): string {
  return `nostr+walletconnect://${walletPubkey}?relay=${encodeURIComponent(relay)}&secret=${clientSecret}`;
}

/** The wallet pubkey and first relay an NWC URL names (empty where it names none). */
export function pointOfNwcUrl(nwcUrl: string): { walletPubkey: string; relay: string } {
  const match = /^nostr\+walletconnect:\/\/([0-9a-f]{64})\?(.*)$/.exec(nwcUrl);
  return { walletPubkey: match?.[1] ?? '', relay: new URLSearchParams(match?.[2] ?? '').get('relay') ?? '' };
}
