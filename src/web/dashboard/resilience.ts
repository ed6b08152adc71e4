/**
 * The dashboard's "Requests and faults" panel: the account's request journal (its own calls to
 * `/api/v1`, as the sandbox received and answered them, newest first; each row opens on the
 * headers and body sent and the body answered) and its API faults (those in force, with how often
 * each matched and fired; for keys that may create, an editor of the `PUT /sandbox/v1/faults` body
 * with example presets, "Apply" and "Clear faults", and a "Clear journal" button).
 *
 * What it reads: `GET /sandbox/v1/requests?limit=50` (with the method and status filters) and
 * `GET /sandbox/v1/faults`; once per key, `GET /dashboard/api/key` (whether it may change them).
 *
 * When: on the dashboard's live updates (a payment request of the account was created or changed:
 * there is a call in the journal, or a fault fired), after each of its own actions and after the
 * dashboard's own create, and on a light poll every 2 s while the tab is visible, since the
 * journal and the fault counts come on no stream. Never more than one read a second, and never two
 * at once. Drawn in place (a new call is added at the top, the counts change), so an opened row,
 * the focus and the editor's text survive a read.
 *
 * Everything drawn is text (`textContent`, never HTML from data); the journal never holds an
 * `authorization` or `cookie` header, and the page shows nothing else of the key.
 */
import { PacedReads } from './paced-reads.js';
import type { DashboardKeyView } from '../../schemas/dashboard-key.js';
import type { FaultAction, FaultRule, FaultsView, JournalEntryView, PutFaultsBody } from '../../schemas/faults.js';
import { ApiProblem, describeProblem } from '../shared/api.js';
import { h, replaceChildren } from '../shared/dom.js';
import { absoluteTime } from '../shared/time.js';
import { setMessage, type Session } from './session.js';

/** The poll, while the tab is visible. */
export const RESILIENCE_POLL_MS = 2_000;
/** The least time between the starts of two reads. */
export const RESILIENCE_MIN_READ_GAP_MS = 1_000;
/** How many calls of the journal the panel shows, newest first. */
export const JOURNAL_SHOWN = 50;

/** The editor's examples: a body of `PUT /sandbox/v1/faults` each. */
export const FAULT_PRESETS: Record<string, { label: string; body: PutFaultsBody }> = {
  'create-503-once': {
    label: '503 with Retry-After, once, on creates',
    body: { faults: [{ match: { method: 'POST', path: '/api/v1/payment-requests' }, times: 1, fault: { status: 503, retryAfter: 1 } }] },
  },
  'create-lost-answer': {
    label: 'Lost answer after commit, once, on creates',
    body: { faults: [{ match: { method: 'POST', path: '/api/v1/payment-requests' }, times: 1, fault: { resetAfterCommit: true } }] },
  },
  'status-502-20': {
    label: '20 % 502 on status reads, seeded',
    body: { faults: [{ match: { method: 'GET', path: '/api/v1/payment-requests/{id}/status' }, probability: 0.2, fault: { status: 502 } }], seed: 42 },
  },
};

const numbers = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });
const timeOfDay = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: 'UTC' });

/** A fault in a few words: "503, Retry-After 1 s", "lost answer after commit". */
export function faultText(fault: FaultAction | null | undefined): string {
  if (fault === null || fault === undefined) return 'none';
  if ('status' in fault) return fault.retryAfter === undefined ? `${fault.status}` : `${fault.status}, Retry-After ${fault.retryAfter} s`;
  if ('latencyMs' in fault) return `${numbers.format(fault.latencyMs)} ms late`;
  if ('resetAfterCommit' in fault) return 'lost answer after commit';
  if ('reset' in fault) return 'connection reset';
  if ('hangMs' in fault) return `hang ${numbers.format(fault.hangMs)} ms, no answer`;
  return JSON.stringify(fault);
}

/** Which calls a fault is for, in words. */
function matchText(rule: FaultRule): string {
  return `${rule.match?.method ?? 'Any method'} ${rule.match?.path ?? 'any /api/v1 path'}`;
}

