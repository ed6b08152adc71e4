/**
 * What the checks of the control API's own promises share: its paths, the comparison of an answer
 * with an unknown id's, ids one edit away from a real one, clock readings, and scratch accounts
 * (made with the admin key, deleted when the check ends) where a check must reset, delete or move a
 * clock without touching the accounts the rest of the run works in.
 */
import type { CheckContext } from '../check.js';
import { CheckFailure } from '../check-errors.js';
import type { ApiAnswer } from '../client.js';
import { assert, deepEqual, describeBody, isObject, show } from './support.js';

/** The control API's prefix. */
export const CONTROL = '/sandbox/v1';

/** The three transitions of the control API. */
export const TRANSITIONS = ['complete', 'fail', 'expire'] as const;
export type Transition = (typeof TRANSITIONS)[number];

/** The state each transition leads to. */
export const STATE_OF: Readonly<Record<Transition, 'completed' | 'failed' | 'expired'>> = { complete: 'completed', fail: 'failed', expire: 'expired' };

/** The path of a transition of one payment request. */
export function transitionPath(id: string, transition: Transition): string {
  return `${CONTROL}/payment-requests/${encodeURIComponent(id)}/${transition}`;
}

/** ISO 8601 with a time and a zone (`Z` or an offset), as the clock's `now` is promised. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/** A clock answer: `{"now": ISO-8601, "frozen": bool}`; fails the check with `what` otherwise. */
export function clockOf(answer: ApiAnswer, what: string): { nowMs: number; frozen: boolean } {
  assert(answer.status === 200, `${what}: expected HTTP 200 with the clock, got ${answer.status} ${describeBody(answer)}`);
  assert(isObject(answer.body), `${what}: expected a JSON object {"now", "frozen"}, got ${describeBody(answer) || 'an empty body'}`);
  const { now, frozen } = answer.body;
  assert(typeof now === 'string' && ISO_8601.test(now) && Number.isFinite(Date.parse(now)), `${what}: expected "now" an ISO 8601 timestamp, got ${show(now)}`);
  assert(typeof frozen === 'boolean', `${what}: expected "frozen" a boolean, got ${show(frozen)}`);
  return { nowMs: Date.parse(now), frozen };
}

/** Reads the clock of the account of `key` (undefined: the main key). */
export async function readClockOf(context: CheckContext, key?: string): Promise<{ nowMs: number; frozen: boolean }> {
  const answer = await context.client.get(`${CONTROL}/clock`, key === undefined ? {} : { key });
  return clockOf(answer, `GET ${CONTROL}/clock${key === undefined ? '' : ' (another account)'}`);
}

/**
 * Ids one edit away from `id`, each with how messages name it: a prefix, one more character, the
 * last character changed, the letters after `pr_` in the other case (when there are letters), the
 * part after `pr_` alone, `PR_` for `pr_`.
 */
export function nearMisses(id: string): Array<{ what: string; id: string }> {
  const last = id.at(-1) ?? '';
  const changed = last === '0' ? '1' : /[0-9]/.test(last) ? '0' : last === 'a' ? 'b' : last === 'A' ? 'B' : 'a';
  const [prefix, rest] = id.startsWith('pr_') ? ['pr_', id.slice(3)] : ['', id];
  const swapped = prefix + [...rest].map((char) => (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase())).join('');
  const misses = [
    { what: 'its id without the last character (a prefix)', id: id.slice(0, -1) },
    { what: 'its id with a character appended', id: `${id}0` },
    { what: 'its id with the last character changed', id: id.slice(0, -1) + changed },
    { what: 'its id with a space appended', id: `${id} ` },
  ];
  if (swapped !== id) misses.push({ what: 'its id with the letters after pr_ in the other case', id: swapped });
  if (prefix !== '') misses.push({ what: 'its id without the pr_ prefix', id: rest }, { what: 'its id with the prefix in upper case (PR_)', id: `PR_${rest}` });
  return misses;
}

