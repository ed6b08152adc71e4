/**
 * The hosted pay page (`/pay/{id}`): what a merchant's customer sees. It reads the request's
 * public fields from `/sandbox/v1/pay-page/{id}` (no key: the id is the secret), shows the QR code
 * and the invoice, counts the time left on the account's clock, pays with the test wallet, and
 * follows the state live through an EventSource on `/pay/{id}/stream`.
 *
 * A merchant may add `?return=<URL>`: once the request is paid, the page links back to it (only an
 * absolute http: or https: URL; anything else is ignored, never made a link).
 */
import type { PayPageView } from '../../schemas/control.js';
import { callApi, describeProblem } from '../shared/api.js';
import { copyButton } from '../shared/copy.js';
import { byId, h, replaceChildren } from '../shared/dom.js';
import { lightningUri, qrSvg } from '../shared/qr.js';
import { absoluteTime, AccountClock, countdown } from '../shared/time.js';
import { returnUrlOf } from './return-url.js';

const STATES: Record<PayPageView['status'], { tag: string; text: string; title: string }> = {
  pending: { tag: 'Waiting for payment', text: 'Scan the code with a Lightning wallet, or pay with the test wallet.', title: 'Pay with Lightning' },
  completed: { tag: 'Paid', text: 'This invoice has been paid. Thank you.', title: 'Payment received' },
  expired: { tag: 'Expired', text: 'This invoice expired before it was paid. Ask the shop for a new one.', title: 'Invoice expired' },
  failed: { tag: 'Failed', text: 'The payment failed. Ask the shop for a new invoice.', title: 'Payment failed' },
};

const id = decodeURIComponent(location.pathname.split('/')[2] ?? '');
const base = `/sandbox/v1/pay-page/${encodeURIComponent(id)}`;
const clock = new AccountClock();
const amountFormat = new Intl.NumberFormat('en');
const returnUrl = returnUrlOf(location.search);
let current: PayPageView | undefined;
let stream: EventSource | undefined;

function showError(message: string): void {
  byId('error').textContent = message;
}

function render(view: PayPageView): void {
  // Events may cross a read in flight: never go back from a final state.
  if (current !== undefined && current.status !== 'pending' && view.status === 'pending') return;
  const first = current === undefined;
  current = view;
  clock.set(view.clock);
  const state = STATES[view.status];
  document.title = `${state.title} – lnpr sandbox`;
  byId('title').textContent = state.title;
  byId('amount').textContent = amountFormat.format(view.amount);
  byId('description').textContent = view.description;
  const stateBox = byId('state');
  stateBox.dataset.status = view.status;
  replaceChildren(stateBox, h('strong', { class: `tag tag-${view.status}` }, state.tag), h('span', { class: 'state-text' }, state.text));
  if (first) {
    byId('qr').replaceChildren(qrSvg(lightningUri(view.invoice), 'QR code of the Lightning invoice'));
    byId('invoice').textContent = view.invoice;
    replaceChildren(
      byId('copy-actions'),
      copyButton('Copy invoice', () => view.invoice, () => byId('invoice'), (message) => (byId('announce').textContent = message)),
    );
    const expires = byId('expires-at');
    expires.replaceChildren(h('time', { datetime: view.expiresAt }, `(until ${absoluteTime(Date.parse(view.expiresAt))})`));
  }
  byId('clock-note').textContent = view.clock.frozen ? "The sandbox's clock is frozen: time stands still until it is moved on." : '';
  showReturn(view.status === 'completed');
  const done = view.status !== 'pending';
  byId('pay-card').classList.toggle('done', done);
  byId<HTMLButtonElement>('pay-button').disabled = done;
  byId('details').hidden = false;
  byId('loading').textContent = '';
  byId('pay-card').removeAttribute('aria-busy');
  if (done) stream?.close();
  tick();
}

/** The link back to the shop, once paid and when the shop gave one. */
function showReturn(paid: boolean): void {
  const row = byId('return-row');
  if (!paid || returnUrl === undefined) {
    row.hidden = true;
    return;
  }
  byId<HTMLAnchorElement>('return-link').href = returnUrl.href;
  byId('return-host').textContent = `(${returnUrl.host})`;
  row.hidden = false;
}

function tick(): void {
  if (current === undefined || current.status !== 'pending') return;
  const left = Date.parse(current.expiresAt) - clock.now();
  byId('time-left').textContent = left > 0 ? countdown(left) : 'expiring now';
}

async function pay(): Promise<void> {
  const button = byId<HTMLButtonElement>('pay-button');
  button.disabled = true;
  showError('');
  try {
    render(await callApi<PayPageView>('POST', `${base}/pay`));
  } catch (error) {
    showError(`The test wallet could not pay: ${describeProblem(error)}`);
    await load().catch(() => {});
  }
}

async function load(): Promise<void> {
  render(await callApi<PayPageView>('GET', base));
}

function follow(): void {
  stream = new EventSource(`/pay/${encodeURIComponent(id)}/stream`);
  stream.addEventListener('state', (message) => render(JSON.parse((message as MessageEvent<string>).data) as PayPageView));
  stream.addEventListener('gone', () => {
    stream?.close();
    showError('This payment request no longer exists.');
    byId<HTMLButtonElement>('pay-button').disabled = true;
  });
}

byId('pay-button').addEventListener('click', () => void pay());
setInterval(tick, 1_000);
load()
  .then(follow)
  .catch((error: unknown) => {
    byId('loading').textContent = '';
    byId('details').hidden = false;
    byId('payable').hidden = true;
    showError(`This payment request cannot be shown: ${describeProblem(error)}`);
  });
