/**
 * The Node transport of `walletPay` steps: a NIP-47 client (NwcClient) over a WebSocket to the
 * first relay of the connection URI, opened for one payment and closed after it. Loaded when the
 * first payment is made, so scenarios without one never load the Nostr code.
 */
import type { PayThroughWallet } from './wallet-pay.js';

/** A `PayThroughWallet` for `runScenario` that speaks NIP-47 over `ws`. */
export function nodeWalletPayer(): PayThroughWallet {
  return async ({ nwcUrl, invoice, timeoutMs }) => {
    const [{ parseNwcUrl }, { NwcClient }, { Nip47Error }, { webSocketRelaySession }] = await Promise.all([
      import('../nostr/nwc/nwc-url.js'),
      import('../nostr/nwc/wallet-client.js'),
      import('../nostr/nwc/nip47.js'),
      import('../nostr/web-socket-relay-session.node.js'),
    ]);
    // Its errors name the part that is wrong, never the secret.
    const connection = parseNwcUrl(nwcUrl);
    const session = webSocketRelaySession(connection.relays[0]!, { connectTimeoutMs: timeoutMs, publishTimeoutMs: timeoutMs });
    const client = new NwcClient(session, { walletPubkey: connection.walletPubkey, clientSecretKey: connection.secret }, { timeoutMs });
    try {
      const { preimage, fees_paid } = await client.payInvoice({ invoice });
      return { result: { preimage, ...(fees_paid !== undefined ? { fees_paid } : {}) } };
    } catch (error) {
      if (error instanceof Nip47Error) return { error: { code: error.code, message: error.message } };
      throw error;
    } finally {
      client.close();
      session.close();
    }
  };
}
