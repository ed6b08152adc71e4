/**
 * The accounts API (`/sandbox/v1/accounts`, a key with the `accounts` permission) and the reset's
 * body: one source for ajv, the OpenAPI document and the TypeScript types, like the v1 schemas.
 */
import { ISO_UTC_MILLIS_PATTERN } from './payment-request.js';

/** The modes an account can have. */
export const ACCOUNT_MODES = ['custodial', 'nwc'] as const;

/** An account's mode. */
export type AccountMode = (typeof ACCOUNT_MODES)[number];

/** The longest account name. */
export const MAX_ACCOUNT_NAME_LENGTH = 100;

/** `POST /sandbox/v1/accounts`. */
export const createAccountBodySchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/create-account.json',
  type: 'object',
  required: ['mode'],
  additionalProperties: false,
  properties: {
    mode: { enum: ACCOUNT_MODES },
    name: { type: 'string', minLength: 1, maxLength: MAX_ACCOUNT_NAME_LENGTH },
  },
} as const;

/** The body of `POST /sandbox/v1/accounts`. */
export interface CreateAccountBody {
  mode: AccountMode;
  name?: string;
}

/** An account as `GET /sandbox/v1/accounts` lists it: never its keys. */
export const accountSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/account.json',
  type: 'object',
  required: ['id', 'name', 'mode', 'configured', 'createdAt'],
  properties: {
    id: { type: 'string', pattern: '^\\S+$' },
    name: { type: ['string', 'null'] },
    mode: { enum: ACCOUNT_MODES },
    /** From the accounts file: it cannot be deleted. */
    configured: { type: 'boolean' },
    /** Null for an account of the accounts file. */
    createdAt: { type: ['string', 'null'], pattern: ISO_UTC_MILLIS_PATTERN },
  },
} as const;

/** An account. */
export interface AccountView {
  id: string;
  name: string | null;
  mode: AccountMode;
  configured: boolean;
  createdAt: string | null;
}

/** The keys of a new account, shown once: in the answer that creates it. */
export interface AccountKeys {
  /** Creates and reads. */
  secret: string;
  /** Reads only. */
  readOnly: string;
}

/** The answer of `POST /sandbox/v1/accounts`: the account and its keys. */
export const createdAccountSchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/created-account.json',
  type: 'object',
  required: ['id', 'name', 'mode', 'keys', 'createdAt'],
  properties: {
    id: { type: 'string', pattern: '^acct_\\S+$' },
    name: { type: ['string', 'null'] },
    mode: { enum: ACCOUNT_MODES },
    configured: { const: false },
    keys: {
      type: 'object',
      required: ['secret', 'readOnly'],
      properties: {
        secret: { type: 'string', pattern: '^sk_test_\\S+$' },
        readOnly: { type: 'string', pattern: '^sk_test_\\S+$' },
      },
    },
    createdAt: { type: 'string', pattern: ISO_UTC_MILLIS_PATTERN },
  },
} as const;

/** A new account with its keys. */
export interface CreatedAccount extends AccountView {
  configured: false;
  keys: AccountKeys;
  createdAt: string;
}

/** What `POST /sandbox/v1/reset` erases: `activity` (default) keeps webhook endpoints and rules, `all` removes them too. */
export const RESET_SCOPES = ['activity', 'all'] as const;

/** `POST /sandbox/v1/reset` (the body is optional: none, or `{}`, resets the default scope). */
export const resetBodySchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/sandbox/reset.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    scope: { enum: RESET_SCOPES },
  },
} as const;

/** The body of `POST /sandbox/v1/reset`. */
export interface ResetBody {
  scope?: (typeof RESET_SCOPES)[number];
}
