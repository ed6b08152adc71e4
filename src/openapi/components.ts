/**
 * `components.schemas`: the schemas of `src/schemas` (the very objects ajv validates with),
 * copied without `$id`s, with shared sub-schemas turned into `$ref`s and with descriptions that
 * say what the spec leaves open and what this sandbox does. Browser-safe.
 */
import { ID_LENGTH } from '../core/ids.js';
import { feeFor } from '../core/payments/fees.js';
import { DETAIL_CODE_CATALOGUE } from '../core/errors/detail-codes.js';
import { LATEST_CLOCK_MS } from '../core/routes/control-routes.js';
import type { SandboxSettings } from '../core/settings.js';
import { accountSchema, createAccountBodySchema, createdAccountSchema, MAX_ACCOUNT_NAME_LENGTH, resetBodySchema } from '../schemas/accounts.js';
import { advanceClockBodySchema, MAX_ADVANCE_SECONDS, payBodySchema, putRulesBodySchema } from '../schemas/control.js';
import { createPaymentRequestBodySchema, MAX_DESCRIPTION_LENGTH } from '../schemas/create-payment-request.js';
import { errorBodySchema } from '../schemas/error.js';
import { paymentRequestSchema, paymentRequestStatusSchema } from '../schemas/payment-request.js';
import { ruleSchema, rulesSchema } from '../schemas/rules.js';
import { faultsViewSchema, journalEntrySchema, journalListSchema, putFaultsBodySchema } from '../schemas/faults.js';
import {
  createWalletBodySchema,
  topUpBodySchema,
  walletConnectionSchema,
  walletFaultsSchema,
  walletListSchema,
  walletSchema,
  walletTransactionListSchema,
  walletTransactionSchema,
} from '../schemas/wallets.js';
import {
  createEndpointBodySchema,
  endpointFaultsSchema,
  MAX_DELAY_SECONDS,
  webhookDeliverySchema,
  webhookEndpointSchema,
  webhookEventSchema,
} from '../schemas/webhooks.js';
import {
  accountListSchema,
  clockSchema,
  healthSchema,
  openApiDocumentSchema,
  paymentRequestListSchema,
  payPageSchema,
  payResultSchema,
  rulesViewSchema,
  webhookDeliveryListSchema,
  webhookEndpointListSchema,
  webhookEventListSchema,
} from '../schemas/answers.js';
import { ERROR_CODES } from './error-responses.js';
import { completedExample, createBodyExample, deliveryExample, endpointExample, completedEventExample } from './examples.js';
import { ATTEMPT_TIMEOUT_SECONDS, FEES, formatNumber, MAX_ATTEMPTS, MAX_CREATED_ACCOUNTS_TEXT, RETRY_DELAYS_TEXT } from './facts.js';
import { annotate, toComponentSchema, type JsonObject } from './schema-tools.js';

/** A worked example of the fee of `amount` sats: `1,100 sats → 6`. */
function feeExample(amount: number, rounding: SandboxSettings['feeRounding'], unit = ' sats'): string {
  return `${formatNumber(amount)}${unit} → ${feeFor(amount, rounding).feeAmount}`;
}

const FEE_ROUNDING_TEXT = {
  round: `to the nearest sat, halves up (${feeExample(1_100, 'round')}; ${feeExample(1_099, 'round', '')})`,
  floor: `down to a whole sat (${feeExample(1_199, 'floor')})`,
  ceil: `up to a whole sat (${feeExample(1_001, 'ceil')})`,
} as const;

const FEE_PERCENTAGE_TEXT = {
  rate: `the rate, \`${FEES.rate}\`, whatever the floor made the fee`,
  effective: `the effective percentage, fee ÷ amount × 100 to 2 decimals (100 sats → \`${feeFor(100, 'round', 'effective').feePercentage}\`)`,
} as const;

/** Component schemas by name, and the name of the component each schema of src/schemas became. */
export interface Components {
  schemas: Record<string, JsonObject>;
  /**
   * The component `schema` is: by identity, or for a schema built per settings (the create body),
   * by its `$id` and the same content. Undefined for a schema that is no component.
   */
  nameOf(schema: object): string | undefined;
}

