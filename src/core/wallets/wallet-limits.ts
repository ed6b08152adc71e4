/**
 * How much a client can make the sandbox hold in wallets: one place for every bound, read by the
 * engine, the store and the OpenAPI document.
 */

/** Test wallets per account; a create past it gets 409 `wallet_limit_reached`. */
export const MAX_TEST_WALLETS_PER_ACCOUNT = 100;
/** Transactions kept per wallet; past it the oldest go. */
export const KEPT_TRANSACTIONS_PER_WALLET = 1_000;
