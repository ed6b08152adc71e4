/** Prose of the routes of `core/routes/webhook-routes.ts`: endpoints, events, deliveries, redelivery. */
import { completedEventExample, deliveryExample, endpointExample } from '../examples.js';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from '../../schemas/list-limit.js';
import { formatNumber, KEPT_EVENTS_TEXT } from '../facts.js';
import { LOCATION_HEADER, type ProseRecord } from './prose.js';

const tag = 'Sandbox: webhooks';
const WEBHOOK_ENDPOINT_ID = 'The webhook endpoint id, `we_<identifier>`.';
const EVENT_ID = 'The event id, `evt_<identifier>`.';
/** The `limit` of every `/sandbox/v1` list, in the words of the document. */
export const LIST_LIMIT_TEXT = `At most this many items, the newest: ${DEFAULT_LIST_LIMIT} by default, at most ${formatNumber(MAX_LIST_LIMIT)} (a larger one is a 400 naming \`limit\`).`;
const NO_SILENT_PARAMETERS = 'A bad or unknown query parameter is a 400 naming it, never ignored.';

/** The prose of the webhook routes. */
export const webhookProse: ProseRecord = {
  createWebhookEndpoint: {
    tag,
    summary: 'Register a webhook endpoint',
    description: "Every change of a payment request of the account is then delivered to it, signed per Standard Webhooks with the endpoint's `secret` (see `webhooks`).",
    bodyExamples: { receiver: { url: endpointExample.url, events: endpointExample.events } },
    answer: { description: 'Registered.', examples: { endpoint: endpointExample }, headers: LOCATION_HEADER },
  },
  listWebhookEndpoints: {
    tag,
    summary: "The account's webhook endpoints",
    description: `Newest first. ${NO_SILENT_PARAMETERS}`,
    queryParameters: { limit: LIST_LIMIT_TEXT },
    answer: { description: 'The endpoints.', examples: { one: { data: [endpointExample] } } },
  },
  getWebhookEndpoint: {
    tag,
    summary: 'A webhook endpoint',
    pathParameters: { id: WEBHOOK_ENDPOINT_ID },
    answer: { description: 'The endpoint.', examples: { endpoint: endpointExample } },
  },
  deleteWebhookEndpoint: {
    tag,
    summary: 'Remove a webhook endpoint',
    description: 'Its pending deliveries stop.',
    pathParameters: { id: WEBHOOK_ENDPOINT_ID },
    answer: { description: 'Removed.' },
  },
  listEvents: {
    tag,
    summary: "The account's events",
    description: `Newest first; the sandbox keeps the newest ${KEPT_EVENTS_TEXT} per account. ${NO_SILENT_PARAMETERS}`,
    queryParameters: { type: 'Only events of this type.', paymentRequest: "Only this payment request's events (its `pr_` id).", limit: LIST_LIMIT_TEXT },
    answer: { description: 'The events.', examples: { one: { data: [completedEventExample] } } },
    errorExamples: {
      invalid_request: {
        error: {
          code: 'invalid_request',
          message: 'Invalid query: after is not a parameter here (known: type, paymentRequest, limit).',
          details: [{ field: 'after', code: 'unknown_parameter', message: 'after is not a parameter here (known: type, paymentRequest, limit)' }],
        },
      },
    },
  },
  getEvent: {
    tag,
    summary: 'An event',
    pathParameters: { id: EVENT_ID },
    answer: { description: 'The event.', examples: { completed: completedEventExample } },
  },
  redeliverEvent: {
    tag,
    summary: 'Send an event again',
    description: "Sends the event again to the account's endpoints that take its type: one new delivery each.",
    pathParameters: { id: EVENT_ID },
    answer: {
      description: 'Accepted: the new deliveries, `pending`.',
      examples: { one: { data: [{ ...deliveryExample, status: 'pending', responseStatus: null, attemptedAt: null, durationMs: null }] } },
    },
  },
  listWebhookDeliveries: {
    tag,
    summary: 'Delivery attempts',
    description: `Every delivery attempt of the account, newest first. ${NO_SILENT_PARAMETERS}`,
    queryParameters: { event: 'Only deliveries of this event (its `evt_` id).', endpoint: 'Only deliveries to this endpoint (its `we_` id).', limit: LIST_LIMIT_TEXT },
    answer: { description: 'The attempts.', examples: { one: { data: [deliveryExample] } } },
  },
};
