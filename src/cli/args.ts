/**
 * What the subcommands share in reading their flags and files: whole numbers, choices, base URLs
 * and the accounts file, each refused with a `UsageError` (exit 2) that names the flag.
 */
import { readFile } from 'node:fs/promises';
import { AccountDirectory, type AccountsConfig } from '../core/accounts/accounts.js';
import { parseAccountsConfig } from '../core/accounts/accounts-config.js';
import { parsePrivateKey } from '../lightning/node-key.js';
import { UsageError } from './usage-error.js';

/** `text` as a whole number within [min, max]. */
export function wholeNumber(flag: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw new UsageError(`${flag} must be a whole number ${range} (got "${text}")`);
  }
  return value;
}

/** `text` if it is one of `allowed`. */
export function oneOf<T extends string>(flag: string, text: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(text)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got "${text}")`);
  return text as T;
}

/** An http(s) base URL without its trailing slashes. */
export function parseBaseUrl(value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError('--base-url URL is required (e.g. --base-url http://127.0.0.1:8787)');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--base-url: "${value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url: "${value}" is not an http(s) URL`);
  return value.replace(/\/+$/, '');
}

/** The text of a file a flag names. */
export async function readTextFile(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag} ${path}: ${(error as Error).message}`);
  }
}

/** The parsed JSON of a file a flag names. */
export async function readJsonFile(flag: string, path: string): Promise<unknown> {
  const text = await readTextFile(flag, path);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${flag} ${path}: not valid JSON: ${(error as Error).message}`);
  }
}

/** An accounts file, checked in full: the schema, and what it cannot say (duplicate ids, keys of unknown accounts, node keys off the curve). */
export async function readAccountsFile(flag: string, path: string): Promise<AccountsConfig> {
  const value = await readJsonFile(flag, path);
  try {
    const config = parseAccountsConfig(value, path);
    new AccountDirectory(config);
    if (config.serviceNodeKey !== undefined) parsePrivateKey(config.serviceNodeKey);
    for (const account of config.accounts) if (account.walletNodeKey !== undefined) parsePrivateKey(account.walletNodeKey);
    return config;
  } catch (error) {
    throw new UsageError(`${flag} ${(error as Error).message}`);
  }
}
