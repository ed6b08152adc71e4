/**
 * Fee rules (spec: "Fee rules"): the worked table, the 999/1,000 threshold, and the two open points
 * — rounding of 0.5 % above 1,000 sats (floor, round half up or ceil, used consistently) and the
 * `feePercentage` shown below 1,000 sats (the rate 0.5 or the effective percentage). The samples
 * fix the reading; every payment request the run received, of either key, is then held to it.
 */
import type { Check, CheckContext } from '../check.js';
import { probeAnswer } from './probes.js';
import { assertEvery, receivedPaymentRequests, type Received } from './received.js';
import { assert, createPaymentRequest, SHARED_EXPIRES_IN, sharedNwcRequest, sharedPaymentRequest, show, validBody } from './support.js';
import { AMOUNT_PROBES } from './validation.js';

const SECTION = 'Fee rules';

/** One request per amount (and key), shared by every fee check that reads it. */
async function feeOf(context: CheckContext, amount: number, key?: string): Promise<{ feeAmount: unknown; feePercentage: unknown }> {
  // The shared requests (1,000 sats) double as fee samples: fewer requests.
  if (amount === validBody().amount) return key === undefined ? sharedPaymentRequest(context) : sharedNwcRequest(context);
  // The NWC key's samples give expiresIn, so the rules of every 201 and invoice about it see that side too.
  return context.shared(`fee request ${amount}${key === undefined ? '' : ' (NWC key)'}`, () =>
    key === undefined
      ? createPaymentRequest(context, { amount, description: `lnpr conformance fee check, ${amount} sats` })
      : createPaymentRequest(context, { amount, description: `lnpr conformance fee check, ${amount} sats, NWC account`, expiresIn: SHARED_EXPIRES_IN }, { key }),
  );
}

/** The spec's worked table. */
const TABLE: ReadonlyArray<[number, number]> = [
  [21, 10],
  [100, 10],
  [500, 10],
  [1000, 5],
  [10000, 50],
];

/** Amounts above the threshold where 0.5 % is not whole, and what each rounding gives. */
const ROUNDING_AMOUNTS = [1001, 1100, 1199, 2099, 2500] as const;
/** The roundings CONTRACT.md's open points allow from 1,000 sats: down, half up, half to even, up (2,500 sats tells the halves apart: 13 or 12). */
const ROUNDINGS = {
  floor: (amount: number) => Math.floor(amount / 200),
  round: (amount: number) => Math.floor((amount + 100) / 200),
  'half-even': (amount: number) => {
    const whole = Math.floor(amount / 200);
    const rest = amount % 200;
    return rest > 100 || (rest === 100 && whole % 2 === 1) ? whole + 1 : whole;
  },
  ceil: (amount: number) => Math.ceil(amount / 200),
} as const;

/** Amounts below the threshold, where the 10-sat minimum applies. */
const BELOW_THRESHOLD = [21, 100, 500, 999] as const;

/** The fees the rules allow for `amount` under each rounding (floor, round, ceil, none). */
function allowedFees(amount: number): number[] {
  const percent = amount / 200;
  const readings = [Math.floor(percent), Math.round(percent), Math.ceil(percent), percent];
  return amount < 1000 ? readings.map((fee) => Math.max(10, fee)) : readings;
}

/** Every payment request the run received whose amount is a whole number of sats in `range`. */
function receivedWithAmount(context: CheckContext, range: (amount: number) => boolean): Received[] {
  return receivedPaymentRequests(context).filter(({ body }) => typeof body.amount === 'number' && Number.isSafeInteger(body.amount) && body.amount > 0 && range(body.amount));
}

/** The reading of feePercentage below 1,000 sats one request shows: the rate, the effective percentage, or neither. */
function percentageReading(amount: number, feeAmount: unknown, feePercentage: unknown): 'rate' | 'effective' | 'neither' {
  if (typeof feePercentage !== 'number') return 'neither';
  if (feePercentage === 0.5) return 'rate';
  // Effective: the fee as a percentage of the amount, to at least two decimals.
  const effective = typeof feeAmount === 'number' && Math.abs(feePercentage - (feeAmount / amount) * 100) <= 0.005 + 1e-9;
  // 0.5 is also the effective percentage nowhere below 1,000 (10 sats is over 1 % there), so no overlap.
  return effective ? 'effective' : 'neither';
}

/** Whether `fee` is the fee of the rules for `amount` under some rounding. */
function isAllowedFee(amount: number, fee: number): boolean {
  return allowedFees(amount).some((allowed) => Math.abs(fee - allowed) <= 1e-9 * Math.max(1, allowed));
}

