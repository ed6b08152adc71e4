/**
 * The catalogue of `details[].code`: what can be wrong with one field of a request. Beside the
 * error catalogue (`errors.ts`) and as stable as it: clients match on these codes, the README and
 * the OpenAPI document list them from here, and `ErrorDetail.code` accepts nothing else.
 */
import { DEFAULT_SETTINGS } from '../settings.js';
import { MAX_BODY_DEPTH, MAX_BODY_VALUES } from '../settings.js';

const { maxMetadataDepth, maxMetadataBytes } = DEFAULT_SETTINGS;

const DETAIL_CATALOGUE = {
  missing_field: 'a required field is absent',
  unknown_field: 'a field the body does not take (the message lists the ones it does)',
  unknown_parameter: 'a query parameter the endpoint does not take (the message lists the ones it does)',
  invalid_type: 'the value has the wrong JSON type (e.g. a string where a whole number goes)',
  invalid_value: 'the value is not one of those allowed (the message lists them)',
  amount_below_minimum: 'the amount is below the smallest the sandbox accepts (`--min-amount`, 21 sats by default)',
  below_minimum: 'a number below its minimum',
  above_maximum: 'a number above its maximum',
  too_short: 'a string shorter than its minimum',
  too_long: 'a string longer than its maximum (counted in Unicode code points)',
  too_few_items: 'a list with fewer items than its minimum',
  too_many_items: 'a list with more items than its maximum',
  duplicate_items: 'a list that repeats an item',
  too_few_fields: 'an object with fewer fields than its minimum',
  invalid_format: 'a string not in the expected format (the message says which)',
  too_deep: `a value nested deeper than allowed: metadata beyond its limit (${maxMetadataDepth} levels by default), or any body beyond ${MAX_BODY_DEPTH} levels`,
  too_large: `metadata larger than its limit as JSON (${maxMetadataBytes / 1024} KiB by default), or a body of more than ${MAX_BODY_VALUES.toLocaleString('en-US')} values`,
  invalid_invoice: 'not a BOLT11 invoice this sandbox could have issued',
  invalid_rule: 'a behaviour rule that cannot hold (e.g. `amount.min` above `amount.max`, a bad regular expression)',
  invalid_url: 'a webhook URL that is not an absolute URL, or has credentials or a fragment',
  unsupported_scheme: 'a webhook URL that is not `http` or `https`',
  host_not_allowed: 'a webhook URL whose host the sandbox may not deliver to',
  too_many_endpoints: 'the account already has the most webhook endpoints it may have',
  wallet_refused: "the account's connected wallet answered a NIP-47 error (the message says which: `the wallet answered INTERNAL: …`)",
} as const satisfies Record<string, string>;

/** A stable detail code, part of the public surface. */
export type DetailCode = keyof typeof DETAIL_CATALOGUE;

/** Every detail code with when it is used, for the README, the OpenAPI document and tests. */
export const DETAIL_CODE_CATALOGUE: Readonly<Record<DetailCode, string>> = DETAIL_CATALOGUE;

/** Every detail code, in catalogue order. */
export const DETAIL_CODES = Object.keys(DETAIL_CATALOGUE) as DetailCode[];
