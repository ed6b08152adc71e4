/** Small helpers the checks share: assertions with readable messages, creating and reading requests. */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { CheckContext } from '../check.js';
import { CheckFailure, CheckSkipped } from '../check-errors.js';
import type { ApiAnswer, ApiCall } from '../client.js';

/** The collection path of v1. */
export const COLLECTION = '/api/v1/payment-requests';

/** The four states of the spec. */
const STATES = ['pending', 'completed', 'expired', 'failed'] as const;

/** The metadata the shared request is created with: nested, so "returned as given" is tested deeply. */
export const SHARED_METADATA = Object.freeze({ orderId: 'conformance-1', nested: { sku: ['a', 'b'], qty: 2, gift: false } });

/** The `expiresIn` of the second shared request (not the default, and not a round hour). */
export const SHARED_EXPIRES_IN = 600;

/** A create body every conforming implementation accepts. */
export function validBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: 1000, description: 'lnpr conformance check', destinationWallet: 'conformance@example.com', ...overrides };
}

/** Fails the check with `message` unless `condition` holds. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message);
}

/** Fails unless the answer has `status`; the message shows what came instead. */
export function assertStatus(answer: ApiAnswer, status: number, what: string): void {
  assert(answer.status === status, `${what}: expected HTTP ${status}, got ${answer.status} ${describeBody(answer)}`);
}

/** The start of a response body, for messages. */
export function describeBody(answer: ApiAnswer): string {
  return answer.text.length > 300 ? `${answer.text.slice(0, 300)}…` : answer.text;
}

