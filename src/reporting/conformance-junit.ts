/**
 * The conformance report for CI: JUnit XML, one `<testsuite>` per spec section, one `<testcase>` per
 * check. failed and unexpected-pass are `<failure>`s; skipped and known-failure are `<skipped>` (a
 * known failure does not fail the run); warned passes with the warning in `<system-out>`. The run's
 * settings, observations and warnings are `<properties>` of every suite.
 */
import type { CheckReport, ConformanceReport } from './conformance-report.js';
import { junitCounts, junitTime, testcaseAttributes, XML_DECLARATION, xmlAttr, xmlText } from './junit-xml.js';

/** The JUnit XML document of a run. */
export function formatJunit(result: ConformanceReport): string {
  const sections = new Map<string, CheckReport[]>();
  for (const check of result.checks) {
    const list = sections.get(check.section);
    if (list) list.push(check);
    else sections.set(check.section, [check]);
  }
  const properties = runProperties(result);
  const lines = [XML_DECLARATION, `<testsuites name="lnpr conformance" ${counts(result.checks)} time="${junitTime(result.durationMs)}">`];
  for (const [section, checks] of sections) {
    const time = checks.reduce((sum, check) => sum + check.durationMs, 0);
    lines.push(`  <testsuite name="${xmlAttr(section)}" ${counts(checks)} time="${junitTime(time)}">`);
    if (properties.length > 0) {
      lines.push('    <properties>');
      for (const [name, value] of properties) lines.push(`      <property name="${xmlAttr(name)}" value="${xmlAttr(value)}"/>`);
      lines.push('    </properties>');
    }
    for (const check of checks) lines.push(...testcase(check));
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

function testcase(check: CheckReport): string[] {
  const open = `    <testcase ${testcaseAttributes(check.id, check.title, check.durationMs)}`;
  const message = check.message ?? '';
  switch (check.outcome) {
    case 'passed':
      return [`${open}/>`];
    case 'failed':
    case 'unexpected-pass': {
      const type = check.outcome === 'failed' ? `${check.level} check failed` : 'unexpected pass';
      return [`${open}>`, `      <failure message="${xmlAttr(firstLine(message))}" type="${xmlAttr(type)}">${xmlText(message)}</failure>`, '    </testcase>'];
    }
    case 'skipped':
      return [`${open}>`, `      <skipped message="${xmlAttr(message)}"/>`, '    </testcase>'];
    case 'known-failure':
      return [`${open}>`, `      <skipped message="${xmlAttr(`known failure: ${message}`)}"/>`, '    </testcase>'];
    case 'warned':
      return [`${open}>`, `      <system-out>${xmlText(`warning (${check.level} check did not hold): ${message}`)}</system-out>`, '    </testcase>'];
  }
}

function runProperties(result: ConformanceReport): Array<[string, string]> {
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

function counts(checks: readonly CheckReport[]): string {
  const failures = checks.filter((check) => check.outcome === 'failed' || check.outcome === 'unexpected-pass').length;
  const skipped = checks.filter((check) => check.outcome === 'skipped' || check.outcome === 'known-failure').length;
  return junitCounts({ tests: checks.length, failures, skipped });
}

function firstLine(message: string): string {
  return message.split(/\r?\n/, 1)[0]!;
}
