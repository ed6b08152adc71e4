/**
 * What the JUnit XML reports share: escaping that CI parsers accept (even for control characters a
 * target or receiver sent back), times in seconds, the counts attributes, and a `<testcase>`'s
 * attributes (classname: the group of an id, `auth` of `auth.missing-key`).
 */

/** The first line of every report. */
export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/**
 * Characters XML 1.0 cannot carry at all, not even as references (C0 controls but tab, newline and
 * carriage return; U+FFFE, U+FFFF; lone surrogates): shown as `\uXXXX` text instead.
 */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function clean(value: string): string {
  return value.replace(NOT_XML, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Escapes text content (a carriage return as a reference, or parsers would make it a newline). */
export function xmlText(value: string): string {
  return clean(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
}

/** Escapes an attribute value (double-quoted); tabs and line breaks survive as references. */
export function xmlAttr(value: string): string {
  return xmlText(value)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;');
}

/** A `time` attribute's value: seconds with three decimals, never negative. */
export function junitTime(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

/** The counts attributes of a `<testsuites>` or `<testsuite>` (our reports have no errors). */
export function junitCounts(counts: { tests: number; failures: number; skipped: number }): string {
  return `tests="${counts.tests}" failures="${counts.failures}" errors="0" skipped="${counts.skipped}"`;
}

/** A `<testcase>`'s attributes: classname (the id up to its first dot), name (`id: title`) and time. */
export function testcaseAttributes(id: string, title: string, durationMs: number): string {
  return `classname="${xmlAttr(groupOf(id))}" name="${xmlAttr(`${id}: ${title}`)}" time="${junitTime(durationMs)}"`;
}

/** The group of an id: up to the first dot (`auth.missing-key` → `auth`). */
function groupOf(id: string): string {
  const dot = id.indexOf('.');
  return dot > 0 ? id.slice(0, dot) : id;
}