/** Every component schema, by name, for these settings. */
export function componentSchemas(settings: SandboxSettings): Components {
  // The schemas of src/schemas that become components; a sub-schema that is one of them (by
  // identity, e.g. the payment request inside an event) becomes a `$ref`.
  const sources: Array<[string, object]> = [
    ['PaymentRequest', paymentRequestSchema],
    ['PaymentRequestStatus', paymentRequestStatusSchema],
    ['CreatePaymentRequest', createPaymentRequestBodySchema(settings)],
    ['Error', errorBodySchema],
    ['PayBody', payBodySchema],
    ['AdvanceClockBody', advanceClockBodySchema],
    ['PutRulesBody', putRulesBodySchema],
    ['Rule', ruleSchema],
    ['Rules', rulesSchema],
    ['CreateWebhookEndpoint', createEndpointBodySchema],
    ['WebhookEndpointFaults', endpointFaultsSchema],
    ['WebhookEndpoint', webhookEndpointSchema],
    ['WebhookEvent', webhookEventSchema],
    ['WebhookDelivery', webhookDeliverySchema],
    ['Health', healthSchema],
    ['Clock', clockSchema],
    ['PayResult', payResultSchema],
    ['RulesView', rulesViewSchema],
    ['PaymentRequestList', paymentRequestListSchema],
    ['PayPage', payPageSchema],
    ['WebhookEndpointList', webhookEndpointListSchema],
    ['WebhookEventList', webhookEventListSchema],
    ['WebhookDeliveryList', webhookDeliveryListSchema],
    ['ResetBody', resetBodySchema],
    ['CreateAccount', createAccountBodySchema],
    ['Account', accountSchema],
    ['CreatedAccount', createdAccountSchema],
    ['AccountList', accountListSchema],
    ['CreateTestWallet', createWalletBodySchema],
    ['TopUpBody', topUpBodySchema],
    ['TestWallet', walletSchema],
    ['TestWalletList', walletListSchema],
    ['WalletTransaction', walletTransactionSchema],
    ['WalletTransactionList', walletTransactionListSchema],
    ['WalletConnection', walletConnectionSchema],
    ['WalletFaults', walletFaultsSchema],
    ['PutFaultsBody', putFaultsBodySchema],
    ['Faults', faultsViewSchema],
    ['JournalEntry', journalEntrySchema],
    ['JournalList', journalListSchema],
    ['OpenApiDocument', openApiDocumentSchema],
  ];
  const names = new Map<object, string>(sources.map(([name, schema]) => [schema, name]));
  const schemas: Record<string, JsonObject> = Object.fromEntries(sources.map(([name, schema]) => [name, toComponentSchema(schema, names)]));

  annotate(schemas.PaymentRequest!, paymentRequestNotes(settings));
  annotate(schemas.PaymentRequestStatus!, { '': 'The answer of `GET /api/v1/payment-requests/{id}/status`: exactly one field.' });
  annotate(schemas.CreatePaymentRequest!, createBodyNotes(settings));
  annotate(schemas.Error!, {
    '': 'The body of every 4xx/5xx answer of the sandbox, from either transport. The spec leaves error bodies and codes open ("not shown"); this shape and its codes are the sandbox\'s, and stable.',
    'error.code': { description: 'A stable code; each response lists the ones it can carry.', enum: [...ERROR_CODES] },
    'error.message': 'For people: may change between versions; match on `code`.',
    'error.details': 'On validation errors only (`invalid_request`): one entry per offending field.',
    'error.details[].field': 'The field (or query parameter), as a dotted path: `amount`, `metadata`, `rules.0.outcome`.',
    'error.details[].code': `What is wrong with it, one of:\n\n${Object.entries(DETAIL_CODE_CATALOGUE)
      .map(([code, meaning]) => `- \`${code}\`: ${meaning}`)
      .join('\n')}`,
  });
  annotate(schemas.PayBody!, { '': 'A wallet pays this invoice.', invoice: 'A BOLT11 invoice this sandbox issued to the key\'s account.' });
  annotate(schemas.AdvanceClockBody!, {
    seconds: `Seconds to move the account's clock on (at most ${formatNumber(MAX_ADVANCE_SECONDS)}, ${MAX_ADVANCE_SECONDS / (365 * 86_400)} years; the clock stops at the year ${new Date(LATEST_CLOCK_MS).getUTCFullYear()}). Expiries, rule outcomes and webhook retries that fall due run.`,
  });
  annotate(schemas.PutRulesBody!, {
    '': "Replaces the account's own rules (the fixed ones, from `--scenario` or the accounts file, stay). `[]` removes them.",
    rules: {
      description:
        'Checked against `Rules`: a bad rule is a 400 naming the field (`rules.0.outcome`) with the detail code of what is wrong with it, or `invalid_rule` for what a schema cannot state (`amount.min` above `amount.max`, a bad regular expression).',
      $ref: '#/components/schemas/Rules',
    },
  });
  annotate(schemas.Rule!, {
    '': 'A behaviour rule: how matching payment requests end, without calling the controls. The first matching rule decides, at creation.',
    match: 'Every given criterion must hold; no `match` matches every request.',
    'match.amount': 'Exactly this many sats, or a range `{min, max}` (bounds included).',
    'match.description': 'A regular expression tested against the description (case-insensitive).',
    'match.metadata': 'Metadata keys and the values they must hold (compared as JSON).',
    'match.accounts': 'Restricts the rule to these account ids.',
    outcome: '`complete`, `fail`, `expire`, or `none` (stays pending until it expires).',
    after: "Seconds on the account's clock between creation and the outcome; 0 by default.",
    probability: 'The share of matching requests the rule applies to, decided per request id (so runs repeat).',
  });
  annotate(schemas.Rules!, { '': 'Behaviour rules, first match wins.' });
  annotate(schemas.CreateWebhookEndpoint!, {
    '': "Registers a webhook endpoint for the key's account.",
    url: 'An http or https URL. A server listening beyond loopback accepts only the hosts of its policy (detail code `host_not_allowed`).',
    events: 'Event types to deliver; all of them by default.',
  });
  annotate(schemas.WebhookEndpointFaults!, {
    '': "Makes the endpoint's deliveries misbehave the way real networks do, to test a receiver. Each decision is made from the event id, so runs repeat.",
    duplicate: 'Probability of a second, identical delivery (same `webhook-id`).',
    reorder: "Holds each `created` event until the same request's next event, then sends the newer one first.",
    delaySeconds: `Seconds (account clock) by which each first attempt is late; at most ${formatNumber(MAX_DELAY_SECONDS)}.`,
  });
  annotate(schemas.WebhookEndpoint!, {
    '': 'A webhook endpoint of the account.',
    secret: 'The Standard Webhooks signing secret (`whsec_` and base64): verify each delivery with it.',
    createdAt: "The account's clock at registration.",
  });
  annotate(schemas.WebhookEvent!, {
    '': 'An event: the body of every webhook delivery, and an item of `GET /sandbox/v1/events`.',
    id: 'The event id, also sent as the `webhook-id` header: the same on every retry and duplicate, so receivers deduplicate on it.',
    timestamp: "The account's clock when the change happened.",
    data: 'The payment request exactly as `GET /api/v1/payment-requests/{id}` answered at that moment.',
  });
  annotate(schemas.WebhookDelivery!, {
    '': 'One attempt of a delivery.',
    id: 'The delivery: the same on each of its attempts (a duplicate is another delivery).',
    attempt: `1 for the first attempt, up to ${MAX_ATTEMPTS} (${MAX_ATTEMPTS - 1} retries: ${RETRY_DELAYS_TEXT.join(', ')} on the account's clock).`,
    status: `\`pending\` (due or held), \`succeeded\` (2xx within ${ATTEMPT_TIMEOUT_SECONDS} s) or \`failed\`.`,
    responseStatus: "The receiver's HTTP status; null when it did not answer or the attempt has not run.",
    error: 'Why the attempt failed without a status (timeout, connection refused...), or null.',
    scheduledAt: "When the attempt is due on the account's clock; null while held (the `reorder` fault).",
    attemptedAt: "When it ran, on the account's clock; null until then.",
    durationMs: 'How long the attempt took in real milliseconds; null until it ran.',
  });

  for (const [name, example] of [
    ['PaymentRequest', completedExample],
    ['CreatePaymentRequest', createBodyExample],
    ['WebhookEndpoint', endpointExample],
    ['WebhookEvent', completedEventExample],
    ['WebhookDelivery', deliveryExample],
  ] as const) {
    schemas[name]!.examples = [JSON.parse(JSON.stringify(example)) as JsonObject];
  }

  annotate(schemas.Health!, { '': 'The server is up.' });
  annotate(schemas.Clock!, {
    '': "The account's clock: wall time plus the account's offset, or frozen.",
    now: "The account's current instant.",
    frozen: 'Whether the clock stands still (`lnpr serve --clock frozen`, or `POST /sandbox/v1/clock/freeze`).',
  });
  annotate(schemas.PayResult!, {
    '': 'The payment request the invoice belongs to, now completed.',
    preimage: 'Proof of payment: `sha256(preimage) == paymentHash`.',
  });
  annotate(schemas.RulesView!, {
    rules: "The account's own rules (set with `PUT /sandbox/v1/rules`); they come first.",
    fixedRules: 'The rules fixed at start (`--scenario` files, the accounts file); the same for every account.',
  });
  annotate(schemas.PaymentRequestList!, { data: 'Newest first.' });
  annotate(schemas.PayPage!, {
    '': "What the hosted pay page shows of a payment request: public fields only (never `metadata`, fees or the preimage), and its account's clock, to count the time left.",
    clock: "The clock of the payment request's account.",
  });
  annotate(schemas.WebhookEventList!, { data: 'Newest first.' });
  annotate(schemas.WebhookDeliveryList!, { data: 'Newest first; every attempt is one item.' });
  annotate(schemas.ResetBody!, {
    '': "What a reset erases; the body may be left out (as `{}`). Either scope deletes the account's payment requests, events and deliveries (pending ones are cancelled) and sets its clock back to real time.",
    scope: '`activity` (default): webhook endpoints and the account\'s own rules stay. `all`: they are removed too, leaving the account as new.',
  });
  annotate(schemas.CreateAccount!, {
    '': 'A new, empty account with its own clock.',
    mode: '`custodial`, or `nwc` (non-custodial: its invoices are signed by its own connected wallet, on the relay of the accounts file\'s NWC account).',
    name: `For people (e.g. the CI job that made it); at most ${MAX_ACCOUNT_NAME_LENGTH} characters.`,
  });
  annotate(schemas.Account!, {
    '': 'An account, without its keys.',
    name: 'The name given at creation; null when none was, and for accounts of the accounts file.',
    configured: 'True for the accounts of the accounts file (`lnpr serve --config`, the default accounts): they cannot be deleted.',
    createdAt: 'When it was made (real time); null for the accounts of the accounts file.',
  });
  annotate(schemas.CreatedAccount!, {
    '': `A new account and its keys. The keys are shown here only: the sandbox keeps their SHA-256 digests. At most ${MAX_CREATED_ACCOUNTS_TEXT} accounts made this way exist at once.`,
    id: 'Shaped `acct_<identifier>`.',
    keys: 'Its API keys, `sk_test_` and 32 random base62 characters (about 190 bits).',
    'keys.secret': 'Creates and reads (`create`, `read`): the `--api-key` of a conformance run.',
    'keys.readOnly': 'Reads only (`read`): the `--read-only-key` of a conformance run.',
    createdAt: 'When it was made (real time); its clock starts there.',
  });
  annotate(schemas.AccountList!, { data: 'Newest first: accounts made through the API by creation, then those of the accounts file.' });
  annotate(schemas.OpenApiDocument!, { '': 'An OpenAPI 3.1 document: this one.' });
  return { schemas, nameOf: (schema) => names.get(schema) ?? sameById(sources, schema) };
}

