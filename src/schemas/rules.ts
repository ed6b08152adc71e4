/**
 * Behaviour rules: scripted outcomes without calling controls. A rule matches payment requests as
 * they are created and decides how each ends (complete, fail, expire, or stay pending) after a
 * delay on the account's clock.
 */

/** A match on the amount: exactly this many sats, or a range (bounds included). */
const amountMatchSchema = {
  oneOf: [
    { type: 'integer', minimum: 1 },
    {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: { min: { type: 'integer', minimum: 1 }, max: { type: 'integer', minimum: 1 } },
    },
  ],
} as const;

/** One behaviour rule. */
export const ruleSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/rule.json',
  type: 'object',
  required: ['outcome'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 200 },
    /** Every given criterion must hold; no `match` matches every request. */
    match: {
      type: 'object',
      additionalProperties: false,
      properties: {
        amount: amountMatchSchema,
        /** A regular expression tested against the description (case-insensitive). */
        description: { type: 'string', maxLength: 500 },
        /** Metadata keys and the values they must hold (compared as JSON). */
        metadata: { type: 'object', additionalProperties: true },
        /** Restricts the rule to these accounts. */
        accounts: { type: 'array', items: { type: 'string' } },
      },
    },
    outcome: { enum: ['complete', 'fail', 'expire', 'none'] },
    /** Seconds on the account's clock between creation and the outcome; 0 by default. */
    after: { type: 'integer', minimum: 0, maximum: 31_536_000 },
    /** The share of matching requests the rule applies to, decided per request id (repeatable). */
    probability: { type: 'number', minimum: 0, maximum: 1 },
  },
} as const;

/** A list of rules, first match wins. */
export const rulesSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/rules.json',
  type: 'array',
  maxItems: 1000,
  items: ruleSchema,
} as const;

/** A behaviour rule. */
export interface Rule {
  name?: string;
  match?: {
    amount?: number | { min?: number; max?: number };
    description?: string;
    metadata?: Record<string, unknown>;
    accounts?: string[];
  };
  outcome: 'complete' | 'fail' | 'expire' | 'none';
  after?: number;
  probability?: number;
}
