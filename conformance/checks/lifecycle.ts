/**
 * States and transitions (spec: "States and transitions"): a paid request reads `completed` with a
 * `preimage` whose SHA-256 is `paymentHash` and a later `updatedAt`; a failed one `failed`; one past
 * its `expiresIn` `expired`, and not a second before; `updatedAt` moves on every transition any
 * answer shows; and terminal states stay terminal. Completion works through the target's
 * `/sandbox/v1` controls or a pay command; the other transitions need the controls.
 */
import { hexToBytes } from '@noble/hashes/utils.js';
import type { Check, CheckContext } from '../check.js';
import { CheckFailure, CheckSkipped } from '../check-errors.js';
import type { ApiAnswer } from '../client.js';
import type { LifecycleDriver } from '../lifecycle-driver.js';
import { differences, everyLaterRead } from './read.js';
import { assertEvery, receivedPaymentRequests, type Received } from './received.js';
import {
  assert,
  COLLECTION,
  createPaymentRequest,
  describeBody,
  getPaymentRequest,
  expectExactStatus,
  has,
  HEX_64,
  hexValue,
  reportedStatus,
  requestPath,
  settledStatus,
  settleMs,
  sha256Hex,
  show,
  sleep,
  timeOf,
  validBody,
} from './support.js';

const SECTION = 'States and transitions';

/**
 * `expiresIn` of the requests that are left to expire, shortest first: the bounds of `expiresIn`
 * are an open point, so a target that refuses 60 s is asked for the next one, then the default.
 */
const EXPIRY_CANDIDATES = [60, 300, 3600] as const;

function driverOf(context: CheckContext): LifecycleDriver {
  if (context.lifecycle === undefined) throw new CheckSkipped('needs a way to move payment requests on (the /sandbox/v1 control API or --pay-command)');
  return context.lifecycle;
}

/**
 * Lets the target's time move on by more than a second before a transition, so `updatedAt` can
 * differ even at whole seconds (lifecycle.updated-at-every-transition holds every transition to it).
 */
export async function letTimePass(driver: LifecycleDriver): Promise<void> {
  if (driver.controls) await driver.advanceClock(1);
  else await sleep(1100);
}

interface Completion {
  created: Record<string, any>;
  before: Record<string, any>;
  settled: unknown;
  after: Record<string, any>;
  statusAnswer: ApiAnswer;
}

/** One request, completed through the driver and read back; shared by the completion checks. */
function sharedCompletion(context: CheckContext): Promise<Completion> {
  return context.shared('completed request', async () => {
    const driver = driverOf(context);
    const created = await createPaymentRequest(context, { amount: 1000, description: 'lnpr conformance lifecycle: completion' });
    const before = await getPaymentRequest(context, created.id);
    await letTimePass(driver);
    await driver.complete({ id: created.id, invoice: created.invoice });
    const settled = await settledStatus(context, created.id);
    const after = await getPaymentRequest(context, created.id);
    const statusAnswer = await context.client.get(requestPath(created.id, true));
    return { created, before, settled, after, statusAnswer };
  });
}

/** Requests left to expire: created with `expiresIn` 60, then the account's clock moved on 61 s. */
function sharedExpired(context: CheckContext): Promise<Array<Record<string, any>> & { expiresIn: number }> {
  return context.shared('expired requests', async () => {
    const driver = driverOf(context);
    const expiresIn = await shortExpiry(context);
    const requests = await Promise.all(
      [1, 2].map((n) => createPaymentRequest(context, { amount: 1000, description: `lnpr conformance lifecycle: expiry ${n}`, expiresIn })),
    );
    await driver.advanceClock(expiresIn + 1);
    return Object.assign(requests, { expiresIn });
  });
}

/** The shortest candidate `expiresIn` the target accepts, probed once per run. */
export function shortExpiry(context: CheckContext): Promise<number> {
  return context.shared('short expiresIn', () => acceptedShortExpiry(context));
}