/** A value for a message: JSON, cut short. */
export function show(value: unknown): string {
  if (value === undefined) return 'absent';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Whether `value` is a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `body` has its own property `field` (present, even if null). */
export function has(body: unknown, field: string): boolean {
  return isObject(body) && Object.prototype.hasOwnProperty.call(body, field);
}

/** Deep equality of JSON values; key order is irrelevant. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => has(b, key) && deepEqual(a[key], b[key]));
}

/** POSTs a create body (the valid one with `overrides`) and returns the answer as it came. */
export function postCreate(context: CheckContext, overrides: Record<string, unknown> = {}, call: ApiCall = {}): Promise<ApiAnswer> {
  return context.client.post(COLLECTION, { body: validBody(overrides), ...call });
}

/**
 * Fails unless a create answer accepted the body (a 2xx with a JSON object); returns the object.
 * That the status is 201 exactly is create.status-201's business, so the checks that only need a
 * created request do not all fail with it.
 */
export function expectCreated(answer: ApiAnswer, what = `POST ${COLLECTION}`): Record<string, any> {
  assert(answer.status >= 200 && answer.status < 300, `${what}: expected HTTP 201, got ${answer.status} ${describeBody(answer)}`);
  assert(isObject(answer.body), `${what}: expected a JSON object in the ${answer.status} body, got ${describeBody(answer) || 'an empty body'}`);
  return answer.body;
}

/** Creates a payment request; fails the check unless the target accepts it with a JSON object. */
export async function createPaymentRequest(context: CheckContext, overrides: Record<string, unknown> = {}, call: ApiCall = {}): Promise<any> {
  return expectCreated(await postCreate(context, overrides, call));
}

/** The answer to the shared create (main key, valid body with nested metadata), sent once per run. */
export function sharedCreateAnswer(context: CheckContext): Promise<ApiAnswer> {
  return context.shared('create answer: with metadata', () => postCreate(context, { metadata: SHARED_METADATA }));
}

/** One payment request created with the main key and the valid body, shared by the checks that only read it. */
export async function sharedPaymentRequest(context: CheckContext): Promise<any> {
  return expectCreated(await sharedCreateAnswer(context), `POST ${COLLECTION} with a valid body and metadata`);
}

/** The body of the second shared request: no metadata, an explicit `expiresIn`, another amount. */
export const SECOND_BODY = Object.freeze({ amount: 2500, description: 'lnpr conformance check, expiresIn given', expiresIn: SHARED_EXPIRES_IN });

/** A second shared payment request (no metadata, `expiresIn` 600). */
export function sharedSecondRequest(context: CheckContext): Promise<any> {
  return context.shared('payment request with expiresIn', () => createPaymentRequest(context, { ...SECOND_BODY }));
}

/**
 * A payment request created with the NWC key (with the shared metadata, so the rules of every 201
 * about metadata see the non-custodial side too); only for checks that need `nwcKey`.
 */
export function sharedNwcRequest(context: CheckContext): Promise<any> {
  const nwcKey = context.options.nwcKey;
  if (nwcKey === undefined) throw new CheckSkipped('needs a key of an NWC account (--nwc-key)');
  return context.shared('payment request of the NWC key', async () =>
    expectCreated(await postCreate(context, { description: 'lnpr conformance check, NWC account', metadata: SHARED_METADATA }, { key: nwcKey }), `POST ${COLLECTION} with the NWC key`),
  );
}

/**
 * The main key's shared request and the NWC key's, which belong to two accounts (skipped, saying
 * why, when both keys create requests of one mode: they may be one account), and the NWC key.
 */
export async function twoAccountsRequests(context: CheckContext): Promise<{ own: any; other: any; nwcKey: string }> {
  const [own, other] = await Promise.all([sharedPaymentRequest(context), sharedNwcRequest(context)]);
  if (own.isNwc === other.isNwc) throw new CheckSkipped(`both keys create requests with isNwc ${show(own.isNwc)}: they may belong to one account, so neither is "another account"`);
  return { own, other, nwcKey: context.options.nwcKey! };
}

/** The path of one payment request (and its status). */
export function requestPath(id: string, status = false): string {
  return `${COLLECTION}/${encodeURIComponent(id)}${status ? '/status' : ''}`;
}

/** GETs a payment request; fails unless 200 with a JSON object. */
export async function getPaymentRequest(context: CheckContext, id: string, call: ApiCall = {}): Promise<Record<string, any>> {
  const answer = await context.client.get(requestPath(id), call);
  assertStatus(answer, 200, `GET ${requestPath(id)}`);
  assert(isObject(answer.body), `GET ${requestPath(id)}: expected a JSON object, got ${describeBody(answer) || 'an empty body'}`);
  return answer.body;
}

/** GETs a payment request's status endpoint; fails unless 200 with exactly `{"status": <one of the four>}`. */
export async function getStatus(context: CheckContext, id: string, call: ApiCall = {}): Promise<string> {
  const answer = await context.client.get(requestPath(id, true), call);
  return expectExactStatus(answer, `GET ${requestPath(id, true)}`);
}

/**
 * The status a status endpoint reports, leniently (any extra fields ignored), for checks about the
 * state rather than the shape: `status` of a 200 JSON object, else a description of the answer.
 */
export async function reportedStatus(context: CheckContext, id: string, call: ApiCall = {}): Promise<unknown> {
  const answer = await context.client.get(requestPath(id, true), call);
  return answer.status === 200 && isObject(answer.body) ? answer.body.status : `HTTP ${answer.status} ${describeBody(answer)}`;
}

/** Fails unless a status answer is 200 with exactly one field, `status`, one of the four states. */
export function expectExactStatus(answer: ApiAnswer, what: string): string {
  assertStatus(answer, 200, what);
  assert(isObject(answer.body), `${what}: expected a JSON object {"status": …}, got ${describeBody(answer) || 'an empty body'}`);
  const keys = Object.keys(answer.body);
  assert(keys.length === 1 && keys[0] === 'status', `${what}: expected exactly one field, "status"; got the fields ${show(keys)}`);
  const status = answer.body.status;
  assert(typeof status === 'string' && (STATES as readonly string[]).includes(status), `${what}: expected status to be one of ${STATES.join(', ')}; got ${show(status)}`);
  return status;
}

/**
 * The bytes a hex field stands for, as lower-case hex without a `0x`: checks that compare a hash
 * compare values; how it is written (64 hex digits) is create.payment-hash-format's business.
 */
export function hexValue(value: unknown): string {
  return String(value).toLowerCase().replace(/^0x/, '');
}

/** 64 hexadecimal digits (either case). */
export const HEX_64 = /^[0-9a-fA-F]{64}$/;

/** ISO 8601 in UTC (`Z` or `+00:00`), seconds always, a fraction optional. */
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|\+00:00)$/;

/** Whether `value` is an ISO 8601 UTC timestamp; `milliseconds` requires exactly three fraction digits. */
function isIsoUtc(value: unknown, milliseconds = false): value is string {
  if (typeof value !== 'string') return false;
  const match = ISO_UTC.exec(value);
  if (!match) return false;
  if (milliseconds && (match[7] === undefined || match[7].length !== 4)) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // A real calendar date and time (no 2024-02-30, no 25:00).
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second
  );
}

