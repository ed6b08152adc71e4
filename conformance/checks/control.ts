/**
 * The control API's own promises (CONTRACT.md "Sandbox control API"), which the `full` profile
 * holds a target that offers that API to: complete, fail and expire answer 200 with the payment
 * request; `/pay` answers `{paymentRequestId, status: "completed", preimage}`; a transition out of a
 * terminal state answers exactly 409 and changes nothing; an id that is not the account's (unknown,
 * one edit away from a real one, another account's) answers 404 as an unknown one does; the clock
 * answers `{now, frozen}` and each account has its own. `core` and `lifecycle` never run these, so
 * a target without a control API is held to nothing here.
 */
import type { Check, CheckContext } from '../check.js';
import { CheckSkipped } from '../check-errors.js';
import type { ApiAnswer } from '../client.js';
import { letTimePass, shortExpiry } from './lifecycle.js';
import { differences } from './read.js';
import { strangerInvoiceLike } from './bolt11-stranger.js';
import {
  assert,
  assertPreimage,
  createPaymentRequest,
  describeBody,
  fieldsProblem,
  getPaymentRequest,
  has,
  hexValue,
  isObject,
  reportedStatus,
  sleep,
  timeOf,
  twoAccountsRequests,
  show,
} from './support.js';
import { assertAnswersAsUnknown, clockOf, CONTROL, nearMisses, readClockOf, STATE_OF, transitionPath, TRANSITIONS, type Transition } from './control-support.js';

const SECTION = 'CONTRACT: Sandbox control API';

/** A request moved on by one control call, with the read before it, the call's answer and the reads after it. */
interface Moved {
  created: Record<string, any>;
  before: Record<string, any>;
  answer: ApiAnswer;
  read: Record<string, any>;
  status: unknown;
}

/**
 * One request per transition, created, read, moved on through the control API and read back;
 * shared. It is read once before the call as a client polling it would, so an implementation that
 * answers reads from what it answered before (a cache) shows it.
 */
function moved(context: CheckContext, transition: Transition): Promise<Moved> {
  return context.shared(`control: ${transition}d request`, async () => {
    const created = await createPaymentRequest(context, { amount: 1000, description: `lnpr conformance control: ${transition}` });
    const before = await getPaymentRequest(context, created.id);
    // Timestamps may be whole seconds: the transition must be able to move updatedAt (lifecycle.updated-at-every-transition).
    await letTimePass(context.lifecycle!);
    const answer = await context.client.post(transitionPath(created.id, transition));
    const read = await getPaymentRequest(context, created.id);
    return { created, before, answer, read, status: await reportedStatus(context, created.id) };
  });
}

/** Holds one transition's answer: 200, the payment request in its new state, as GET then shows it. */
function answerCheck(transition: Transition, holds: readonly string[]): Check {
  const state = STATE_OF[transition];
  return {
    id: `control.${transition}-answer`,
    holds,
    title: `POST …/{id}/${transition} answers 200 with the payment request, ${state}, as GET then shows it`,
    section: SECTION,
    statement: `CONTRACT: "POST /sandbox/v1/payment-requests/{id}/${transition}" → status ${state}; answer "200, the payment request"`,
    level: 'MUST',
    profile: 'full',
    needs: ['controls'],
    async run(context) {
      const { created, answer, read, status } = await moved(context, transition);
      const what = `POST ${transitionPath(created.id, transition)} on a pending request`;
      assert(answer.status === 200, `${what}: expected HTTP 200, got ${answer.status} ${describeBody(answer)}`);
      assert(isObject(answer.body), `${what}: expected the payment request (a JSON object), got ${describeBody(answer) || 'an empty body'}`);
      const body = answer.body;
      assert(body.id === created.id && body.status === state, `${what}: expected the payment request ${created.id} with status "${state}", got id ${show(body.id)}, status ${show(body.status)}`);
      // "the payment request": every field of the object, each as the spec shapes it, as on a GET.
      const shape = fieldsProblem(body);
      assert(shape === undefined, `${what}: the answer is not a whole payment request: ${shape}`);
      if (state === 'completed') assertPreimage(what, body.preimage, created.paymentHash);
      else assert(!has(body, 'preimage'), `${what}: a ${state} request shows no preimage, got ${show(body.preimage)}`);
      assert(read.status === state && status === state, `after ${what}: expected "${state}" on GET and on the status endpoint; GET ${show(read.status)}, status endpoint ${show(status)}`);
      const problems = [...differences(body, read), ...differences(read, body).map((problem) => `(GET's ${problem})`)];
      assert(problems.length === 0, `${what}: the answer differs from GET right after: ${problems.join('; ')}`);
    },
  };
}

