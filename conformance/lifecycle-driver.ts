/**
 * How lifecycle checks move a payment request on. A sandbox with the `/sandbox/v1` control API
 * can complete, fail and expire (by moving its clock); a real implementation can only be paid, by
 * a wallet the user names (`--pay-command`, or an NWC wallet: `--payer-nwc-url`). Checks ask for
 * what they need and skip otherwise.
 */
import { CheckFailure, CheckSkipped } from './check-errors.js';
import type { ApiClient } from './client.js';
import type { LifecycleKind } from './vocabulary.js';

/** How long a payment may take to show: a control call settles at once, a real payment asynchronously. */
const CONTROLS_SETTLE_MS = 3_000;
const PAYMENT_SETTLE_MS = 10_000;

/** A payment request as the driver needs it. */
export interface DrivenRequest {
  id: string;
  invoice: string;
}

/** The account's clock as the control API reads it. */
export interface ClockReading {
  /** Milliseconds since the epoch. */
  nowMs: number;
  frozen: boolean;
}

/** How a payment was made: an NWC wallet says which preimage it got. */
export interface Payment {
  /** The preimage `pay_invoice` returned (an NWC payer only). */
  walletPreimage?: string;
}

/** Moves payment requests on. */
export interface LifecycleDriver {
  kind: LifecycleKind;
  /** Whether the target's control API is there to fail requests and move the clock (checks that need `controls`). */
  readonly controls: boolean;
  /** How long a payment may take to show on the status endpoint, in ms. */
  readonly settleMs: number;
  /** How far the driver has moved the account's clock on, in seconds (what the run leaves behind). */
  readonly clockAdvancedSeconds: number;
  /** Pays the request. */
  complete(request: DrivenRequest): Promise<Payment>;
  /** Makes the payment fail; controls only. */
  fail(request: DrivenRequest): Promise<void>;
  /**
   * Moves the account's clock on by `seconds`; controls only. Waits while a check holds the clock.
   * Resolves with the control API's answer body (the clock), for the checks that hold that answer.
   */
  advanceClock(seconds: number): Promise<unknown>;
  /** Reads the account's clock; controls only. */
  readClock(): Promise<ClockReading>;
  /**
   * Runs `steps` with the account's clock to itself: no other check moves it meanwhile, and
   * `clock.advance` moves it. `clock.frozen` says whether it stands still: when it runs, the driver
   * freezes it for the steps if the target can (`POST /sandbox/v1/clock/freeze`, not in every
   * control API) and lets it run again after. Controls only.
   */
  holdingClock<T>(steps: (clock: { advance(seconds: number): Promise<unknown>; frozen: boolean }) => Promise<T>): Promise<T>;
}

/** Whether the target serves the control API for this key. */
export async function detectControls(client: ApiClient): Promise<boolean> {
  const answer = await client.get('/sandbox/v1/clock');
  return answer.status === 200 && answer.isJson && typeof answer.body?.now === 'string';
}

/** The driver over the target's control API. */
export function controlsDriver(client: ApiClient): LifecycleDriver {
  const expectOk = async (path: string, body?: unknown) => {
    const answer = await client.post(`/sandbox/v1${path}`, body === undefined ? {} : { body });
    if (answer.status !== 200) throw new CheckFailure(`control call POST /sandbox/v1${path} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    return answer.body as unknown;
  };
  let advanced = 0;
  const advance = async (seconds: number) => {
    const clock = await expectOk('/clock/advance', { seconds });
    advanced += seconds;
    return clock;
  };
  // Whoever holds the clock moves it alone; the others' moves wait their turn.
  let held: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(task: () => Promise<T>): Promise<T> => {
    const turn = held.then(task, task);
    held = turn.catch(() => undefined);
    return turn;
  };
  const readClock = async (): Promise<ClockReading> => {
    const answer = await client.get('/sandbox/v1/clock');
    const nowMs = Date.parse(answer.body?.now);
    if (answer.status !== 200 || !Number.isFinite(nowMs)) throw new CheckFailure(`control call GET /sandbox/v1/clock answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    return { nowMs, frozen: answer.body.frozen === true };
  };
  return {
    kind: 'controls',
    controls: true,
    settleMs: CONTROLS_SETTLE_MS,
    get clockAdvancedSeconds() {
      return advanced;
    },
    complete: (request) => expectOk(`/payment-requests/${encodeURIComponent(request.id)}/complete`).then(() => ({})),
    fail: (request) => expectOk(`/payment-requests/${encodeURIComponent(request.id)}/fail`).then(() => undefined),
    advanceClock: (seconds) => inTurn(() => advance(seconds)),
    readClock,
    holdingClock: (steps) =>
      inTurn(async () => {
        const froze = !(await readClock()).frozen && (await client.post('/sandbox/v1/clock/freeze')).status === 200;
        try {
          return await steps({ advance, frozen: (await readClock()).frozen });
        } finally {
          if (froze) await client.post('/sandbox/v1/clock/unfreeze');
        }
      }),
  };
}

/** The driver over a function that pays invoices (e.g. a regtest node's pay command). */
export function payCommandDriver(payInvoice: (invoice: string) => Promise<void>): LifecycleDriver {
  const unsupported = (what: string) => () => Promise.reject(new CheckSkipped(`${what} needs the target's control API; a pay command can only pay`));
  return {
    kind: 'pay-command',
    controls: false,
    settleMs: PAYMENT_SETTLE_MS,
    clockAdvancedSeconds: 0,
    // A failing wallet is a failed check with the wallet's own words, not a crash of the check.
    complete: (request) =>
      payInvoice(request.invoice).then(
        () => ({}),
        (error: unknown) => {
          throw error instanceof CheckFailure ? error : new CheckFailure(`paying the invoice failed: ${(error as Error).message}`);
        },
      ),
    fail: unsupported('failing a payment'),
    advanceClock: unsupported('moving the clock'),
    readClock: unsupported('reading the clock'),
    holdingClock: unsupported('moving the clock'),
  };
}

/**
 * The driver that pays through an NWC wallet (`pay_invoice`): completion is a real payment, and
 * the wallet's preimage comes back with it. Failing and expiring still go through the target's
 * control API when it has one (`controls`), and are skipped otherwise.
 */
export function nwcPayerDriver(pay: (invoice: string) => Promise<{ preimage: string }>, describe: string, controls: LifecycleDriver | undefined): LifecycleDriver {
  const unsupported = (what: string) => () => Promise.reject(new CheckSkipped(`${what} needs the target's control API; an NWC wallet can only pay`));
  return {
    kind: 'nwc-payer',
    controls: controls !== undefined,
    settleMs: PAYMENT_SETTLE_MS,
    get clockAdvancedSeconds() {
      return controls?.clockAdvancedSeconds ?? 0;
    },
    complete: (request) =>
      pay(request.invoice).then(
        ({ preimage }) => ({ walletPreimage: preimage }),
        (error: unknown) => {
          throw new CheckFailure(`paying the invoice through ${describe} failed: ${(error as Error).message}`);
        },
      ),
    fail: controls?.fail ?? unsupported('failing a payment'),
    advanceClock: controls?.advanceClock ?? unsupported('moving the clock'),
    readClock: controls?.readClock ?? unsupported('reading the clock'),
    holdingClock: controls?.holdingClock ?? unsupported('moving the clock'),
  };
}
