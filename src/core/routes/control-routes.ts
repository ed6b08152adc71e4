/**
 * The sandbox control API (`/sandbox/v1`): what makes this a sandbox rather than a mock. Any valid
 * key of an account may drive that account's requests and clock (controls play the payer's and
 * the world's part, not the merchant's); nothing reaches another account.
 */
import {
  advanceClockBodySchema,
  payBodySchema,
  putRulesBodySchema,
  type ClockView,
  type PayResult,
} from '../../schemas/control.js';
import type { Rule } from '../../schemas/rules.js';
import type { AccountDirectory, Caller } from '../accounts/accounts.js';
import { compileBodyValidator } from '../pipeline/body-validator.js';
import { ApiError } from '../pipeline/errors.js';
import type { RouteHandler, RouteReply } from '../pipeline/handler.js';
import { parseJsonBody } from '../pipeline/json-body.js';
import { QueryReader } from '../pipeline/query.js';
import type { Transition } from '../payments/payment-request.js';
import { toPaymentRequestView } from '../payments/payment-request-view.js';
import type { PaymentRequests } from '../payments/payment-requests.js';
import type { AccountClocks } from '../ports.js';
import { authenticated, type CallerHandler } from '../pipeline/route-auth.js';
import type { Route } from '../pipeline/router.js';
import type { RuleBook } from '../payments/rules.js';

/** What the control routes need. */
export interface ControlRouteDeps {
  directory: AccountDirectory;
  paymentRequests: PaymentRequests;
  clocks: AccountClocks;
  rules: RuleBook;
}

/**
 * Where clocks must stop: a BOLT11 timestamp has 35 bits, so invoices cannot be dated after
 * 3058; stopping at 3000 leaves room for the longest `expiresIn`.
 */
const LATEST_CLOCK_MS = Date.UTC(3000, 0, 1);

/** The list of an account's payment requests is whole by default; `limit` shortens it. */
const ALL = Number.MAX_SAFE_INTEGER;

const validatePayBody = compileBodyValidator<{ invoice: string }>(payBodySchema, { what: 'payment' });
const validateAdvanceBody = compileBodyValidator<{ seconds: number }>(advanceClockBodySchema, { what: 'clock advance' });
const validatePutRulesBody = compileBodyValidator<{ rules: unknown }>(putRulesBodySchema, { what: 'rules' });

/** The control routes. */
export function controlRoutes({ directory, paymentRequests, clocks, rules }: ControlRouteDeps): Array<Route<RouteHandler>> {
  const control = (method: string, pattern: string, handler: CallerHandler): Route<RouteHandler> => ({
    method,
    pattern: `/sandbox/v1${pattern}`,
    handler: authenticated(directory, undefined, handler),
  });
  const clockOf = (caller: Caller): RouteReply => {
    const body: ClockView = { now: new Date(clocks.now(caller.account.id)).toISOString(), frozen: clocks.isFrozen(caller.account.id) };
    return { status: 200, body };
  };
  const transitionRoute = (transition: Transition) =>
    control('POST', `/payment-requests/:id/${transition}`, async (caller, { params }) => ({
      status: 200,
      body: toPaymentRequestView(await paymentRequests.transition(caller, params.id!, transition)),
    }));

  return [
    // v1 has no list endpoint; the dashboard (and any test) needs one.
    control('GET', '/payment-requests', (caller, { request }) => {
      const query = new QueryReader(request.url, ['limit']);
      const limit = query.integer('limit', ALL, 1, ALL);
      query.done();
      return { status: 200, body: { data: paymentRequests.list(caller, limit).map(toPaymentRequestView) } };
    }),
    transitionRoute('complete'),
    transitionRoute('fail'),
    transitionRoute('expire'),
    control('POST', '/pay', async (caller, { request }) => {
      const { invoice } = validatePayBody(parseJsonBody(request.headers['content-type'], request.body));
      const record = await paymentRequests.pay(caller, invoice);
      const body: PayResult = { paymentRequestId: record.id, status: 'completed', preimage: record.preimage };
      return { status: 200, body };
    }),
    control('GET', '/clock', clockOf),
    control('POST', '/clock/advance', async (caller, { request }) => {
      const { seconds } = validateAdvanceBody(parseJsonBody(request.headers['content-type'], request.body));
      if (clocks.now(caller.account.id) + seconds * 1000 > LATEST_CLOCK_MS) {
        const message = 'seconds would move the clock past the year 3000 (BOLT11 invoices cannot be dated after 3058)';
        throw new ApiError('invalid_request', `Invalid clock advance: ${message}.`, [{ field: 'seconds', code: 'above_maximum', message }]);
      }
      await clocks.advance(caller.account.id, seconds);
      return clockOf(caller);
    }),
    control('POST', '/clock/freeze', async (caller) => {
      await clocks.freeze(caller.account.id);
      return clockOf(caller);
    }),
    control('POST', '/clock/unfreeze', async (caller) => {
      await clocks.unfreeze(caller.account.id);
      return clockOf(caller);
    }),
    control('GET', '/rules', (caller) => ({ status: 200, body: rulesOf(rules, caller) })),
    control('PUT', '/rules', (caller, { request }) => {
      const body = validatePutRulesBody(parseJsonBody(request.headers['content-type'], request.body));
      rules.setAccountRules(caller.account.id, body.rules as Rule[]);
      return { status: 200, body: rulesOf(rules, caller) };
    }),
    control('POST', '/reset', async (caller) => {
      // Exactly what CONTRACT.md promises: requests and clock. Rules stay until replaced (PUT []).
      await paymentRequests.deleteAll(caller);
      await clocks.reset(caller.account.id);
      return { status: 204 };
    }),
  ];
}

function rulesOf(rules: RuleBook, caller: Caller): { rules: Rule[]; fixedRules: Rule[] } {
  return { rules: rules.accountRules(caller.account.id), fixedRules: rules.fixedRules };
}
