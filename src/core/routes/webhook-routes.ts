/**
 * The webhook part of the control API: endpoints, events, deliveries, redelivery. Like every
 * control route, a key acts on its own account only; another account's ids read as absent.
 */
import { createEndpointBodySchema, EVENT_TYPES, type CreateEndpointBody } from '../../schemas/webhooks.js';
import type { AccountDirectory } from '../accounts/accounts.js';
import type { EventLog } from '../events/event-log.js';
import { toDeliveryView, toEndpointView, toEventView } from '../events/records.js';
import type { WebhookEndpoints } from '../events/webhook-endpoints.js';
import { compileBodyValidator } from '../pipeline/body-validator.js';
import type { RouteHandler } from '../pipeline/handler.js';
import { parseJsonBody } from '../pipeline/json-body.js';
import { QueryReader } from '../pipeline/query.js';
import { authenticated, type CallerHandler } from '../pipeline/route-auth.js';
import type { Route } from '../pipeline/router.js';

/** What the webhook routes need. */
export interface WebhookRouteDeps {
  directory: AccountDirectory;
  endpoints: WebhookEndpoints;
  log: EventLog;
}

/** Lists are whole by default (events are bounded per account anyway); `limit` shortens them. */
const ALL = Number.MAX_SAFE_INTEGER;

const validateCreateEndpointBody = compileBodyValidator<CreateEndpointBody>(createEndpointBodySchema, { what: 'webhook endpoint' });

/** The webhook routes. */
export function webhookRoutes({ directory, endpoints, log }: WebhookRouteDeps): Array<Route<RouteHandler>> {
  const control = (method: string, pattern: string, handler: CallerHandler): Route<RouteHandler> => ({
    method,
    pattern: `/sandbox/v1${pattern}`,
    handler: authenticated(directory, undefined, handler),
  });
  return [
    control('POST', '/webhook-endpoints', async (caller, { request }) => {
      const body = validateCreateEndpointBody(parseJsonBody(request.headers['content-type'], request.body));
      const endpoint = await endpoints.register(caller.account.id, body);
      return { status: 201, body: toEndpointView(endpoint), headers: { location: `/sandbox/v1/webhook-endpoints/${endpoint.id}` } };
    }),
    control('GET', '/webhook-endpoints', (caller, { request }) => {
      new QueryReader(request.url, []).done();
      return { status: 200, body: { data: endpoints.list(caller.account.id).map(toEndpointView) } };
    }),
    control('GET', '/webhook-endpoints/:id', (caller, { params }) => ({
      status: 200,
      body: toEndpointView(endpoints.get(caller.account.id, params.id!)),
    })),
    control('DELETE', '/webhook-endpoints/:id', async (caller, { params }) => {
      await endpoints.delete(caller.account.id, params.id!);
      return { status: 204 };
    }),
    control('GET', '/events', (caller, { request }) => {
      const query = new QueryReader(request.url, ['type', 'paymentRequest', 'limit']);
      const type = query.oneOf('type', EVENT_TYPES);
      const paymentRequestId = query.text('paymentRequest');
      const limit = query.integer('limit', ALL, 1, ALL);
      query.done();
      const events = log.events(caller.account.id, { limit, ...(type ? { type } : {}), ...(paymentRequestId ? { paymentRequestId } : {}) });
      return { status: 200, body: { data: events.map(toEventView) } };
    }),
    control('GET', '/events/:id', (caller, { params }) => ({ status: 200, body: toEventView(log.event(caller.account.id, params.id!)) })),
    control('POST', '/events/:id/redeliver', async (caller, { params }) => {
      const deliveries = await log.redeliver(caller.account.id, params.id!);
      return { status: 202, body: { data: deliveries.map(toDeliveryView) } };
    }),
    control('GET', '/webhook-deliveries', (caller, { request }) => {
      const query = new QueryReader(request.url, ['event', 'endpoint', 'limit']);
      const event = query.text('event');
      const endpoint = query.text('endpoint');
      const limit = query.integer('limit', ALL, 1, ALL);
      query.done();
      const deliveries = log.deliveries(caller.account.id, { limit, ...(event ? { event } : {}), ...(endpoint ? { endpoint } : {}) });
      return { status: 200, body: { data: deliveries.map(toDeliveryView) } };
    }),
  ];
}
