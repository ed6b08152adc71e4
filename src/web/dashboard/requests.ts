/**
 * The account's payment requests, newest first, kept current by the live stream: each with its
 * state in words, fee, description, times that tick on the account's clock, a QR code, the
 * invoice with a copy button, and the Pay / Fail / Expire controls. A page of them at a time,
 * with "Show more" for older ones, so the page keeps a reasonable height however many there are.
 */
import { MAX_LIST_LIMIT } from '../../schemas/list-limit.js';
import type { PaymentRequest } from '../../schemas/payment-request.js';
import { describeProblem } from '../shared/api.js';
import { copyButton } from '../shared/copy.js';
import { h } from '../shared/dom.js';
import { lightningUri, qrSvg } from '../shared/qr.js';
import { relativeTimeElement } from '../shared/time.js';
import { setMessage, type Session } from './session.js';

/** How many requests the list shows at first, and how many more each "Show more" adds. */
export const PAGE_SIZE = 5;

/** The words for each state; the colour of the tag only repeats them. */
export const STATUS_LABELS: Record<PaymentRequest['status'], string> = {
  pending: 'Pending',
  completed: 'Completed (paid)',
  failed: 'Failed',
  expired: 'Expired',
};

const ACTIONS = [
  { name: 'Pay', transition: 'complete', style: '' },
  { name: 'Fail', transition: 'fail', style: 'warning' },
  { name: 'Expire', transition: 'expire', style: 'secondary' },
] as const;

const sats = new Intl.NumberFormat('en');

/** Elements of the list's part of the page. */
export interface RequestListElements {
  list: HTMLElement;
  message: HTMLElement;
  announce: HTMLElement;
  /** "Show more", and the line that says how many are shown. */
  more: HTMLButtonElement;
  count: HTMLElement;
}

/** The list of payment requests. */
export class RequestList {
  readonly #session: Session;
  readonly #list: HTMLElement;
  readonly #message: HTMLElement;
  readonly #announce: HTMLElement;
  readonly #more: HTMLButtonElement;
  readonly #count: HTMLElement;
  readonly #shown = new Map<string, { view: PaymentRequest; element: HTMLLIElement }>();
  /** For each load under way, what the stream brought meanwhile: its read may predate them. */
  readonly #arrivedDuringLoads = new Set<PaymentRequest[]>();
  /** How many the list shows; "Show more" adds a page. */
  #limit = PAGE_SIZE;
  /** Whether the account has older requests than those shown. */
  #hasMore = false;

  constructor(session: Session, elements: RequestListElements) {
    this.#session = session;
    this.#list = elements.list;
    this.#message = elements.message;
    this.#announce = elements.announce;
    this.#more = elements.more;
    this.#count = elements.count;
    this.#more.onclick = () => void this.#showMore();
  }

