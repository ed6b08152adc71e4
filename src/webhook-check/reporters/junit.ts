/**
 * The report for CI: JUnit XML, one `<testsuite>`, one `<testcase>` per case (classname: its
 * group, `forged` of `forged.other-secret`). A required case that did not hold is a
 * `<failure>`; an advisory one passes with the warning in `<system-out>`, where every case also
 * logs its deliveries. The escaping and the attributes are the shared ones of src/reporting, which
 * CI parsers already accept from the conformance report.
 */
import { junitCounts, junitTime, testcaseAttributes, XML_DECLARATION, xmlAttr, xmlText } from '../../reporting/junit-xml.js';
import type { CaseResult, WebhookCheckResult } from '../result.js';
import { formatDeliveryLine } from './pretty.js';

/** The JUnit XML document of a run. */
export function formatJunit(result: WebhookCheckResult): string {
  const failures = result.cases.filter((c) => c.outcome === 'failed').length;
  const counts = junitCounts({ tests: result.cases.length, failures, skipped: 0 });
  const time = junitTime(result.durationMs);
  return [
    XML_DECLARATION,
    `<testsuites name="lnpr webhooks check" ${counts} time="${time}">`,
    `  <testsuite name="webhooks check" ${counts} time="${time}">`,
    '    <properties>',
    `      <property name="lnpr.url" value="${xmlAttr(result.url)}"/>`,
    `      <property name="lnpr.passed" value="${result.passed}"/>`,
    '    </properties>',
    ...result.cases.flatMap(testcase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

function testcase(result: CaseResult): string[] {
  const lines = [`    <testcase ${testcaseAttributes(result.id, result.title, result.durationMs)}>`];
  const message = result.message ?? '';
  if (result.outcome === 'failed') {
    lines.push(`      <failure message="${xmlAttr(message.split('\n', 1)[0]!)}" type="required case failed">${xmlText(message)}</failure>`);
  }
  const log = result.deliveries.map(formatDeliveryLine);
  if (result.outcome === 'warned') log.unshift(`warning (advisory case did not hold): ${message}`);
  lines.push(`      <system-out>${xmlText(log.join('\n'))}</system-out>`, '    </testcase>');
  return lines;
}
