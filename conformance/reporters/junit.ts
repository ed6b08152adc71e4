/**
 * The report for CI: JUnit XML, one `<testsuite>` per spec section, one `<testcase>` per check.
 * failed and unexpected-pass are `<failure>`s; skipped and known-failure are `<skipped>` (a known
 * failure does not fail the run); warned passes with the warning in `<system-out>`. The run's
 * settings, observations and warnings are `<properties>` of every suite.
 */
import type { CheckResult, ConformanceResult } from '../result.js';

/** The JUnit XML document of a run. */
export function formatJunit(result: ConformanceResult): string {
  const sections = new Map<string, CheckResult[]>();
  for (const check of result.checks) {
    const list = sections.get(check.section);
    if (list) list.push(check);
    else sections.set(check.section, [check]);
  }
  const properties = runProperties(result);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="lnpr conformance" ${counts(result.checks)} time="${seconds(result.durationMs)}">`,
  ];
  for (const [section, checks] of sections) {
    const time = checks.reduce((sum, check) => sum + check.durationMs, 0);
    lines.push(`  <testsuite name="${attr(section)}" ${counts(checks)} time="${seconds(time)}">`);
    if (properties.length > 0) {
      lines.push('    <properties>');
      for (const [name, value] of properties) lines.push(`      <property name="${attr(name)}" value="${attr(value)}"/>`);
      lines.push('    </properties>');
    }
    for (const check of checks) lines.push(...testcase(check));
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

/** The area of a check: its id up to the first dot (`auth.missing-key` → `auth`). */
export function areaOf(id: string): string {
  const dot = id.indexOf('.');
  return dot > 0 ? id.slice(0, dot) : id;
}

function testcase(check: CheckResult): string[] {
  const open = `    <testcase classname="${attr(areaOf(check.id))}" name="${attr(`${check.id}: ${check.title}`)}" time="${seconds(check.durationMs)}"`;
  const message = check.message ?? '';
  switch (check.outcome) {
    case 'passed':
      return [`${open}/>`];
    case 'failed':
    case 'unexpected-pass': {
      const type = check.outcome === 'failed' ? `${check.level} check failed` : 'unexpected pass';
      return [`${open}>`, `      <failure message="${attr(firstLine(message))}" type="${attr(type)}">${text(message)}</failure>`, '    </testcase>'];
    }
    case 'skipped':
      return [`${open}>`, `      <skipped message="${attr(message)}"/>`, '    </testcase>'];
    case 'known-failure':
      return [`${open}>`, `      <skipped message="${attr(`known failure: ${message}`)}"/>`, '    </testcase>'];
    case 'warned':
      return [`${open}>`, `      <system-out>${text(`warning (${check.level} check did not hold): ${message}`)}</system-out>`, '    </testcase>'];
  }
}

function runProperties(result: ConformanceResult): Array<[string, string]> {
  return [
    ['lnpr.baseUrl', result.baseUrl],
    ['lnpr.profile', result.profile],
    ['lnpr.lifecycle', result.lifecycle],
    ['lnpr.passed', String(result.passed)],
    ...Object.keys(result.observations)
      .sort()
      .map((point): [string, string] => [`observation.${point}`, result.observations[point]!]),
    ...result.warnings.map((warning, index): [string, string] => [`warning.${index + 1}`, warning]),
  ];
}

function counts(checks: CheckResult[]): string {
  const failures = checks.filter((check) => check.outcome === 'failed' || check.outcome === 'unexpected-pass').length;
  const skipped = checks.filter((check) => check.outcome === 'skipped' || check.outcome === 'known-failure').length;
  return `tests="${checks.length}" failures="${failures}" errors="0" skipped="${skipped}"`;
}

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

function firstLine(message: string): string {
  return message.split(/\r?\n/, 1)[0]!;
}

/**
 * Characters XML 1.0 cannot carry at all, not even as references (C0 controls but tab, newline and
 * carriage return; U+FFFE, U+FFFF; lone surrogates): shown as `\uXXXX` text instead.
 */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function clean(value: string): string {
  return value.replace(NOT_XML, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Escapes text content (a carriage return as a reference, or parsers would make it a newline). */
export function text(value: string): string {
  return clean(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
}

/** Escapes an attribute value (double-quoted); tabs and line breaks survive as references. */
export function attr(value: string): string {
  return text(value)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;');
}
