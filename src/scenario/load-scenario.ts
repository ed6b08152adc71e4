/**
 * Reads a scenario from YAML text and validates all of it before anything runs, so a mistake on
 * step 9 is reported before step 1 touches a server. Problems name the step and its line.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { LineCounter, parseDocument, isSeq, type Node } from 'yaml';
import { malformedReferences } from './references.js';
import { scenarioSchema, STEP_ACTIONS, STEP_OPTIONS, type Scenario } from './scenario-schema.js';

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
  problems.push(...referenceProblems(data));
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

const DESCRIBED_KEYWORDS = new Set(['type', 'pattern', 'minimum', 'minLength']);

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

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function unescapePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

function firstLine(text: string): string {
  return text.split('\n')[0]!;
}
