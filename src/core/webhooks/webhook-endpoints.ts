/**
 * An account's webhook endpoints: registered through the control API, or at start from
 * `--webhook` and the accounts file. A URL must be http(s), and on a sandbox others can reach it
 * must not show an address the policy refuses (address-policy.ts): any key holder could otherwise
 * make the sandbox send requests into the operator's network. A name is taken here (the engine
 * resolves nothing) and what it resolves to is checked at each attempt.
 */
import { base64 } from '@scure/base';
import { createEndpointBodySchema, EVENT_TYPES, type CreateEndpointBody } from '../../schemas/webhooks.js';
import type { ConfiguredEndpoint } from '../accounts/accounts.js';
import { newId } from '../ids.js';
import { ApiError, type ErrorDetail } from '../errors/errors.js';
import type { AccountClocks, RandomSource } from '../ports.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import { refusalMessage, urlRefusal } from './address-policy.js';
import type { WebhookAddressPolicy } from '../settings.js';
import type { PendingDeliveries } from './pending-deliveries.js';
import type { EndpointRecord } from '../store/webhook-records.js';

/** Endpoints one account may have: enough for any test, few enough that a loop cannot flood. */
const MAX_ENDPOINTS_PER_ACCOUNT = 20;

/** What the endpoints need. */
export interface WebhookEndpointsDeps {
  store: SandboxStore;
  clocks: AccountClocks;
  random: RandomSource;
  pending: Pick<PendingDeliveries, 'note'>;
  addressPolicy: WebhookAddressPolicy;
}

/** Registers, lists and deletes webhook endpoints. */
export class WebhookEndpoints {
  readonly #deps: WebhookEndpointsDeps;

  constructor(deps: WebhookEndpointsDeps) {
    this.#deps = deps;
  }

  /** Registers an endpoint for the account; 400 for a URL it may not have. */
  register(accountId: string, body: CreateEndpointBody): Promise<EndpointRecord> {
    return this.#create(accountId, body, undefined, this.#deps.addressPolicy);
  }

  async #create(accountId: string, body: CreateEndpointBody, secret: string | undefined, policy: WebhookAddressPolicy): Promise<EndpointRecord> {
    const problem = webhookUrlProblem(body.url, policy);
    if (problem) throw new ApiError('invalid_request', `Invalid webhook endpoint: ${problem.message}.`, [problem]);
    if (this.list(accountId).length >= MAX_ENDPOINTS_PER_ACCOUNT) {
      const message = `an account may have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first`;
      throw new ApiError('invalid_request', `Invalid webhook endpoint: ${message}.`, [{ field: 'url', code: 'too_many_endpoints', message }]);
    }
    const endpoint: EndpointRecord = {
      id: newId('we_', this.#deps.random),
      accountId,
      url: body.url,
      events: body.events ?? [...EVENT_TYPES],
      faults: body.faults ?? {},
      secret: secret ?? newWebhookSecret(this.#deps.random),
      createdAt: new Date(this.#deps.clocks.now(accountId)).toISOString(),
    };
    await this.#deps.store.commit({ endpoints: [endpoint] });
    return endpoint;
  }

  /**
   * Makes sure a configured endpoint exists: one with the same URL (from an earlier start with the
   * same data file) is kept, with the given secret and events; otherwise it is registered. Configured
   * URLs are the operator's own, so the address policy does not apply (`lnpr serve` exempts their
   * origins at each attempt too).
   */
  async ensure(accountId: string, configured: ConfiguredEndpoint): Promise<EndpointRecord> {
    const existing = this.list(accountId).find((endpoint) => endpoint.url === configured.url);
    if (existing === undefined) {
      const body = { url: configured.url, ...(configured.events ? { events: configured.events } : {}) };
      return this.#create(accountId, body, configured.secret, 'any');
    }
    const updated = { ...existing, secret: configured.secret ?? existing.secret, events: configured.events ?? existing.events };
    await this.#deps.store.commit({ endpoints: [updated] });
    return updated;
  }

  /** The account's endpoints, oldest first. */
  list(accountId: string): EndpointRecord[] {
    return this.#deps.store.endpointsOf(accountId);
  }

  /** The account's endpoint; another account's reads as absent. */
  get(accountId: string, id: string): EndpointRecord {
    const endpoint = this.#deps.store.getEndpoint(id);
    if (endpoint === undefined || endpoint.accountId !== accountId) {
      throw new ApiError('webhook_endpoint_not_found', `No webhook endpoint with the id ${JSON.stringify(id.slice(0, 64))}.`);
    }
    return endpoint;
  }

  /** Deletes the endpoint; its pending deliveries fail ("the endpoint was deleted") in the same write. */
  async delete(accountId: string, id: string): Promise<void> {
    const endpoint = this.get(accountId, id);
    const nowIso = new Date(this.#deps.clocks.now(accountId)).toISOString();
    const stopped = this.#deps.store
      .deliveriesOf(accountId)
      .filter((delivery) => delivery.endpoint === endpoint.id && delivery.status === 'pending')
      .map(({ heldFor: _held, ...delivery }) => ({ ...delivery, status: 'failed' as const, error: 'the endpoint was deleted', attemptedAt: nowIso, durationMs: 0 }));
    const durable = this.#deps.store.commit({ deletedEndpoints: [endpoint.id], deliveries: stopped });
    this.#deps.pending.note(stopped);
    await durable;
  }
}

/** A new endpoint secret: `whsec_` and 24 random bytes in base64, as Standard Webhooks has them. */
export function newWebhookSecret(random: RandomSource): string {
  return `whsec_${base64.encode(random.bytes(24))}`;
}

/**
 * The problems of a create body's `url` under the address policy, whatever else the body has
 * wrong: the route looks for them with its schema's, so one answer names every wrong field. A URL
 * the schema already refuses (not a string, empty, too long) is left to it.
 */
export function endpointUrlProblems(body: unknown, policy: WebhookAddressPolicy): ErrorDetail[] {
  const url = (body as { url?: unknown } | null | undefined)?.url;
  if (typeof url !== 'string' || url === '' || url.length > createEndpointBodySchema.properties.url.maxLength) return [];
  const problem = webhookUrlProblem(url, policy);
  return problem === undefined ? [] : [problem];
}

/** What is wrong with a webhook URL under the address policy, or undefined. */
export function webhookUrlProblem(url: string, policy: WebhookAddressPolicy): ErrorDetail | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { field: 'url', code: 'invalid_url', message: 'url must be an absolute http or https URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { field: 'url', code: 'unsupported_scheme', message: `url must use http or https, not ${parsed.protocol.slice(0, -1)}` };
  }
  const refusal = urlRefusal(parsed, policy);
  if (refusal === undefined) return undefined;
  return {
    field: 'url',
    code: 'host_not_allowed',
    message:
      `${refusalMessage(refusal)}; the sandbox is reachable from other machines, so webhook URLs may not name loopback, private, ` +
      'link-local or metadata addresses other than its operator\'s (lnpr serve --webhook URL, --webhook-allow-host HOST)',
  };
}
