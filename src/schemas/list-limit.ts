/**
 * The `limit` of every `/sandbox/v1` list: at most that many items, the newest; 100 when absent,
 * and at most 1,000 (a larger one is a 400 naming `limit`), so that no answer grows with what an
 * account has done.
 */

/** Items a list answers when the query names no `limit`. */
export const DEFAULT_LIST_LIMIT = 100;

/** The largest `limit` a list takes. */
export const MAX_LIST_LIMIT = 1_000;

/** The `limit` query parameter, as each list route declares it. */
export const LIST_LIMIT = { type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT } as const;
