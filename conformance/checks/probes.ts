/**
 * Value probes of the create body, generated from a table: each request field × each class of JSON
 * value (every JSON type, and the edges of the right one). A probe sends the valid body with one
 * field replaced by raw JSON text (so `1e3` and `1000.0` go as written) and holds the answer to one
 * rule: rejected with 400, or accepted and the value back exactly as sent. Where the spec is silent
 * (fractions, huge numbers, empty or astral descriptions, bounds of `expiresIn`, metadata size) a
 * probe accepts either; where it is clear, it asks for one.
 */
import type { CheckContext } from '../check.js';
import type { ApiAnswer } from '../client.js';
import { COLLECTION, deepEqual, describeBody, expiryProblem, has, isObject, show } from './support.js';

/** The fields of the create body (spec: "Endpoints › Create a payment request", request body). */
export type ProbeField = 'amount' | 'description' | 'destinationWallet' | 'metadata' | 'expiresIn';

/** What a probe asks of the answer: 201 with the value echoed, 400, or either of the two. */
export type ProbeExpectation = 'accept' | 'reject' | 'either';

/** One probe: a field, the raw JSON of its value (undefined: the field is left out), the expectation. */
export interface Probe {
  field: ProbeField;
  json: string | undefined;
  expect: ProbeExpectation;
  /** How messages name it, e.g. `amount 1e3`. */
  label: string;
}

/** The valid body the probes vary, one field at a time. */
const BASE: Readonly<Record<string, unknown>> = { amount: 1000, description: 'lnpr conformance value probe', destinationWallet: 'conformance@example.com' };

/** The request field's JSON type in the spec's table (metadata: an object). */
const FIELD_TYPES: Readonly<Record<ProbeField, 'number' | 'string' | 'object'>> = {
  amount: 'number',
  description: 'string',
  destinationWallet: 'string',
  metadata: 'object',
  expiresIn: 'number',
};

/** Required fields of the create body. */
export const REQUIRED_FIELDS: readonly ProbeField[] = ['amount', 'description', 'destinationWallet'];

function cut(text: string, max = 40): string {
  // JSON.stringify leaves U+2028 and U+2029 as they are; a message shows them escaped.
  const visible = text.replace(/[\u2028\u2029]/g, (separator) => `\\u${separator.charCodeAt(0).toString(16)}`);
  return visible.length > max ? `${visible.slice(0, max)}… (${visible.length} chars of JSON)` : visible;
}

/** A probe whose value is `value`, serialized by JSON.stringify. */
export function value(field: ProbeField, expect: ProbeExpectation, sent: unknown, label?: string): Probe {
  const json = JSON.stringify(sent);
  return { field, expect, json, label: label ?? `${field} ${cut(json)}` };
}

/** A probe whose value is the raw JSON text `json` (numbers as written: 1e3, 1000.0, -0). */
export function raw(field: ProbeField, expect: ProbeExpectation, json: string, label?: string): Probe {
  return { field, expect, json, label: label ?? `${field} ${cut(json)} (as written)` };
}

/** A probe that leaves the field out. */
export function absent(field: ProbeField): Probe {
  return { field, expect: REQUIRED_FIELDS.includes(field) ? 'reject' : 'accept', json: undefined, label: `no ${field}` };
}

/**
 * The wrong JSON types of a field, by construction: for each JSON type other than the field's, one
 * value (a string that reads as the right number, a number, true, null, an array or an object
 * holding a right value). null of an optional field may mean "absent", so it is `either`.
 */
export function wrongTypeProbes(field: ProbeField): Probe[] {
  const type = FIELD_TYPES[field];
  const right: unknown = { amount: 1000, description: 'text', destinationWallet: 'conformance@example.com', metadata: { orderId: 'o-1' }, expiresIn: 600 }[field];
  const samples: Array<[string, unknown]> = [
    ['string', type === 'number' ? String(right) : 'order-1'],
    ['number', 42],
    ['boolean', true],
    ['null', null],
    ['array', [right]],
    ['object', { value: right }],
  ];
  return samples
    .filter(([kind]) => kind !== type)
    .map(([kind, sample]) => value(field, kind === 'null' && !REQUIRED_FIELDS.includes(field) ? 'either' : 'reject', sample, `${field} ${JSON.stringify(sample)} (${kind === 'null' ? 'null' : `a ${kind}`})`));
}

