/** The accounts file (`fixtures/accounts.json`, or the user's own through `--config`). */
import { rulesSchema } from './rules.js';
import { EVENT_TYPES } from './webhooks.js';

/** A webhook endpoint an account has from the start. */
const configuredWebhookSchema = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', pattern: '^https?://\\S+$', maxLength: 2048 },
    secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$' },
    events: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: EVENT_TYPES } },
  },
} as const;

export const accountsConfigSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/accounts-config.json',
  type: 'object',
  required: ['accounts', 'keys'],
  additionalProperties: false,
  properties: {
    $comment: { type: 'string' },
    /** Hex private key of the service's node, which signs custodial invoices. */
    serviceNodeKey: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    accounts: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['id', 'mode'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
          mode: { enum: ['custodial', 'nwc'] },
          nwcRelay: { type: 'string', pattern: '^wss?://\\S+$' },
          walletNodeKey: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          /** A connected wallet run elsewhere (a wallet on signet, another program): its NWC connection. */
          nwcUrl: { type: 'string', pattern: '^nostr\\+walletconnect://[0-9a-f]{64}\\?\\S+$', maxLength: 2048 },
          /** Webhook endpoints registered at start (kept, not duplicated, across restarts with --data). */
          webhooks: { type: 'array', items: configuredWebhookSchema },
        },
        if: { properties: { mode: { const: 'nwc' } } },
        // The sandbox runs its connected wallet (with this node key), unless nwcUrl names one.
        then: { anyOf: [{ required: ['walletNodeKey'] }, { required: ['nwcUrl'] }] },
      },
    },
    /** Behaviour rules in force from the start, as in a scenario file's `rules`. */
    rules: rulesSchema,
    keys: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['key', 'permissions'],
        additionalProperties: false,
        properties: {
          key: { type: 'string', pattern: '^\\S{8,256}$' },
          /** Absent for a key that only manages accounts (the `accounts` permission). */
          account: { type: 'string' },
          permissions: { type: 'array', uniqueItems: true, items: { enum: ['create', 'read', 'accounts'] } },
        },
        // A key that may create or read acts on an account, so it must name one.
        if: { properties: { permissions: { contains: { enum: ['create', 'read'] } } }, required: ['permissions'] },
        then: { required: ['account'] },
      },
    },
  },
} as const;
