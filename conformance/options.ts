/** The options of a conformance run, shared by `runConformance` and `lnpr conformance`. */
import type { CheckResult } from './result.js';
import type { Profile } from './vocabulary.js';

/** Options of `runConformance`. */
export interface ConformanceOptions {
  /** The implementation's base URL; paths such as `/api/v1/payment-requests` are appended. */
  baseUrl: string;
  /** A key with create and read permission; required unless `adminKey` is given. */
  apiKey?: string;
  /** A key of the same account without create permission: enables the permission check. */
  readOnlyKey?: string;
  /** A key of a non-custodial (NWC) account: enables the `isNwc`/`nwcRelay` checks. */
  nwcKey?: string;
  /**
   * A key with the `accounts` permission of a sandbox's accounts API: the run makes accounts of its
   * own (custodial, and NWC when a check needs one), uses their keys instead of the three above,
   * and deletes them at the end, however the run ends.
   */
  adminKey?: string;
  profile?: Profile;
  /** Pins the minimum amount (21 or 1); by default either reading passes. */
  minAmount?: number;
  /** Pays a BOLT11 invoice out of band (e.g. a regtest node); enables lifecycle without controls. */
  payInvoice?: (invoice: string) => Promise<void>;
  /**
   * A Nostr Wallet Connect URI (`nostr+walletconnect://…`) of a funded wallet that pays: the
   * lifecycle checks pay invoices through it (`pay_invoice`) instead of the control API's
   * complete or `payInvoice`, and nwc.completes-with-wallet-preimage runs. It holds a secret: the
   * suite never prints it. Its relay is reached over the platform's WebSocket (the `ws` package on Node 20).
   */
  payerNwcUrl?: string;
  /** Check ids expected to fail: they do not fail the run, but passing does (remove them from the list). */
  knownFailing?: readonly string[];
  /** Requests in flight at once (default 4). */
  concurrency?: number;
  /** Per-request timeout in ms (default 15,000). */
  timeoutMs?: number;
  /** The fetch to use: the global one by default, or e.g. one MSW intercepts. */
  fetch?: typeof fetch;
  /**
   * The target is request handlers inside this process or page (MSW), not an HTTP server: the
   * checks of the HTTP server's own rules (CORS) are skipped, as CONTRACT.md exempts the handlers
   * ("they have no Host or CORS to guard").
   */
  inPage?: boolean;
  /** Called as each check finishes, for live reporting. */
  onCheck?: (result: CheckResult) => void;
}