/** The raw JSON text of the valid body with the probe's field set to the probe's value (or left out). */
function probeBody(probe: Probe): string {
  const entries = Object.entries(BASE)
    .filter(([key]) => key !== probe.field)
    .map(([key, entry]) => `${JSON.stringify(key)}:${JSON.stringify(entry)}`);
  if (probe.json !== undefined) entries.push(`${JSON.stringify(probe.field)}:${probe.json}`);
  return `{${entries.join(',')}}`;
}

/** The answer to a probe, sent once per run (probes are shared between checks that judge them). */
export function probeAnswer(context: CheckContext, probe: Probe): Promise<ApiAnswer> {
  const body = probeBody(probe);
  return context.shared(`probe ${body}`, () => context.client.post(COLLECTION, { rawBody: body }));
}

/** Whether a create answer accepted the body: a 2xx with a JSON object (201 exactly is create.status-201's business). */
export function accepted(answer: ApiAnswer): boolean {
  return answer.status >= 200 && answer.status < 300 && isObject(answer.body);
}

/** What is wrong with the echo of an accepted probe: the field's value as it came back, compared with what was sent. */
function echoProblem(probe: Probe, body: Record<string, unknown>): string | undefined {
  const sent: unknown = probe.json === undefined ? undefined : JSON.parse(probe.json);
  switch (probe.field) {
    case 'amount':
    case 'description':
      if (!has(body, probe.field)) return `${probe.field} absent from the answer`;
      return deepEqual(body[probe.field], sent) && typeof body[probe.field] === typeof sent ? undefined : `${probe.field} came back as ${show(body[probe.field])}`;
    case 'metadata': {
      // Nothing given, or an empty object: absent, null and {} all say "no pairs".
      if (sent === null || sent === undefined || (isObject(sent) && Object.keys(sent).length === 0)) {
        const back = body.metadata;
        return !has(body, 'metadata') || back === null || (isObject(back) && Object.keys(back).length === 0) ? undefined : `metadata was not given, came back as ${show(back)}`;
      }
      if (!has(body, 'metadata')) return 'metadata absent from the answer';
      return deepEqual(body.metadata, sent) ? undefined : `metadata came back as ${show(body.metadata)} (keys ${show(isObject(body.metadata) ? Object.keys(body.metadata) : body.metadata)})`;
    }
    case 'expiresIn': {
      return expiryProblem(body, sent === null || sent === undefined ? 3600 : (sent as number));
    }
    case 'destinationWallet':
      // Not among the response fields: create.no-destination-wallet's business.
      return undefined;
  }
}

/** Judges one probe's answer; undefined when it holds, else what went wrong (naming the probe). */
function judgeProbe(probe: Probe, answer: ApiAnswer): string | undefined {
  const wanted = { accept: '201 with it echoed', reject: 'HTTP 400', either: 'HTTP 400, or 201 with it echoed exactly' }[probe.expect];
  if (answer.status === 400) return probe.expect === 'accept' ? `${probe.label}: expected ${wanted}, got 400 ${describeBody(answer)}` : undefined;
  if (accepted(answer)) {
    if (probe.expect === 'reject') return `${probe.label}: expected ${wanted}, got ${answer.status} (accepted)`;
    const problem = echoProblem(probe, answer.body);
    return problem === undefined ? undefined : `${probe.label}: accepted, but ${problem}`;
  }
  const serverError = answer.status >= 500 ? ' (a server error: input must never cause a 5xx)' : '';
  return `${probe.label}: expected ${wanted}, got ${answer.status}${serverError} ${describeBody(answer)}`;
}

/** Sends every probe (the client bounds how many are in flight) and returns every problem. */
export async function probeProblems(context: CheckContext, probes: readonly Probe[]): Promise<string[]> {
  const answers = await Promise.all(probes.map((probe) => probeAnswer(context, probe)));
  return probes.flatMap((probe, index) => judgeProbe(probe, answers[index]!) ?? []);
}
