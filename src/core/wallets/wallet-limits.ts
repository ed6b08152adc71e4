/**
 * How much a client can make the sandbox hold in wallets: one place for every bound, read by the
 * engine, the store and the OpenAPI document; and the one balance rule every way money arrives in
 * a test wallet keeps to (its creation, a top-up, an invoice it makes, a payment it receives).
 */
import { MAX_WALLET_BALANCE_SATS } from '../../schemas/wallets.js';

export { MAX_WALLET_BALANCE_SATS };

/** Test wallets per account; a create past it gets 409 `wallet_limit_reached`. */
export const MAX_TEST_WALLETS_PER_ACCOUNT = 100;
/** Transactions kept per wallet; past it the oldest go. */
export const KEPT_TRANSACTIONS_PER_WALLET = 1_000;

/** The largest balance of a test wallet in msats (1e15, below 2^53: exact in a JSON number). */
export const MAX_WALLET_BALANCE_MSATS = MAX_WALLET_BALANCE_SATS * 1000;

/**
 * The balance rule: whether a test wallet holding `balanceMsats` can receive `amountMsats` without
 * passing `MAX_WALLET_BALANCE_MSATS`. Whoever moves money in asks it first and refuses otherwise,
 * so a balance never passes the cap whichever way the money came.
 */
export function canReceive(balanceMsats: number, amountMsats: number): boolean {
  return Number.isSafeInteger(amountMsats) && amountMsats >= 0 && amountMsats <= MAX_WALLET_BALANCE_MSATS - balanceMsats;
}

/** The cap as messages word it. */
export const MAX_WALLET_BALANCE_WORDS = `${MAX_WALLET_BALANCE_SATS.toLocaleString('en-US')} sats`;
