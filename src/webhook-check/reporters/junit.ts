/**
 * The report for CI: JUnit XML, one `<testsuite>`, one `<testcase>` per case (classname: its
 * group, `forged` of `forged.other-secret`). A required case that did not hold is a
 * `<failure>`; an advisory one passes with the warning in `<system-out>`, where every case also
 * logs its deliveries. Escaping is the conformance reporter's, which CI parsers already accept.
 */
import { areaOf, attr, text } from '../../../conformance/reporters/junit.js';
import type { CaseResult, WebhookCheckResult } from '../result.js';
import { formatDeliveryLine } from './pretty.js';

/** The JUnit XML document of a run. */
export function formatJunit(result: WebhookCheckResult): string {
  const failures = result.cases.filter((c) => c.outcome === 'failed').length;
  const counts = `tests="${result.cases.length}" failures="${failures}" errors="0" skipped="0"`;
  const time = seconds(result.durationMs);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="lnpr webhooks check" ${counts} time="${time}">`,
    `  <testsuite name="webhooks check" ${counts} time="${time}">`,
    '    <properties>',
    `      <property name="lnpr.url" value="${attr(result.url)}"/>`,
    `      <property name="lnpr.passed" value="${result.passed}"/>`,
    '    </properties>',
    ...result.cases.flatMap(testcase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

function testcase(result: CaseResult): string[] {
  const lines = [`    <testcase classname="${attr(areaOf(result.id))}" name="${attr(`${result.id}: ${result.title}`)}" time="${seconds(result.durationMs)}">`];
  const message = result.message ?? '';
  if (result.outcome === 'failed') {
    lines.push(`      <failure message="${attr(message.split('\n', 1)[0]!)}" type="required case failed">${text(message)}</failure>`);
  }
  const log = result.deliveries.map(formatDeliveryLine);
  if (result.outcome === 'warned') log.unshift(`warning (advisory case did not hold): ${message}`);
  lines.push(`      <system-out>${text(log.join('\n'))}</system-out>`, '    </testcase>');
  return lines;
}

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}
