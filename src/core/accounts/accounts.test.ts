import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ACCOUNTS } from '../../sandbox.js';
import type { AccountRecord } from '../store/account-record.js';
import { parseAccountsConfig } from './accounts-config.js';
import { AccountDirectory, type AccountsConfig } from './accounts.js';

const digest = (key: string) => bytesToHex(sha256(utf8ToBytes(key)));

function record(id: string, secret: string, mode: 'custodial' | 'nwc' = 'custodial'): AccountRecord {
  return {
    id,
    name: null,
    mode,
    ...(mode === 'nwc' ? { nwcRelay: 'wss://relay.test', walletNodeKey: '11'.repeat(32) } : {}),
    keys: [
      { sha256: digest(secret), permissions: ['create', 'read'] },
      { sha256: digest(`${secret}_read`), permissions: ['read'] },
    ],
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

const errorOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('it did not throw');
};

describe('AccountDirectory', () => {
  it('knows a key without an account (the accounts permission only), which acts on no account', () => {
    const directory = new AccountDirectory(DEFAULT_ACCOUNTS);
    const admin = directory.identify('Bearer sk_test_admin');
    expect(admin.account).toBeUndefined();
    expect([...admin.permissions]).toEqual(['accounts']);
    const refused = errorOf(() => directory.authenticate('Bearer sk_test_admin'));
    expect(refused.code).toBe('insufficient_permission');
    expect(refused.message).toMatch(/no account of its own/);
    expect(directory.authenticate('Bearer sk_test_custodial').account.id).toBe('acct_custodial');
  });

  it('adds accounts by key digests and removes them: their keys work at once and stop at once, remembered or not', () => {
    const directory = new AccountDirectory(DEFAULT_ACCOUNTS, [record('acct_kept', 'sk_test_kept')]);
    expect(directory.authenticate('Bearer sk_test_kept').account.id).toBe('acct_kept');
    directory.add(record('acct_new', 'sk_test_new', 'nwc'));
    const caller = directory.authenticate('Bearer sk_test_new');
    expect(caller.account).toMatchObject({ id: 'acct_new', isNwc: true, nwcRelay: 'wss://relay.test' });
    expect([...directory.authenticate('Bearer sk_test_new_read').permissions]).toEqual(['read']);
    expect(directory.createdCount).toBe(2);
    expect(directory.createdAccounts().map((a) => a.id)).toEqual(['acct_kept', 'acct_new']);

    expect(directory.remove('acct_new')).toBe(true);
    // Both the remembered key (used above) and the one never used are refused.
    for (const key of ['sk_test_new', 'sk_test_new_read']) expect(errorOf(() => directory.identify(`Bearer ${key}`)).code).toBe('unauthorized');
    expect(directory.accounts.has('acct_new')).toBe(false);
    expect(directory.remove('acct_new')).toBe(false);
    expect(directory.remove('acct_custodial')).toBe(false);
    expect(directory.isConfigured('acct_custodial')).toBe(true);
    expect(directory.authenticate('Bearer sk_test_kept').account.id).toBe('acct_kept');
  });

  it('compares a guess with every key, whether or not one matched (the constant-time path), however many there are', () => {
    const directory = new AccountDirectory(DEFAULT_ACCOUNTS);
    for (let i = 0; i < 1_000; i++) directory.add(record(`acct_${i}`, `sk_test_many_${i}`));
    expect(directory.authenticate('Bearer sk_test_many_0').account.id).toBe('acct_0');
    expect(directory.authenticate('Bearer sk_test_many_999').account.id).toBe('acct_999');
    expect(errorOf(() => directory.identify('Bearer sk_test_many_1000')).code).toBe('unauthorized');
    // A configured account wins over a kept one with the same id.
    expect(new AccountDirectory(DEFAULT_ACCOUNTS, [record('acct_custodial', 'sk_test_impostor')]).accounts.get('acct_custodial')?.isNwc).toBe(false);
  });

  it('refuses a key without an account that may create or read, in the file and in the directory', () => {
    const config: AccountsConfig = { ...DEFAULT_ACCOUNTS, keys: [...DEFAULT_ACCOUNTS.keys, { key: 'sk_test_orphan', permissions: ['read'] }] };
    expect(() => new AccountDirectory(config)).toThrow(/key #5 has no account, so it may only have the accounts permission/);
    expect(() => parseAccountsConfig(JSON.parse(JSON.stringify(config)))).toThrow(/\/keys\/4 must have required property 'account'/);
    expect(parseAccountsConfig(JSON.parse(JSON.stringify(DEFAULT_ACCOUNTS))).keys.at(-1)).toEqual({ key: 'sk_test_admin', permissions: ['accounts'] });
  });
});
