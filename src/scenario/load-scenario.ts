/**
 * Reads a scenario from YAML text and validates all of it before anything runs, so a mistake on
 * step 9 is reported before step 1 touches a server. Problems name the step and its line.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { LineCounter, parseDocument, isSeq, type Node } from 'yaml';
import { malformedReferences } from './references.js';
import {
  DROPPED_EXPECTATIONS,
  HTTP_EXPECTATIONS,
  READ_ONLY_ACTIONS,
  RECEIVED_EXPECTATIONS,
  scenarioSchema,
  STEP_ACTIONS,
  STEP_OPTIONS,
  WALLET_PAY_EXPECTATIONS,
  type Scenario,
} from './scenario-schema.js';

/** A scenario file that cannot run: every problem found, one per line in `message`. */
export class ScenarioFileError extends Error {
  override readonly name = 'ScenarioFileError';
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source} is not a valid scenario:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}

// allowUnionTypes: `advance` is a number or a reference; verbose: messages use the schema's descriptions.
const validate = new Ajv({ allErrors: true, allowUnionTypes: true, verbose: true }).compile<Scenario>(scenarioSchema);

/** The scenario in `text` (YAML or JSON), validated; `source` names it in messages (a file name). */
export function loadScenario(text: string, source = 'scenario'): Scenario {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  if (document.errors.length > 0) {
    const lines = text.split('\n');
    const byLine = new Map<number, string>();
    for (const error of document.errors) {
      const line = lineCounter.linePos(error.pos[0]).line;
      // One slip often yields several parser errors on its line; the first says it best.
      if (byLine.has(line)) continue;
      // The commonest slip: `{ body: ${order.id} }`; in flow style `{` and `}` end a plain value.
      const hint = lines[line - 1]?.includes('${') ? ' (inside { } or [ ], quote references: "${order.id}")' : '';
      byLine.set(line, `line ${line}: ${firstLine(error.message)}${hint}`);
    }
    throw new ScenarioFileError(source, [...byLine.values()]);
  }
  const data: unknown = document.toJS();
  const stepLine = (index: number): number | undefined => {
    const steps = document.get('steps', true) as Node | undefined;
    const node = isSeq(steps) ? (steps.items[index] as Node | undefined) : undefined;
    return node?.range ? lineCounter.linePos(node.range[0]).line : undefined;
  };

  const problems = validate(data) ? [] : schemaProblems(validate.errors ?? [], data);
  problems.push(...referenceProblems(data), ...receiverProblems(data), ...walletAndRetryProblems(data));
  problems.sort((a, b) => (a.step ?? -1) - (b.step ?? -1));
  if (problems.length > 0) {
    throw new ScenarioFileError(
      source,
      problems.map(({ step, text: problem }) => {
        if (step === undefined) return problem;
        const line = stepLine(step);
        return `step ${step + 1}${line !== undefined ? ` (line ${line})` : ''}: ${problem}`;
      }),
    );
  }
  return data as Scenario;
}

interface Problem {
  /** 0-based step index, when the problem is in a step. */
  step?: number;
  text: string;
}

