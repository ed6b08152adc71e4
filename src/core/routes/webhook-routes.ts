/**
 * The webhook part of the control API: endpoints, events, deliveries, redelivery. Like every
 * control route, a key acts on its own account only; another account's ids read as absent.
 */
import { webhookDeliveryListSchema, webhookEndpointListSchema, webhookEventListSchema } from '../../schemas/answers.js';
import {
  createEndpointBodySchema,
  EVENT_TYPES,
  webhookEndpointSchema,
  webhookEventSchema,
  type CreateEndpointBody,
  type EventType,
} from '../../schemas/webhooks.js';
import type { SandboxSettings } from '../settings.js';
import { toDeliveryView, toEndpointView, toEventView } from '../store/webhook-records.js';
import { endpointUrlProblems } from '../webhooks/webhook-endpoints.js';
import { declareBody, declareQuery } from '../pipeline/route.js';
import { DEFAULT_LIST_LIMIT, LIST_LIMIT } from '../../schemas/list-limit.js';
import { route, type EngineRoute } from './route-deps.js';

/** An id a list may be filtered by. */
const ID_FILTER = { type: 'string', minLength: 1, maxLength: 256 } as const;

/** The webhook routes of a sandbox with these settings (its address policy checks endpoint URLs). */
export function webhookRoutes(settings: SandboxSettings): EngineRoute[] {
  return [
    route({
      name: 'createWebhookEndpoint',
      method: 'POST',
      path: '/sandbox/v1/webhook-endpoints',
      access: 'create',
      body: declareBody<CreateEndpointBody>({
        schema: createEndpointBodySchema,
        what: 'webhook endpoint',
        // The URL's scheme and host, named in the same answer as the schema's problems.
        check: (body) => endpointUrlProblems(body, settings.webhookAllowedHosts),
      }),
      answer: { status: 201, schema: webhookEndpointSchema },
      handle: async ({ caller, body }, { endpoints }) => {
        const endpoint = await endpoints.register(caller.account.id, body);
        return { status: 201, body: toEndpointView(endpoint), headers: { location: `/sandbox/v1/webhook-endpoints/${endpoint.id}` } };
      },
    }),
    route({
      name: 'listWebhookEndpoints',
      method: 'GET',
      path: '/sandbox/v1/webhook-endpoints',
      access: 'read',
      query: declareQuery<{ limit?: number }>({ limit: LIST_LIMIT }),
      answer: { status: 200, schema: webhookEndpointListSchema },
      handle: ({ caller, query: { limit } }, { endpoints }) => {
        const newestFirst = endpoints.list(caller.account.id).reverse().slice(0, limit ?? DEFAULT_LIST_LIMIT);
        return { status: 200, body: { data: newestFirst.map((endpoint) => toEndpointView(endpoint)) } };
      },
    }),
    route({
      name: 'getWebhookEndpoint',
      method: 'GET',
      path: '/sandbox/v1/webhook-endpoints/:id',
      access: 'read',
      answer: { status: 200, schema: webhookEndpointSchema },
      errors: ['webhook_endpoint_not_found'],
      handle: ({ caller, params }, { endpoints }) => ({ status: 200, body: toEndpointView(endpoints.get(caller.account.id, params.id!)) }),
    }),
    route({
      name: 'deleteWebhookEndpoint',
      method: 'DELETE',
      path: '/sandbox/v1/webhook-endpoints/:id',
      access: 'create',
      answer: { status: 204 },
      errors: ['webhook_endpoint_not_found'],
      handle: async ({ caller, params }, { endpoints }) => {
        await endpoints.delete(caller.account.id, params.id!);
        return { status: 204 };
      },
    }),
    route({
      name: 'listEvents',
      method: 'GET',
      path: '/sandbox/v1/events',
      access: 'read',
      query: declareQuery<{ type?: EventType; paymentRequest?: string; limit?: number }>({ type: { enum: EVENT_TYPES }, paymentRequest: ID_FILTER, limit: LIST_LIMIT }),
      answer: { status: 200, schema: webhookEventListSchema },
      handle: ({ caller, query: { type, paymentRequest, limit } }, { log }) => {
        const events = log.events(caller.account.id, { limit: limit ?? DEFAULT_LIST_LIMIT, ...(type ? { type } : {}), ...(paymentRequest ? { paymentRequestId: paymentRequest } : {}) });
        return { status: 200, body: { data: events.map(toEventView) } };
      },
    }),
    route({
      name: 'getEvent',
      method: 'GET',
      path: '/sandbox/v1/events/:id',
      access: 'read',
      answer: { status: 200, schema: webhookEventSchema },
      errors: ['event_not_found'],
      handle: ({ caller, params }, { log }) => ({ status: 200, body: toEventView(log.event(caller.account.id, params.id!)) }),
    }),
    route({
      name: 'redeliverEvent',
      method: 'POST',
      path: '/sandbox/v1/events/:id/redeliver',
      access: 'create',
      answer: { status: 202, schema: webhookDeliveryListSchema },
      errors: ['event_not_found'],
      handle: async ({ caller, params }, { log }) => {
        const deliveries = await log.redeliver(caller.account.id, params.id!);
        return { status: 202, body: { data: deliveries.map(toDeliveryView) } };
      },
    }),
    route({
      name: 'listWebhookDeliveries',
      method: 'GET',
      path: '/sandbox/v1/webhook-deliveries',
      access: 'read',
      query: declareQuery<{ event?: string; endpoint?: string; limit?: number }>({ event: ID_FILTER, endpoint: ID_FILTER, limit: LIST_LIMIT }),
      answer: { status: 200, schema: webhookDeliveryListSchema },
      handle: ({ caller, query: { event, endpoint, limit } }, { log }) => {
        const deliveries = log.deliveries(caller.account.id, { limit: limit ?? DEFAULT_LIST_LIMIT, ...(event ? { event } : {}), ...(endpoint ? { endpoint } : {}) });
        return { status: 200, body: { data: deliveries.map(toDeliveryView) } };
      },
    }),
  ];
}
