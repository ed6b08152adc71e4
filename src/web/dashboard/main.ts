/**
 * The dashboard (`/dashboard`): a person's view of one sandbox account, chosen by its API key.
 * It is a client of the HTTP API like any other: fetch to `/api/v1` and `/sandbox/v1` with the key
 * in the Authorization header, and live updates from `GET /sandbox/v1/stream` (Server-Sent Events
 * read with fetch, so the key never goes in a URL); the Wallets panel also reads the dashboard's
 * own `GET /dashboard/api/nwc-requests`, and polls lightly (`wallets.ts`), as does the Requests and
 * faults panel (`resilience.ts`, which asks `GET /dashboard/api/key` whether the key may change
 * things). The key is kept in sessionStorage: this tab only, gone when it closes.
 *
 * Changing the key leaves nothing of the previous account: its session ends (calls aborted, late
 * answers dropped, stream closed, timers stopped) and the account's part of the page is put back
 * as it was when the page loaded, lists, notices, form values and errors included.
 */
import type { WebhookEvent } from '../../schemas/webhooks.js';
import { callApi, describeProblem } from '../shared/api.js';
import { byId } from '../shared/dom.js';
import { openStream, type StreamMessage } from '../shared/sse.js';
import { tickRelativeTimes, type ClockView } from '../shared/time.js';
import { ClockPanel, CreateForm, RulesPanel } from './controls.js';
import { RequestList } from './requests.js';
import { ResiliencePanel } from './resilience.js';
import { Session, setMessage } from './session.js';
import { WalletPanel } from './wallets.js';
import { WebhookPanel } from './webhooks.js';

const KEY_STORAGE = 'lnpr-sandbox:api-key';

/** What a chosen key brings to life; replaced when the key changes. */
interface Running {
  session: Session;
  requests: RequestList;
  clock: ClockPanel;
  webhooks: WebhookPanel;
  rules: RulesPanel;
  wallets: WalletPanel;
  resilience: ResiliencePanel;
  stop(): void;
}

let running: Running | undefined;
/** Counts the keys chosen: a key check that answers after another key was chosen is dropped. */
let generation = 0;
const keyMessage = byId('key-message');
const announce = byId('announce');
/** The account's part of the page as loaded, before any account was drawn in it. */
const pristineAccount = byId('account').cloneNode(true) as HTMLElement;

/** Ends the current account, if any, and wipes everything it drew. */
function leaveAccount(): void {
  generation += 1;
  running?.stop();
  running = undefined;
  byId('account').replaceWith(pristineAccount.cloneNode(true));
  announce.textContent = '';
  byId('live-state').textContent = '';
  byId('current-key').textContent = '';
  byId('signed-in').hidden = true;
}

async function useKey(key: string): Promise<void> {
  leaveAccount();
  const mine = generation;
  if (key === '') {
    setMessage(keyMessage, 'Enter an API key, or pick one of the test keys.', 'error');
    byId('api-key').focus();
    return;
  }
  setMessage(keyMessage, 'Checking the key…');
  try {
    await callApi<ClockView>('GET', '/sandbox/v1/clock', { key });
  } catch (error) {
    if (mine !== generation) return;
    sessionStorage.removeItem(KEY_STORAGE);
    setMessage(keyMessage, `That key cannot be used: ${describeProblem(error)}`, 'error');
    byId('api-key').focus();
    return;
  }
  if (mine !== generation) return;
  sessionStorage.setItem(KEY_STORAGE, key);
  setMessage(keyMessage, '');
  start(new Session(key));
}

