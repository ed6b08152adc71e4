/**
 * The dashboard's controls: the account's clock (advance, freeze, unfreeze), the form that
 * creates a payment request, and the behaviour rules as editable JSON.
 */
import type { PaymentRequest } from '../../schemas/payment-request.js';
import { ApiProblem, describeProblem } from '../shared/api.js';
import { byId, h, replaceChildren } from '../shared/dom.js';
import { absoluteTime, durationInWords, type ClockView } from '../shared/time.js';
import { setMessage, type Session } from './session.js';

/** The clock panel. */
export class ClockPanel {
  readonly #session: Session;
  readonly #message = byId('clock-message');

  constructor(session: Session) {
    this.#session = session;
    for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-advance]'))) {
      button.onclick = () => void this.#advance(Number(button.dataset.advance));
    }
    byId<HTMLFormElement>('advance-form').onsubmit = (event) => {
      event.preventDefault();
      const text = byId<HTMLInputElement>('advance-seconds').value.trim();
      if (!/^\d+$/.test(text)) {
        setMessage(this.#message, 'Enter a whole number of seconds, such as 90.', 'error');
        return;
      }
      void this.#advance(Number(text));
    };
    byId('freeze').onclick = () => void this.#move('freeze', 'The clock is frozen: nothing expires or retries until you advance or unfreeze it.');
    byId('unfreeze').onclick = () => void this.#move('unfreeze', 'The clock runs again from where it stood.');
  }

  /** Reads the clock from the API. */
  async load(): Promise<void> {
    this.show(await this.#session.call<ClockView>('GET', '/sandbox/v1/clock'));
  }

  /** Shows a fresh reading (from an answer or the stream). */
  show(view: ClockView): void {
    this.#session.clock.set(view);
    byId<HTMLButtonElement>('freeze').disabled = view.frozen;
    byId<HTMLButtonElement>('unfreeze').disabled = !view.frozen;
    this.tick();
  }

  /** Redraws the time (every second while running). */
  tick(): void {
    const { clock } = this.#session;
    const nowMs = clock.now();
    const time = byId<HTMLTimeElement>('clock-now');
    time.dateTime = new Date(nowMs).toISOString();
    time.textContent = absoluteTime(nowMs);
    const offset = nowMs - Date.now();
    const relation = Math.abs(offset) < 2_000 ? 'on real time' : `${durationInWords(offset)} ${offset > 0 ? 'ahead of' : 'behind'} real time`;
    const mode = byId('clock-mode');
    const tag = mode.firstElementChild;
    const label = clock.frozen ? 'Frozen' : 'Running';
    if (tag?.textContent !== label || mode.lastChild?.textContent !== relation) {
      replaceChildren(mode, h('strong', { class: `tag tag-${label.toLowerCase()}` }, label), relation);
    }
  }

  async #advance(seconds: number): Promise<void> {
    try {
      this.show(await this.#session.call<ClockView>('POST', '/sandbox/v1/clock/advance', { seconds }));
      setMessage(this.#message, `Moved the clock on by ${durationInWords(seconds * 1000)}.`, 'success');
    } catch (error) {
      setMessage(this.#message, `The clock did not move: ${describeProblem(error)}`, 'error');
    }
  }

  async #move(action: 'freeze' | 'unfreeze', done: string): Promise<void> {
    try {
      this.show(await this.#session.call<ClockView>('POST', `/sandbox/v1/clock/${action}`));
      setMessage(this.#message, done, 'success');
    } catch (error) {
      setMessage(this.#message, `The clock did not ${action}: ${describeProblem(error)}`, 'error');
    }
  }
}

/** A problem to show in the create form: on a field (named as in the API's body), or on the whole request. */
interface FormProblem {
  field?: string;
  message: string;
}

/**
 * The form that creates a payment request through `POST /api/v1/payment-requests`. A refused
 * create is told GOV.UK's way: an error summary at the top of the form ("There is a problem", a
 * link to each field at fault), which takes the focus (and so comes into view and is read out),
 * and the message again above each field at fault, tied to it by aria-describedby.
 */
export class CreateForm {
  readonly #session: Session;
  readonly #created: (view: PaymentRequest) => void;
  readonly #attempted: () => void;
  readonly #form = byId<HTMLFormElement>('create-form');
  readonly #message = byId('create-message');
  readonly #summary = byId('create-errors');

  /** `created` gets each request made; `attempted` is called after each call to the API, made or refused. */
  constructor(session: Session, created: (view: PaymentRequest) => void, attempted: () => void = () => {}) {
    this.#session = session;
    this.#created = created;
    this.#attempted = attempted;
    this.#form.onsubmit = (event) => {
      event.preventDefault();
      void this.#create();
    };
  }

  async #create(): Promise<void> {
    const value = (id: string) => byId<HTMLInputElement | HTMLTextAreaElement>(id).value.trim();
    // Whole numbers go as numbers; anything else as typed, for the API to say what is wrong with it.
    const whole = (text: string): number | string => (/^\d+$/.test(text) ? Number(text) : text);
    const body: Record<string, unknown> = {
      amount: whole(value('create-amount')),
      description: value('create-description'),
      destinationWallet: value('create-wallet'),
    };
    if (value('create-expires') !== '') body.expiresIn = whole(value('create-expires'));
    const metadata = value('create-metadata');
    this.#clearProblems();
    setMessage(this.#message, '');
    if (metadata !== '') {
      try {
        body.metadata = JSON.parse(metadata);
      } catch (error) {
        this.#showProblems([{ field: 'metadata', message: `The metadata is not valid JSON: ${(error as Error).message}` }]);
        return;
      }
    }
    try {
      const created = await this.#session.call<PaymentRequest>('POST', '/api/v1/payment-requests', body);
      this.#created(created);
      setMessage(this.#message, `Created ${created.id} for ${created.amount} sats.`, 'success');
    } catch (error) {
      const details = error instanceof ApiProblem ? error.details : [];
      const onFields = details.filter((detail) => this.#input(detail.field) !== undefined);
      this.#showProblems([
        // What no field shows goes in the summary as the API's words.
        ...(onFields.length === details.length && onFields.length > 0 ? [] : [{ message: `The payment request was not created: ${describeProblem(error)}` }]),
        ...onFields.map((detail) => ({ field: detail.field, message: detail.message })),
      ]);
    } finally {
      this.#attempted();
    }
  }

  /** The form's input for an API field (`metadata.orderId` is the metadata box's). */
  #input(field: string | undefined): HTMLInputElement | HTMLTextAreaElement | undefined {
    const name = field?.split(/[.[]/)[0];
    if (name === undefined || name === '') return undefined;
    const input = this.#form.elements.namedItem(name);
    return input instanceof HTMLInputElement || input instanceof HTMLTextAreaElement ? input : undefined;
  }

  #showProblems(problems: FormProblem[]): void {
    const items = problems.map((problem) => {
      const input = this.#input(problem.field);
      if (input === undefined) return h('li', {}, problem.message);
      const errorId = `${input.id}-error`;
      const message = document.getElementById(errorId);
      if (message !== null) message.append(h('br'), problem.message);
      else {
        input.before(h('p', { class: 'error-message', id: errorId }, h('span', { class: 'visually-hidden' }, 'Error: '), problem.message));
        input.closest('.field')?.classList.add('field-error');
        input.setAttribute('aria-invalid', 'true');
        input.setAttribute('aria-describedby', [input.getAttribute('aria-describedby'), errorId].filter(Boolean).join(' '));
      }
      const link = h('a', { href: `#${input.id}` }, problem.message);
      link.onclick = (event) => {
        event.preventDefault();
        input.focus();
        // The label and the message above the field come into view with it.
        (input.closest('.field') ?? input).scrollIntoView({ block: 'start' });
      };
      return h('li', {}, link);
    });
    replaceChildren(byId('create-errors-list'), ...items);
    this.#summary.hidden = false;
    // Moving the focus brings the summary into view and has screen readers read it.
    this.#summary.focus();
    this.#summary.scrollIntoView({ block: 'nearest' });
  }

  #clearProblems(): void {
    this.#summary.hidden = true;
    byId('create-errors-list').replaceChildren();
    for (const message of Array.from(this.#form.querySelectorAll('.error-message'))) {
      const input = this.#form.querySelector<HTMLElement>(`[aria-describedby~="${message.id}"]`);
      if (input !== null) {
        const rest = (input.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id !== '' && id !== message.id);
        if (rest.length > 0) input.setAttribute('aria-describedby', rest.join(' '));
        else input.removeAttribute('aria-describedby');
        input.removeAttribute('aria-invalid');
      }
      message.remove();
    }
    for (const field of Array.from(this.#form.querySelectorAll('.field-error'))) field.classList.remove('field-error');
  }
}

/** The account's behaviour rules, as JSON to read and replace. */
export class RulesPanel {
  readonly #session: Session;
  readonly #message = byId('rules-message');

  constructor(session: Session) {
    this.#session = session;
    byId<HTMLFormElement>('rules-form').onsubmit = (event) => {
      event.preventDefault();
      void this.#save();
    };
  }

  async load(): Promise<void> {
    this.#show(await this.#session.call<{ rules: unknown[]; fixedRules: unknown[] }>('GET', '/sandbox/v1/rules'));
  }

  #show({ rules, fixedRules }: { rules: unknown[]; fixedRules: unknown[] }): void {
    byId<HTMLTextAreaElement>('rules-json').value = JSON.stringify(rules, null, 2);
    byId('rules-field').classList.remove('field-error');
    replaceChildren(
      byId('fixed-rules'),
      fixedRules.length === 0
        ? null
        : h('details', {}, h('summary', {}, `Fixed rules from the server's start (${fixedRules.length}), which apply too`), h('pre', {}, JSON.stringify(fixedRules, null, 2))),
    );
  }

  async #save(): Promise<void> {
    const text = byId<HTMLTextAreaElement>('rules-json').value;
    const field = byId('rules-field');
    let rules: unknown;
    try {
      rules = JSON.parse(text === '' ? '[]' : text);
    } catch (error) {
      field.classList.add('field-error');
      setMessage(this.#message, `The rules are not valid JSON: ${(error as Error).message}. Nothing was saved.`, 'error');
      return;
    }
    if (!Array.isArray(rules)) {
      field.classList.add('field-error');
      setMessage(this.#message, 'The rules must be a JSON list, such as [] or [{"name": "…", …}]. Nothing was saved.', 'error');
      return;
    }
    try {
      this.#show(await this.#session.call('PUT', '/sandbox/v1/rules', { rules }));
      setMessage(this.#message, `Saved ${rules.length} rule${rules.length === 1 ? '' : 's'}.`, 'success');
    } catch (error) {
      field.classList.add('field-error');
      setMessage(this.#message, `The sandbox refused the rules: ${describeProblem(error)}. Nothing was saved.`, 'error');
    }
  }
}
