/**
 * The dashboard's Wallets panel: the account's Nostr Wallet Connect connection (relay, wallet,
 * online or not, encryption; its NWC URL behind a copy button, for keys that may see it), its test
 * wallets (balance, "Copy NWC URL", "Top up", "Delete", and a form for a new one), and the recent
 * NIP-47 requests its wallets answered.
 *
 * What it reads: `GET /dashboard/api/nwc-requests` (the recent requests, and whether the account
 * has a connection at all, so a custodial account is never asked for one: no 404 in the console),
 * then `GET /sandbox/v1/wallet` for an NWC account, and `GET /sandbox/v1/wallets`.
 *
 * When: on the dashboard's live updates (a payment request of the account changed: a test wallet
 * may have paid it), after each of its own actions, and on a light poll every 2 s while the tab is
 * visible, since payments by the account's wallets of another account's invoices, and NIP-47
 * requests, come on no stream of this account. Never more than one read a second, and never two
 * at once. Drawn in place (a balance changes, a row is added), so focus and typing survive a read.
 */
import { PacedReads } from './paced-reads.js';
import type { NwcRequestList, NwcRequestView } from '../../schemas/nwc-requests.js';
import type { WalletConnectionView, WalletView } from '../../schemas/wallets.js';
import { describeProblem } from '../shared/api.js';
import { copyButton } from '../shared/copy.js';
import { h, replaceChildren } from '../shared/dom.js';
import { absoluteTime } from '../shared/time.js';
import { setMessage, type Session } from './session.js';

/** The poll, while the tab is visible. */
export const WALLET_POLL_MS = 2_000;
/** The least time between the starts of two reads. */
export const WALLET_MIN_READ_GAP_MS = 1_000;

const sats = new Intl.NumberFormat('en');
const timeOfDay = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: 'UTC' });
const ENCRYPTIONS: Record<string, string> = { nip44_v2: 'NIP-44 (nip44_v2)', nip04: 'NIP-04 (nip04)' };

/** A pubkey for people: its start and end, the whole in the title. */
function shortKey(pubkey: string): HTMLElement {
  return h('code', { title: pubkey, 'data-pubkey': pubkey }, pubkey.length > 20 ? `${pubkey.slice(0, 8)}…${pubkey.slice(-8)}` : pubkey);
}

/** Elements of the panel. */
export interface WalletElements {
  connection: HTMLElement;
  wallets: HTMLElement;
  walletsMessage: HTMLElement;
  form: HTMLFormElement;
  formMessage: HTMLElement;
  requests: HTMLElement;
  announce(message: string): void;
}

/** One test wallet as drawn, to update in place. */
interface ShownWallet {
  view: WalletView;
  element: HTMLLIElement;
  balance: HTMLElement;
  name: HTMLElement;
}

/** The Wallets panel of one session. */
export class WalletPanel {
  readonly #session: Session;
  readonly #elements: WalletElements;
  readonly #shown = new Map<string, ShownWallet>();
  /** What the connection and the requests table show, to redraw only on a change. */
  #connectionDrawn = '';
  #requestsDrawn = '';
  readonly #reads: PacedReads;