/** The shortest candidate `expiresIn` the target accepts (probed with a create; a 400 means "too short"). */
async function acceptedShortExpiry(context: CheckContext): Promise<number> {
  for (const expiresIn of EXPIRY_CANDIDATES) {
    const answer = await context.client.post(COLLECTION, { body: validBody({ description: 'lnpr conformance lifecycle: expiry probe', expiresIn }) });
    if (answer.status >= 200 && answer.status < 300) return expiresIn;
    assert(answer.status === 400, `POST ${COLLECTION} with expiresIn ${expiresIn}: expected 201 (or 400 if too short), got ${answer.status} ${describeBody(answer)}`);
  }
  throw new CheckFailure(`the target refused every expiresIn tried (${EXPIRY_CANDIDATES.join(', ')} s), 3600 (the spec's default) included`);
}

/**
 * How far before `expiresAt` a running clock is set for the "just before" reading: the reads that
 * follow must fit in it (the clock, read after them, tells whether they did).
 */
const RUNNING_CLOCK_MARGIN_MS = 300;

/** GET's and the status endpoint's status of a request, read one after the other. */
async function bothStatuses(context: CheckContext, id: string): Promise<{ read: unknown; status: unknown }> {
  const read = (await getPaymentRequest(context, id)).status;
  return { read, status: await reportedStatus(context, id) };
}

/**
 * Reads a request just before its `expiresAt` and just after, on the account's clock, moved in
 * whole seconds (the control API's unit): at most a second before (a frozen clock) or 0.3 to 1.3 s
 * (a running one), and at most a second after. A clock read after the "before" reads proves they
 * happened before `expiresAt`; one read before the "after" reads proves those happened after it.
 */
async function expiryBoundary(context: CheckContext): Promise<void> {
  const driver = driverOf(context);
  const expiresIn = await shortExpiry(context);
  await driver.holdingClock(async (clock) => {
    const created = await createPaymentRequest(context, { amount: 1000, description: 'lnpr conformance lifecycle: expiry boundary', expiresIn });
    const expiresAt = timeOf(created.expiresAt);
    assert(Number.isFinite(expiresAt), `the 201 body: expiresAt ${show(created.expiresAt)} is not a readable timestamp`);
    const onClock = (ms: number) => `${new Date(ms).toISOString()} on the account's clock`;
    const margin = clock.frozen ? 0 : RUNNING_CLOCK_MARGIN_MS;
    const steps = Math.ceil((expiresAt - margin - (await driver.readClock()).nowMs) / 1000) - 1;
    if (steps < 0) throw new CheckSkipped(`the account's clock is already within a second of expiresAt ${created.expiresAt} after the create`);
    await clock.advance(steps);
    const before = await bothStatuses(context, created.id);
    const readBy = (await driver.readClock()).nowMs;
    if (readBy >= expiresAt) throw new CheckSkipped(`the account's clock (it runs) passed expiresAt while the request was read, so the reading proves nothing`);
    assert(
      before.read === 'pending' && before.status === 'pending',
      `${expiresAt - readBy} ms or more before expiresAt ${created.expiresAt} (read by ${onClock(readBy)}): expected "pending" on GET and on the status endpoint; GET ${show(before.read)}, status endpoint ${show(before.status)}`,
    );
    // Strictly past expiresAt: whether the instant itself has "passed" is the target's reading.
    await clock.advance(Math.max(0, Math.floor((expiresAt - (await driver.readClock()).nowMs) / 1000) + 1));
    const readFrom = (await driver.readClock()).nowMs;
    assert(readFrom > expiresAt, `the account's clock reads ${onClock(readFrom)} after being moved past expiresAt ${created.expiresAt}`);
    const after = await bothStatuses(context, created.id);
    assert(
      after.read === 'expired' && after.status === 'expired',
      `${readFrom - expiresAt} ms or less after expiresAt ${created.expiresAt} (read from ${onClock(readFrom)}): expected "expired" on GET and on the status endpoint; GET ${show(after.read)}, status endpoint ${show(after.status)}`,
    );
  });
}

/**
 * What is wrong with `later`'s updatedAt given `earlier`, an answer about the same request that
 * came back before `later` was asked for: a transition moves it forward, and it never goes back.
 */
