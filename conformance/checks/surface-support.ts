/**
 * What the checks of the sandbox surfaces share: where a check works (a scratch account with
 * `--admin-key`, else the main account), how a surface that is not offered shows (404 or 405),
 * and how answers are read without a secret reaching a message.
 */
import type { Check, CheckContext, CheckNeed } from '../check.js';
import type { ApiAnswer, ApiCall } from '../client.js';
import { withScratchAccount } from './control-support.js';
import { assert, isObject } from './support.js';

/** Where a check works: a scratch account (its key) or the main account (no key: the main key). */
export interface Place {
  /** The create key of the scratch account, or undefined for the main account. */
  key: string | undefined;
  /** Whether the account is the check's own (a scratch account): every item in it is the check's. */
  scratch: boolean;
  /** The call options that carry the place's key. */
  call: ApiCall;
}

/** Runs `steps` in a scratch account when the run has an admin key, else in the main account. */
export function inOwnPlace<T>(context: CheckContext, steps: (place: Place) => Promise<T>): Promise<T> {
  if (context.options.adminKey === undefined) return steps({ key: undefined, scratch: false, call: {} });
  return withScratchAccount(context, 'custodial', (account) => steps({ key: account.secret, scratch: true, call: { key: account.secret } }));
}

/** Whether an answer says the target has no such call (the surface is not offered). */
export const isAbsent = (answer: ApiAnswer) => answer.status === 404 || answer.status === 405;

/** The start of a body for a message, with any secret in it replaced (a webhook secret, an NWC URI's secret). */
export function safeBody(answer: ApiAnswer): string {
  const text = answer.text.replace(/whsec_[A-Za-z0-9+/=_-]*/g, 'whsec_…').replace(/([?&]secret=)[^&"\s]*/g, '$1…');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text || 'an empty body';
}

/** Fails unless the answer has `status` and a JSON object body; returns the body. */
export function objectAnswer(answer: ApiAnswer, status: number, what: string): Record<string, any> {
  assert(answer.status === status, `${what}: expected HTTP ${status}, got ${answer.status} ${safeBody(answer)}`);
  assert(isObject(answer.body), `${what}: expected a JSON object, got ${safeBody(answer)}`);
  return answer.body;
}

/** Fails unless the answer is 200 `{"data": [...]}`; returns the list. */
export function listAnswer(answer: ApiAnswer, what: string): unknown[] {
  const body = objectAnswer(answer, 200, what);
  assert(Array.isArray(body.data), `${what}: expected {"data": [...]}, got ${safeBody(answer)}`);
  return body.data;
}

/** ISO 8601 with a time and a zone (`Z` or an offset). */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;
export const isTimestamp = (value: unknown): value is string => typeof value === 'string' && ISO_8601.test(value) && Number.isFinite(Date.parse(value));

/** A check of a sandbox surface: MUST, in `full`, where the target offers the control API (and whatever else it `needs`). */
export function surfaceCheck(id: string, holds: readonly string[], title: string, section: string, statement: string, run: Check['run'], needs: CheckNeed[] = []): Check {
  return { id, holds, title, section, statement, level: 'MUST', profile: 'full', needs: ['controls', ...needs], run };
}
