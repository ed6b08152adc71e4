/**
 * Alby's `@getalby/sdk` 7 (NWCClient), the independent NWC client the wallet tests drive the
 * sandbox with: loaded once Node 20 has a global WebSocket (its bundled nostr-tools reads it when
 * it loads), a client per use, and the NIP-47 code of a refused call.
 */
import { expect } from 'vitest';
import WebSocket from 'ws';

// Node 20 has no global WebSocket; the sdk's bundled nostr-tools reads it when the sdk loads.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
export type Sdk = typeof import('@getalby/sdk/nwc');
export type SdkClient = InstanceType<Sdk['NWCClient']>;
export const sdk: Sdk = await import('@getalby/sdk/nwc');

/** An sdk client on `nwcUrl`, closed afterwards. */
export async function withSdk<T>(nwcUrl: string, body: (client: SdkClient) => Promise<T>): Promise<T> {
  const client = new sdk.NWCClient({ nostrWalletConnectUrl: nwcUrl });
  try {
    return await body(client);
  } finally {
    client.close();
  }
}

/** What a rejected sdk call was: the wallet's NIP-47 code. */
export async function walletErrorOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error, 'the call should have been refused').toBeInstanceOf(sdk.Nip47WalletError);
  return (error as { code?: string }).code;
}
