/**
 * Runs a loaded scenario against a server with the control API, step by step, and stops at the
 * first step that fails. Uses `fetch` only, so it runs in browsers as well as in the CLI.
 */
import { checkExpectations, render, type Mismatch, type StepResponse } from './expectations.js';
import { resolveReferences, UnresolvedReferenceError } from './references.js';
import type { RawRequest, Scenario, Step } from './scenario-schema.js';
import { sendRequest, type FetchLike } from './send-request.js';
import { describeStep, requestOf } from './step-request.js';

export { TargetUnreachableError, type FetchLike } from './send-request.js';

/** How to run a scenario. */
export interface RunScenarioOptions {
  /** The server, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** The `default` key: steps without `key:` use it, and the scenario's rules go to its account. */
  apiKey: string;
  /** Named keys that win over the file's `keys` (the CLI's `--key name=KEY`). */
  keys?: Record<string, string>;
  /** `globalThis.fetch` unless given. */
  fetch?: FetchLike;
  /** How long one request may take before the target counts as unreachable; 30 s by default. */
  timeoutMs?: number;
  /** Called as each step (and each rules install or removal) finishes, for progress output. */
  onStep?: (result: StepResult) => void;
}

/** What happened to one step. */
export interface StepResult {
  /** 1-based step number; null for the runner's own calls (installing and removing the scenario's rules). */
  index: number | null;
  label: string;
  passed: boolean;
  durationMs: number;
  /** The expectations that did not hold. */
  mismatches: Mismatch[];
  /** Why the step failed when it is not a mismatch (an unknown reference, rules that would not install). */
  error?: string;
  request?: RawRequest;
  response?: StepResponse;
}

/** What happened to a scenario. */
export interface ScenarioResult {
  name: string;
  passed: boolean;
  /** The steps that ran, in order, with the runner's own calls among them (`index: null`). */
  steps: StepResult[];
  /** Steps left out after the first failure. */
  notRun: number;
}

/**
 * Runs `scenario`. A failed expectation ends the run with a failed result; a target that does not
 * answer at all throws `TargetUnreachableError`, since then nothing about the scenario is known.
 */
export async function runScenario(scenario: Scenario, options: RunScenarioOptions): Promise<ScenarioResult> {
  const fetchFn = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const keys: Record<string, string> = { ...scenario.keys, ...options.keys, default: options.apiKey };
  const results: Record<string, unknown> = {};
  const outcomes: StepResult[] = [];
  const record = (result: StepResult): StepResult => {
    outcomes.push(result);
    options.onStep?.(result);
    return result;
  };
  const send = (key: string | null, request: RawRequest) => sendRequest(fetchFn, options.baseUrl, key, request, options.timeoutMs);

  const putRules = async (label: string, rules: unknown[]): Promise<StepResult> => {
    const started = performance.now();
    const request: RawRequest = { method: 'PUT', path: '/sandbox/v1/rules', body: { rules } };
    const response = await send(options.apiKey, request);
    const mismatches = checkExpectations(undefined, response);
    return { index: null, label, passed: mismatches.length === 0, durationMs: performance.now() - started, mismatches, request, response };
  };
  const rules = scenario.rules ?? [];
  const installLabel = `install the scenario's rules: ${rules.map((rule, i) => rule.name ?? `rule ${i + 1}`).join(', ')}`;
  let failedAt: number | undefined;
  if (rules.length > 0 && !record(await putRules(installLabel, rules)).passed) failedAt = 0;

  for (let i = 0; failedAt === undefined && i < scenario.steps.length; i++) {
    const step = scenario.steps[i]!;
    if (!record(await runStep(step, i + 1)).passed) failedAt = i + 1;
  }
  if (rules.length > 0) record(await putRules("remove the scenario's rules", []));

  return {
    name: scenario.name,
    passed: outcomes.every((outcome) => outcome.passed),
    steps: outcomes,
    notRun: failedAt === undefined ? 0 : scenario.steps.length - failedAt,
  };

  async function runStep(step: Step, index: number): Promise<StepResult> {
    const started = performance.now();
    let resolved: Step;
    try {
      resolved = resolveReferences(step, { results, keys });
    } catch (error) {
      if (!(error instanceof UnresolvedReferenceError)) throw error;
      return { index, label: describeStep(step), passed: false, durationMs: performance.now() - started, mismatches: [], error: error.message };
    }
    const label = describeStep(step, resolved);
    if (resolved.key !== undefined && typeof resolved.key !== 'string') {
      return { index, label, passed: false, durationMs: performance.now() - started, mismatches: [], error: `key must be a string, got ${render(resolved.key)}` };
    }
    // A name from `keys` (or `default`) stands for its key; anything else is a key written out.
    const key = resolved.key === undefined ? options.apiKey : Object.hasOwn(keys, resolved.key) ? keys[resolved.key]! : resolved.key;
    const request = requestOf(resolved);
    const response = await send(key, request);
    const mismatches = checkExpectations(resolved.expect, response);
    if (mismatches.length === 0 && step.as !== undefined) results[step.as] = response.body;
    return { index, label, passed: mismatches.length === 0, durationMs: performance.now() - started, mismatches, request, response };
  }
}