/** The source with the `$id` and the content of `schema`, if any. */
function sameById(sources: ReadonlyArray<[string, object]>, schema: object): string | undefined {
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id !== 'string') return undefined;
  const text = JSON.stringify(schema);
  return sources.find(([, source]) => (source as { $id?: unknown }).$id === id && JSON.stringify(source) === text)?.[0];
}

function paymentRequestNotes(settings: SandboxSettings): Record<string, string> {
  return {
    '': 'A payment request, as every v1 answer shows it. The schema holds what the spec states (any conforming implementation passes it); extra fields are allowed.',
    id: `Shaped \`pr_<identifier>\`; here ${ID_LENGTH} base62 characters follow the prefix.`,
    status: '`pending` (the initial state), then `completed`, `expired` or `failed`, all final. Transitions are "not shown" in the spec; this sandbox allows pending → completed / failed / expired only.',
    amount: 'Amount in satoshis.',
    description: `At most ${MAX_DESCRIPTION_LENGTH} characters.`,
    invoice:
      'The Lightning invoice (BOLT11). The spec says "if applicable"; this sandbox always sets it: a real, signed invoice for `amount` sats with `paymentHash`, expiring at `expiresAt`.',
    paymentHash: 'Hex SHA-256 of the preimage, for tracking.',
    expiresAt: 'ISO 8601 UTC with milliseconds: `createdAt` + `expiresIn`. A pending request past it reads as `expired`.',
    isNwc: '`true`: non-custodial, through the connected wallet (Nostr Wallet Connect); `false`: custodial. Chosen from the account, never by the caller.',
    nwcRelay: 'The relay used for non-custodial payments; present only when `isNwc` is `true`.',
    preimage: 'Proof of payment, present only once `completed`.',
    feeAmount: `Fee in sats: under ${FEES.threshold} sats the higher of ${FEES.minimum} and ${FEES.rate} %, from ${FEES.threshold} sats ${FEES.rate} %. The spec leaves rounding open ("not shown"); this sandbox rounds ${FEE_ROUNDING_TEXT[settings.feeRounding]} (setting \`feeRounding\`).`,
    feePercentage: `The fee percentage: ${FEES.rate} from ${FEES.threshold} sats. Under ${FEES.threshold} sats the spec leaves the value open ("not shown"); this sandbox shows ${FEE_PERCENTAGE_TEXT[settings.feePercentageBelowThreshold]} (setting \`feePercentageBelowThreshold\`).`,
    metadata: 'The key-value pairs given at creation, returned as given; absent when none were given.',
    createdAt: 'ISO 8601 UTC. This sandbox gives whole seconds, the precision of the invoice timestamp, so `createdAt`, `expiresAt` and the invoice agree exactly.',
    updatedAt: 'ISO 8601 UTC; moves on every change of the record (e.g. on completion).',
  };
}

