/** Bodies and answers of the sandbox control API (`/sandbox/v1`, not part of the v1 spec). */
import { rulesSchema } from './rules.js';

/** The longest single clock move: ten years. Longer moves are almost always a unit mistake. */
export const MAX_ADVANCE_SECONDS = 315_360_000;

/** `POST /sandbox/v1/pay`. */
export const payBodySchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/pay.json',
  type: 'object',
  required: ['invoice'],
  properties: { invoice: { type: 'string', minLength: 1, maxLength: 8192 } },
} as const;

/** `POST /sandbox/v1/clock/advance`. */
export const advanceClockBodySchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/advance-clock.json',
  type: 'object',
  required: ['seconds'],
  properties: { seconds: { type: 'integer', minimum: 0, maximum: MAX_ADVANCE_SECONDS } },
} as const;

/** `PUT /sandbox/v1/rules`. */
export const putRulesBodySchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/put-rules.json',
  type: 'object',
  required: ['rules'],
  properties: { rules: rulesSchema },
} as const;

/** The answer of `POST /sandbox/v1/pay`. */
export interface PayResult {
  paymentRequestId: string;
  status: 'completed';
  preimage: string;
}

/** An account's clock, as the control API shows it. */
export interface ClockView {
  now: string;
  frozen: boolean;
}

/**
 * What the hosted pay page (`GET /sandbox/v1/pay-page/{id}`, no key) shows of a payment request:
 * public fields only (never metadata, fees, the preimage or the account), and the account's clock
 * so the page can count the time left. The answer of that call and of `POST …/{id}/pay`.
 */
export interface PayPageView {
  id: string;
  status: 'pending' | 'completed' | 'expired' | 'failed';
  amount: number;
  description: string;
  invoice: string;
  createdAt: string;
  expiresAt: string;
  updatedAt: string;
  /** The account's clock when this was read. */
  clock: ClockView;
}