function updatedAtProblem(earlier: Received, later: Received): string | undefined {
  const [before, after] = [timeOf(earlier.body.updatedAt), timeOf(later.body.updatedAt)];
  // Unreadable timestamps are create.timestamps-format's business, statuses outside the four create.status-pending's and the others'.
  if (!Number.isFinite(before) || !Number.isFinite(after) || !isState(earlier.body.status) || !isState(later.body.status)) return undefined;
  const was = `${earlier.where} read ${show(earlier.body.status)} with updatedAt ${earlier.body.updatedAt}`;
  if (earlier.body.status !== later.body.status && !(after > before)) {
    return `reads ${show(later.body.status)} with updatedAt ${later.body.updatedAt}, but before it ${was}: the transition did not move updatedAt forward`;
  }
  return after < before ? `updatedAt ${later.body.updatedAt} is earlier than before: ${was}` : undefined;
}

const isState = (status: unknown) => status === 'pending' || status === 'completed' || status === 'expired' || status === 'failed';

/** Tries a control transition directly (the driver would fail the check on a refusal, which is right here). */
async function attempt(context: CheckContext, id: string, transition: 'complete' | 'fail'): Promise<string> {
  const path = `/sandbox/v1/payment-requests/${encodeURIComponent(id)}/${transition}`;
  const answer = await context.client.post(path);
  assert(answer.status < 500, `POST ${path} on a request in a final state: expected a refusal (4xx, e.g. 409), got ${answer.status} ${describeBody(answer)}`);
  return `POST ${path} answered ${answer.status}`;
}

/** Fails unless GET and the status endpoint both say `state`, with no preimage unless completed. */
async function expectState(context: CheckContext, id: string, state: string, why: string): Promise<Record<string, any>> {
  const read = await getPaymentRequest(context, id);
  const status = await reportedStatus(context, id);
  assert(read.status === state && status === state, `${why}: expected status "${state}" on GET and on the status endpoint; GET ${show(read.status)}, status endpoint ${show(status)}`);
  if (state !== 'completed') assert(!has(read, 'preimage'), `${why}: a ${state} request must not show a preimage, got ${show(read.preimage)}`);
  return read;
}

/**
 * Holds a terminal state on GET: the request reads `state` (if not, reaching it is `owner`'s
 * business and this check is skipped), a transition out of it is attempted, and it still reads
 * `state`. What the status endpoint says is the business of the checks that reach the state.
 */
async function staysTerminal(
  context: CheckContext,
  id: string,
  state: 'completed' | 'failed' | 'expired',
  transition: 'complete' | 'fail',
  owner: string,
): Promise<{ before: Record<string, any>; after: Record<string, any> }> {
  const before = await getPaymentRequest(context, id);
  if (before.status !== state) throw new CheckSkipped(`the request reads ${show(before.status)}, not ${state}, so there is no ${state} request to hold (${owner}'s business)`);
  const tried = await attempt(context, id, transition);
  const after = await getPaymentRequest(context, id);
  assert(after.status === state, `${state}, then ${transition === 'complete' ? 'a payment' : 'a failure'} attempted (${tried}): expected GET status "${state}", got ${show(after.status)}`);
  return { before, after };
}

/** A lifecycle check; `last` to review every answer the run received. */
function lifecycleCheck(id: string, holds: readonly string[], title: string, statement: string, run: Check['run'], needs?: Check['needs'], last = false): Check {
  return { id, holds, title, section: SECTION, statement, level: 'MUST', profile: 'lifecycle', ...(needs ? { needs } : {}), ...(last ? { last } : {}), run };
}

