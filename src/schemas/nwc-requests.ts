/**
 * The dashboard's recent NIP-47 requests (`GET /dashboard/api/nwc-requests`): what the server
 * answers and the page reads. Not part of the v1 or control API (nor of the OpenAPI document):
 * the dashboard's own data, kept in memory by the server while it runs.
 */

/** Requests kept per wallet (the newest); the answer holds at most this many in all. */
export const NWC_REQUESTS_KEPT_PER_WALLET = 50;

/** One NIP-47 request a sandbox-run wallet of the account answered (or ignored). */
export interface NwcRequestView {
  /** When it arrived (ISO, real time: the account's clock does not move relays). */
  at: string;
  /** Whose wallet: the account's connected wallet, or one of its test wallets. */
  wallet: { type: 'connection' } | { type: 'test'; id: string; name: string | null };
  walletPubkey: string;
  clientPubkey: string;
  /** The request event's id. */
  requestId: string;
  /** Null when the request could not be read. */
  method: string | null;
  encryption: string | null;
  /** `ignored`: no answer was sent (`reason` says why). */
  outcome: 'result' | 'error' | 'ignored';
  errorCode: string | null;
  reason: string | null;
  durationMs: number;
}

/** The answer. */
export interface NwcRequestList {
  /** Newest first, at most `NWC_REQUESTS_KEPT_PER_WALLET`. */
  data: NwcRequestView[];
  /**
   * Whether the account has a connected wallet (an NWC account): `GET /sandbox/v1/wallet` shows
   * it. False for a custodial one, which the dashboard then does not ask (that would be a 404).
   */
  connected: boolean;
  /** False when this server keeps no NIP-47 requests (its pages were given no log). */
  recording: boolean;
}
