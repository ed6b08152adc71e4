/** The v1 endpoints of the spec and `GET /healthz`, as routes of the engine's handler. */
import type { AccountDirectory, Caller, Permission } from './accounts.js';
import { requirePermission } from './accounts.js';
import type { CreateBodyValidator } from './create-body.js';
import type { RouteContext, RouteHandler, RouteReply } from './handler.js';
import { parseJsonBody } from './json-body.js';
import { toPaymentRequestView } from './payment-request-view.js';
import type { PaymentRequests } from './payment-requests.js';
import type { Route } from './router.js';

/** What the v1 routes need. */
export interface V1RouteDeps {
  directory: AccountDirectory;
  paymentRequests: PaymentRequests;
  validateCreateBody: CreateBodyValidator;
}

const COLLECTION = '/api/v1/payment-requests';

/** The routes of v1 and the health check. */
export function v1Routes({ directory, paymentRequests, validateCreateBody }: V1RouteDeps): Array<Route<RouteHandler>> {
  // Auth comes before anything about the body, so a caller without a valid key learns nothing else.
  const withCaller =
    (permission: Permission, handler: (caller: Caller, context: RouteContext) => RouteReply | Promise<RouteReply>): RouteHandler =>
    (context) => {
      const caller = directory.authenticate(context.request.headers.authorization);
      requirePermission(caller, permission);
      return handler(caller, context);
    };

  return [
    { method: 'GET', pattern: '/healthz', handler: () => ({ status: 200, body: { status: 'ok' } }) },
    {
      method: 'POST',
      pattern: COLLECTION,
      handler: withCaller('create', async (caller, { request }) => {
        const body = validateCreateBody(parseJsonBody(request.headers['content-type'], request.body));
        const record = await paymentRequests.create(caller, body);
        return { status: 201, body: toPaymentRequestView(record), headers: { location: `${COLLECTION}/${record.id}` } };
      }),
    },
    {
      method: 'GET',
      pattern: `${COLLECTION}/:id`,
      handler: withCaller('read', (caller, { params }) => ({
        status: 200,
        body: toPaymentRequestView(paymentRequests.read(caller, params.id!)),
      })),
    },
    {
      method: 'GET',
      pattern: `${COLLECTION}/:id/status`,
      handler: withCaller('read', (caller, { params }) => ({
        status: 200,
        body: { status: paymentRequests.read(caller, params.id!).status },
      })),
    },
  ];
}
