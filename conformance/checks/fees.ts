/**
 * Fee rules (spec: "Fee rules"): the worked table, the 999/1,000 threshold, and the two open points
 * — rounding of 0.5 % above 1,000 sats (floor, round half up or ceil, used consistently) and the
 * `feePercentage` shown below 1,000 sats (the rate 0.5 or the effective percentage).
 */
import type { Check, CheckContext } from '../check.js';
import { accepted, probeAnswer } from './probes.js';
import { assert, createPaymentRequest, sharedNwcRequest, sharedPaymentRequest, show, validBody } from './support.js';
import { AMOUNT_PROBES } from './validation.js';

const SECTION = 'Fee rules';

/** One request per amount (and key), shared by every fee check that reads it. */
async function feeOf(context: CheckContext, amount: number, key?: string): Promise<{ feeAmount: unknown; feePercentage: unknown }> {
  // The shared requests (1,000 sats) double as fee samples: fewer requests.
  if (amount === validBody().amount) return key === undefined ? sharedPaymentRequest(context) : sharedNwcRequest(context);
  return context.shared(`fee request ${amount}${key === undefined ? '' : ' (NWC key)'}`, () =>
    createPaymentRequest(context, { amount, description: `lnpr conformance fee check, ${amount} sats` }, key === undefined ? {} : { key }),
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
const ROUNDING_AMOUNTS = [1001, 1100, 1199, 2099] as const;
const ROUNDINGS = {
  floor: (amount: number) => Math.floor(amount / 200),
  round: (amount: number) => Math.floor((amount + 100) / 200),
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
    title: "The spec's fee table: 21, 100, 500 → 10 sats; 1,000 → 5; 10,000 → 50",
    section: SECTION,
    statement: 'Fee rules: "Checks that follow from the rules": 21, 100, 500 → 10; 1,000 → 5; 10,000 → 50',
    level: 'MUST',
    profile: 'core',
    run: (context) => expectFees(context, TABLE),
  },
  {
    id: 'fees.threshold-edge',
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
    title: 'feePercentage is 0.5 for 1,000 and 10,000 sats',
    section: SECTION,
    statement: 'Fee rules: "A 10,000-sat payment shows feePercentage 0.5"',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      for (const amount of [1000, 10000]) {
        const { feePercentage } = await feeOf(context, amount);
        assert(feePercentage === 0.5, `${amount} sats: expected feePercentage 0.5, got ${show(feePercentage)}`);
      }
    },
  },
  {
    id: 'fees.rounding-above-threshold',
    title: 'Above 1,000 sats the fee is 0.5 % rounded one way (floor, round or ceil) for every amount',
    section: SECTION,
    statement: 'Fee rules: 0.5 % of the amount ("Rounding of the fee … not shown": one rounding, any)',
    level: 'MUST',
    profile: 'core',
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
      context.observe('feeRounding', matching[0]!);
    },
  },
  {
    id: 'fees.percentage-below-threshold',
    title: 'Below 1,000 sats feePercentage is the rate (0.5) or the effective percentage (fee ÷ amount × 100), consistently',
    section: SECTION,
    statement: 'Fee rules: "the feePercentage value for payments under 1,000 sats: not shown" (one reasonable reading, consistently)',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const bodies = await Promise.all(BELOW_THRESHOLD.map((amount) => feeOf(context, amount)));
      const readings = BELOW_THRESHOLD.map((amount, index) => {
        const { feeAmount, feePercentage } = bodies[index]!;
        if (typeof feePercentage !== 'number') return 'neither';
        const rate = feePercentage === 0.5;
        // Effective: the fee as a percentage of the amount, to at least two decimals.
        const effective = typeof feeAmount === 'number' && Math.abs(feePercentage - (feeAmount / amount) * 100) <= 0.005 + 1e-9;
        // 0.5 is also the effective percentage nowhere below 1,000 (10 sats is over 1 % there), so no overlap.
        return rate ? 'rate' : effective ? 'effective' : 'neither';
      });
      const seen = BELOW_THRESHOLD.map((amount, index) => `${amount} sats → fee ${show(bodies[index]!.feeAmount)}, feePercentage ${show(bodies[index]!.feePercentage)}`).join('; ');
      const distinct = new Set(readings);
      assert(
        distinct.size === 1 && !distinct.has('neither'),
        `expected feePercentage below 1,000 sats to be 0.5 for every amount, or fee ÷ amount × 100 (±0.005) for every amount; got ${seen}`,
      );
      context.observe('feePercentageBelow1000', readings[0]!);
    },
  },
  {
    id: 'fees.accepted-amounts',
    title: 'Every amount the target accepts (1e3, 21, fractions, millions…) gets the fee of the rules for the amount echoed',
    section: SECTION,
    statement: 'What the service does: "A fee is charged on each payment"; Fee rules: under 1,000 sats the higher of 10 sats and 0.5 %, from 1,000 sats 0.5 %',
    level: 'MUST',
    profile: 'core',
    async run(context) {
      const answers = await Promise.all(AMOUNT_PROBES.map((probe) => probeAnswer(context, probe)));
      const wrong = AMOUNT_PROBES.flatMap((probe, index) => {
        const answer = answers[index]!;
        if (!accepted(answer) || typeof answer.body.amount !== 'number') return [];
        const { amount, feeAmount } = answer.body;
        const allowed = allowedFees(amount);
        const ok = typeof feeAmount === 'number' && allowed.some((fee) => Math.abs(feeAmount - fee) <= 1e-9 * Math.max(1, fee));
        return ok ? [] : [`${probe.label} (echoed amount ${show(amount)}): expected feeAmount ${[...new Set(allowed)].map(String).join(' or ')}, got ${show(feeAmount)}`];
      });
      assert(wrong.length === 0, wrong.join('; '));
    },
  },
  {
    id: 'fees.same-in-both-modes',
    title: 'The fee is the same in custodial and non-custodial mode',
    section: 'What the service does',
    statement: 'What the service does: "The fee amount is the same in both modes"',
    level: 'MUST',
    profile: 'core',
    needs: ['nwcKey'],
    async run(context) {
      const nwcKey = context.options.nwcKey!;
      const amounts = [100, 1000, 1100];
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
