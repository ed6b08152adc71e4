/** Checks an accounts file (`--config`, or the `accounts` option) against its schema. */
import { Ajv, type ValidateFunction } from 'ajv';
import { accountsConfigSchema } from '../../schemas/accounts-config.js';
import type { AccountsConfig } from './accounts.js';

let validate: ValidateFunction<AccountsConfig> | undefined;

/** The config, typed; throws an Error listing every problem, naming `source` (e.g. the file). */
export function parseAccountsConfig(value: unknown, source = 'accounts config'): AccountsConfig {
  validate ??= new Ajv({ allErrors: true, strict: false }).compile<AccountsConfig>(accountsConfigSchema);
  if (validate(value)) return value;
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '(top level)'} ${e.message ?? 'is invalid'}`);
  throw new Error(`${source} is not a valid accounts file:\n  - ${problems.join('\n  - ')}`);
}
