/**
 * fast-check arbitraries for hostile requests, and the checks every response must pass. JSON
 * bodies are built as text, not with JSON.stringify, so they can carry what JSON.stringify never
 * writes: duplicate keys, own `__proto__` keys, `-0`, `1e400`, a BOM, unbalanced nesting.
 */
import fc from 'fast-check';

/** Keys that mean something to JavaScript objects: metadata must keep them as plain data. */
export const DANGEROUS_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
  'polluted',
] as const;

/** Number tokens, as written in the body text (not all survive JSON.parse unchanged). */
export const NUMBER_TOKENS = [
  '1e308',
  '-1e308',
  '1.7976931348623157e308',
  '1e400',
  '-1e400',
  '9007199254740994', // 2^53 + 2
  '9007199254740993', // 2^53 + 1: JSON.parse rounds it to 2^53
  '-0',
  '-0.0',
  '0.30000000000000004', // 0.1 + 0.2
  '5e-324',
  '1E+3',
  '1000.0',
  '2100000000000000',
  '2100000000000001',
  '0',
  '21',
] as const;

/** A JSON string literal of any code points, lone surrogates included (escaped, as JSON allows). */
export const jsonStringToken: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.string({ maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('"\\ud800"', '"a\\udfffb"', '"\\u0000"', '"\\ufeff"', '"😀"', '"\\\\"', '""'),
  // Long strings: cheap to build, big enough to cross the metadata limit (16 KiB) with a few.
  fc.integer({ min: 200, max: 9000 }).map((n) => JSON.stringify('x'.repeat(n))),
);

/** A JSON number literal: ordinary doubles and integers, and the edge tokens. */
export const jsonNumberToken: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom(...NUMBER_TOKENS),
);

/** A JSON object key: ordinary, unicode, numeric-looking, JavaScript-meaningful, or overlong. */
export const jsonKey: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...DANGEROUS_KEYS), weight: 3 },
  { arbitrary: fc.string({ maxLength: 12 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 12 }), weight: 1 },
  { arbitrary: fc.constantFrom('0', '1', '10', '4294967295', '-1', '1.5', ''), weight: 1 },
  { arbitrary: fc.integer({ min: 300, max: 9000 }).map((n) => 'k'.repeat(n)), weight: 1 },
);

/** JSON text of any value, nesting up to `maxDepth`, with edge numbers, odd strings and dangerous keys. */
export function jsonText(maxDepth = 6): fc.Arbitrary<string> {
  const { value } = fc.letrec<{ value: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth },
      fc.constantFrom('null', 'true', 'false'),
      jsonNumberToken,
      jsonStringToken,
      fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
      jsonObjectText(tie('value')),
    ),
  }));
  return value;
}

/** JSON text of an object from entries (keys may repeat: the last wins, as in JSON.parse). */
export function jsonObjectText(value: fc.Arbitrary<string>, maxKeys = 5): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(jsonKey, value), { maxLength: maxKeys })
    .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
}

/** `levels` of object or array nesting around a leaf, as text (no recursion, so any depth). */
export function deepText(levels: number, kind: 'object' | 'array' | 'mixed', leaf = '1'): string {
  if (kind === 'object') return `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;
  if (kind === 'array') return `${'['.repeat(levels)}${leaf}${']'.repeat(levels)}`;
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < levels; i++) {
    open.push(i % 2 === 0 ? '{"a":' : '[');
    close.push(i % 2 === 0 ? '}' : ']');
  }
  return `${open.join('')}${leaf}${close.reverse().join('')}`;
}

/** A metadata object nested exactly around the boundary of 16 levels (or far past it). */
export const deepMetadataText: fc.Arbitrary<string> = fc
  .tuple(fc.oneof(fc.integer({ min: 12, max: 20 }), fc.integer({ min: 100, max: 3000 })), fc.constantFrom('object', 'array', 'mixed') as fc.Arbitrary<'object' | 'array' | 'mixed'>, jsonKey)
  .map(([levels, kind, key]) => `{${JSON.stringify(key)}:${deepText(levels - 1, kind)}}`);

/** The nesting depth of a parsed JSON value as the sandbox counts it: an object or array is 1 + its deepest child. */
export function jsonDepth(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    max = Math.max(max, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return max;
}

/** Encodes every UTF-8 byte of `s` as %XX (lone surrogates become U+FFFD, which encodeURIComponent refuses). */
export function percentEncodeAll(s: string): string {
  return Array.from(new TextEncoder().encode(s), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** Like encodeURIComponent, but total: never throws on lone surrogates. */
export function percentEncode(s: string): string {
  return Array.from(new TextEncoder().encode(s), (b) =>
    /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
  ).join('');
}

/** Characters `node:http` lets through in a header value (HTAB, visible ASCII, space, 0x80-0xff). */
export const headerChar: fc.Arbitrary<string> = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09))
  .map((code) => String.fromCharCode(code));

/** A header value of those characters. */
export function headerValue(maxLength = 60): fc.Arbitrary<string> {
  return fc.string({ unit: headerChar, maxLength });
}
