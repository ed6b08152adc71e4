/**
 * The one error the invoice reader throws, so callers (the conformance suite, the engine's
 * validation of submitted invoices) can tell a malformed invoice from a bug.
 */

/** An invoice that is not valid BOLT #11; `message` says what is wrong in plain words. */
export class InvoiceDecodeError extends Error {
  override readonly name = 'InvoiceDecodeError';
}