/** Milliseconds since the epoch of an ISO timestamp (NaN when unreadable). */
export function timeOf(value: unknown): number {
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

/** Lower-case hex SHA-256 of a UTF-8 string or bytes. */
export function sha256Hex(input: string | Uint8Array): string {
  return bytesToHex(sha256(typeof input === 'string' ? utf8ToBytes(input) : input));
}

/** How often a payment's status is polled, in ms. */
const POLL_INTERVAL_MS = 200;

/** How long the run's driver lets a payment take to show (3 s after a control call; 10 s by default). */
export function settleMs(context: CheckContext): number {
  return context.lifecycle?.settleMs ?? 10_000;
}

/**
 * Polls the status endpoint (with `call`'s key) until the request is no longer pending or the
 * driver's settle time passes; returns the last status seen.
 */
export async function settledStatus(context: CheckContext, id: string, call: ApiCall = {}): Promise<unknown> {
  const deadline = Date.now() + settleMs(context);
  for (;;) {
    const answer = await context.client.get(requestPath(id, true), call);
    const status = answer.status === 200 && isObject(answer.body) ? answer.body.status : `HTTP ${answer.status}`;
    if (status !== 'pending' || Date.now() + POLL_INTERVAL_MS > deadline) return status;
    await sleep(POLL_INTERVAL_MS);
  }
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A field rule of the payment request object: undefined when it holds, else what is wrong. */
export type FieldRule = (value: unknown) => string | undefined;

const expect = (ok: (value: unknown) => boolean, what: string): FieldRule => (value) => (ok(value) ? undefined : `expected ${what}, got ${show(value)}`);

/** The type and format of each field the spec marks "always" (or "on create; on read"). */
export const FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  id: expect((v) => typeof v === 'string' && v.startsWith('pr_') && v.length > 3, 'a string "pr_<identifier>"'),
  status: expect((v) => typeof v === 'string' && (STATES as readonly string[]).includes(v), `one of ${STATES.join(', ')}`),
  amount: expect((v) => typeof v === 'number' && Number.isFinite(v), 'a number'),
  description: expect((v) => typeof v === 'string', 'a string'),
  invoice: expect((v) => typeof v === 'string' && v.length > 0, 'a non-empty string (BOLT11)'),
  paymentHash: expect((v) => typeof v === 'string' && HEX_64.test(v), 'a string of 64 hex digits'),
  expiresAt: expect((v) => isIsoUtc(v, true), 'an ISO 8601 UTC timestamp with milliseconds (YYYY-MM-DDTHH:MM:SS.sssZ)'),
  isNwc: expect((v) => typeof v === 'boolean', 'a boolean'),
  feeAmount: expect((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0, 'a non-negative number'),
  feePercentage: expect((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0, 'a non-negative number'),
  createdAt: expect((v) => isIsoUtc(v), 'an ISO 8601 UTC timestamp (YYYY-MM-DDTHH:MM:SS[.fff]Z)'),
  updatedAt: expect((v) => isIsoUtc(v), 'an ISO 8601 UTC timestamp (YYYY-MM-DDTHH:MM:SS[.fff]Z)'),
};

/** What is wrong with `fields` of one payment request object (absent, or failing its rule), or undefined. */
export function fieldsProblem(body: Record<string, unknown>, fields: readonly string[] = Object.keys(FIELD_RULES)): string | undefined {
  const problems = fields.flatMap((field) => {
    if (!has(body, field)) return [`${field}: expected present, got absent`];
    const problem = FIELD_RULES[field]!(body[field]);
    return problem === undefined ? [] : [`${field}: ${problem}`];
  });
  return problems.length === 0 ? undefined : problems.join('; ');
}

/**
 * What is wrong with `expiresAt` against `createdAt` + `seconds` (CONTRACT.md's reading:
 * "expiresAt = createdAt + expiresIn"), or undefined. Exact to the millisecond where createdAt is
 * written with a fraction of a second; where it is written in whole seconds (a time cut to its
 * second), expiresAt may be up to a second after.
 */
export function expiryProblem(body: Record<string, any>, seconds: number): string | undefined {
  const created = timeOf(body.createdAt);
  const expires = timeOf(body.expiresAt);
  if (!Number.isFinite(created) || !Number.isFinite(expires)) return `createdAt ${show(body.createdAt)} or expiresAt ${show(body.expiresAt)} is not a readable timestamp`;
  const late = expires - created - seconds * 1000;
  const exact = /\.\d+/.test(String(body.createdAt));
  if (exact ? late === 0 : late >= 0 && late < 1000) return undefined;
  return `expected expiresAt = createdAt + ${seconds} s${exact ? '' : ' (createdAt in whole seconds: up to a second more)'}, got ${late >= 0 ? '+' : ''}${late} ms off (createdAt ${body.createdAt}, expiresAt ${body.expiresAt})`;
}

/** Fails unless a preimage is 64 hex digits whose SHA-256 is `paymentHash`. */
export function assertPreimage(what: string, preimage: unknown, paymentHash: unknown): void {
  assert(typeof preimage === 'string' && HEX_64.test(preimage), `${what}: expected preimage 64 hex digits, got ${show(preimage)}`);
  const hash = sha256Hex(hexToBytes(preimage.toLowerCase()));
  assert(hash === hexValue(paymentHash), `${what}: expected SHA-256(preimage) = paymentHash ${show(paymentHash)}, got ${hash}`);
}
