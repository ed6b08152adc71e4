/**
 * One linear pass over JSON text before `JSON.parse`, so that what a body costs is bounded before
 * any of it is built: a 1 MiB body nested 500,000 levels deep takes V8's `JSON.parse` 100-250 ms,
 * and one of 100,000 keys or 500,000 list items costs as much again in parsing, validation and
 * error reports. The pass follows strings and their escapes, counts nesting and values, and
 * allocates nothing per character (strings without escapes are skipped with `indexOf`); 1 MiB
 * takes it 1.5-5 ms.
 *
 * It is no JSON grammar: a body within the bounds goes to `JSON.parse`, which judges it (at a cost
 * the bounds limit, since it can build no more than the pass counted). A body beyond a bound is
 * refused without being parsed, unless its brackets or strings are left open or closed too often:
 * then it is not JSON, said in this file's words, since asking `JSON.parse` would cost what the
 * bounds are there to avoid. (A body beyond a bound whose brackets balance is refused for the bound
 * even if its grammar is wrong elsewhere: either answer is a 400, and only this one is cheap.)
 */
import { MAX_BODY_DEPTH, MAX_BODY_VALUES } from '../settings.js';

/** Bounds of `scanJson`. */
export interface JsonBounds {
  maxDepth: number;
  maxValues: number;
}

/** What the pass found. */
export type JsonScan =
  /** Within the bounds, or open/overclosed within them: `JSON.parse` may judge it cheaply. */
  | { kind: 'parse' }
  /** Brackets balance, but some part nests deeper than `maxDepth`; `field` is the root object's member it is in. */
  | { kind: 'too_deep'; field: string | undefined }
  /** Brackets balance, but there are more than `maxValues` values. */
  | { kind: 'too_many_values'; values: number }
  /** Beyond a bound and not JSON either: why, in words. */
  | { kind: 'not_json'; reason: string };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** Scans `text` (a JSON text, or what claims to be one) against `bounds`. */
export function scanJson(text: string, bounds: JsonBounds = { maxDepth: MAX_BODY_DEPTH, maxValues: MAX_BODY_VALUES }): JsonScan {
  const { maxDepth, maxValues } = bounds;
  const length = text.length;
  let depth = 0;
  // Values of a JSON text = 1 + commas + non-empty containers (each container's first item has no comma before it).
  let values = 1;
  // The last character outside strings and whitespace (a closing quote counts as a quote).
  let previous = 0;
  let rootIsObject = false;
  // Where the key of the root object's current member starts and ends (its quotes), or -1.
  let keyStart = -1;
  let keyEnd = -1;
  let tooDeepField: string | undefined;
  let tooDeep = false;
  // The first backslash at or after the current string's start (-1: none in the rest of the text), found once and reused.
  let nextBackslash = 0;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    switch (c) {
      case QUOTE: {
        // Where the string ends: found with indexOf while it has no escape, character by character from its first one.
        let end = text.indexOf('"', i + 1);
        if (nextBackslash !== -1 && nextBackslash <= i) nextBackslash = text.indexOf('\\', i + 1);
        if (end !== -1 && nextBackslash !== -1 && nextBackslash < end) end = escapedStringEnd(text, nextBackslash);
        if (end === -1) return verdict(tooDeep, values > maxValues, 'a string is not closed');
        if (depth === 1 && rootIsObject && (previous === OPEN_BRACE || previous === COMMA)) {
          keyStart = i;
          keyEnd = end;
        }
        previous = QUOTE;
        i = end;
        break;
      }
      case OPEN_BRACE:
      case OPEN_BRACKET:
        if (depth === 0 && previous === 0) rootIsObject = c === OPEN_BRACE;
        depth++;
        values++;
        if (depth > maxDepth && !tooDeep) {
          tooDeep = true;
          tooDeepField = rootIsObject && keyStart !== -1 ? keyName(text, keyStart, keyEnd) : undefined;
        }
        previous = c;
        break;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        if (previous === OPEN_BRACE || previous === OPEN_BRACKET) values--; // it was empty
        depth--;
        if (depth < 0) return verdict(tooDeep, values > maxValues, `a closing bracket at position ${i} has no opening one`);
        previous = c;
        break;
      case COMMA:
        values++;
        previous = c;
        break;
      case SPACE:
      case TAB:
      case LF:
      case CR:
        break;
      default:
        previous = c;
    }
  }
  if (depth > 0) return verdict(tooDeep, values > maxValues, `it ends with ${depth} bracket${depth === 1 ? '' : 's'} left open`);
  if (tooDeep) return { kind: 'too_deep', field: tooDeepField };
  if (values > maxValues) return { kind: 'too_many_values', values };
  return { kind: 'parse' };
}

/** For text that is not JSON: `JSON.parse` says why when the part it would read is within bounds. */
function verdict(tooDeep: boolean, tooMany: boolean, reason: string): JsonScan {
  return tooDeep || tooMany ? { kind: 'not_json', reason } : { kind: 'parse' };
}

/** The index of the quote closing a string, read from a backslash in it; -1 if it is not closed. */
function escapedStringEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return -1;
}

/** The member name whose key is the string token text[start..end]; undefined if the token is no valid string. */
function keyName(text: string, start: number, end: number): string | undefined {
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return undefined;
  }
}
