/** Text for people: one line per finished step, and on a failure what was expected and what came. */
import type { ScenarioResult, StepResult } from './run-scenario.js';

const BODY_EXCERPT = 500;

/** The lines for one finished step: `✓ 3 pay ${order.invoice} (12 ms)`, plus details when it failed. */
export function formatStep(result: StepResult): string[] {
  const number = result.index === null ? '·' : String(result.index);
  const lines = [`${result.passed ? '✓' : '✗'} ${number} ${result.label} (${Math.round(result.durationMs)} ms)`];
  if (result.passed) return lines;
  if (result.error !== undefined) lines.push(`    ${result.error}`);
  // Paths line up so expected and actual read as a pair.
  for (const mismatch of result.mismatches) {
    lines.push(`    expected ${mismatch.path}: ${mismatch.expected}`, `    actual   ${mismatch.path}: ${mismatch.actual}`);
  }
  for (const detail of result.details ?? []) lines.push(`    ${detail}`);
  if (result.request !== undefined && result.response !== undefined) {
    lines.push(`    request: ${result.request.method.toUpperCase()} ${result.request.path}`);
    const text = result.response.text;
    lines.push(
      `    response: HTTP ${result.response.status}${text === '' ? ', no body' : ''}`,
      ...(text === '' ? [] : [`    ${text.length > BODY_EXCERPT ? `${text.slice(0, BODY_EXCERPT)}… (${text.length} chars)` : text}`]),
    );
  }
  return lines;
}

/** The lines after a scenario's steps: how many were left out after a failure. */
export function formatScenarioEnd(result: ScenarioResult): string[] {
  return result.notRun > 0 ? [`  (${result.notRun} step${result.notRun === 1 ? '' : 's'} not run)`] : [];
}

/** Numbered steps passed and failed over some results: the summary line's numbers. */
export function countSteps(results: ScenarioResult[]): { passed: number; failed: number } {
  let passed = 0;
  let failed = 0;
  for (const result of results) {
    for (const step of result.steps) {
      // The runner's own calls (rules) count as failures when they fail: the scenario did not hold.
      if (step.passed) passed += step.index === null ? 0 : 1;
      else failed++;
    }
  }
  return { passed, failed };
}

/** The summary line CI tooling looks for: `N passed, M failed`, alone on its line. */
export function formatSummary(counts: { passed: number; failed: number }): string {
  return `${counts.passed} passed, ${counts.failed} failed`;
}
