/** The accounts file (`fixtures/accounts.json`, or the user's own through `--config`). */
import { rulesSchema } from './rules.js';

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
        },
        if: { properties: { mode: { const: 'nwc' } } },
        then: { required: ['nwcRelay', 'walletNodeKey'] },
      },
    },
    /** Behaviour rules in force from the start, as in a scenario file's `rules`. */
    rules: rulesSchema,
    keys: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['key', 'account', 'permissions'],
        additionalProperties: false,
        properties: {
          key: { type: 'string', pattern: '^\\S{8,256}$' },
          account: { type: 'string' },
          permissions: { type: 'array', uniqueItems: true, items: { enum: ['create', 'read'] } },
        },
      },
    },
  },
} as const;
