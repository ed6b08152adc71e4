/**
 * The sandbox control API (`/sandbox/v1`): what makes this a sandbox rather than a mock. Any valid
 * key of an account may drive that account's requests and clock (controls play the payer's and
 * the world's part, not the merchant's); nothing reaches another account.
 */
import { clockSchema, payResultSchema, paymentRequestListSchema, rulesViewSchema } from '../../schemas/answers.js';
import { resetBodySchema, type ResetBody } from '../../schemas/accounts.js';
import { advanceClockBodySchema, payBodySchema, type ClockView, type PayResult } from '../../schemas/control.js';
import { paymentRequestSchema } from '../../schemas/payment-request.js';
import type { Rule } from '../../schemas/rules.js';
import type { Caller } from '../accounts/accounts.js';
import { ApiError } from '../errors/errors.js';
import type { RouteReply } from '../pipeline/handler.js';
import { declareBody, declareQuery } from '../pipeline/route.js';
import type { Transition } from '../store/payment-request.js';
import { toPaymentRequestView } from '../payments/payment-request-view.js';
import { putRulesBody, type RuleBook } from '../payments/rules.js';
import type { AccountClocks } from '../ports.js';
import { DEFAULT_LIST_LIMIT, LIST_LIMIT } from '../../schemas/list-limit.js';
import { route, type EngineRoute } from './route-deps.js';

/**
 * Where clocks must stop: a BOLT11 timestamp has 35 bits, so invoices cannot be dated after
 * 3058; stopping at 3000 leaves room for the longest `expiresIn`.
 */
export const LATEST_CLOCK_MS = Date.UTC(3000, 0, 1);

const TRANSITIONS: ReadonlyArray<[Transition, string]> = [
  ['complete', 'completePaymentRequest'],
  ['fail', 'failPaymentRequest'],
  ['expire', 'expirePaymentRequest'],
];

/** The control routes. */
export function controlRoutes(): EngineRoute[] {
  return [
    // v1 has no list endpoint; the dashboard (and any test) needs one.
    route({
      name: 'listPaymentRequests',
      method: 'GET',
      path: '/sandbox/v1/payment-requests',
      access: 'read',
      query: declareQuery<{ limit?: number }>({ limit: LIST_LIMIT }),
      answer: { status: 200, schema: paymentRequestListSchema },
      handle: ({ caller, query }, { paymentRequests }) => ({
        status: 200,
        body: { data: paymentRequests.list(caller, query.limit ?? DEFAULT_LIST_LIMIT).map(toPaymentRequestView) },
      }),
    }),
    ...TRANSITIONS.map(([transition, name]) =>
      route({
        name,
        method: 'POST',
        path: `/sandbox/v1/payment-requests/:id/${transition}`,
        access: 'create',
        answer: { status: 200, schema: paymentRequestSchema },
        errors: ['payment_request_not_found', 'invalid_transition'],
        handle: async ({ caller, params }, { paymentRequests, ledger }) => ({
          status: 200,
          body: toPaymentRequestView(
            // Completing is the world paying: the one settlement path (an NWC request's wallet sees its invoice settled).
            transition === 'complete'
              ? await ledger.payForTheWorld(paymentRequests.payableOwned(caller, params.id!))
              : await paymentRequests.transition(caller, params.id!, transition),
          ),
        }),
      }),
    ),
    route({
      name: 'payInvoice',
      method: 'POST',
      path: '/sandbox/v1/pay',
      access: 'create',
      body: declareBody<{ invoice: string }>({ schema: payBodySchema, what: 'payment' }),
      answer: { status: 200, schema: payResultSchema },
      errors: ['invoice_not_found', 'invalid_transition'],
      handle: async ({ caller, body }, { paymentRequests, ledger }) => {
        const record = await ledger.payForTheWorld(paymentRequests.payable(caller, body.invoice));
        const result: PayResult = { paymentRequestId: record.id, status: 'completed', preimage: record.preimage! };
        return { status: 200, body: result };
      },
    }),
    route({
      name: 'getClock',
      method: 'GET',
      path: '/sandbox/v1/clock',
      access: 'read',
      answer: { status: 200, schema: clockSchema },
      handle: ({ caller }, { clocks }) => clockOf(clocks, caller),
    }),
    route({
      name: 'advanceClock',
      method: 'POST',
      path: '/sandbox/v1/clock/advance',
      access: 'create',
      body: declareBody<{ seconds: number }>({ schema: advanceClockBodySchema, what: 'clock advance' }),
      answer: { status: 200, schema: clockSchema },
      handle: async ({ caller, body: { seconds } }, { clocks }) => {
        if (clocks.now(caller.account.id) + seconds * 1000 > LATEST_CLOCK_MS) {
          const message = 'seconds would move the clock past the year 3000 (BOLT11 invoices cannot be dated after 3058)';
          throw new ApiError('invalid_request', `Invalid clock advance: ${message}.`, [{ field: 'seconds', code: 'above_maximum', message }]);
        }
        await clocks.advance(caller.account.id, seconds);
        return clockOf(clocks, caller);
      },
    }),
    route({
      name: 'freezeClock',
      method: 'POST',
      path: '/sandbox/v1/clock/freeze',
      access: 'create',
      answer: { status: 200, schema: clockSchema },
      handle: async ({ caller }, { clocks }) => {
        await clocks.freeze(caller.account.id);
        return clockOf(clocks, caller);
      },
    }),
    route({
      name: 'unfreezeClock',
      method: 'POST',
      path: '/sandbox/v1/clock/unfreeze',
      access: 'create',
      answer: { status: 200, schema: clockSchema },
      handle: async ({ caller }, { clocks }) => {
        await clocks.unfreeze(caller.account.id);
        return clockOf(clocks, caller);
      },
    }),
    route({
      name: 'getRules',
      method: 'GET',
      path: '/sandbox/v1/rules',
      access: 'read',
      answer: { status: 200, schema: rulesViewSchema },
      handle: ({ caller }, { rules }) => ({ status: 200, body: rulesOf(rules, caller) }),
    }),
    route({
      name: 'putRules',
      method: 'PUT',
      path: '/sandbox/v1/rules',
      access: 'create',
      body: putRulesBody,
      answer: { status: 200, schema: rulesViewSchema },
      handle: ({ caller, body }, { rules }) => {
        rules.setAccountRules(caller.account.id, body.rules);
        return { status: 200, body: rulesOf(rules, caller) };
      },
    }),
    route({
      name: 'resetAccount',
      method: 'POST',
      path: '/sandbox/v1/reset',
      access: 'create',
      body: declareBody<ResetBody>({ schema: resetBodySchema, what: 'reset', optional: true }),
      answer: { status: 204 },
      handle: async ({ caller, body }, { accountData }) => {
        await accountData.reset(caller.account.id, body.scope ?? 'activity');
        return { status: 204 };
      },
    }),
  ];
}

function clockOf(clocks: AccountClocks, caller: Caller): RouteReply {
  const body: ClockView = { now: new Date(clocks.now(caller.account.id)).toISOString(), frozen: clocks.isFrozen(caller.account.id) };
  return { status: 200, body };
}

function rulesOf(rules: RuleBook, caller: Caller): { rules: Rule[]; fixedRules: Rule[] } {
  return { rules: rules.accountRules(caller.account.id), fixedRules: rules.fixedRules };
}