/** When a fault fires, in words. */
function whenText(rule: FaultRule): string {
  const parts: string[] = [];
  if (rule.after !== undefined && rule.after > 0) parts.push(`after the first ${numbers.format(rule.after)}`);
  if (rule.probability !== undefined) parts.push(`${numbers.format(rule.probability * 100)} % of calls`);
  if (rule.times !== undefined) parts.push(rule.times === 1 ? 'once' : `at most ${numbers.format(rule.times)} times`);
  return parts.length === 0 ? 'every match' : parts.join(', ');
}

/** A value of the journal as text: JSON pretty-printed, text as it came, "none" for nothing. */
function pretty(value: unknown): string {
  if (value === null || value === undefined) return '(none)';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

/** The PUT body the faults in force were given (their counts left out). */
function bodyOf(view: FaultsView): PutFaultsBody {
  const faults = view.faults.map(({ matched: _matched, fired: _fired, ...rule }) => rule);
  return view.seed !== 0 && faults.length > 0 ? { faults, seed: view.seed } : { faults };
}

/** Elements of the panel. */
export interface ResilienceElements {
  /** The journal table's body. */
  journal: HTMLElement;
  journalMessage: HTMLElement;
  filter: HTMLFormElement;
  clearJournal: HTMLButtonElement;
  /** The faults table's body, and the line under it (the seed). */
  faults: HTMLElement;
  faultsNote: HTMLElement;
  faultsMessage: HTMLElement;
  /** The editor's part of the page (shown to keys that may create), and what read-only keys see instead. */
  editor: HTMLElement;
  readOnlyNote: HTMLElement;
  editorForm: HTMLFormElement;
  editorText: HTMLTextAreaElement;
  /** Where a refused body's problems are listed, next to the editor. */
  editorErrors: HTMLElement;
  clearFaults: HTMLButtonElement;
  /** The preset buttons (`data-preset`). */
  presets: HTMLButtonElement[];
}

/** One call as drawn: its row, and its details row (filled when first opened). */
interface ShownCall {
  row: HTMLTableRowElement;
  details: HTMLTableRowElement;
}

/** The "Requests and faults" panel of one session. */
export class ResiliencePanel {
  readonly #session: Session;
  readonly #elements: ResilienceElements;
  readonly #shown = new Map<string, ShownCall>();
  /** The journal's query (limit and filters) the rows shown answer. */
  #query = `limit=${JOURNAL_SHOWN}`;
  #drawnQuery = '';
  #faultsDrawn = '';
  /** The body the editor was last filled with, and whether the person has typed in it since. */
  #editorFilled = '';
  #editorEdited = false;
  /** Whether the key may change the faults and clear the journal; unknown until the first read. */
  #mayChange: boolean | undefined;
  readonly #reads: PacedReads;
  #detailsMade = 0;

  constructor(session: Session, elements: ResilienceElements) {
    this.#session = session;
    this.#elements = elements;
    elements.filter.onsubmit = (event) => {
      event.preventDefault();
      this.#applyFilter();
    };
    elements.clearJournal.onclick = () => void this.#clearJournal();
    elements.editorForm.onsubmit = (event) => {
      event.preventDefault();
      void this.#apply();
    };
    elements.editorText.addEventListener('input', () => {
      this.#editorEdited = true;
    });
    elements.clearFaults.onclick = () => void this.#put({ faults: [] }, 'No faults now: every call is answered normally.');
    for (const button of elements.presets) {
      button.onclick = () => this.#loadPreset(button.dataset.preset ?? '');
    }
    this.#reads = new PacedReads({
      read: () => this.#readOnce(),
      onError: (error) => setMessage(this.#elements.journalMessage, `Could not read the journal and faults: ${describeProblem(error)}`, 'error'),
      ended: () => this.#session.ended,
      minGapMs: RESILIENCE_MIN_READ_GAP_MS,
      pollMs: RESILIENCE_POLL_MS,
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
    const query = this.#query;
    const [journal, faults, key] = await Promise.all([
      this.#session.call<{ data: JournalEntryView[] }>('GET', `/sandbox/v1/requests?${query}`),
      this.#session.call<FaultsView>('GET', '/sandbox/v1/faults'),
      this.#mayChange === undefined ? this.#session.call<DashboardKeyView>('GET', '/dashboard/api/key') : Promise.resolve(undefined),
    ]);
    if (key !== undefined) this.#showControls(key.permissions.includes('create'));
    // A filter changed while this read was on its way: its rows answer the old one.
    if (query === this.#query) this.#showJournal(journal.data, query);
    else this.#reads.refresh();
    this.#showFaults(faults);
    // A read that worked clears an earlier failure to read (never a message of an action).
    if (this.#elements.journalMessage.textContent?.startsWith('Could not read')) setMessage(this.#elements.journalMessage, '');
  }

  #showControls(mayChange: boolean): void {
    this.#mayChange = mayChange;
    this.#elements.editor.hidden = !mayChange;
    this.#elements.clearJournal.hidden = !mayChange;
    this.#elements.readOnlyNote.hidden = mayChange;
  }

  #applyFilter(): void {
    const form = this.#elements.filter;
    const method = (form.elements.namedItem('method') as HTMLSelectElement).value;
    const statusInput = form.elements.namedItem('status') as HTMLInputElement;
    const status = statusInput.value.trim();
    if (status !== '' && !(/^\d{3}$/.test(status) && Number(status) >= 100 && Number(status) <= 599)) {
      statusInput.setAttribute('aria-invalid', 'true');
      setMessage(this.#elements.journalMessage, 'Enter the status as three digits, such as 503, or leave it empty for any.', 'error');
      return;
    }
    statusInput.removeAttribute('aria-invalid');
    const query = new URLSearchParams({ limit: String(JOURNAL_SHOWN) });
    if (method !== '') query.set('method', method);
    if (status !== '') query.set('status', status);
    this.#query = query.toString();
    setMessage(this.#elements.journalMessage, method === '' && status === '' ? 'Showing every call.' : `Showing only ${[method, status].filter(Boolean).join(' ')} calls.`);
    this.refresh();
  }

  #showJournal(entries: JournalEntryView[], query: string): void {
    const body = this.#elements.journal;
    if (query !== this.#drawnQuery) {
      // Another filter: none of the rows drawn may stay.
      this.#drawnQuery = query;
      this.#shown.clear();
      body.replaceChildren();
    }
    const ids = new Set(entries.map((entry) => entry.id));
    for (const [id, shown] of this.#shown) {
      if (!ids.has(id)) {
        shown.row.remove();
        shown.details.remove();
        this.#shown.delete(id);
      }
    }
    body.querySelector(':scope > .empty-row')?.remove();
    // Newest first: each call goes after the one drawn above it, or at the top.
    let above: HTMLTableRowElement | undefined;
    for (const entry of entries) {
      let shown = this.#shown.get(entry.id);
      if (shown === undefined) {
        shown = this.#render(entry);
        this.#shown.set(entry.id, shown);
        if (above === undefined) body.prepend(shown.row, shown.details);
        else above.after(shown.row, shown.details);
      }
      above = shown.details;
    }
    if (entries.length === 0) {
      const filtered = query !== `limit=${JOURNAL_SHOWN}`;
      body.append(
        h(
          'tr',
          { class: 'empty-row' },
          h('td', { colspan: 7, class: 'empty' }, filtered ? 'No calls match the filter.' : 'No calls to /api/v1 with this account’s keys yet.'),
        ),
      );
    }
  }

  #render(entry: JournalEntryView): ShownCall {
    const at = Date.parse(entry.receivedAt);
    const query = new URLSearchParams(entry.query).toString();
    const target = query === '' ? entry.path : `${entry.path}?${query}`;
    const detailsId = `call-${entry.id}`;
    const time = timeOfDay.format(at);
    const statusClass = entry.status === null ? 'none' : `${Math.floor(entry.status / 100)}xx`;
    const toggle = h(
      'button',
      { type: 'button', class: 'link', 'aria-expanded': 'false', 'aria-controls': detailsId },
      'Show',
      h('span', { class: 'visually-hidden' }, ` the call ${entry.method} ${target} at ${time}`),
    );
    const row = h(
      'tr',
      { 'data-id': entry.id, 'data-method': entry.method, 'data-status': entry.status === null ? 'none' : String(entry.status) },
      h('td', {}, h('time', { datetime: entry.receivedAt, title: absoluteTime(at) }, time)),
      h('td', {}, h('code', {}, entry.method)),
      h('td', { class: 'journal-path' }, h('code', {}, target)),
      h('td', {}, h('span', { class: `journal-status status-${statusClass}`, 'data-role': 'status' }, entry.status === null ? 'no answer' : String(entry.status))),
      h('td', { 'data-role': 'fault' }, entry.fault === null ? h('span', { class: 'hint' }, 'none') : h('strong', { class: 'journal-fault' }, faultText(entry.fault))),
      h('td', { class: 'number' }, `${numbers.format(entry.durationMs)} ms`),
      h('td', {}, toggle),
    );
    const cell = h('td', { colspan: 7 });
    const details = h('tr', { class: 'journal-details', id: detailsId, hidden: true }, cell);
    toggle.onclick = () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      if (open && cell.childElementCount === 0) this.#fillDetails(cell, entry);
      toggle.setAttribute('aria-expanded', String(open));
      toggle.firstChild!.textContent = open ? 'Hide' : 'Show';
      details.hidden = !open;
    };
    return { row, details };
  }

  /** What a call sent and what it was answered, as text. */
  #fillDetails(cell: HTMLElement, entry: JournalEntryView): void {
    const part = (title: string, value: unknown, role: string) => {
      const id = `call-part-${++this.#detailsMade}`;
      return h(
        'div',
        { class: 'journal-part' },
        h('h4', { id }, title),
        h('pre', { 'data-role': role, tabindex: 0, role: 'region', 'aria-labelledby': id }, h('code', {}, pretty(value))),
      );
    };
    replaceChildren(
      cell,
      h(
        'div',
        { class: 'journal-parts' },
        part('Headers sent', entry.headers, 'headers'),
        part('Body sent', entry.body, 'body'),
        part(entry.status === null ? 'Answer body (no answer was sent)' : `Answer body (${entry.status})`, entry.status === null ? null : entry.responseBody, 'response'),
      ),
      h('p', { class: 'hint journal-id' }, 'Journal id ', h('code', {}, entry.id)),
    );
  }

  #showFaults(view: FaultsView): void {
    const drawn = JSON.stringify(view);
    if (drawn !== this.#faultsDrawn) {
      this.#faultsDrawn = drawn;
      const body = this.#elements.faults;
      if (view.faults.length === 0) {
        replaceChildren(body, h('tr', {}, h('td', { colspan: 5, class: 'empty' }, 'No faults: every call is answered normally.')));
        this.#elements.faultsNote.textContent = '';
      } else {
        replaceChildren(
          body,
          ...view.faults.map((rule, index) =>
            h(
              'tr',
              { 'data-index': index },
              h('td', {}, h('code', {}, matchText(rule))),
              h('td', {}, whenText(rule)),
              h('td', {}, h('strong', { class: 'journal-fault' }, faultText(rule.fault))),
              h('td', { class: 'number', 'data-role': 'matched' }, numbers.format(rule.matched)),
              h('td', { class: 'number', 'data-role': 'fired' }, numbers.format(rule.fired)),
            ),
          ),
        );
        this.#elements.faultsNote.textContent = `The first fault that matches a call decides it. Seed ${view.seed}.`;
      }
    }
    // The editor follows the faults in force, unless the person is writing in it.
    const text = JSON.stringify(bodyOf(view), null, 2);
    if (!this.#editorEdited && text !== this.#editorFilled) this.#fillEditor(text);
  }

  #fillEditor(text: string): void {
    this.#elements.editorText.value = text;
    this.#editorFilled = text;
    this.#editorEdited = false;
  }

  #loadPreset(name: string): void {
    const preset = FAULT_PRESETS[name];
    if (preset === undefined) return;
    this.#elements.editorText.value = JSON.stringify(preset.body, null, 2);
    this.#editorEdited = true;
    this.#showProblems([]);
    setMessage(this.#elements.faultsMessage, `The example “${preset.label}” is in the editor: Apply puts it in force.`);
    this.#elements.editorText.focus();
  }

  async #apply(): Promise<void> {
    const text = this.#elements.editorText.value.trim();
    let body: unknown;
    try {
      body = JSON.parse(text === '' ? '{"faults": []}' : text);
    } catch (error) {
      this.#showProblems([{ message: `The faults are not valid JSON: ${(error as Error).message}` }]);
      setMessage(this.#elements.faultsMessage, 'Nothing changed: the editor does not hold valid JSON.', 'error');
      return;
    }
    const count = Array.isArray((body as { faults?: unknown })?.faults) ? (body as { faults: unknown[] }).faults.length : 0;
    await this.#put(body, count === 0 ? 'No faults now: every call is answered normally.' : `Applied ${count} fault${count === 1 ? '' : 's'}: their counts start from 0.`);
  }

  /** Puts `body` as the account's faults; says `done`, or shows the sandbox's refusal next to the editor. */
  async #put(body: unknown, done: string): Promise<void> {
    try {
      const view = await this.#session.call<FaultsView>('PUT', '/sandbox/v1/faults', body);
      this.#showProblems([]);
      this.#editorEdited = false;
      this.#showFaults(view);
      setMessage(this.#elements.faultsMessage, done, 'success');
      this.refresh();
    } catch (error) {
      const details = error instanceof ApiProblem ? error.details : [];
      this.#showProblems(details.length > 0 ? details : [{ message: describeProblem(error) }]);
      setMessage(this.#elements.faultsMessage, `The sandbox refused the faults: ${error instanceof ApiProblem ? error.message : describeProblem(error)} Nothing changed.`, 'error');
    }
  }

  /** Lists problems next to the editor, each with the field it is about; none clears them. */
  #showProblems(problems: Array<{ field?: string; message: string }>): void {
    const { editorErrors, editorText } = this.#elements;
    const field = editorText.closest('.field');
    if (problems.length === 0) {
      editorErrors.replaceChildren();
      editorErrors.hidden = true;
      editorText.removeAttribute('aria-invalid');
      field?.classList.remove('field-error');
      return;
    }
    replaceChildren(
      editorErrors,
      h('span', { class: 'visually-hidden' }, 'Error: '),
      h(
        'ul',
        {},
        ...problems.map(({ field: name, message }) =>
          h(
            'li',
            { 'data-field': name ?? '' },
            name === undefined ? message : h('code', {}, name),
            name === undefined ? null : message.startsWith(name) ? message.slice(name.length) : `: ${message}`,
          ),
        ),
      ),
    );
    editorErrors.hidden = false;
    editorText.setAttribute('aria-invalid', 'true');
    field?.classList.add('field-error');
  }

  async #clearJournal(): Promise<void> {
    try {
      await this.#session.call('DELETE', '/sandbox/v1/requests');
      for (const shown of this.#shown.values()) {
        shown.row.remove();
        shown.details.remove();
      }
      this.#shown.clear();
      this.#showJournal([], this.#drawnQuery);
      setMessage(this.#elements.journalMessage, 'Cleared the journal: calls made from now on appear here.', 'success');
      this.refresh();
    } catch (error) {
      setMessage(this.#elements.journalMessage, `The journal was not cleared: ${describeProblem(error)}`, 'error');
    }
  }
}