/** Every transition, out of each terminal state (the one that led there too: a terminal state is left by none). */
const OUT_OF: ReadonlyArray<[Transition, Transition[]]> = [
  ['complete', ['fail', 'expire', 'complete']],
  ['fail', ['complete', 'expire', 'fail']],
  ['expire', ['complete', 'fail', 'expire']],
];

/** The control checks. */
export const controlChecks: Check[] = [
  answerCheck('complete', ['contract.control.complete-answer', 'contract.control.complete']),
  answerCheck('fail', ['contract.control.fail-answer', 'contract.control.fail']),
  answerCheck('expire', ['contract.control.expire-answer', 'contract.control.expire']),
  {
    id: 'control.terminal-409',
    holds: ['contract.control.terminal-409', 'contract.control.terminal-unchanged', 'contract.reading.refused-changes-nothing'],
    title: 'Every transition out of completed, failed or expired (the same one again too) answers exactly 409 and changes nothing (every field as before)',
    section: SECTION,
    statement: 'CONTRACT: "A transition out of a terminal state (completed, expired, failed) answers 409 and changes nothing"',
    level: 'MUST',
    profile: 'full',
    needs: ['controls'],
    async run(context) {
      const wrong: string[] = [];
      await Promise.all(
        OUT_OF.map(async ([into, outs]) => {
          const { created, read } = await moved(context, into);
          if (read.status !== STATE_OF[into]) throw new CheckSkipped(`the request ${into}d through the control API reads ${show(read.status)} (control.${into}-answer's business)`);
          const before = await getPaymentRequest(context, created.id);
          for (const out of outs) {
            const answer = await context.client.post(transitionPath(created.id, out));
            if (answer.status !== 409) wrong.push(`POST ${transitionPath(created.id, out)} on a ${STATE_OF[into]} request: expected HTTP 409, got ${answer.status} ${describeBody(answer)}`);
          }
          const after = await getPaymentRequest(context, created.id);
          const problems = [...differences(before, after), ...differences(after, before)];
          if (problems.length > 0 || after.updatedAt !== before.updatedAt) {
            wrong.push(`a ${STATE_OF[into]} request after ${outs.join(' and ')} were refused: expected every field as before; ${problems.join('; ') || `updatedAt ${show(before.updatedAt)} → ${show(after.updatedAt)}`}`);
          }
        }),
      );
      // Expired by the account's clock, not by a control call: terminal all the same.
      await context.lifecycle!.holdingClock(async (clock) => {
        const created = await createPaymentRequest(context, { amount: 1000, description: 'lnpr conformance control: expired by the clock', expiresIn: await shortExpiry(context) });
        const { nowMs } = await readClockOf(context);
        await clock.advance(Math.max(0, Math.ceil((timeOf(created.expiresAt) - nowMs) / 1000)) + 1);
        const before = await getPaymentRequest(context, created.id);
        if (before.status !== 'expired') throw new CheckSkipped(`a request past its expiresAt reads ${show(before.status)} (lifecycle.expiry-boundary's business)`);
        for (const out of TRANSITIONS) {
          const answer = await context.client.post(transitionPath(created.id, out));
          if (answer.status !== 409) wrong.push(`POST ${transitionPath(created.id, out)} on a request expired by the clock: expected HTTP 409, got ${answer.status} ${describeBody(answer)}`);
        }
        const after = await getPaymentRequest(context, created.id);
        if (after.status !== 'expired') wrong.push(`a request expired by the clock after the refused transitions: expected "expired", got ${show(after.status)}`);
      });
      assert(wrong.length === 0, wrong.join('; '));
    },
  },
  {
    id: 'control.unknown-id-404',
    holds: ['contract.control.unknown-id-404', 'contract.reading.id-exact'],
    title: 'complete, fail and expire on an unknown id, or on one edit away from a real id, answer 404; the real request is untouched',
    section: SECTION,
    statement: 'CONTRACT: "An unknown id answers 404"; "an id answers only for itself (a prefix or near miss of a real id is a 404)"',
    level: 'MUST',
    profile: 'full',
    needs: ['controls'],
    async run(context) {
      const created = await createPaymentRequest(context, { amount: 1000, description: 'lnpr conformance control: near-miss ids' });
      const before = await getPaymentRequest(context, created.id);
      const ids = [{ what: 'an unknown id', id: 'pr_doesnotexist000' }, ...nearMisses(created.id).map(({ what, id }) => ({ what: `${what} (of a pending request)`, id }))];
      const answers = await Promise.all(
        ids.flatMap(({ what, id }) => TRANSITIONS.map(async (transition) => ({ what: `POST ${transitionPath(id, transition)}: ${what}`, answer: await context.client.post(transitionPath(id, transition)) }))),
      );
      const wrong = answers.filter(({ answer }) => answer.status !== 404).map(({ what, answer }) => `${what}: expected HTTP 404, got ${answer.status} ${describeBody(answer)}`);
      assert(wrong.length === 0, `${wrong.length} of ${answers.length} calls: ${wrong.slice(0, 4).join('; ')}${wrong.length > 4 ? '; …' : ''}`);
      const after = await getPaymentRequest(context, created.id);
      assert(after.status === 'pending' && after.updatedAt === before.updatedAt, `the real request after transitions on ids near its own: expected it pending and unchanged, got status ${show(after.status)}, updatedAt ${show(before.updatedAt)} → ${show(after.updatedAt)}`);
    },
  },
  {
    id: 'control.other-account-404',
    holds: ['contract.control.own-account', 'contract.reading.other-account', 'contract.accounts.isolated'],
    title: "complete, fail and expire on another account's request answer as for an unknown id (status and body) and leave it pending",
    section: SECTION,
    statement: 'CONTRACT: "every call acts on the key\'s own account only"; "another account\'s id answers exactly as an unknown one (the same status and body)"',
    level: 'MUST',
    profile: 'full',
    needs: ['controls', 'nwcKey'],
    async run(context) {
      const { other, nwcKey } = await twoAccountsRequests(context);
      const before = await getPaymentRequest(context, other.id, { key: nwcKey });
      const [unknownId, againId] = [nearMisses(other.id)[2]!.id, `${other.id.slice(0, -2)}zz`];
      for (const transition of TRANSITIONS) {
        const [answer, unknown, again] = await Promise.all([other.id, unknownId, againId].map((id) => context.client.post(transitionPath(id, transition))));
        assertAnswersAsUnknown(`POST ${transitionPath(other.id, transition)} (the NWC key's request) with the main key`, answer!, other.id, unknown!, unknownId, again!, againId);
      }
      const after = await getPaymentRequest(context, other.id, { key: nwcKey });
      assert(after.status === before.status && after.updatedAt === before.updatedAt, `the NWC key's request after the main key's control calls on it: expected it unchanged, got status ${show(before.status)} → ${show(after.status)}, updatedAt ${show(before.updatedAt)} → ${show(after.updatedAt)}`);
    },
  },
  {
    id: 'control.pay-answer',
    holds: ['contract.control.pay', 'contract.control.pay-answer', 'contract.control.pay-unknown-404'],
    title: 'POST /sandbox/v1/pay with a pending request\'s invoice answers 200 {paymentRequestId, status: "completed", preimage}; the request then reads completed with that preimage; the same invoice again answers 409 and changes nothing; an invoice nobody issued, 404',
    section: SECTION,
    statement: 'CONTRACT: "POST /sandbox/v1/pay {"invoice"}: a wallet pays that invoice; 200 {"paymentRequestId", "status": "completed", "preimage"}"; "A transition out of a terminal state answers 409 and changes nothing"; "an unknown invoice to /pay, 404"',
    level: 'MUST',
    profile: 'full',
    needs: ['controls'],
    async run(context) {
      const created = await createPaymentRequest(context, { amount: 1000, description: 'lnpr conformance control: pay' });
      await letTimePass(context.lifecycle!);
      const answer = await context.client.post(`${CONTROL}/pay`, { body: { invoice: created.invoice } });
      const what = `POST ${CONTROL}/pay with the invoice of a pending request`;
      assert(answer.status === 200 && isObject(answer.body), `${what}: expected HTTP 200 with a JSON object, got ${answer.status} ${describeBody(answer)}`);
      const body = answer.body;
      assert(body.paymentRequestId === created.id, `${what}: expected paymentRequestId ${show(created.id)}, got ${show(body.paymentRequestId)}`);
      assert(body.status === 'completed', `${what}: expected status "completed", got ${show(body.status)}`);
      assertPreimage(what, body.preimage, created.paymentHash);
      const read = await getPaymentRequest(context, created.id);
      assert(read.status === 'completed' && hexValue(read.preimage) === hexValue(body.preimage), `after ${what}: expected GET to read completed with the preimage /pay answered; got status ${show(read.status)}, preimage ${show(read.preimage)}`);
      // Paid already: paying it again is a transition out of a terminal state.
      const again = await context.client.post(`${CONTROL}/pay`, { body: { invoice: created.invoice } });
      assert(again.status === 409, `POST ${CONTROL}/pay with the invoice of a request it just paid (completed): expected 409, got ${again.status} ${describeBody(again)}`);
      const after = await getPaymentRequest(context, created.id);
      const changed = differences(read, after);
      assert(changed.length === 0, `POST ${CONTROL}/pay a second time (answered 409) changed the request: ${changed.join('; ')}`);
      const stranger = await context.client.post(`${CONTROL}/pay`, { body: { invoice: strangerInvoiceLike(created.invoice, 1000) } });
      assert(stranger.status === 404, `POST ${CONTROL}/pay with a valid invoice nobody issued (an unknown invoice): expected 404, got ${stranger.status} ${describeBody(stranger)}`);
    },
  },
  {
    id: 'control.clock-answers',
    holds: ['contract.control.clock-now', 'contract.control.clock-frozen', 'contract.control.clock-advance', 'contract.control.clock-advance-answer'],
    title: 'GET /sandbox/v1/clock answers {now: ISO 8601, frozen: boolean}, frozen saying whether it stands still; POST …/clock/advance answers 200 with the clock, moved on by the seconds asked, and moves nothing when refused for its body',
    section: SECTION,
    statement: 'CONTRACT: "GET /sandbox/v1/clock → 200 {"now": ISO-8601, "frozen": bool}"; "POST /sandbox/v1/clock/advance {"seconds": N} → 200, the clock"',
    level: 'MUST',
    profile: 'full',
    needs: ['controls'],
    async run(context) {
      await context.lifecycle!.holdingClock(async (clock) => {
        const before = await readClockOf(context);
        const advanced = clockOf({ status: 200, body: await clock.advance(5), text: '', isJson: true } as ApiAnswer, `POST ${CONTROL}/clock/advance {"seconds": 5}`);
        assert(advanced.nowMs - before.nowMs >= 5000, `POST ${CONTROL}/clock/advance {"seconds": 5}: expected now at least 5 s after ${new Date(before.nowMs).toISOString()}, got ${new Date(advanced.nowMs).toISOString()}`);
        const after = await readClockOf(context);
        assert(after.nowMs >= advanced.nowMs && after.frozen === advanced.frozen, `GET ${CONTROL}/clock after the advance: expected the clock the advance answered (or later), got now ${new Date(after.nowMs).toISOString()} frozen ${after.frozen} (the advance answered ${new Date(advanced.nowMs).toISOString()}, frozen ${advanced.frozen})`);
        // An advance refused for its body (the contract names no status: a 4xx) moves nothing.
        const refused = await context.client.post(`${CONTROL}/clock/advance`, { body: { seconds: 'a day' } });
        assert(refused.status >= 400 && refused.status < 500, `POST ${CONTROL}/clock/advance {"seconds": "a day"}: expected a 4xx refusal, got ${refused.status} ${describeBody(refused)}`);
        // "frozen" says whether the clock stands still: a clock read with milliseconds that moved is not frozen, one that stood for 150 ms is.
        await sleep(150);
        const [last, text] = await Promise.all([readClockOf(context), context.client.get(`${CONTROL}/clock`).then((answer) => String(answer.body?.now ?? ''))]);
        assert(last.nowMs - after.nowMs < 30_000, `GET ${CONTROL}/clock after an advance refused for its body: expected the clock where it was, got it ${Math.round((last.nowMs - after.nowMs) / 1000)} s on`);
        if (last.nowMs !== after.nowMs) assert(!last.frozen, `GET ${CONTROL}/clock: "frozen": true, but now moved from ${new Date(after.nowMs).toISOString()} to ${new Date(last.nowMs).toISOString()} in 150 ms`);
        else if (/\.\d{3}/.test(text)) assert(last.frozen, `GET ${CONTROL}/clock: "frozen": false, but now (with milliseconds) stood at ${new Date(last.nowMs).toISOString()} for 150 ms`);
      });
    },
  },
  {
    id: 'control.clock-per-account',
    holds: ['contract.control.clock-per-account', 'contract.control.own-account'],
    title: "Moving the main account's clock on 30 s leaves the NWC account's clock where it was",
    section: SECTION,
    statement: 'CONTRACT: "every call acts on the key\'s own account only"; "the clock per account"',
    level: 'MUST',
    profile: 'full',
    needs: ['controls', 'nwcKey'],
    async run(context) {
      const { nwcKey } = await twoAccountsRequests(context);
      await context.lifecycle!.holdingClock(async (clock) => {
        // The NWC clock is read inside the main clock's readings, so a running clock moves it less.
        const mainBefore = await readClockOf(context);
        const nwcBefore = await readClockOf(context, nwcKey);
        await clock.advance(30);
        const nwcAfter = await readClockOf(context, nwcKey);
        const mainAfter = await readClockOf(context);
        const [mainMoved, nwcMoved] = [mainAfter.nowMs - mainBefore.nowMs, nwcAfter.nowMs - nwcBefore.nowMs];
        assert(mainMoved >= 30_000, `the main account's clock moved ${mainMoved} ms when advanced 30 s`);
        assert(mainMoved - nwcMoved >= 15_000, `the NWC account's clock moved ${nwcMoved} ms while only the main account's was advanced 30 s (it moved ${mainMoved} ms): the accounts share a clock`);
      });
    },
  },
];