  /** Reads the newest requests again and shows them. */
  async load(): Promise<void> {
    const arrived: PaymentRequest[] = [];
    this.#arrivedDuringLoads.add(arrived);
    let data: PaymentRequest[];
    try {
      // One more than shown tells whether there are older ones (the API has no cursor, only a limit).
      ({ data } = await this.#session.call<{ data: PaymentRequest[] }>('GET', `/sandbox/v1/payment-requests?limit=${Math.min(this.#limit + 1, MAX_LIST_LIMIT)}`));
    } finally {
      this.#arrivedDuringLoads.delete(arrived);
    }
    this.#hasMore = data.length > this.#limit;
    this.#shown.clear();
    this.#list.replaceChildren();
    for (const view of data.slice(0, this.#limit)) {
      const element = this.#render(view);
      this.#shown.set(view.id, { view, element });
      this.#list.append(element);
    }
    this.#showEmpty();
    // A request created (or changed) while the read was on its way would otherwise vanish until
    // the next change: the read's answer may have been written before it.
    for (const view of arrived) this.upsert(view);
  }

  async #showMore(): Promise<void> {
    const before = new Set(this.#shown.keys());
    this.#limit += PAGE_SIZE;
    this.#more.disabled = true;
    try {
      await this.load();
    } catch (error) {
      this.#limit -= PAGE_SIZE;
      setMessage(this.#message, `Could not read more payment requests: ${describeProblem(error)}`, 'error');
    } finally {
      this.#more.disabled = false;
    }
    // Take the keyboard to the first request it brought, as a person reading on would.
    const first = Array.from(this.#shown.keys()).find((id) => !before.has(id));
    if (first !== undefined) this.#shown.get(first)!.element.querySelector<HTMLElement>('h3')?.focus();
  }

  /** Shows a new or changed request (from the stream or an action), unless it is older than what is shown. */
  upsert(view: PaymentRequest): void {
    for (const arrived of this.#arrivedDuringLoads) arrived.push(view);
    const shown = this.#shown.get(view.id);
    if (shown !== undefined) {
      if (!isNewer(view, shown.view)) return;
      const element = this.#render(view);
      // Keep keyboard focus where it was when the element under it is redrawn.
      const focused = shown.element.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.focusKey : undefined;
      shown.element.replaceWith(element);
      this.#shown.set(view.id, { view, element });
      if (focused !== undefined) element.querySelector<HTMLElement>(`[data-focus-key="${focused}"]`)?.focus();
      return;
    }
    const element = this.#render(view);
    this.#shown.set(view.id, { view, element });
    this.#list.prepend(element);
    while (this.#shown.size > this.#limit) {
      const oldest = this.#list.lastElementChild as HTMLLIElement | null;
      if (oldest === null) break;
      this.#shown.delete(oldest.dataset.id!);
      oldest.remove();
      this.#hasMore = true;
    }
    this.#showEmpty();
  }

  #showEmpty(): void {
    this.#list.querySelector('.empty')?.remove();
    if (this.#shown.size === 0) this.#list.append(h('li', { class: 'empty' }, 'No payment requests yet. Create one with the form, or with POST /api/v1/payment-requests.'));
    this.#more.hidden = !this.#hasMore;
    const shown = this.#shown.size;
    this.#count.textContent = this.#hasMore ? `Showing the newest ${shown}.` : shown > PAGE_SIZE ? `Showing all ${shown}.` : '';
  }

  #say(message: string): void {
    if (!this.#session.ended) this.#announce.textContent = message;
  }

  async #act(view: PaymentRequest, transition: 'complete' | 'fail' | 'expire', name: string): Promise<void> {
    setMessage(this.#message, '');
    try {
      const result = await this.#session.call<PaymentRequest>('POST', `/sandbox/v1/payment-requests/${encodeURIComponent(view.id)}/${transition}`);
      this.upsert(result);
      this.#say(`${name}: ${view.id} is now ${STATUS_LABELS[result.status].toLowerCase()}.`);
    } catch (error) {
      setMessage(this.#message, `${name} did not work for ${view.id}: ${describeProblem(error)}`, 'error');
    }
  }

  #render(view: PaymentRequest): HTMLLIElement {
    const { clock } = this.#session;
    const terminal = view.status !== 'pending';
    const headingId = `request-${view.id}`;
    const invoice = h('pre', { class: 'invoice-text', tabindex: 0, 'aria-label': `Invoice of ${view.id}` }, view.invoice);
    const times = h(
      'p',
      { class: 'times hint' },
      relativeTimeElement(view.createdAt, 'created', clock),
      ' · ',
      terminal
        ? relativeTimeElement(view.updatedAt, view.status, clock)
        : relativeTimeElement(view.expiresAt, 'expires', clock),
    );
    const actions = h(
      'div',
      { class: 'button-group', role: 'group', 'aria-label': `Actions for ${view.id}` },
      copyButton('Copy invoice', () => view.invoice, () => invoice, (message) => this.#say(message)),
      ...ACTIONS.map(({ name, transition, style }) =>
        h('button', { type: 'button', class: style, disabled: terminal, 'data-action': transition, 'data-focus-key': transition, onclick: () => void this.#act(view, transition, name) }, name),
      ),
    );
    const element = h(
      'li',
      { class: 'request', 'data-id': view.id, 'data-status': view.status, 'aria-labelledby': headingId },
      h('div', { class: 'request-qr' }, qrSvg(lightningUri(view.invoice), `QR code of the invoice of ${view.id}`)),
      h(
        'div',
        { class: 'request-body' },
        h(
          'div',
          { class: 'request-head' },
          h('h3', { id: headingId, tabindex: -1, 'data-focus-key': 'heading' }, `${sats.format(view.amount)} sats`),
          h('strong', { class: `tag tag-${view.status}`, 'data-role': 'status' }, STATUS_LABELS[view.status]),
        ),
        h('p', { class: 'request-description' }, view.description),
        times,
        h(
          'dl',
          { class: 'facts' },
          h('dt', {}, 'Fee'),
          h('dd', {}, `${sats.format(view.feeAmount)} sats (${view.feePercentage} %)`),
          h('dt', {}, 'ID'),
          h('dd', {}, h('code', {}, view.id), ' · ', h('a', { href: `/pay/${encodeURIComponent(view.id)}`, target: '_blank', rel: 'noopener' }, 'Pay page')),
          view.isNwc ? h('dt', {}, 'Mode') : null,
          view.isNwc ? h('dd', {}, `Non-custodial (NWC), relay ${view.nwcRelay ?? 'unknown'}`) : null,
        ),
        view.metadata !== undefined ? h('details', {}, h('summary', {}, 'Metadata'), h('pre', {}, JSON.stringify(view.metadata, null, 2))) : null,
        h('div', { class: 'copy-row' }, invoice),
        actions,
      ),
    );
    return element;
  }
}

/** Whether `next` is a later state of the request than `shown`: states only move on, and a final one stays. */
function isNewer(next: PaymentRequest, shown: PaymentRequest): boolean {
  if (shown.status !== 'pending') return false;
  if (next.status !== 'pending') return true;
  return Date.parse(next.updatedAt) >= Date.parse(shown.updatedAt);
}