/** The lifecycle checks. */
export const lifecycleChecks: Check[] = [
  lifecycleCheck('lifecycle.completes', ['spec.states.completed', 'contract.control.complete', 'contract.control.same-keys'], 'A paid request reads completed on GET (the status endpoint: lifecycle.status-endpoint-completed)', 'States: completed, "Paid"', async (context) => {
    const { after } = await sharedCompletion(context);
    assert(after.status === 'completed', `after payment (waited up to ${settleMs(context) / 1000} s): expected GET status "completed", got ${show(after.status)}`);
  }),
  lifecycleCheck(
    'lifecycle.preimage',
    ['spec.states.completed', 'spec.get.preimage-when-completed', 'spec.resource.preimage-proof', 'contract.invoice.preimage', 'contract.control.complete'],
    'Every answer that reads completed carries a preimage whose SHA-256 is paymentHash',
    'States: completed, "a preimage is then available"; Resources: preimage, "proof of payment"',
    async (context) => {
      const { after } = await sharedCompletion(context);
      if (after.status !== 'completed') throw new CheckSkipped(`the paid request reads ${show(after.status)}, not completed (lifecycle.completes' business)`);
      const completed = receivedPaymentRequests(context).filter(({ body }) => body.status === 'completed');
      assertEvery(completed, 'completed payment requests', ({ body }) => {
        if (typeof body.preimage !== 'string' || !HEX_64.test(body.preimage)) return `completed: expected preimage 64 hex digits, got ${show(body.preimage)}`;
        const hash = sha256Hex(hexToBytes(body.preimage.toLowerCase()));
        return hash === hexValue(body.paymentHash) ? undefined : `completed: expected SHA-256(preimage) = paymentHash ${show(body.paymentHash)}, got ${hash}`;
      });
    },
    undefined,
    true,
  ),
  lifecycleCheck('lifecycle.updated-at-moves', ['spec.resource.updated-at-changes', 'contract.control.complete'], 'Completion moves updatedAt forward', 'Resources: updatedAt "changes when the record changes (for example on completion)"', async (context) => {
    const { before, after } = await sharedCompletion(context);
    assert(
      timeOf(after.updatedAt) > timeOf(before.updatedAt),
      `expected updatedAt after completion to be later than ${show(before.updatedAt)} (before), got ${show(after.updatedAt)}`,
    );
  }),
  lifecycleCheck('lifecycle.status-endpoint-completed', ['spec.status.agrees'], 'The status endpoint agrees: exactly {"status": "completed"}', 'Get status: "status, one of pending, completed, expired, failed" (completed once paid)', async (context) => {
    const { created, statusAnswer } = await sharedCompletion(context);
    const statusAfter = expectExactStatus(statusAnswer, `GET ${requestPath(created.id, true)} after payment`);
    assert(statusAfter === 'completed', `after payment: expected {"status": "completed"}, got status ${show(statusAfter)}`);
  }),
  lifecycleCheck(
    'lifecycle.completed-fields',
    ['spec.get.200', 'contract.reading.created-at-fixed'],
    'A request that moved on (completed, failed, expired) keeps the values of its other fields, on every GET (their formats: the create.* checks)',
    'Get: "Payment request object as above … and preimage when completed" (the other values unchanged)',
    async (context) => {
      const { created, after } = await sharedCompletion(context);
      // The status, updatedAt and preimage change on completion by design (lifecycle.completes, .updated-at-moves, .preimage).
      const problems = differences(created, after, ['status', 'updatedAt', 'preimage']);
      assert(problems.length === 0, `the GET body after completion: ${problems.join('; ')}`);
      // The NWC key's requests: nwc.get-equals-create; pending ones: read.get-equals-create.
      everyLaterRead(context, (origin) => origin.key !== 'nwc', (body) => body.status !== 'pending');
    },
    undefined,
    true,
  ),
  lifecycleCheck(
    'lifecycle.updated-at-every-transition',
    ['spec.resource.updated-at-changes'],
    'updatedAt moves forward on every transition the run saw and never goes back (every pair of answers about one request)',
    'Resources: updatedAt "changes when the record changes (for example on completion)"',
    async (context) => {
      await sharedCompletion(context);
      const received = receivedPaymentRequests(context);
      assertEvery(received, 'payment request objects', (later) => {
        for (const earlier of received) {
          if (earlier === later || earlier.body.id !== later.body.id || earlier.receivedAt > later.sentAt) continue;
          const problem = updatedAtProblem(earlier, later);
          if (problem !== undefined) return problem;
        }
        return undefined;
      });
    },
    undefined,
    true,
  ),
  lifecycleCheck(
    'lifecycle.expiry-boundary',
    ['spec.states.expired', 'contract.control.expired-on-clock', 'contract.control.clock-now', 'contract.control.clock-advance', 'contract.control.json'],
    "A request reads pending just before its expiresAt and expired just after, on the account's clock (both endpoints)",
    'States: expired, "Validity period (expiresIn) elapsed" (pending until then; CONTRACT: on the account\'s clock)',
    expiryBoundary,
    ['controls'],
  ),
  lifecycleCheck(
    'lifecycle.fails',
    ['spec.states.failed', 'contract.control.fail', 'spec.resource.preimage-absent-before'],
    'A failed payment reads failed on both endpoints, without a preimage',
    'States: failed, "Payment failed"',
    async (context) => {
      const driver = driverOf(context);
      const created = await createPaymentRequest(context, { amount: 1000, description: 'lnpr conformance lifecycle: failure' });
      await letTimePass(driver);
      await driver.fail({ id: created.id, invoice: created.invoice });
      await settledStatus(context, created.id);
      await expectState(context, created.id, 'failed', 'after a failed payment');
    },
    ['controls'],
  ),
  lifecycleCheck(
    'lifecycle.expires-by-clock',
    ['spec.states.expired', 'contract.control.expired-on-clock', 'contract.control.clock-advance'],
    'A request past its expiresIn reads expired on both endpoints (clock moved on 61 s)',
    'States: expired, "Validity period (expiresIn) elapsed"',
    async (context) => {
      const expired = await sharedExpired(context);
      const [request] = expired;
      await settledStatus(context, request!.id);
      await expectState(context, request!.id, 'expired', `${expired.expiresIn + 1} s after creation with expiresIn ${expired.expiresIn}`);
    },
    ['controls'],
  ),
  lifecycleCheck(
    'lifecycle.completed-stays-completed',
    ['contract.control.terminal-unchanged'],
    'A completed request stays completed when a failure is attempted',
    'States: completed, "Paid" (a paid request is not later unpaid)',
    async (context) => {
      const driver = driverOf(context);
      const created = await createPaymentRequest(context, { amount: 1000, description: 'lnpr conformance lifecycle: completed is final' });
      await letTimePass(driver);
      await driver.complete({ id: created.id, invoice: created.invoice });
      await settledStatus(context, created.id);
      const { before, after } = await staysTerminal(context, created.id, 'completed', 'fail', 'lifecycle.completes');
      assert(after.preimage === before.preimage, `completed, then a failure attempted: expected the preimage kept, got ${show(after.preimage)} (was ${show(before.preimage)})`);
    },
    ['controls'],
  ),
  lifecycleCheck(
    'lifecycle.expired-stays-expired',
    ['contract.control.terminal-unchanged'],
    'An expired request stays expired when a payment is attempted',
    'States: expired, "Validity period (expiresIn) elapsed" (an elapsed validity does not come back)',
    async (context) => {
      const [, request] = await sharedExpired(context);
      await settledStatus(context, request!.id);
      await staysTerminal(context, request!.id, 'expired', 'complete', 'lifecycle.expires-by-clock');
    },
    ['controls'],
  ),
  lifecycleCheck(
    'lifecycle.failed-stays-failed',
    ['contract.control.terminal-unchanged'],
    'A failed request stays failed when a payment is attempted',
    'States: failed, "Payment failed" (the payment of a failed request does not later succeed)',
    async (context) => {
      const driver = driverOf(context);
      const created = await createPaymentRequest(context, { amount: 1000, description: 'lnpr conformance lifecycle: failed is final' });
      await letTimePass(driver);
      await driver.fail({ id: created.id, invoice: created.invoice });
      await settledStatus(context, created.id);
      await staysTerminal(context, created.id, 'failed', 'complete', 'lifecycle.fails');
    },
    ['controls'],
  ),
];
