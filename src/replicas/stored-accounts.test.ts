/**
 * A replica's directory and the accounts the database holds: an account deleted here stays deleted
 * whatever a read begun before the deletion says (the race that let a deleted account's keys work,
 * and the account stay listed, behind a balancer), while stored accounts made elsewhere arrive and
 * those deleted elsewhere go.
 */
import { describe, expect, it } from 'vitest';
import { AccountRegistry } from '../core/accounts/account-registry.js';
import { AccountDirectory } from '../core/accounts/accounts.js';
import { cryptoRandom } from '../core/random.js';
import { DEFAULT_ACCOUNTS } from '../sandbox.js';
import { createMemoryStore } from '../store/memory-store.js';
import { mergeStoredAccounts } from './stored-accounts.js';

const nobodyHere = () => false;

/** A registry on a directory and a memory store, whose data removals wait for `release`. */
function registryWithSlowRemoval() {
  const directory = new AccountDirectory(DEFAULT_ACCOUNTS);
  let release!: () => void;
  const removal = new Promise<void>((resolve) => (release = resolve));
  const registry = new AccountRegistry({
    directory,
    store: createMemoryStore(),
    wall: { now: () => Date.now() },
    random: cryptoRandom,
    data: { remove: () => removal },
    config: DEFAULT_ACCOUNTS,
  });
  return { directory, registry, release };
}

describe('mergeStoredAccounts', () => {
  it('a read begun before a deletion here does not bring the account back, while the deletion is written or after', async () => {
    const { directory, registry, release } = registryWithSlowRemoval();
    const made = await registry.create({ mode: 'custodial' });
    const staleRead = directory.createdAccounts();
    expect(staleRead.map((record) => record.id)).toEqual([made.id]);

    const deleting = registry.delete(made.id);
    mergeStoredAccounts(directory, staleRead, nobodyHere);
    expect(directory.accounts.has(made.id)).toBe(false);
    release();
    await deleting;
    mergeStoredAccounts(directory, staleRead, () => true);
    expect(directory.accounts.has(made.id)).toBe(false);
    expect(() => directory.identify(`Bearer ${made.keys.secret}`)).toThrow(/Invalid API key/);
    expect(registry.list(100).map((account) => account.id)).not.toContain(made.id);
  });

  it('adds accounts stored by another replica, and removes those deleted there unless served here', async () => {
    const elsewhere = registryWithSlowRemoval();
    const first = await elsewhere.registry.create({ mode: 'custodial', name: 'first' });
    const second = await elsewhere.registry.create({ mode: 'nwc', name: 'second' });
    const stored = elsewhere.directory.createdAccounts();

    const here = new AccountDirectory(DEFAULT_ACCOUNTS);
    mergeStoredAccounts(here, stored, nobodyHere);
    expect(here.identify(`Bearer ${first.keys.secret}`).account?.id).toBe(first.id);
    expect(here.identify(`Bearer ${second.keys.readOnly}`).account?.id).toBe(second.id);

    // Deleted elsewhere: gone here.
    mergeStoredAccounts(here, stored.filter((record) => record.id !== first.id), nobodyHere);
    expect(here.accounts.has(first.id)).toBe(false);
    // One served here whose write the read missed stays.
    mergeStoredAccounts(here, [], (accountId) => accountId === second.id);
    expect(here.accounts.has(second.id)).toBe(true);
  });

  it('an account made here that a read begun before its write missed is taken out, and back with the next read', async () => {
    const { directory, registry } = registryWithSlowRemoval();
    const made = await registry.create({ mode: 'custodial' });
    const stored = directory.createdAccounts();
    mergeStoredAccounts(directory, [], nobodyHere);
    expect(directory.accounts.has(made.id)).toBe(false);
    mergeStoredAccounts(directory, stored, nobodyHere);
    expect(directory.identify(`Bearer ${made.keys.secret}`).account?.id).toBe(made.id);
  });

  it('an account whose deletion the store refused is back, and reads keep it', async () => {
    const directory = new AccountDirectory(DEFAULT_ACCOUNTS);
    const registry = new AccountRegistry({
      directory,
      store: createMemoryStore(),
      wall: { now: () => Date.now() },
      random: cryptoRandom,
      data: { remove: () => Promise.reject(new Error('storage unavailable')) },
      config: DEFAULT_ACCOUNTS,
    });
    const made = await registry.create({ mode: 'custodial' });
    const stored = directory.createdAccounts();
    await expect(registry.delete(made.id)).rejects.toThrow('storage unavailable');
    mergeStoredAccounts(directory, stored, nobodyHere);
    expect(directory.identify(`Bearer ${made.keys.secret}`).account?.id).toBe(made.id);
  });
});