  constructor(session: Session, elements: WalletElements) {
    this.#session = session;
    this.#elements = elements;
    elements.form.onsubmit = (event) => {
      event.preventDefault();
      void this.#create();
    };
    this.#reads = new PacedReads({
      read: () => this.#readOnce(),
      onError: (error) => setMessage(this.#elements.walletsMessage, `Could not read the wallets: ${describeProblem(error)}`, 'error'),
      ended: () => this.#session.ended,
      minGapMs: WALLET_MIN_READ_GAP_MS,
      pollMs: WALLET_POLL_MS,
    });
  }

  /** Reads everything (the first read, after a reset or a reconnection); throws what the read threw. */
  load(): Promise<void> {
    return this.#reads.load();
  }

  /** Reads again soon, paced (PacedReads). */
  refresh(): void {
    this.#reads.refresh();
  }

  stop(): void {
    this.#reads.stop();
  }

  async #readOnce(): Promise<void> {
    const requests = await this.#session.call<NwcRequestList>('GET', '/dashboard/api/nwc-requests');
    const [connection, wallets] = await Promise.all([
      requests.connected ? this.#session.call<WalletConnectionView>('GET', '/sandbox/v1/wallet') : Promise.resolve(undefined),
      this.#session.call<{ data: WalletView[] }>('GET', '/sandbox/v1/wallets'),
    ]);
    this.#showConnection(connection);
    this.#showWallets(wallets.data);
    this.#showRequests(requests.data, wallets.data);
    // A read that worked clears an earlier failure to read (never a message of an action).
    if (this.#elements.walletsMessage.textContent?.startsWith('Could not read')) setMessage(this.#elements.walletsMessage, '');
  }

  #showConnection(connection: WalletConnectionView | undefined): void {
    const drawn = JSON.stringify(connection ?? null);
    if (drawn === this.#connectionDrawn) return;
    this.#connectionDrawn = drawn;
    const box = this.#elements.connection;
    if (connection === undefined) {
      replaceChildren(
        box,
        h('p', { class: 'hint' }, 'A custodial account: no wallet of its own, so no NWC connection.'),
      );
      return;
    }
    const online = connection.online;
    const nwcUrl = connection.nwcUrl;
    let secretShown: HTMLElement | undefined;
    const copy =
      nwcUrl === undefined
        ? null
        : copyButton(
            'Copy NWC URL',
            () => nwcUrl,
            // The clipboard refused: show the URL (the person asked for it) and select it.
            () => (secretShown ??= box.appendChild(h('p', { class: 'secret-reveal' }, h('code', {}, nwcUrl)))),
            this.#elements.announce,
            'NWC URL',
          );
    copy?.setAttribute('aria-describedby', 'connection-heading');
    replaceChildren(
      box,
      h(
        'dl',
        { class: 'facts connection-facts' },
        h('dt', {}, 'Status'),
        h('dd', {}, h('strong', { class: `tag tag-${online ? 'online' : 'offline'}`, 'data-role': 'online' }, online ? 'Online' : 'Offline')),
        h('dt', {}, 'Relay'),
        h('dd', {}, h('code', { 'data-role': 'relay' }, connection.relay || 'unknown')),
        h('dt', {}, 'Wallet'),
        h('dd', {}, shortKey(connection.walletPubkey)),
        h('dt', {}, 'Encryption'),
        h('dd', { 'data-role': 'encryption' }, ENCRYPTIONS[connection.encryption] ?? connection.encryption),
        h('dt', {}, 'NWC URL'),
        h('dd', {}, nwcUrl === undefined ? 'Shown to keys that may create: it holds the connection’s secret.' : 'Holds the connection’s secret: copy it, it is not shown.'),
      ),
      copy === null ? null : h('div', { class: 'button-group' }, copy),
    );
  }

  #showWallets(wallets: WalletView[]): void {
    const list = this.#elements.wallets;
    const ids = new Set(wallets.map((wallet) => wallet.id));
    for (const [id, shown] of this.#shown) {
      if (!ids.has(id)) {
        shown.element.remove();
        this.#shown.delete(id);
      }
    }
    for (const wallet of wallets) {
      const shown = this.#shown.get(wallet.id);
      if (shown === undefined) {
        const made = this.#render(wallet);
        this.#shown.set(wallet.id, made);
        list.append(made.element);
        continue;
      }
      shown.view = wallet;
      const balance = `${sats.format(wallet.balance)} sats`;
      if (shown.balance.textContent !== balance) shown.balance.textContent = balance;
      const name = wallet.name ?? 'Unnamed wallet';
      if (shown.name.textContent !== name) shown.name.textContent = name;
    }
    list.querySelector(':scope > .empty')?.remove();
    if (wallets.length === 0) list.append(h('li', { class: 'empty' }, 'No test wallets yet: make one with the form.'));
  }

  #render(wallet: WalletView): ShownWallet {
    const headingId = `wallet-${wallet.id}`;
    const inputId = `topup-${wallet.id}`;
    const name = h('h4', { id: headingId }, wallet.name ?? 'Unnamed wallet');
    const balance = h('p', { class: 'wallet-balance', 'data-role': 'balance' }, `${sats.format(wallet.balance)} sats`);
    let secretShown: HTMLElement | undefined;
    const item: ShownWallet = { view: wallet, element: undefined as unknown as HTMLLIElement, balance, name };
    // A key that may not create is never shown the URL (it holds the secret): nothing to copy.
    const copy =
      wallet.nwcUrl === undefined
        ? null
        : copyButton(
            'Copy NWC URL',
            () => item.view.nwcUrl ?? '',
            () => (secretShown ??= item.element.appendChild(h('p', { class: 'secret-reveal' }, h('code', {}, item.view.nwcUrl ?? '')))),
            this.#elements.announce,
            'NWC URL',
          );
    copy?.setAttribute('aria-describedby', headingId);
    const remove = h('button', { type: 'button', class: 'warning', 'aria-describedby': headingId }, 'Delete');
    remove.onclick = () => void this.#delete(item.view);
    const amount = h('input', { id: inputId, name: 'amount', type: 'text', inputmode: 'numeric', spellcheck: 'false', autocomplete: 'off', value: '1000' });
    const topUp = h(
      'form',
      { class: 'topup-form', novalidate: true },
      h('label', { for: inputId }, 'Sats to add'),
      h('div', { class: 'inline-input' }, amount, h('button', { type: 'submit', class: 'secondary', 'aria-describedby': headingId }, 'Top up')),
    );
    topUp.onsubmit = (event) => {
      event.preventDefault();
      void this.#topUp(item.view, amount.value.trim());
    };
    item.element = h(
      'li',
      { class: 'wallet', 'data-id': wallet.id, 'aria-labelledby': headingId },
      h('div', { class: 'wallet-head' }, name, balance),
      h('p', { class: 'wallet-meta hint' }, h('code', {}, wallet.id), ' · wallet ', shortKey(wallet.walletPubkey)),
      h('div', { class: 'wallet-actions' }, h('div', { class: 'button-group' }, copy, remove), topUp),
    );
    return item;
  }

  async #create(): Promise<void> {
    const message = this.#elements.formMessage;
    const form = this.#elements.form;
    const balanceText = (form.elements.namedItem('balance') as HTMLInputElement).value.trim();
    const name = (form.elements.namedItem('name') as HTMLInputElement).value.trim();
    if (!/^\d+$/.test(balanceText)) return setMessage(message, 'Enter the balance as a whole number of sats, such as 10000.', 'error');
    try {
      const wallet = await this.#session.call<WalletView>('POST', '/sandbox/v1/wallets', { balance: Number(balanceText), ...(name !== '' ? { name } : {}) });
      setMessage(message, `Made ${wallet.name ?? wallet.id} with ${sats.format(wallet.balance)} sats. Copy its NWC URL to pay with it.`, 'success');
      (form.elements.namedItem('name') as HTMLInputElement).value = '';
      this.refresh();
    } catch (error) {
      setMessage(message, `The test wallet was not made: ${describeProblem(error)}`, 'error');
    }
  }

  async #topUp(wallet: WalletView, text: string): Promise<void> {
    const message = this.#elements.walletsMessage;
    const label = wallet.name ?? wallet.id;
    if (!/^\d+$/.test(text) || Number(text) < 1) return setMessage(message, `Enter the sats to add to ${label} as a whole number, such as 1000.`, 'error');
    try {
      const topped = await this.#session.call<WalletView>('POST', `/sandbox/v1/wallets/${encodeURIComponent(wallet.id)}/topup`, { amount: Number(text) });
      setMessage(message, `Added ${sats.format(Number(text))} sats to ${label}: its balance is ${sats.format(topped.balance)} sats.`, 'success');
      this.refresh();
    } catch (error) {
      setMessage(message, `${label} was not topped up: ${describeProblem(error)}`, 'error');
    }
  }

  async #delete(wallet: WalletView): Promise<void> {
    const message = this.#elements.walletsMessage;
    const label = wallet.name ?? wallet.id;
    try {
      await this.#session.call('DELETE', `/sandbox/v1/wallets/${encodeURIComponent(wallet.id)}`);
      setMessage(message, `Deleted ${label}: its NWC URL no longer answers.`, 'success');
      this.refresh();
    } catch (error) {
      setMessage(message, `${label} was not deleted: ${describeProblem(error)}`, 'error');
    }
  }

  #showRequests(requests: NwcRequestView[], wallets: WalletView[]): void {
    const names = new Map(wallets.map((wallet) => [wallet.id, wallet.name]));
    const drawn = JSON.stringify([requests.map((request) => `${request.requestId}:${request.outcome}`), [...names]]);
    if (drawn === this.#requestsDrawn) return;
    this.#requestsDrawn = drawn;
    const body = this.#elements.requests;
    if (requests.length === 0) {
      replaceChildren(body, h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'No NIP-47 requests yet.')));
      return;
    }
    replaceChildren(
      body,
      ...requests.map((request) => {
        const at = Date.parse(request.at);
        const wallet =
          request.wallet.type === 'connection' ? 'Connected wallet' : (names.get(request.wallet.id) ?? request.wallet.name) ?? request.wallet.id;
        const outcome =
          request.outcome === 'result'
            ? h('span', { class: 'nwc-outcome nwc-result' }, 'Answered')
            : request.outcome === 'error'
              ? h('span', { class: 'nwc-outcome nwc-error' }, 'Error ', h('code', {}, request.errorCode ?? 'unknown'))
              : h('span', { class: 'nwc-outcome nwc-ignored' }, `Ignored: ${request.reason ?? 'no reason given'}`);
        return h(
          'tr',
          { 'data-method': request.method ?? '', 'data-outcome': request.outcome, 'data-request': request.requestId },
          h('td', {}, h('time', { datetime: request.at, title: absoluteTime(at) }, timeOfDay.format(at))),
          h('td', {}, wallet),
          h('td', {}, request.method === null ? 'unreadable' : h('code', {}, request.method)),
          h('td', {}, outcome),
          h('td', {}, request.encryption ?? '–'),
          h('td', { class: 'number' }, `${sats.format(request.durationMs)} ms`),
        );
      }),
    );
  }
}
