/** The v1 endpoints of the spec and `GET /healthz`, as routes of the engine's handler. */
import type { AccountDirectory } from '../accounts/accounts.js';
import type { CreateBodyValidator } from '../payments/create-body.js';
import type { RouteHandler } from '../pipeline/handler.js';
import { parseJsonBody } from '../pipeline/json-body.js';
import { paymentRequestJson } from '../payments/payment-request-view.js';
import type { PaymentRequests } from '../payments/payment-requests.js';
import { authenticated } from '../pipeline/route-auth.js';
import type { Route } from '../pipeline/router.js';

/** What the v1 routes need. */
export interface V1RouteDeps {
  directory: AccountDirectory;
  paymentRequests: PaymentRequests;
  validateCreateBody: CreateBodyValidator;
}

const COLLECTION = '/api/v1/payment-requests';

/** The routes of v1 and the health check. */
export function v1Routes({ directory, paymentRequests, validateCreateBody }: V1RouteDeps): Array<Route<RouteHandler>> {
  return [
    { method: 'GET', pattern: '/healthz', handler: () => ({ status: 200, body: { status: 'ok' } }) },
    {
      method: 'POST',
      pattern: COLLECTION,
      handler: authenticated(directory, 'create', async (caller, { request }) => {
        const body = validateCreateBody(parseJsonBody(request.headers['content-type'], request.body));
        const record = await paymentRequests.create(caller, body);
        return { status: 201, body: paymentRequestJson(record), headers: { location: `${COLLECTION}/${record.id}` } };
      }),
    },
    {
      method: 'GET',
      pattern: `${COLLECTION}/:id`,
      handler: authenticated(directory, 'read', (caller, { params }) => ({
        status: 200,
        body: paymentRequestJson(paymentRequests.read(caller, params.id!)),
      })),
    },
    {
      method: 'GET',
      pattern: `${COLLECTION}/:id/status`,
      handler: authenticated(directory, 'read', (caller, { params }) => ({
        status: 200,
        body: { status: paymentRequests.read(caller, params.id!).status },
      })),
    },
  ];
}
