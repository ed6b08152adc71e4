/**
 * The document's `webhooks`: what the sandbox POSTs to a webhook endpoint for each event type,
 * how it is signed (Standard Webhooks) and what the receiver's answer does to the delivery. The
 * timeout and the retry schedule are the engine's own (`facts.ts`). Browser-safe.
 */
import { EVENT_TYPES, type EventType } from '../schemas/webhooks.js';
import { eventExamples } from './examples.js';
import { ATTEMPT_TIMEOUT_SECONDS, RETRY_DELAYS_TEXT } from './facts.js';
import { schemaRef, type JsonObject } from './schema-tools.js';

const EVENT_MEANINGS: Record<EventType, string> = {
  'payment_request.created': 'A payment request was created (`data.status` is `pending`).',
  'payment_request.completed': 'A payment request was paid (`data.status` is `completed`, `data.preimage` set).',
  'payment_request.failed': 'A payment request failed (`data.status` is `failed`).',
  'payment_request.expired':
    "A payment request expired (`data.status` is `expired`): sent when the account's clock passes `expiresAt`, within a second on a running clock, at once when the clock is advanced past it.",
};

const SIGNATURE_HEADERS: JsonObject[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event id: the same on every retry and every duplicate. Deduplicate on it.',
    schema: { type: 'string', pattern: '^evt_\\S+$' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Real Unix seconds of the attempt (not the account clock). Refuse stale ones, e.g. over 5 minutes off.',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      "`v1,<base64 HMAC-SHA256>` with the endpoint's secret (the base64 after `whsec_`, decoded) over `<webhook-id>.<webhook-timestamp>.<body>`, per the Standard Webhooks specification: any Standard Webhooks library verifies it.",
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
  },
];

/** `webhooks`: one POST per event type. */
export function webhookEvents(): JsonObject {
  const retries = `${RETRY_DELAYS_TEXT.slice(0, -1).join(', ')} and ${RETRY_DELAYS_TEXT.at(-1)}`;
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `${type.replace('payment_request.', 'paymentRequest_')}Webhook`.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase()),
          tags: ['Sandbox: webhooks'],
          summary: type,
          description: `${EVENT_MEANINGS[type]} POSTed to each webhook endpoint of the account that takes this type, signed per Standard Webhooks.`,
          security: [],
          parameters: JSON.parse(JSON.stringify(SIGNATURE_HEADERS)) as JsonObject[],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { allOf: [schemaRef('WebhookEvent'), { type: 'object', properties: { type: { const: type } } }] },
                examples: { [type]: { value: JSON.parse(JSON.stringify(eventExamples[type])) as JsonObject } },
              },
            },
          },
          responses: {
            '2XX': { description: `Delivered: any 2xx within ${ATTEMPT_TIMEOUT_SECONDS} seconds; the delivery is \`succeeded\`.` },
            default: {
              description: `Anything else, or no answer within ${ATTEMPT_TIMEOUT_SECONDS} seconds: the attempt is retried after ${retries} on the account's clock; after the last, the delivery is \`failed\`.`,
            },
          },
        },
      },
    ]),
  );
}