function start(session: Session): void {
  const requests = new RequestList(session, {
    list: byId('requests'),
    message: byId('requests-message'),
    announce,
    more: byId<HTMLButtonElement>('requests-more'),
    count: byId('requests-count'),
  });
  const clock = new ClockPanel(session);
  const webhooks = new WebhookPanel(session, {
    endpoints: byId('endpoints'),
    endpointForm: byId<HTMLFormElement>('endpoint-form'),
    endpointsMessage: byId('endpoints-message'),
    events: byId('events'),
    eventsMessage: byId('events-message'),
    eventsMore: byId<HTMLButtonElement>('events-more'),
    eventsCount: byId('events-count'),
  });
  const rules = new RulesPanel(session);
  const wallets = new WalletPanel(session, {
    connection: byId('connection'),
    wallets: byId('test-wallets'),
    walletsMessage: byId('wallets-message'),
    form: byId<HTMLFormElement>('wallet-form'),
    formMessage: byId('wallet-form-message'),
    requests: byId('nwc-requests'),
    announce: (message) => {
      if (!session.ended) announce.textContent = message;
    },
  });
  const resilience = new ResiliencePanel(session, {
    journal: byId('journal'),
    journalMessage: byId('journal-message'),
    filter: byId<HTMLFormElement>('journal-filter'),
    clearJournal: byId<HTMLButtonElement>('journal-clear'),
    faults: byId('faults'),
    faultsNote: byId('faults-note'),
    faultsMessage: byId('faults-message'),
    editor: byId('faults-editor'),
    readOnlyNote: byId('faults-read-only'),
    editorForm: byId<HTMLFormElement>('faults-form'),
    editorText: byId<HTMLTextAreaElement>('faults-json'),
    editorErrors: byId('faults-errors'),
    clearFaults: byId<HTMLButtonElement>('faults-clear'),
    presets: Array.from(byId('faults-editor').querySelectorAll<HTMLButtonElement>('button[data-preset]')),
  });
  // The create form's call, made or refused (a fault may have answered it), is in the journal.
  new CreateForm(session, (view) => requests.upsert(view), () => resilience.refresh());

  byId('key-form').hidden = true;
  byId('signed-in').hidden = false;
  byId('current-key').textContent = session.key;
  byId('account').hidden = false;
  byId('account').setAttribute('aria-busy', 'true');
  const liveState = byId('live-state');

  const account = byId('account');
  const loadAll = async (): Promise<void> => {
    // aria-busy tells assistive technology (and tests) that the panels are still being filled.
    account.setAttribute('aria-busy', 'true');
    try {
      await Promise.all([clock.load(), requests.load(), webhooks.load(), rules.load(), wallets.load(), resilience.load()]);
    } catch (error) {
      setMessage(byId('requests-message'), `Could not read the account: ${describeProblem(error)}`, 'error');
    } finally {
      account.setAttribute('aria-busy', 'false');
    }
  };
  const onMessage = (message: StreamMessage): void => {
    if (session.ended) return;
    const data = JSON.parse(message.data) as unknown;
    if (message.event === 'clock') {
      const before = session.clock.now();
      clock.show(data as ClockView);
      tickRelativeTimes(document, session.clock);
      // A clock that went back was reset (POST /sandbox/v1/reset, which also deletes the requests).
      if (session.clock.now() < before - 1_000) void loadAll();
    } else if (message.event === 'payment_request') {
      requests.upsert((data as WebhookEvent).data);
      webhooks.eventArrived();
      // A test wallet of the account may have paid it, or its connected wallet been asked.
      wallets.refresh();
      // A call to /api/v1 made it, or moved it on: the journal has it, a fault may have fired.
      resilience.refresh();
    } else if (message.event === 'delivery') {
      webhooks.deliveryRecorded();
    }
  };
  const stopStream = openStream('/sandbox/v1/stream', { authorization: `Bearer ${session.key}` }, {
    onMessage,
    onState(state) {
      if (session.ended) return;
      if (state === 'open') {
        liveState.textContent = 'Live: changes appear as they happen.';
        // Read everything once the stream is open, so nothing falls between the read and the stream.
        void loadAll();
      } else if (state === 'reconnecting') {
        liveState.textContent = 'The live connection dropped; reconnecting…';
      } else if (state === 'refused') {
        liveState.textContent = 'The live stream refused the key; reload the page to try again.';
      }
    },
  });
  const ticker = setInterval(() => {
    clock.tick();
    tickRelativeTimes(document, session.clock);
  }, 1_000);
  running = {
    session,
    requests,
    clock,
    webhooks,
    rules,
    wallets,
    resilience,
    stop() {
      session.end();
      stopStream();
      clearInterval(ticker);
      webhooks.stop();
      wallets.stop();
      resilience.stop();
    },
  };
}

byId<HTMLFormElement>('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void useKey(byId<HTMLInputElement>('api-key').value.trim());
});
for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-key]'))) {
  button.addEventListener('click', () => {
    byId<HTMLInputElement>('api-key').value = button.dataset.key!;
    void useKey(button.dataset.key!);
  });
}
byId('change-key').addEventListener('click', () => {
  leaveAccount();
  sessionStorage.removeItem(KEY_STORAGE);
  setMessage(keyMessage, '');
  byId('key-form').hidden = false;
  byId<HTMLInputElement>('api-key').value = '';
  byId('api-key').focus();
});

const remembered = sessionStorage.getItem(KEY_STORAGE);
if (remembered !== null) {
  byId<HTMLInputElement>('api-key').value = remembered;
  void useKey(remembered);
}
