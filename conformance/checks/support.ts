/** Small helpers the checks share: assertions with readable messages, and creating a request. */
import { CheckFailure, type CheckContext } from '../check.js';
import type { ApiAnswer, ApiCall } from '../client.js';

/** The collection path of v1. */
export const COLLECTION = '/api/v1/payment-requests';

/** A create body every conforming implementation accepts. */
export function validBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: 1000, description: 'lnpr conformance check', destinationWallet: 'conformance@example.com', ...overrides };
}

/** Fails the check with `message` unless `condition` holds. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message);
}

/** Fails unless the answer has `status`; the message shows what came instead. */
export function assertStatus(answer: ApiAnswer, status: number, what: string): void {
  assert(answer.status === status, `${what}: expected HTTP ${status}, got ${answer.status} ${describeBody(answer)}`);
}

/** The start of a response body, for messages. */
export function describeBody(answer: ApiAnswer): string {
  return answer.text.length > 300 ? `${answer.text.slice(0, 300)}…` : answer.text;
}

/** Creates a payment request; fails the check unless the target answers 201 with a JSON object. */
export async function createPaymentRequest(context: CheckContext, overrides: Record<string, unknown> = {}, call: ApiCall = {}): Promise<any> {
  const answer = await context.client.post(COLLECTION, { body: validBody(overrides), ...call });
  assertStatus(answer, 201, `POST ${COLLECTION}`);
  assert(answer.isJson && typeof answer.body === 'object' && answer.body !== null, `POST ${COLLECTION}: the 201 body is not a JSON object`);
  return answer.body;
}

/** One payment request created with the main key and the valid body, shared by the checks that only read it. */
export function sharedPaymentRequest(context: CheckContext): Promise<any> {
  return context.shared('payment request with metadata', () =>
    createPaymentRequest(context, { metadata: { orderId: 'conformance-1', nested: { sku: ['a', 'b'], qty: 2 } } }),
  );
}
