/**
 * `walletPay` steps: paying an invoice the way a customer's wallet app does, with NIP-47
 * `pay_invoice` through a Nostr Wallet Connect wallet (a test wallet's `nwcUrl`, or any NWC
 * wallet). The runner needs a transport for it, as for receivers: `payThroughWallet` (the CLI
 * gives `nodeWalletPayer()`, over a WebSocket to the wallet's relay).
 */
import { checkExpectations, render, type Mismatch } from './expectations.js';
import type { Expectation } from './scenario-schema.js';

/** How long a wallet has to answer `pay_invoice` (and its info event) before the step fails. */
export const WALLET_TIMEOUT_MS = 10_000;

/** What the wallet answered: NIP-47's `result` (`{ preimage, fees_paid? }`) or its `error`. */
export type WalletAnswer = { result: { preimage: string; fees_paid?: number } } | { error: { code: string; message: string } };

/**
 * Pays `invoice` through the wallet of the connection URI `nwcUrl`. Resolves with the wallet's
 * answer, an error answer included; rejects when there is none (an unusable URI, a relay that
 * cannot be reached, no answer within `timeoutMs`), with a message that never holds the URI's secret.
 */
export type PayThroughWallet = (payment: { nwcUrl: string; invoice: string; timeoutMs: number }) => Promise<WalletAnswer>;

/** The answer as a step sees it: the result, or `{ error: { code, message } }`, the shape `error:` expects. */
export function walletAnswerBody(answer: WalletAnswer): unknown {
  return 'result' in answer ? answer.result : { error: answer.error };
}

/** Every way `answer` misses `expect`; without `error` in it, the payment must have succeeded. */
export function checkWalletPayment(expect: Expectation | undefined, answer: WalletAnswer): Mismatch[] {
  const body = walletAnswerBody(answer);
  const mismatches: Mismatch[] = [];
  if ('error' in answer && expect?.error === undefined) {
    mismatches.push({ path: 'wallet', expected: 'a payment (a preimage)', actual: render(`${answer.error.code}: ${answer.error.message}`) });
  }
  // No HTTP here: a status that always passes leaves the checks on the body.
  mismatches.push(...checkExpectations({ ...expect, status: 200 }, { status: 200, body, text: JSON.stringify(body) }));
  return mismatches;
}