async function expectFees(context: CheckContext, rows: ReadonlyArray<[number, number]>): Promise<void> {
  const bodies = await Promise.all(rows.map(([amount]) => feeOf(context, amount)));
  const wrong = rows.flatMap(([amount, fee], index) => {
    const actual = bodies[index]!.feeAmount;
    return actual === fee ? [] : [`${amount} sats: expected feeAmount ${fee}, got ${show(actual)}`];
  });
  assert(wrong.length === 0, wrong.join('; '));
}

/** The fee checks. */
export const feeChecks: Check[] = [
  {
    id: 'fees.table',
    holds: ['spec.fees.examples', 'spec.fees.below-threshold', 'spec.fees.from-threshold'],
    title: "The spec's fee table: 21, 100, 500 → 10 sats; 1,000 → 5; 10,000 → 50",
    section: SECTION,
    statement: 'Fee rules: "Checks that follow from the rules": 21, 100, 500 → 10; 1,000 → 5; 10,000 → 50',
    level: 'MUST',
    profile: 'core',
    run: (context) => expectFees(context, TABLE),
  },
  {
    id: 'fees.threshold-edge',
    holds: ['spec.fees.below-threshold', 'spec.fees.from-threshold'],
    title: 'The 1,000-sat threshold: 999 sats → 10 (the minimum), 1,000 sats → 5 (0.5 %)',
    section: SECTION,
    statement: 'Fee rules: "less than 1,000 sats: the higher of 10 sats and 0.5 %"; "1,000 sats or more: 0.5 % of the amount"',
    level: 'MUST',
    profile: 'core',
    run: (context) =>
      expectFees(context, [
        [999, 10],
        [1000, 5],
      ]),
  },
  {
    id: 'fees.percentage-from-threshold',
    holds: ['spec.fees.percentage-10000'],
    title: 'feePercentage is 0.5 for 1,000 and 10,000 sats, and for every request of 1,000 sats or more the run received',
    section: SECTION,
    statement: 'Fee rules: "A 10,000-sat payment shows feePercentage 0.5"; "1,000 sats or more: 0.5 % of the amount"',
    level: 'MUST',
    profile: 'core',
    last: true,
    async run(context) {
      for (const amount of [1000, 10000]) {
        const { feePercentage } = await feeOf(context, amount);
        assert(feePercentage === 0.5, `${amount} sats: expected feePercentage 0.5, got ${show(feePercentage)}`);
      }
      // A feePercentage that is not a number is create.fee-fields' business.
      const shown = receivedWithAmount(context, (amount) => amount >= 1000).filter(({ body }) => typeof body.feePercentage === 'number');
      assertEvery(shown, 'payment requests of 1,000 sats or more', ({ body }) =>
        body.feePercentage === 0.5 ? undefined : `${body.amount} sats: expected feePercentage 0.5, got ${show(body.feePercentage)}`,
      );
    },
  },
  {
    id: 'fees.rounding-above-threshold',
    holds: ['spec.fees.from-threshold'],
    title: 'Above 1,000 sats the fee is 0.5 % rounded one way (floor, half up, half to even or ceil), the same for every request the run received',
    section: SECTION,
    statement: 'Fee rules: 0.5 % of the amount ("Rounding of the fee … not shown": one rounding, any)',
    level: 'MUST',
    profile: 'core',
    last: true,
    async run(context) {
      const fees = await Promise.all(ROUNDING_AMOUNTS.map(async (amount) => (await feeOf(context, amount)).feeAmount));
      const seen = ROUNDING_AMOUNTS.map((amount, index) => `${amount} → ${show(fees[index])}`).join(', ');
      const matching = (Object.keys(ROUNDINGS) as Array<keyof typeof ROUNDINGS>).filter((name) =>
        ROUNDING_AMOUNTS.every((amount, index) => fees[index] === ROUNDINGS[name](amount)),
      );
      const expected = (Object.keys(ROUNDINGS) as Array<keyof typeof ROUNDINGS>)
        .map((name) => `${name}: ${ROUNDING_AMOUNTS.map((amount) => ROUNDINGS[name](amount)).join('/')}`)
        .join('; ');
      assert(matching.length > 0, `expected 0.5 % rounded one way for all of ${ROUNDING_AMOUNTS.join(', ')} sats (${expected}); got ${seen}`);
      const rounding = matching[0]!;
      context.observe('feeRounding', rounding);
      // Where 0.5 % is whole every rounding agrees; elsewhere the one the samples show. A fee no rounding gives is fees.accepted-amounts' business.
      const rounded = receivedWithAmount(context, (amount) => amount >= 1000 && amount % 200 !== 0).filter(({ body }) => typeof body.feeAmount === 'number' && isAllowedFee(body.amount, body.feeAmount));
      assertEvery(rounded, 'payment requests of 1,000 sats or more', ({ body }) =>
        body.feeAmount === ROUNDINGS[rounding](body.amount)
          ? undefined
          : `${body.amount} sats: expected feeAmount ${ROUNDINGS[rounding](body.amount)} (0.5 % rounded by ${rounding}, as for ${ROUNDING_AMOUNTS.join(', ')} sats), got ${show(body.feeAmount)}`,
      );
    },
  },
  {
    id: 'fees.percentage-below-threshold',
    holds: ['spec.resource.fee-percentage'],
    title: 'Below 1,000 sats feePercentage is the rate (0.5) or the effective percentage (fee ÷ amount × 100), the same reading for every request the run received',
    section: SECTION,
    statement: 'Fee rules: "the feePercentage value for payments under 1,000 sats: not shown" (one reasonable reading, consistently)',
    level: 'MUST',
    profile: 'core',
    last: true,
    async run(context) {
      const bodies = await Promise.all(BELOW_THRESHOLD.map((amount) => feeOf(context, amount)));
      const readings = BELOW_THRESHOLD.map((amount, index) => percentageReading(amount, bodies[index]!.feeAmount, bodies[index]!.feePercentage));
      const seen = BELOW_THRESHOLD.map((amount, index) => `${amount} sats → fee ${show(bodies[index]!.feeAmount)}, feePercentage ${show(bodies[index]!.feePercentage)}`).join('; ');
      const distinct = new Set(readings);
      assert(
        distinct.size === 1 && !distinct.has('neither'),
        `expected feePercentage below 1,000 sats to be 0.5 for every amount, or fee ÷ amount × 100 (±0.005) for every amount; got ${seen}`,
      );
      const reading = readings[0]!;
      context.observe('feePercentageBelow1000', reading);
      const shown = receivedWithAmount(context, (amount) => amount < 1000).filter(({ body }) => typeof body.feePercentage === 'number' && typeof body.feeAmount === 'number');
      assertEvery(shown, 'payment requests under 1,000 sats', ({ body }) => {
        const shown = percentageReading(body.amount, body.feeAmount, body.feePercentage);
        return shown === reading ? undefined : `${body.amount} sats, fee ${show(body.feeAmount)}: expected feePercentage by the reading of ${BELOW_THRESHOLD.join(', ')} sats (${reading}), got ${show(body.feePercentage)} (${shown})`;
      });
    },
  },
  {
    id: 'fees.accepted-amounts',
    holds: ['spec.service.fee-charged', 'spec.fees.below-threshold', 'spec.fees.from-threshold'],
    title: 'Every payment request the run received (amounts of 1e3, 21, fractions, millions…; every key) has the fee of the rules for its amount',
    section: SECTION,
    statement: 'What the service does: "A fee is charged on each payment"; Fee rules: under 1,000 sats the higher of 10 sats and 0.5 %, from 1,000 sats 0.5 %',
    level: 'MUST',
    profile: 'core',
    last: true,
    async run(context) {
      // The amount probes (shared with create.amount-values) are among the requests reviewed.
      await Promise.all(AMOUNT_PROBES.map((probe) => probeAnswer(context, probe)));
      // A feeAmount that is not a number is create.fee-fields' business.
      const priced = receivedPaymentRequests(context).filter(({ body }) => typeof body.amount === 'number' && typeof body.feeAmount === 'number');
      assertEvery(priced, 'payment requests', ({ body: { amount, feeAmount } }) =>
        isAllowedFee(amount, feeAmount) ? undefined : `amount ${show(amount)}: expected feeAmount ${[...new Set(allowedFees(amount))].map(String).join(' or ')}, got ${show(feeAmount)}`,
      );
    },
  },
  {
    id: 'fees.same-in-both-modes',
    holds: ['spec.service.fee-same-both-modes'],
    title: 'The fee is the same in custodial and non-custodial mode',
    section: 'What the service does',
    statement: 'What the service does: "The fee amount is the same in both modes"',
    level: 'MUST',
    profile: 'core',
    needs: ['nwcKey'],
    async run(context) {
      const nwcKey = context.options.nwcKey!;
      // Both sides of the 1,000-sat threshold, and a rounded amount.
      const amounts = [100, 999, 1000, 1100];
      const wrong: string[] = [];
      for (const amount of amounts) {
        const [main, nwc] = await Promise.all([feeOf(context, amount), feeOf(context, amount, nwcKey)]);
        if (main.feeAmount !== nwc.feeAmount || main.feePercentage !== nwc.feePercentage) {
          wrong.push(
            `${amount} sats: main key feeAmount ${show(main.feeAmount)}, feePercentage ${show(main.feePercentage)}; NWC key feeAmount ${show(nwc.feeAmount)}, feePercentage ${show(nwc.feePercentage)}`,
          );
        }
      }
      assert(wrong.length === 0, `expected the same fee with both keys; ${wrong.join('; ')}`);
    },
  },
];
