/**
 * API faults, per account (`PUT /sandbox/v1/faults`): the payment API misbehaving on purpose, so a
 * merchant's code meets the 503, the timeout and the lost answer before production does. Only the
 * account's own `/api/v1` calls are touched, never the control API (a test can always turn them
 * off). The first fault whose `match` fits a call decides it: `after` skips its first n matches,
 * `times` caps how often it fires (a fault that has fired `times` times no longer matches, so
 * faults chain: "503 once, then a reset"), `probability` is decided from the seed and the account's count
 * of `/api/v1` calls since the faults were put, so the same faults on a fresh account repeat the
 * same sequence. Kept in memory; a reset of scope `all` clears them, as it does rules.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { FaultAction, FaultRule, FaultsView, PutFaultsBody } from '../../schemas/faults.js';
import { pathMatcher, type PathMatcher } from './path-pattern.js';

/** A fault as kept: its rule, its matcher, its counts. */
interface ArmedFault {
  rule: FaultRule;
  matchesPath: PathMatcher | undefined;
  matched: number;
  fired: number;
}

/** One account's faults and its call count. */
interface AccountFaults {
  faults: ArmedFault[];
  seed: number;
  calls: number;
}

/** The API faults of every account. */
export class ApiFaultBook {
  readonly #accounts = new Map<string, AccountFaults>();

  /** Replaces the account's faults; counts start again from 0. */
  set(accountId: string, body: PutFaultsBody): FaultsView {
    if (body.faults.length === 0) this.#accounts.delete(accountId);
    else {
      this.#accounts.set(accountId, {
        faults: body.faults.map((rule) => ({ rule, matchesPath: rule.match?.path === undefined ? undefined : pathMatcher(rule.match.path), matched: 0, fired: 0 })),
        seed: body.seed ?? 0,
        calls: 0,
      });
    }
    return this.view(accountId);
  }

  /** The account's faults with how often each matched and fired. */
  view(accountId: string): FaultsView {
    const account = this.#accounts.get(accountId);
    return {
      faults: (account?.faults ?? []).map(({ rule, matched, fired }) => ({ ...rule, matched, fired })),
      seed: account?.seed ?? 0,
    };
  }

  /** Forgets the account's faults. */
  clear(accountId: string): void {
    this.#accounts.delete(accountId);
  }

  /** Whether the account has faults: without any, `decide` is never needed (nor is its call counted). */
  has(accountId: string): boolean {
    return this.#accounts.has(accountId);
  }

  /** The fault of this `/api/v1` call of the account, if one fires; counts it either way. */
  decide(accountId: string, method: string, path: string): FaultAction | undefined {
    const account = this.#accounts.get(accountId);
    if (account === undefined) return undefined;
    const call = ++account.calls;
    const armed = account.faults.find(
      ({ rule, matchesPath, fired }) =>
        (rule.times === undefined || fired < rule.times) && (rule.match?.method === undefined || rule.match.method === method) && (matchesPath?.(path) ?? true),
    );
    if (armed === undefined) return undefined;
    const { rule } = armed;
    armed.matched += 1;
    if (armed.matched <= (rule.after ?? 0)) return undefined;
    if (rule.probability !== undefined && fraction(account.seed, call) >= rule.probability) return undefined;
    armed.fired += 1;
    return rule.fault;
  }
}

/** A number in [0, 1) fixed by the seed and the call's number. */
function fraction(seed: number, call: number): number {
  const digest = sha256(utf8ToBytes(`${seed}:${call}`));
  return (((digest[0]! << 24) | (digest[1]! << 16) | (digest[2]! << 8) | digest[3]!) >>> 0) / 2 ** 32;
}
