/**
 * Webhooks on the dashboard: the account's endpoints (add, delete, secret on demand), and its
 * events with their delivery attempts and a "Redeliver" button, refreshed when the stream says an
 * event happened or an attempt was recorded. A page of events at a time ("Show more events"), each
 * with its newest attempts, read for that event ("Show all attempts" reads the rest), so the page
 * keeps a reasonable height however long the log.
 */
import { MAX_LIST_LIMIT } from '../../schemas/list-limit.js';
import type { WebhookDelivery, WebhookEndpoint, WebhookEvent } from '../../schemas/webhooks.js';
import { ApiProblem, describeProblem } from '../shared/api.js';
import { h, replaceChildren } from '../shared/dom.js';
import { relativeTimeElement } from '../shared/time.js';
import { setMessage, type Session } from './session.js';

/** Events shown at first, and how many more each "Show more events" adds; each account keeps up to 1,000. */
export const EVENT_PAGE_SIZE = 5;
/** Attempts shown under an event until "Show all attempts" is pressed: the newest ones. */
export const ATTEMPTS_SHOWN = 3;
/** Bursts of stream messages (an advance that runs many retries) cause one read, this long after the first. */
const REFRESH_DELAY_MS = 150;

const DELIVERY_WORDS: Record<WebhookDelivery['status'], string> = { pending: 'pending', succeeded: 'succeeded', failed: 'failed' };

/** Elements of the webhook part of the page. */
export interface WebhookElements {
  endpoints: HTMLElement;
  endpointForm: HTMLFormElement;
  endpointsMessage: HTMLElement;
  events: HTMLElement;
  eventsMessage: HTMLElement;
  /** "Show more events", and the line that says how many are shown. */
  eventsMore: HTMLButtonElement;
  eventsCount: HTMLElement;
}

/** Endpoints, events and deliveries. */
export class WebhookPanel {
  readonly #session: Session;
  readonly #elements: WebhookElements;
  #endpoints: WebhookEndpoint[] = [];
  #refresh: ReturnType<typeof setTimeout> | undefined;
  /** How many events the list shows; "Show more events" adds a page. */
  #eventLimit = EVENT_PAGE_SIZE;
  /** Events whose every attempt the person asked to see. */
  readonly #expanded = new Set<string>();

  constructor(session: Session, elements: WebhookElements) {
    this.#session = session;
    this.#elements = elements;
    elements.endpointForm.onsubmit = (event) => {
      event.preventDefault();
      void this.#addEndpoint();
    };
    elements.eventsMore.onclick = () => void this.#showMoreEvents();
  }

  /** Reads endpoints, events and deliveries again. */
  async load(): Promise<void> {
    await this.#loadEndpoints();
    await this.#loadEvents();
  }

  /** An event arrived on the stream: show it (with its deliveries, read shortly). */
  eventArrived(): void {
    this.#scheduleRefresh();
  }

  /** A delivery attempt was recorded: read the log again shortly. */
  deliveryRecorded(): void {
    this.#scheduleRefresh();
  }

