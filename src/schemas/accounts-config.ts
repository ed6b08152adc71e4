/**
 * The accounts file (`fixtures/accounts.json`, or the user's own through `--config`). Each field's
 * `description` is the text of the site's accounts-file reference, generated from this schema.
 */
import { rulesSchema } from './rules.js';
import { EVENT_TYPES } from './webhooks.js';

/** A webhook endpoint an account has from the start. */
const configuredWebhookSchema = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', pattern: '^https?://\\S+$', maxLength: 2048, description: 'Where the events are POSTed (http or https).' },
    secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$', description: 'The signing secret (`whsec_…`); generated when absent.' },
    events: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: EVENT_TYPES }, description: 'The event types sent to it; all when absent.' },
  },
} as const;

export const accountsConfigSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/accounts-config.json',
  type: 'object',
  required: ['accounts', 'keys'],
  additionalProperties: false,
  properties: {
    $comment: { type: 'string', description: 'Free text, ignored.' },
    serviceNodeKey: { type: 'string', pattern: '^[0-9a-f]{64}$', description: "Hex private key of the service's node, which signs custodial invoices." },
    accounts: {
      type: 'array',
      minItems: 1,
      description: 'The accounts: each has its own payment requests, clock, rules, webhooks and wallets.',
      items: {
        type: 'object',
        required: ['id', 'mode'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', description: "The account's id, named by its keys' `account`." },
          mode: { enum: ['custodial', 'nwc'], description: 'How its payment requests are paid: `custodial` (invoices of the service node) or `nwc` (through its connected wallet, Nostr Wallet Connect).' },
          nwcRelay: { type: 'string', pattern: '^wss?://\\S+$', description: "The relay of the account's NWC connection as answered in `nwcRelay` (default: the sandbox's own relay)." },
          walletNodeKey: { type: 'string', pattern: '^[0-9a-f]{64}$', description: "Hex node key of the connected wallet the sandbox runs for an `nwc` account (an `nwc` account has this or `nwcUrl`)." },
          nwcUrl: {
            type: 'string',
            pattern: '^nostr\\+walletconnect://[0-9a-f]{64}\\?\\S+$',
            maxLength: 2048,
            description: 'A connected wallet run elsewhere (a wallet on signet, another program): its NWC connection (`nostr+walletconnect://…`).',
          },
          webhooks: { type: 'array', items: configuredWebhookSchema, description: 'Webhook endpoints registered at start (kept, not duplicated, across restarts with `--data`).' },
        },
        if: { properties: { mode: { const: 'nwc' } } },
        // The sandbox runs its connected wallet (with this node key), unless nwcUrl names one.
        then: { anyOf: [{ required: ['walletNodeKey'] }, { required: ['nwcUrl'] }] },
      },
    },
    rules: { ...rulesSchema, description: "Behaviour rules in force from the start, as in a scenario file's `rules`." },
    keys: {
      type: 'array',
      minItems: 1,
      description: 'The API keys the sandbox accepts.',
      items: {
        type: 'object',
        required: ['key', 'permissions'],
        additionalProperties: false,
        properties: {
          key: { type: 'string', pattern: '^\\S{8,256}$', description: 'The key, sent as `Authorization: Bearer KEY`.' },
          account: { type: 'string', description: 'The id of the account it acts on; absent for a key that only manages accounts (the `accounts` permission).' },
          permissions: {
            type: 'array',
            uniqueItems: true,
            items: { enum: ['create', 'read', 'accounts'] },
            description: '`read` (reads), `create` (creates and changes), `accounts` (the accounts API).',
          },
        },
        // A key that may create or read acts on an account, so it must name one.
        if: { properties: { permissions: { contains: { enum: ['create', 'read'] } } }, required: ['permissions'] },
        then: { required: ['account'] },
      },
    },
  },
} as const;
