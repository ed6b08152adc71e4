/** The v1 endpoints of the spec and `GET /healthz`. */
import { healthSchema } from '../../schemas/answers.js';
import { paymentRequestSchema, paymentRequestStatusSchema } from '../../schemas/payment-request.js';
import { createBody } from '../payments/create-body.js';
import { paymentRequestJson } from '../payments/payment-request-view.js';
import { JsonText } from '../pipeline/json-text.js';
import { PAYMENT_REQUEST_STATUSES, type PaymentRequestStatus } from '../store/payment-request.js';
import { StorageUnavailableError } from '../store/sandbox-store.js';
import type { SandboxSettings } from '../settings.js';
import { route, type EngineRoute } from './route-deps.js';

const COLLECTION = '/api/v1/payment-requests';

/** The status answer of each status, serialized once: the most polled answer of all. */
const STATUS_JSON = new Map<PaymentRequestStatus, JsonText>(PAYMENT_REQUEST_STATUSES.map((status) => [status, new JsonText(JSON.stringify({ status }))]));

/** What any `/api/v1` call may meet when the sandbox is told to misbehave: an API fault's status, the rate limit. */
const RESILIENCE_ERRORS = ['simulated_fault', 'rate_limited'] as const;

/** The routes of v1 and the health check, for a sandbox with these settings. */
export function v1Routes(settings: SandboxSettings): EngineRoute[] {
  return [
    route({
      name: 'getHealth',
      method: 'GET',
      path: '/healthz',
      access: 'public',
      answer: { status: 200, schema: healthSchema },
      errors: ['storage_unavailable'],
      handle: (_input, { storage }) => {
        // 503 while the store cannot write (e.g. a full disk), so a load balancer holds back writes it would refuse.
        if (storage.health?.().status === 'unavailable') throw new StorageUnavailableError();
        return { status: 200, body: { status: 'ok' } };
      },
    }),
    route({
      name: 'createPaymentRequest',
      method: 'POST',
      path: COLLECTION,
      access: 'create',
      body: createBody(settings),
      answer: { status: 201, schema: paymentRequestSchema },
      // NWC accounts' invoices come from their connected wallet, which may refuse or be silent.
      errors: ['wallet_error', 'wallet_unavailable', ...RESILIENCE_ERRORS],
      handle: async ({ caller, body }, { paymentRequests }) => {
        const record = await paymentRequests.create(caller, body);
        return { status: 201, body: paymentRequestJson(record), headers: { location: `${COLLECTION}/${record.id}` } };
      },
    }),
    route({
      name: 'getPaymentRequest',
      method: 'GET',
      path: `${COLLECTION}/:id`,
      access: 'read',
      answer: { status: 200, schema: paymentRequestSchema },
      errors: ['payment_request_not_found', ...RESILIENCE_ERRORS],
      handle: ({ caller, params }, { paymentRequests }) => ({ status: 200, body: paymentRequestJson(paymentRequests.read(caller, params.id!)) }),
    }),
    route({
      name: 'getPaymentRequestStatus',
      method: 'GET',
      path: `${COLLECTION}/:id/status`,
      access: 'read',
      answer: { status: 200, schema: paymentRequestStatusSchema },
      errors: ['payment_request_not_found', ...RESILIENCE_ERRORS],
      handle: ({ caller, params }, { paymentRequests }) => ({ status: 200, body: STATUS_JSON.get(paymentRequests.read(caller, params.id!).status)! }),
    }),
  ];
}