/** Ajv's errors as sentences, grouped by step, one per problem. */
function schemaProblems(errors: ErrorObject[], data: unknown): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const add = (problem: Problem) => {
    const key = `${problem.step}\u0000${problem.text}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(problem);
    }
  };
  for (const error of errors) {
    const segments = error.instancePath.split('/').slice(1).map(unescapePointer);
    const inStep = segments[0] === 'steps' && segments.length >= 2;
    const step = inStep ? Number(segments[1]) : undefined;
    const where = (inStep ? segments.slice(2) : segments).join('.');
    const at = (text: string) => (where === '' ? text : `${where} ${text}`);

    if (error.schemaPath.startsWith('#/properties/steps/items/oneOf')) {
      // "Exactly one action" is one fact about the step; say which actions it has, not ajv's branches.
      const value = (data as { steps: unknown[] }).steps[step!];
      if (isObject(value)) add({ step, text: actionProblem(value) });
    } else if (error.keyword === 'type' && where === '') {
      add({ step, text: inStep ? 'a step must be a mapping, e.g. `- read: ${order.id}`' : segments.length === 0 ? 'the file must be a mapping with name and steps' : `${segments.join('.')} ${error.message}` });
    } else if (error.keyword === 'additionalProperties') {
      const name = (error.params as { additionalProperty: string }).additionalProperty;
      const allowed = inStep && where === '' ? ` (a step takes one action of ${STEP_ACTIONS.join(', ')}; and optionally ${STEP_OPTIONS.join(', ')})` : '';
      add({ step, text: `${where === '' ? '' : `${where}: `}unknown key "${name}"${allowed}` });
    } else if (error.keyword === 'required') {
      add({ step, text: `${where === '' ? '' : `${where}: `}"${(error.params as { missingProperty: string }).missingProperty}" is required` });
    } else if (error.keyword === 'not' && error.schemaPath.endsWith('/request/not')) {
      add({ step, text: 'request takes body or rawBody, not both' });
    } else if (error.keyword === 'propertyNames' || error.schemaPath.includes('/propertyNames/')) {
      const name = (error.params as { propertyName?: string }).propertyName;
      if (name !== undefined) add({ step, text: `${where}: "${name}" is not a usable name (letters, digits and _; not default, keys or __proto__)` });
    } else if (error.keyword === 'const') {
      add({ step, text: at(`must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`) });
    } else if (error.keyword === 'enum') {
      add({ step, text: at(`must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`) });
    } else if (DESCRIBED_KEYWORDS.has(error.keyword) && typeof error.parentSchema?.description === 'string') {
      // Where the schema says in words what it wants, that reads better than the keyword's failure.
      add({ step, text: at(`must be ${error.parentSchema.description}`) });
    } else if (error.keyword === 'minItems' && where === 'steps') {
      add({ step, text: 'steps: a scenario needs at least one step' });
    } else {
      add({ step, text: at(error.message ?? 'is invalid') });
    }
  }
  return problems;
}

const DESCRIBED_KEYWORDS = new Set(['type', 'pattern', 'minimum', 'minLength', 'not']);

function actionProblem(step: Record<string, unknown>): string {
  const actions = STEP_ACTIONS.filter((action) => Object.hasOwn(step, action));
  return actions.length === 0
    ? `no action: a step takes exactly one of ${STEP_ACTIONS.join(', ')}`
    : `${actions.length} actions (${actions.join(', ')}): a step takes exactly one`;
}

/** References that could never resolve because they are malformed. */
function referenceProblems(data: unknown): Problem[] {
  const steps = isObject(data) && Array.isArray(data.steps) ? (data.steps as unknown[]) : [];
  const problems: Problem[] = [];
  steps.forEach((step, index) => {
    for (const reference of malformedReferences(step)) {
      problems.push({ step: index, text: `malformed reference ${reference}: write \${name} or \${name.field}` });
    }
  });
  return problems;
}

/**
 * What the schema cannot say about receivers: a `receiver` needs a name and sends nothing to
 * expect on; `received` names a receiver started earlier and takes only expectations about
 * deliveries, which in turn mean nothing on a step that sends a request.
 */
function receiverProblems(data: unknown): Problem[] {
  const steps = isObject(data) && Array.isArray(data.steps) ? (data.steps as unknown[]) : [];
  const problems: Problem[] = [];
  const receivers: string[] = [];
  const httpOnly = new Set<string>(HTTP_EXPECTATIONS);
  const receivedOnly = RECEIVED_EXPECTATIONS.filter((key) => !httpOnly.has(key));
  steps.forEach((step, index) => {
    if (!isObject(step)) return;
    const actions = STEP_ACTIONS.filter((action) => Object.hasOwn(step, action));
    if (actions.length !== 1) return;
    const add = (text: string) => problems.push({ step: index, text });
    const expectations = isObject(step.expect) ? Object.keys(step.expect) : [];
    if (actions[0] === 'receiver') {
      if (typeof step.as === 'string') receivers.push(step.as);
      else add('a receiver needs a name, `as: NAME`, for `received: NAME` and `${NAME.url}`');
      if (step.expect !== undefined || step.key !== undefined) add('a receiver takes no expect or key: it sends no request (a later `received` step expects on what it got)');
    } else if (actions[0] === 'received') {
      if (step.key !== undefined) add('received takes no key: it sends no request');
      if (typeof step.received === 'string' && !receivers.includes(step.received)) {
        add(`received: "${step.received}" is not the name of an earlier receiver step (${receivers.length > 0 ? `receivers so far: ${receivers.join(', ')}` : 'none so far'})`);
      }
      for (const key of expectations.filter((key) => !(RECEIVED_EXPECTATIONS as readonly string[]).includes(key))) {
        add(`expect.${key} does not apply to received (it takes ${RECEIVED_EXPECTATIONS.join(', ')})`);
      }
    } else if (actions[0] !== 'walletPay') {
      for (const key of expectations.filter((key) => (receivedOnly as readonly string[]).includes(key))) {
        add(`expect.${key} applies only to received steps (what a receiver got)`);
      }
    }
  });
  return problems;
}

/**
 * What the schema cannot say about `walletPay` (no server, so no key, and only expectations about
 * the wallet's answer), `within` (asking again is harmless only for steps that only read) and
 * `dropped` (there is no answer to expect anything of).
 */
function walletAndRetryProblems(data: unknown): Problem[] {
  const steps = isObject(data) && Array.isArray(data.steps) ? (data.steps as unknown[]) : [];
  const problems: Problem[] = [];
  steps.forEach((step, index) => {
    if (!isObject(step)) return;
    const actions = STEP_ACTIONS.filter((action) => Object.hasOwn(step, action));
    if (actions.length !== 1) return;
    const action = actions[0]!;
    const add = (text: string) => problems.push({ step: index, text });
    const expect = isObject(step.expect) ? step.expect : {};
    if (action === 'walletPay') {
      if (step.key !== undefined) add('walletPay takes no key: it pays through the wallet over Nostr, not through the server');
      for (const key of Object.keys(expect).filter((key) => !(WALLET_PAY_EXPECTATIONS as readonly string[]).includes(key))) {
        add(`expect.${key} does not apply to walletPay (it takes ${WALLET_PAY_EXPECTATIONS.join(', ')})`);
      }
    }
    if (step.within !== undefined && !readsOnly(action, step)) {
      add(`within asks again, so it is only for steps that only read: ${READ_ONLY_ACTIONS.join(', ')}, and request with GET or HEAD`);
    }
    if (expect.dropped === true) {
      const others = Object.keys(expect).filter((key) => !(DROPPED_EXPECTATIONS as readonly string[]).includes(key));
      if (others.length > 0) add(`expect.dropped: there is no answer to expect ${others.join(', ')} of (only tookAtLeastMs goes with dropped)`);
      if (step.within !== undefined) add('within does not go with expect.dropped: a request that got no answer is not asked again');
    }
  });
  return problems;
}

function readsOnly(action: string, step: Record<string, unknown>): boolean {
  if ((READ_ONLY_ACTIONS as readonly string[]).includes(action)) return true;
  const method = isObject(step.request) ? step.request.method : undefined;
  return action === 'request' && typeof method === 'string' && ['GET', 'HEAD'].includes(method.toUpperCase());
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function unescapePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

function firstLine(text: string): string {
  return text.split('\n')[0]!;
}
