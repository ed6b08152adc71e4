/** Checks an accounts file (`--config`, or the `accounts` option) against its schema. */
import { Ajv } from 'ajv';
import { accountsConfigSchema } from '../schemas/accounts-config.js';
import type { AccountsConfig } from './accounts.js';

const validate = new Ajv({ allErrors: true, strict: false }).compile<AccountsConfig>(accountsConfigSchema);

/** The config, typed; throws an Error listing every problem, naming `source` (e.g. the file). */
export function parseAccountsConfig(value: unknown, source = 'accounts config'): AccountsConfig {
  if (validate(value)) return value;
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '(top level)'} ${e.message ?? 'is invalid'}`);
  throw new Error(`${source} is not a valid accounts file:\n  - ${problems.join('\n  - ')}`);
}