  stop(): void {
    clearTimeout(this.#refresh);
  }

  #scheduleRefresh(): void {
    if (this.#refresh !== undefined) return;
    this.#refresh = setTimeout(() => {
      this.#refresh = undefined;
      this.#loadEvents().catch((error: unknown) => setMessage(this.#elements.eventsMessage, `Could not read the events: ${describeProblem(error)}`, 'error'));
    }, REFRESH_DELAY_MS);
  }

  async #loadEndpoints(): Promise<void> {
    const { data } = await this.#session.call<{ data: WebhookEndpoint[] }>('GET', '/sandbox/v1/webhook-endpoints');
    this.#endpoints = data;
    const list = this.#elements.endpoints;
    if (data.length === 0) {
      replaceChildren(list, h('li', { class: 'empty' }, 'No endpoints yet: events are recorded but sent nowhere.'));
      return;
    }
    replaceChildren(list, ...data.map((endpoint) => this.#renderEndpoint(endpoint)));
  }

  #renderEndpoint(endpoint: WebhookEndpoint): HTMLLIElement {
    const secretId = `secret-${endpoint.id}`;
    // A read-only key is not shown the secret (the API leaves it out): say so, with nothing to toggle.
    const secret =
      endpoint.secret === undefined
        ? h('p', { class: 'secret', id: secretId }, 'Signing secret: shown to keys that may create.')
        : h('p', { class: 'secret', id: secretId, hidden: true }, 'Signing secret: ', h('code', {}, endpoint.secret));
    const toggle = h('button', { type: 'button', class: 'secondary', 'aria-expanded': 'false', 'aria-controls': secretId, hidden: endpoint.secret === undefined }, 'Show secret');
    toggle.onclick = () => {
      const show = secret.hidden;
      secret.hidden = !show;
      toggle.setAttribute('aria-expanded', String(show));
      toggle.textContent = show ? 'Hide secret' : 'Show secret';
    };
    const remove = h('button', { type: 'button', class: 'warning', 'aria-label': `Delete endpoint ${endpoint.url}` }, 'Delete');
    remove.onclick = () => void this.#deleteEndpoint(endpoint);
    const faults = Object.keys(endpoint.faults).length > 0 ? ` · faults ${JSON.stringify(endpoint.faults)}` : '';
    return h(
      'li',
      { class: 'endpoint', 'data-id': endpoint.id },
      h('p', { class: 'endpoint-url' }, endpoint.url),
      h('p', { class: 'endpoint-events' }, `${endpoint.events.join(', ')}${faults} · `, h('code', {}, endpoint.id)),
      secret,
      h('div', { class: 'button-group' }, toggle, remove),
    );
  }

  async #addEndpoint(): Promise<void> {
    const form = this.#elements.endpointForm;
    const url = (form.elements.namedItem('url') as HTMLInputElement).value.trim();
    const events = Array.from(form.querySelectorAll<HTMLInputElement>('input[name="events"]:checked')).map((box) => box.value);
    const message = this.#elements.endpointsMessage;
    if (url === '') return setMessage(message, 'Enter the URL of the endpoint, such as http://127.0.0.1:3000/webhooks.', 'error');
    if (events.length === 0) return setMessage(message, 'Choose at least one event to send.', 'error');
    try {
      const endpoint = await this.#session.call<WebhookEndpoint>('POST', '/sandbox/v1/webhook-endpoints', { url, events });
      setMessage(message, `Added ${endpoint.url}. Its signing secret is under "Show secret".`, 'success');
      form.reset();
      await this.#loadEndpoints();
    } catch (error) {
      setMessage(message, `The endpoint was not added: ${describeProblem(error)}`, 'error');
    }
  }

  async #deleteEndpoint(endpoint: WebhookEndpoint): Promise<void> {
    const message = this.#elements.endpointsMessage;
    try {
      await this.#session.call('DELETE', `/sandbox/v1/webhook-endpoints/${encodeURIComponent(endpoint.id)}`);
      setMessage(message, `Deleted ${endpoint.url}.`, 'success');
      await this.#loadEndpoints();
    } catch (error) {
      setMessage(message, `${endpoint.url} was not deleted: ${describeProblem(error)}`, 'error');
    }
  }

  async #loadEvents(): Promise<void> {
    const limit = this.#eventLimit;
    // One more than shown tells whether there are older ones (the API has no cursor, only a limit).
    const { data: found } = await this.#session.call<{ data: WebhookEvent[] }>('GET', `/sandbox/v1/events?limit=${Math.min(limit + 1, MAX_LIST_LIMIT)}`);
    const events = found.slice(0, limit);
    // Each event's own attempts: the newest few (one more tells whether there are others), or all.
    const attemptsOf = await Promise.all(
      events.map((event) =>
        this.#session
          .call<{ data: WebhookDelivery[] }>('GET', `/sandbox/v1/webhook-deliveries?event=${encodeURIComponent(event.id)}${this.#expanded.has(event.id) ? '' : `&limit=${ATTEMPTS_SHOWN + 1}`}`)
          // An event dropped from the log meanwhile (each account keeps its newest 1,000) has none to show.
          .then(({ data }) => data, (error: unknown) => (error instanceof ApiProblem && error.status === 404 ? [] : Promise.reject(error))),
      ),
    );
    const hasMore = found.length > limit;
    const list = this.#elements.events;
    this.#elements.eventsMore.hidden = !hasMore;
    this.#elements.eventsCount.textContent = hasMore ? `Showing the newest ${events.length}.` : events.length > EVENT_PAGE_SIZE ? `Showing all ${events.length}.` : '';
    for (const id of this.#expanded) if (!events.some((event) => event.id === id)) this.#expanded.delete(id);
    if (events.length === 0) {
      replaceChildren(list, h('li', { class: 'empty' }, 'No events yet: each change of a payment request is one.'));
      return;
    }
    const focused = document.activeElement as HTMLElement | null;
    const focusedEvent = focused?.closest<HTMLElement>('.event')?.dataset.id;
    const focusKey = focused?.dataset.focusKey;
    replaceChildren(list, ...events.map((event, index) => this.#renderEvent(event, attemptsOf[index]!)));
    if (focusedEvent !== undefined) {
      const item = list.querySelector<HTMLElement>(`.event[data-id="${focusedEvent}"]`);
      (item?.querySelector<HTMLElement>(`[data-focus-key="${focusKey}"]`) ?? item?.querySelector<HTMLElement>('button'))?.focus();
    }
  }

  async #showMoreEvents(): Promise<void> {
    const before = new Set(Array.from(this.#elements.events.querySelectorAll<HTMLElement>('.event')).map((item) => item.dataset.id));
    const button = this.#elements.eventsMore;
    this.#eventLimit += EVENT_PAGE_SIZE;
    button.disabled = true;
    try {
      await this.#loadEvents();
    } catch (error) {
      this.#eventLimit -= EVENT_PAGE_SIZE;
      setMessage(this.#elements.eventsMessage, `Could not read more events: ${describeProblem(error)}`, 'error');
    } finally {
      button.disabled = false;
    }
    // Take the keyboard to the first event it brought, as a person reading on would.
    const first = Array.from(this.#elements.events.querySelectorAll<HTMLElement>('.event')).find((item) => !before.has(item.dataset.id));
    first?.querySelector<HTMLElement>('h3')?.focus();
  }

  async #toggleAttempts(event: WebhookEvent): Promise<void> {
    if (this.#expanded.has(event.id)) this.#expanded.delete(event.id);
    else this.#expanded.add(event.id);
    try {
      await this.#loadEvents();
    } catch (error) {
      setMessage(this.#elements.eventsMessage, `Could not read the attempts of ${event.id}: ${describeProblem(error)}`, 'error');
    }
  }

  /** One event, with its attempts read (newest first): all of them, or the newest and one more when not expanded. */
  #renderEvent(event: WebhookEvent, deliveries: WebhookDelivery[]): HTMLLIElement {
    const headingId = `event-${event.id}`;
    const attemptsId = `attempts-${event.id}`;
    const redeliver = h('button', { type: 'button', class: 'secondary', 'aria-describedby': headingId, 'data-focus-key': 'redeliver' }, 'Redeliver');
    redeliver.onclick = () => void this.#redeliver(event);
    const expanded = this.#expanded.has(event.id);
    const newest = expanded ? deliveries : deliveries.slice(0, ATTEMPTS_SHOWN);
    const hasEarlier = !expanded && deliveries.length > ATTEMPTS_SHOWN;
    // Oldest attempt first reads as a story: tried, failed, retried, delivered.
    const attempts = [...newest].sort((a, b) => a.id.localeCompare(b.id) || a.attempt - b.attempt);
    const toggle =
      expanded || hasEarlier
        ? h(
            'button',
            { type: 'button', class: 'link', 'aria-expanded': String(expanded), 'aria-controls': attemptsId, 'data-focus-key': 'attempts' },
            expanded ? 'Show only the newest attempts' : 'Show all attempts',
          )
        : null;
    if (toggle !== null) toggle.onclick = () => void this.#toggleAttempts(event);
    return h(
      'li',
      { class: 'event', 'data-id': event.id },
      h('div', { class: 'event-head' }, h('h3', { id: headingId, tabindex: -1, 'data-focus-key': 'heading' }, event.type), redeliver),
      h('p', { class: 'event-meta' }, h('code', {}, event.id), ' for ', h('code', {}, event.data.id), ' · ', relativeTimeElement(event.timestamp, '', this.#session.clock)),
      attempts.length === 0
        ? h('p', { class: 'hint', id: attemptsId }, 'Not sent: no endpoint took this event.')
        : h('ul', { class: 'deliveries', id: attemptsId, 'aria-label': `Deliveries of ${event.id}` }, ...attempts.map((delivery) => this.#renderDelivery(delivery))),
      toggle !== null ? h('p', { class: 'attempts-toggle' }, toggle) : null,
    );
  }

  #renderDelivery(delivery: WebhookDelivery): HTMLLIElement {
    const url = this.#endpoints.find((endpoint) => endpoint.id === delivery.endpoint)?.url ?? delivery.endpoint;
    const outcome =
      delivery.status === 'succeeded'
        ? `answered ${delivery.responseStatus} in ${delivery.durationMs} ms`
        : delivery.status === 'failed'
          ? `${delivery.error ?? 'failed'}${delivery.durationMs !== null ? ` (${delivery.durationMs} ms)` : ''}`
          : delivery.scheduledAt === null
            ? 'held until the request changes again'
            : null;
    return h(
      'li',
      { 'data-delivery': delivery.id, 'data-attempt': delivery.attempt, 'data-status': delivery.status },
      `Attempt ${delivery.attempt} to ${url}: `,
      h('span', { class: `delivery-status delivery-${delivery.status}` }, DELIVERY_WORDS[delivery.status]),
      outcome !== null ? `, ${outcome}` : ', due ',
      outcome === null && delivery.scheduledAt !== null ? relativeTimeElement(delivery.scheduledAt, '', this.#session.clock) : null,
    );
  }

  async #redeliver(event: WebhookEvent): Promise<void> {
    const message = this.#elements.eventsMessage;
    try {
      const { data } = await this.#session.call<{ data: WebhookDelivery[] }>('POST', `/sandbox/v1/events/${encodeURIComponent(event.id)}/redeliver`);
      setMessage(
        message,
        data.length === 0 ? `${event.id} was not sent: no endpoint takes ${event.type}.` : `Sending ${event.id} again to ${data.length} endpoint${data.length === 1 ? '' : 's'}.`,
        data.length === 0 ? 'info' : 'success',
      );
      await this.#loadEvents();
    } catch (error) {
      setMessage(message, `${event.id} was not sent again: ${describeProblem(error)}`, 'error');
    }
  }
}
