/**
 * What clients see of a stored payment request: the spec's presence rules (no `destinationWallet`
 * ever, `preimage` only once completed, `nwcRelay` only in NWC mode), in one fixed key order.
 */
import type { PaymentRequest } from '../../schemas/payment-request.js';
import { JsonText } from '../pipeline/json-text.js';
import type { PaymentRequestRecord } from '../store/payment-request.js';

/** The response object of a record. */
export function toPaymentRequestView(record: PaymentRequestRecord): PaymentRequest {
  return {
    id: record.id,
    status: record.status,
    amount: record.amount,
    description: record.description,
    invoice: record.invoice,
    paymentHash: record.paymentHash,
    expiresAt: record.expiresAt,
    isNwc: record.isNwc,
    ...(record.isNwc && record.nwcRelay !== undefined ? { nwcRelay: record.nwcRelay } : {}),
    ...(record.status === 'completed' ? { preimage: record.preimage } : {}),
    feeAmount: record.feeAmount,
    feePercentage: record.feePercentage,
    ...(record.metadata !== undefined ? { metadata: record.metadata } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

// Stored records are immutable values, so each one's view and JSON are computed once: a create
// shows the same view in its event and in its answer. Derived states (expired on read) are new
// objects and are viewed afresh.
const views = new WeakMap<PaymentRequestRecord, PaymentRequest>();
const viewJson = new WeakMap<PaymentRequestRecord, string>();

/** The response object of a record, computed once per record, frozen. */
export function paymentRequestViewOf(record: PaymentRequestRecord): PaymentRequest {
  let view = views.get(record);
  if (view === undefined) {
    // Frozen: an event listener given this view must not change the answer it is shared with.
    view = Object.freeze(toPaymentRequestView(record));
    views.set(record, view);
  }
  return view;
}

/** The response body of a record, serialized (cached per record). */
export function paymentRequestJson(record: PaymentRequestRecord): JsonText {
  let json = viewJson.get(record);
  if (json === undefined) {
    json = JSON.stringify(paymentRequestViewOf(record));
    viewJson.set(record, json);
  }
  return new JsonText(json);
}