/**
 * An answer as comparable JSON: each id in `ids`, and anything shaped like a payment request id,
 * replaced by a placeholder. The body may name the id asked for, or the id the implementation keeps
 * behind it (a proxy that shows other ids than its upstream's): which id it names is not what the
 * reading is about, what else it says is.
 */
function normalised(answer: ApiAnswer, ids: readonly string[]): unknown {
  let text = answer.text;
  for (const id of ids) text = text.split(JSON.stringify(id).slice(1, -1)).join('{id}');
  text = text.replace(/pr_[A-Za-z0-9_-]+/g, '{id}');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Fails unless `answer` (to a request about `id`) has the status and body of `unknown` (the same
 * request about `unknownId`, an id nothing has), ids aside. Where two answers about unknown ids
 * already differ (a trace id, a timestamp: `unknownAgain` about `againId`), only the status and the
 * top-level fields are compared, since the contract cannot mean a body no two answers share.
 */
export function assertAnswersAsUnknown(
  what: string,
  answer: ApiAnswer,
  id: string,
  unknown: ApiAnswer,
  unknownId: string,
  unknownAgain: ApiAnswer,
  againId: string,
): void {
  assert(answer.status === unknown.status, `${what}: expected the answer an unknown id gets (HTTP ${unknown.status} ${describeBody(unknown)}), got ${answer.status} ${describeBody(answer)}`);
  const [mine, theirs, again] = [normalised(answer, [id]), normalised(unknown, [unknownId]), normalised(unknownAgain, [againId])];
  if (deepEqual(theirs, again)) {
    assert(deepEqual(mine, theirs), `${what}: expected the body an unknown id gets (${describeBody(unknown)}, ids aside), got ${describeBody(answer)}`);
  } else {
    const keys = (value: unknown) => (isObject(value) ? Object.keys(value).sort() : typeof value);
    assert(deepEqual(keys(mine), keys(theirs)), `${what}: expected a body shaped as an unknown id's (${describeBody(unknown)}), got ${describeBody(answer)}`);
  }
}

/** A scratch account, made for one check with the admin key. */
export interface ScratchAccount {
  id: string;
  /** Its `create` and read-only keys (never put in a message). */
  secret: string;
  readOnly: string;
  /** The 201 body of its creation. */
  created: Record<string, any>;
}

/** How many scratch accounts the run has made: each gets a distinct name. */
let scratchCount = 0;

/**
 * Makes a scratch account (`mode`), runs `steps` in it and deletes it however they end (unless
 * `steps` deleted it). Fails the check when the target does not make one.
 */
export async function withScratchAccount<T>(context: CheckContext, mode: 'custodial' | 'nwc', steps: (account: ScratchAccount) => Promise<T>): Promise<T> {
  const adminKey = context.options.adminKey;
  if (adminKey === undefined) throw new CheckFailure('needs a key with the accounts permission (--admin-key)');
  const name = `lnpr conformance scratch ${++scratchCount}`;
  const answer = await context.client.post(`${CONTROL}/accounts`, { key: adminKey, body: { mode, name } });
  const body = answer.body;
  assert(
    answer.status === 201 && isObject(body) && typeof body.id === 'string' && isObject(body.keys) && typeof body.keys.secret === 'string' && typeof body.keys.readOnly === 'string',
    `POST ${CONTROL}/accounts {"mode": "${mode}"} with the admin key: expected 201 {"id", "keys": {"secret", "readOnly"}, …}, got ${answer.status} ${answer.status === 201 ? '(keys left out of this message)' : describeBody(answer)}`,
  );
  const account: ScratchAccount = { id: body.id, secret: body.keys.secret, readOnly: body.keys.readOnly, created: body };
  try {
    return await steps(account);
  } finally {
    await context.client.request('DELETE', `${CONTROL}/accounts/${encodeURIComponent(account.id)}`, { key: adminKey });
  }
}
