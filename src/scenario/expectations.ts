/**
 * Checks a step's `expect` against the response it got and lists every mismatch, each as a path
 * with what was expected and what came, rendered for people (`body.status: "pending"`).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { Expectation } from './scenario-schema.js';

/** A response as the runner saw it: the body parsed as JSON, or the text when it is not JSON (`null` when empty). */
export interface StepResponse {
  status: number;
  body: unknown;
  text: string;
  /** Names in lower case. */
  headers?: Record<string, string>;
  /** From sending the request to the end of the answer. */
  durationMs?: number;
}

/** A request that got no answer: the connection closed (a reset, a hang), or nothing came in time. */
export interface NoAnswer {
  reason: string;
  durationMs: number;
}

/** One expectation that did not hold. `expected` and `actual` are rendered values (JSON, or a phrase in parentheses). */
export interface Mismatch {
  path: string;
  expected: string;
  actual: string;
}

const ABSENT = '(absent)';
const HEX_32_BYTES = /^[0-9a-f]{64}$/i;

/** Every way `response` misses `expect` (an empty list when it holds). Without `expect`, the status must be 2xx. */
export function checkExpectations(expect: Expectation | undefined, response: StepResponse): Mismatch[] {
  const mismatches: Mismatch[] = [];
  const rules = expect ?? {};
  if (rules.dropped === true) {
    // The loader lets only `tookAtLeastMs` go with `dropped`: an answer is the one mismatch.
    mismatches.push({ path: 'answer', expected: '(none: the connection closed)', actual: `HTTP ${response.status}` });
  } else if (rules.status !== undefined) {
    if (response.status !== rules.status) mismatches.push({ path: 'status', expected: String(rules.status), actual: String(response.status) });
  } else if (rules.error === undefined && (response.status < 200 || response.status > 299)) {
    // An expected error code says the step should fail; without one, the step is meant to succeed.
    mismatches.push({ path: 'status', expected: '2xx', actual: String(response.status) });
  }
  if (rules.error !== undefined) {
    const code = fieldAt(response.body, ['error', 'code']);
    if (code !== rules.error) mismatches.push({ path: 'body.error.code', expected: render(rules.error), actual: code === undefined ? ABSENT : render(code) });
  }
  if (rules.body !== undefined) compare(rules.body, response.body, 'body', rules.exactBody === true, mismatches);
  for (const field of rules.absent ?? []) {
    const value = fieldAt(response.body, [field]);
    if (value !== undefined) mismatches.push({ path: `body.${field}`, expected: ABSENT, actual: render(value) });
  }
  if (rules.preimageMatchesPaymentHash === true) {
    const hash = fieldAt(response.body, ['paymentHash']);
    checkPreimage(response.body, typeof hash === 'string' ? hash : undefined, 'body.paymentHash', mismatches);
  }
  if (rules.preimageMatches !== undefined) checkPreimage(response.body, rules.preimageMatches, 'the given hash', mismatches);
  if (rules.count !== undefined) checkCount(rules.count, response.body, mismatches);
  for (const [name, value] of Object.entries(rules.headers ?? {})) {
    // Headers are text: `retry-after: 2` in YAML means the header "2".
    const actual = response.headers?.[name.toLowerCase()];
    if (actual !== String(value)) mismatches.push({ path: `headers.${name.toLowerCase()}`, expected: render(String(value)), actual: actual === undefined ? ABSENT : render(actual) });
  }
  if (rules.tookAtLeastMs !== undefined) checkTime(rules.tookAtLeastMs, response.durationMs, mismatches);
  return mismatches;
}

/** Every way a request that got no answer misses `expect`: it must say `dropped: true`. */
export function checkNoAnswer(expect: Expectation | undefined, noAnswer: NoAnswer): Mismatch[] {
  const mismatches: Mismatch[] = [];
  if (expect?.dropped !== true) mismatches.push({ path: 'answer', expected: 'an answer', actual: `(none: ${noAnswer.reason})` });
  if (expect?.tookAtLeastMs !== undefined) checkTime(expect.tookAtLeastMs, noAnswer.durationMs, mismatches);
  return mismatches;
}

/** The answer (or the closing of the connection) took at least `ms`. */
function checkTime(ms: number, durationMs: number | undefined, out: Mismatch[]): void {
  if (durationMs === undefined) out.push({ path: 'time', expected: `at least ${ms} ms`, actual: '(not measured)' });
  else if (durationMs < ms) out.push({ path: 'time', expected: `at least ${ms} ms`, actual: `${Math.round(durationMs)} ms` });
}

/** The list in an answer (`body.data`, or the body when it is an array) has `count` items. */
function checkCount(count: number, body: unknown, out: Mismatch[]): void {
  const [path, list] = Array.isArray(body) ? ['body', body] : ['body.data', fieldAt(body, ['data'])];
  if (!Array.isArray(list)) out.push({ path, expected: `a list of ${count}`, actual: render(list) });
  else if (list.length !== count) out.push({ path: `${path}.length`, expected: String(count), actual: String(list.length) });
}

/**
 * `expected` against `actual` at `path`, adding to `out`. Objects match partially (only the given
 * fields count) unless `exact`; arrays must have the same length and match element by element.
 */
export function compare(expected: unknown, actual: unknown, path: string, exact: boolean, out: Mismatch[]): void {
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) {
      out.push({ path, expected: 'an object', actual: render(actual) });
      return;
    }
    for (const [key, value] of Object.entries(expected)) {
      const child = `${path}.${key}`;
      if (!Object.hasOwn(actual, key)) out.push({ path: child, expected: render(value), actual: ABSENT });
      else compare(value, actual[key], child, exact, out);
    }
    if (exact) {
      for (const key of Object.keys(actual)) {
        if (!Object.hasOwn(expected, key)) out.push({ path: `${path}.${key}`, expected: ABSENT, actual: render(actual[key]) });
      }
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) {
      out.push({ path, expected: render(expected), actual: render(actual) });
      return;
    }
    if (actual.length !== expected.length) {
      out.push({ path: `${path}.length`, expected: String(expected.length), actual: String(actual.length) });
      return;
    }
    expected.forEach((item, index) => compare(item, actual[index], `${path}[${index}]`, exact, out));
    return;
  }
  // Scalars: strictly equal, so 1000 is not "1000".
  if (expected !== actual) out.push({ path, expected: render(expected), actual: render(actual) });
}

/** sha256 of the hex-decoded `body.preimage` must be `hash`. */
function checkPreimage(body: unknown, hash: string | undefined, against: string, out: Mismatch[]): void {
  const path = 'sha256(body.preimage)';
  if (hash === undefined || !HEX_32_BYTES.test(hash)) {
    out.push({ path: against, expected: 'a 32-byte hex hash', actual: hash === undefined ? ABSENT : render(hash) });
    return;
  }
  const preimage = fieldAt(body, ['preimage']);
  if (typeof preimage !== 'string' || !HEX_32_BYTES.test(preimage)) {
    out.push({ path: 'body.preimage', expected: 'a 32-byte hex preimage', actual: preimage === undefined ? ABSENT : render(preimage) });
    return;
  }
  const digest = bytesToHex(sha256(hexToBytes(preimage.toLowerCase())));
  if (digest !== hash.toLowerCase()) out.push({ path, expected: render(hash.toLowerCase()), actual: render(digest) });
}

function fieldAt(value: unknown, path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isPlainObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A value for a mismatch line: JSON, cut short so one line stays readable. */
export function render(value: unknown, max = 200): string {
  const text = value === undefined ? ABSENT : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