function createBodyNotes(settings: SandboxSettings): Record<string, string> {
  return {
    '': 'The body of `POST /api/v1/payment-requests`. Unknown fields are ignored.',
    amount:
      `Amount in whole satoshis. The spec states the minimum inconsistently ("not shown" which applies: 21 sats in one statement, 1 sat in another); this sandbox accepts from ${formatNumber(settings.minAmount)} (setting \`minAmount\`, \`lnpr serve --min-amount\`), below it 400 with detail code \`amount_below_minimum\`. ` +
      `The maximum is not shown in the spec; this sandbox's is ${formatNumber(settings.maxAmount)} sats (setting \`maxAmount\`).`,
    description: `At most ${MAX_DESCRIPTION_LENGTH} characters (counted as Unicode code points: an emoji counts once).`,
    destinationWallet: 'A Lightning address, `<name>@<domain>`. Stored with the request, never shown in answers.',
    metadata:
      `Custom key-value pairs (e.g. an order or customer id), returned as given. Size limits are not shown in the spec; this sandbox takes at most ${formatNumber(settings.maxMetadataBytes)} bytes as JSON, nested at most ${settings.maxMetadataDepth} levels ` +
      '(settings `maxMetadataBytes`, `maxMetadataDepth`; detail codes `too_large`, `too_deep`). A JSON Schema cannot state these limits: the sandbox checks them beside it.',
    expiresIn:
      `Validity in seconds; ${formatNumber(settings.defaultExpiresIn)} when absent (the spec's default is 3600). Bounds are not shown in the spec; this sandbox accepts ${formatNumber(settings.minExpiresIn)} to ${formatNumber(settings.maxExpiresIn)} ` +
      '(settings `minExpiresIn`, `maxExpiresIn`, `defaultExpiresIn`).',
  };
}

