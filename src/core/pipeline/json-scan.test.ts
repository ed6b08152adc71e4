import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors/errors.js';
import { parseJsonBody } from './json-body.js';
import { MAX_BODY_DEPTH, MAX_BODY_VALUES } from '../settings.js';
import { scanJson } from './json-scan.js';

const arrays = (levels: number, leaf = '1') => `${'['.repeat(levels)}${leaf}${']'.repeat(levels)}`;
const objects = (levels: number, leaf = '1') => `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;

/** Depth as the scan counts it (a container is 1 + its deepest child) and the number of values. */
function measure(value: unknown): { depth: number; values: number } {
  if (value === null || typeof value !== 'object') return { depth: 0, values: 1 };
  let depth = 0;
  let values = 1;
  for (const child of Object.values(value)) {
    const inner = measure(child);
    depth = Math.max(depth, inner.depth);
    values += inner.values;
  }
  return { depth: depth + 1, values };
}

describe('scanJson: depth', () => {
  it(`passes a body exactly ${MAX_BODY_DEPTH} levels deep and refuses one more`, () => {
    expect(scanJson(arrays(MAX_BODY_DEPTH))).toEqual({ kind: 'parse' });
    expect(scanJson(arrays(MAX_BODY_DEPTH + 1))).toEqual({ kind: 'too_deep', field: undefined });
    expect(scanJson(objects(MAX_BODY_DEPTH))).toEqual({ kind: 'parse' });
    expect(scanJson(objects(MAX_BODY_DEPTH + 1))).toEqual({ kind: 'too_deep', field: 'a' });
  });

  it('names the member of the root object the deep part is in', () => {
    expect(scanJson(`{"amount":1,"metadata":{"a":${arrays(40)}},"z":2}`)).toEqual({ kind: 'too_deep', field: 'metadata' });
    expect(scanJson(`{"we\\"ird[{":${arrays(40)}}`)).toEqual({ kind: 'too_deep', field: 'we"ird[{' });
    expect(scanJson(`{"a":"x" , "b" : ${arrays(40)}}`)).toEqual({ kind: 'too_deep', field: 'b' });
    expect(scanJson(`[{"metadata":${arrays(40)}}]`)).toEqual({ kind: 'too_deep', field: undefined });
  });

  it('does not count brackets in strings, whatever the escapes', () => {
    expect(scanJson(`{"a":"${'[{'.repeat(100)}"}`)).toEqual({ kind: 'parse' });
    expect(scanJson(`["\\"${'['.repeat(100)}"]`)).toEqual({ kind: 'parse' });
    expect(scanJson(`["\\\\\\"${'['.repeat(100)}\\\\"]`)).toEqual({ kind: 'parse' });
    expect(scanJson(`{"${'['.repeat(100)}":1}`)).toEqual({ kind: 'parse' });
    // An escaped backslash ends its escape: the quote after it closes the string, and what follows counts.
    expect(scanJson(`["\\\\",${arrays(MAX_BODY_DEPTH)}]`)).toEqual({ kind: 'too_deep', field: undefined });
    expect(scanJson(`["\\u0022",${arrays(MAX_BODY_DEPTH)}]`)).toEqual({ kind: 'too_deep', field: undefined });
  });
});

describe('scanJson: values', () => {
  it(`passes ${MAX_BODY_VALUES} values and refuses one more; keys are not values, an empty list is one`, () => {
    const list = (n: number, item = '0') => `[${Array(n).fill(item).join(',')}]`; // n items + the list
    expect(scanJson(list(MAX_BODY_VALUES - 1))).toEqual({ kind: 'parse' });
    expect(scanJson(list(MAX_BODY_VALUES))).toEqual({ kind: 'too_many_values', values: MAX_BODY_VALUES + 1 });
    expect(scanJson(list(MAX_BODY_VALUES - 1, '[]'))).toEqual({ kind: 'parse' });
    const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',')}}`;
    expect(scanJson(keys(MAX_BODY_VALUES - 1))).toEqual({ kind: 'parse' });
    expect(scanJson(keys(MAX_BODY_VALUES)).kind).toBe('too_many_values');
  });

  it('counts as JSON.parse builds, at any depth and layout', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const { depth, values } = measure(JSON.parse(text));
        expect(scanJson(text, { maxDepth: depth, maxValues: values })).toEqual({ kind: 'parse' });
        if (depth > 0) expect(scanJson(text, { maxDepth: depth - 1, maxValues: values }).kind).toBe('too_deep');
        expect(scanJson(text, { maxDepth: depth, maxValues: values - 1 })).toEqual({ kind: 'too_many_values', values });
      }),
      { numRuns: 500 },
    );
  });
});

describe('scanJson: text that is not JSON', () => {
  it.each([['{"a":'], ['[1,]'], ['{"a" 1}'], [']'], ['"abc'], ['[1]]'], ['{"a":"\\"}'], ['nul'], ['[1 2]']])(
    'within the bounds, %s is left to JSON.parse',
    (text) => {
      expect(scanJson(text)).toEqual({ kind: 'parse' });
    },
  );

  it.each([
    ['left open', '['.repeat(100), 'it ends with 100 brackets left open'],
    ['closed once too often', `${arrays(100)}]`, 'a closing bracket at position 201 has no opening one'],
    ['with a string left open', `${'['.repeat(100)}"abc`, 'a string is not closed'],
    ['too many values, left open', `[${'0,'.repeat(MAX_BODY_VALUES + 1)}`, 'it ends with 1 bracket left open'],
  ])('beyond a bound and %s: not JSON, said without parsing', (_title, text, reason) => {
    expect(scanJson(text)).toEqual({ kind: 'not_json', reason });
  });

  it('beyond a bound with balanced brackets: refused for the bound, grammar unread', () => {
    expect(scanJson(arrays(100, '1 2 x'))).toEqual({ kind: 'too_deep', field: undefined });
  });
});

describe('parseJsonBody with the scan', () => {
  const parse = (text: string) => parseJsonBody('application/json', text);
  const refusal = (text: string) => {
    try {
      parse(text);
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      const { code, status, details } = error as ApiError;
      return { status, code, details: details?.map((d) => [d.field, d.code]) };
    }
    throw new Error('not refused');
  };

  it('parses what is within the bounds', () => {
    expect(parse(`{"metadata":${arrays(MAX_BODY_DEPTH - 1)}}`)).toEqual({ metadata: JSON.parse(arrays(MAX_BODY_DEPTH - 1)) });
  });

  it('answers a body too deep with invalid_request, too_deep on the member it is in', () => {
    expect(refusal(`{"amount":1,"metadata":${objects(100_000)}}`)).toEqual({ status: 400, code: 'invalid_request', details: [['metadata', 'too_deep']] });
    expect(refusal(arrays(500_000))).toEqual({ status: 400, code: 'invalid_request', details: [['body', 'too_deep']] });
  });

  it('answers a body of too many values with invalid_request, too_large on body', () => {
    expect(refusal(`{"metadata":{"a":[${'0,'.repeat(200_000)}0]}}`)).toEqual({ status: 400, code: 'invalid_request', details: [['body', 'too_large']] });
  });

  it('answers text that is not JSON with invalid_json: JSON.parse says why within the bounds, the scan beyond them', () => {
    expect(refusal('{"a":')).toEqual({ status: 400, code: 'invalid_json', details: undefined });
    expect(refusal('['.repeat(500_000))).toEqual({ status: 400, code: 'invalid_json', details: undefined });
    expect(() => parse('['.repeat(500_000))).toThrow('The request body is not valid JSON: it ends with 500000 brackets left open.');
  });
});
