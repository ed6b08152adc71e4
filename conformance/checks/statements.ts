/**
 * The spec statement each check enforces, for the checks built by helpers (the others say it where
 * they are defined). The coverage table of docs/conformance.md is printed from these
 * (conformance/coverage-table.ts).
 */
import type { Check } from '../check.js';

const STATEMENTS: Readonly<Record<string, string>> = {
  'auth.missing-key': 'Authentication 1 and 3: "Every request carries an API key"; "A request with a missing … key gets 401"',
  'auth.malformed-header': 'Authentication 2 and 3: the key goes as "Authorization: Bearer <API_KEY>"; an invalid one gets 401',
  'auth.empty-bearer': 'Authentication 3: "A request with a missing or invalid key gets 401 Unauthorized"',
  'auth.unknown-key': 'Authentication 3: "A request with a missing or invalid key gets 401 Unauthorized"',
  'auth.read-only-cannot-create': 'Authentication 4: "A key that lacks permission for an action also gets 401 (stated for creation)"',
  'create.status-201': 'Create: "201 Created: Payment request object"',
  'create.id-format': 'Resources: id, "a string with the prefix pr_", shaped pr_<identifier>',
  'create.status-pending': 'States: pending, "the initial state returned on creation"; Create: 201 with "status (pending)"',
  'create.amount-echo': 'Resources: amount, a number, "Amount in satoshis" (the amount sent)',
  'create.description-echo': 'Resources: description, a string, "Description of the payment" (the one sent)',
  'create.metadata-echo': 'Resources: metadata, "Custom key-value pairs supplied at creation, returned as given"',
  'create.invoice-present': 'Resources: invoice, a string, present "on create; on read" (BOLT11 text)',
  'create.payment-hash-format': 'Resources: paymentHash, a string, present "on create; on read"',
  'create.expires-at-format': 'Resources: expiresAt, always, "ISO 8601 UTC timestamp with milliseconds"',
  'create.is-nwc-boolean': 'Resources: isNwc, a boolean, always; "The mode is reported in every payment request response by the field isNwc"',
  'create.fee-fields': 'Resources: feeAmount "Fee in satoshis" and feePercentage "Fee percentage applied", numbers, always',
  'create.timestamps-format': 'Resources: createdAt and updatedAt, always, "ISO 8601 UTC timestamp"',
  'create.updated-at-not-before-created': 'Resources: updatedAt "changes when the record changes" (so it starts at creation)',
  'create.no-destination-wallet': 'Resources: destinationWallet "is stored with the request … It is not among the fields shown in responses"',
  'create.no-preimage': 'Resources: preimage "available after successful completion"',
  'create.nwc-relay-only-when-nwc': 'Resources: nwcRelay "Present only when isNwc is true"',
  'create.default-expiry': 'Create: expiresIn "default 3600"; Limits: "expiresIn default: 3600 seconds"',
  'create.expires-in-honoured': 'Create: expiresIn, "Validity in seconds"',
  'create.without-metadata': 'Create: metadata, "Required: no"',
  'create.unique-ids': 'Resources: a payment request is "Identified by id"',
  'fees.table': 'Fee rules: "Checks that follow from the rules": 21, 100, 500 → 10; 1,000 → 5; 10,000 → 50',
  'fees.threshold-edge': 'Fee rules: "less than 1,000 sats: the higher of 10 sats and 0.5 %"; "1,000 sats or more: 0.5 % of the amount"',
  'fees.percentage-from-threshold': 'Fee rules: "A 10,000-sat payment shows feePercentage 0.5"',
  'fees.rounding-above-threshold': 'Fee rules: 0.5 % of the amount ("Rounding of the fee … not shown": one rounding, any)',
  'fees.percentage-below-threshold': 'Fee rules: "the feePercentage value for payments under 1,000 sats: not shown" (one reasonable reading, consistently)',
  'fees.same-in-both-modes': 'What the service does: "The fee amount is the same in both modes"',
  'read.get-fields': 'Get: "200 OK: Payment request object as above"',
  'read.get-equals-create': 'Get: "200 OK: Payment request object as above" (the same request: the same values)',
  'read.status-exact': 'Get status: "200 OK: JSON object with one field: status, one of pending, completed, expired, failed"',
  'read.status-agrees': 'Get status: the status of the payment request (the one GET shows)',
  'read.unknown-id-404': 'Get, Get status: "404 Not Found: No payment request with that identifier"',
  'read.unprefixed-id-404': 'Get, Get status: "404 Not Found: No payment request with that identifier" (whatever its shape)',
  'read.other-account-hidden': 'Authentication: the API key is the account\'s; Get: 404 for "No payment request with that identifier" (of this account)',
  'read.other-account-404': 'Errors: 404, "Payment request with the given identifier does not exist" (for this account)',
  'nwc.create-fields': 'Create: "201 Created: Payment request object" (for a key of a non-custodial account too)',
  'nwc.is-nwc-true': 'Resources: isNwc "true = non-custodial, using the connected wallet"; mode "selected automatically from the account configuration"',
  'nwc.relay-on-get': 'Get: "It additionally carries nwcRelay when isNwc is true"',
  'nwc.relay-on-create': 'Resources: nwcRelay, "Relay address used for non-custodial payments. Present only when isNwc is true" (not in the 201 list: SHOULD)',
  'nwc.get-equals-create': 'Get: "Payment request object as above" (for a non-custodial request too)',
  'nwc.status-exact': 'Get status: "JSON object with one field: status" (for a non-custodial request too)',
  'nwc.invoice': 'Resources: invoice, "The Lightning invoice (BOLT11 text)" (for a non-custodial request too)',
  'invoice.decodes': 'Resources: invoice, "The Lightning invoice (BOLT11 text)"',
  'invoice.signature-valid': 'Resources: invoice, "The Lightning invoice (BOLT11 text)" (BOLT 11: signed by the payee)',
  'invoice.network': 'What the service does: "creates Bitcoin Lightning payment requests"',
  'invoice.amount': 'What the service does: "Amounts are in satoshis" (the invoice asks amount × 1,000 msat)',
  'invoice.payment-hash': 'Resources: paymentHash, "Payment hash for tracking" (the invoice\'s)',
  'invoice.payment-secret': 'Resources: invoice, BOLT11 text (BOLT 11: "A writer MUST include exactly one s field")',
  'invoice.expiry-default': 'Create: expiresIn "Validity in seconds; default 3600" (the invoice\'s validity)',
  'invoice.expiry-given': 'Create: expiresIn "Validity in seconds" (the invoice\'s validity)',
  'invoice.description': 'Resources: description, "Description of the payment" (the invoice\'s)',
  'invoice.long-description': 'Resources: description "at most 255 characters" (BOLT 11: a description that does not fit goes as its hash)',
  'invoice.timestamp': 'Resources: createdAt (the invoice is created then)',
  'lifecycle.completes': 'States: completed, "Paid"',
  'lifecycle.preimage': 'States: completed, "a preimage is then available"; Resources: preimage, "proof of payment"',
  'lifecycle.updated-at-moves': 'Resources: updatedAt "changes when the record changes (for example on completion)"',
  'lifecycle.status-endpoint-completed': 'Get status: "status, one of pending, completed, expired, failed" (completed once paid)',
  'lifecycle.completed-fields': 'Get: "Payment request object as above … and preimage when completed" (the other values unchanged)',
  'lifecycle.fails': 'States: failed, "Payment failed"',
  'lifecycle.expires-by-clock': 'States: expired, "Validity period (expiresIn) elapsed"',
  'lifecycle.completed-stays-completed': 'States: completed, "Paid" (a paid request is not later unpaid)',
  'lifecycle.expired-stays-expired': 'States: expired, "Validity period (expiresIn) elapsed" (an elapsed validity does not come back)',
  'lifecycle.failed-stays-failed': 'States: failed, "Payment failed" (the payment of a failed request does not later succeed)',
};

/** The checks with their statements filled in from the table. */
export function withStatements(checks: Check[]): Check[] {
  return checks.map((check) => (check.statement !== undefined ? check : { ...check, statement: STATEMENTS[check.id] }));
}

/** Ids the table names that are no check (a renamed check leaves one behind): for the check-list test. */
export function unknownStatementIds(checks: readonly Check[]): string[] {
  const ids = new Set(checks.map((check) => check.id));
  return Object.keys(STATEMENTS).filter((id) => !ids.has(id));
}
