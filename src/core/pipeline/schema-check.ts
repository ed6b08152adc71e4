/**
 * The one translator from JSON Schema failures to our error details. Every body and query of
 * every route is checked here (ajv, compiled once from a schema in src/schemas), so each 400 names
 * each offending field by its path in dot form (`amount`, `faults.duplicate`, `events.0`), names
 * unknown fields and the known ones, lists the allowed values, and uses only the codes of
 * `detail-codes.ts`. Fields are named generically: what a route knows of its own fields (a unit,
 * what a pattern means) comes in as notes from the route's declaration.
 */
import { Ajv, type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv';
import type { DetailCode } from '../errors/detail-codes.js';
import type { ErrorDetail } from '../errors/errors.js';

/** What a route says of one of its fields, to word its problems for people. */
export interface FieldNote {
  /** The unit of a number, e.g. `sats`: "amount must be at least 21 sats". */
  unit?: string;
  /** What a pattern stands for: "destinationWallet must be a Lightning address, <name>@<domain>". */
  expected?: string;
  /** A code of the field's own for a value under its minimum (`amount_below_minimum`). */
  belowMinimumCode?: DetailCode;
}

/** Where the checked value came from: a body has fields, a query has parameters. */
export type InputPlace = 'body' | 'query';

/** Options of `compileSchemaCheck`. */
export interface SchemaCheckOptions {
  place: InputPlace;
  /** Notes by field path in dot form, with `*` standing for any list index (`rules.*.outcome`). */
  notes?: Readonly<Record<string, FieldNote>>;
}

/** Checks a value against the schema; returns every problem found (none: valid). */
export type SchemaCheck = (value: unknown) => ErrorDetail[];

/** The check of `schema`, compiled on first use (compiling every schema up front slows start-up). */
export function compileSchemaCheck(schema: AnySchema, options: SchemaCheckOptions): SchemaCheck {
  let validate: ValidateFunction | undefined;
  return (value) => {
    // One Ajv per schema: schemas built per settings share an `$id`, which one instance refuses twice.
    validate ??= new Ajv({ allErrors: true, strict: true, verbose: true }).compile(schema);
    return validate(value) ? [] : translate(validate.errors ?? [], options);
  };
}

/** The most details one answer lists: a list of 100,000 wrong items gets its first 50 and a note that there are more. */
export const MAX_DETAILS = 50;

/** How many of ajv's errors are folded at a time, and the most looked at before giving up on filling the list. */
const ERRORS_PER_ROUND = 100;
const MAX_ERRORS_READ = 2_000;

/**
 * Our details for ajv's errors: one per field and problem, branch noise of `oneOf` folded away, at
 * most `MAX_DETAILS` of them. The errors are read in rounds and reading stops once the list is
 * full, so a huge body's 100,000 errors cost no more than its first few hundred; the last detail
 * then says that more are not listed (counting them would cost what the cap saves).
 */
export function translate(errors: readonly ErrorObject[], options: SchemaCheckOptions): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  let read = 0;
  while (read < errors.length && details.length <= MAX_DETAILS && read < MAX_ERRORS_READ) {
    const end = roundEnd(errors, read);
    for (const error of withoutBranchNoise(errors.slice(read, end))) {
      const detail = detailOf(error, options);
      const key = `${detail.field}:${detail.code}`;
      if (seen.has(key)) continue;
      seen.add(key);
      details.push(detail);
    }
    read = end;
  }
  if (details.length > MAX_DETAILS || (read < errors.length && details.length > 0)) return withMoreNotListed(details);
  return details;
}

/** What the last detail listed says when there were more. */
const MORE_NOT_LISTED = ` (and more problems, not listed: an answer lists at most ${MAX_DETAILS})`;

/** The first `MAX_DETAILS` of `details`, the last saying that more are not listed (once). */
export function withMoreNotListed(details: readonly ErrorDetail[]): ErrorDetail[] {
  const listed = details.slice(0, MAX_DETAILS);
  const last = listed[listed.length - 1];
  if (last !== undefined && !last.message.endsWith(MORE_NOT_LISTED)) listed[listed.length - 1] = { ...last, message: `${last.message}${MORE_NOT_LISTED}` };
  return listed;
}

/**
 * Where a round of errors starting at `start` may end: after `ERRORS_PER_ROUND`, but never inside a
 * oneOf/anyOf. ajv reports a failed alternative right after the errors of its branches, all in one
 * run, so a round ends once its last error belongs to no branch (a branch's errors name the oneOf in
 * their schemaPath; a `$ref` in a branch would hide it, and no schema here has one), and
 * `withoutBranchNoise` sees whole runs.
 */
function roundEnd(errors: readonly ErrorObject[], start: number): number {
  let end = Math.min(errors.length, start + ERRORS_PER_ROUND);
  while (end < errors.length && /\/(?:oneOf|anyOf)\//.test(errors[end - 1]!.schemaPath)) end++;
  return end;
}

/**
 * A value that matches no branch of a oneOf/anyOf: when its JSON type picks one branch, that
 * branch's own errors say what is wrong (`amount.min` below 1); otherwise one detail names the
 * forms the value may take, not one per branch it failed.
 */
function withoutBranchNoise(errors: readonly ErrorObject[]): ErrorObject[] {
  const dropped = new Set<ErrorObject>();
  for (const alternative of errors) {
    if (alternative.keyword !== 'oneOf' && alternative.keyword !== 'anyOf') continue;
    const branches = Array.isArray(alternative.schema) ? (alternative.schema as Array<{ type?: unknown }>) : [];
    const typed = branches.flatMap((branch, index) => (branch.type !== undefined && typeMatches(branch.type, alternative.data) ? [index] : []));
    const chosen = typed.length === 1 ? `${alternative.schemaPath}/${typed[0]}/` : undefined;
    if (chosen !== undefined) dropped.add(alternative);
    for (const error of errors) {
      const within = error.instancePath === alternative.instancePath || error.instancePath.startsWith(`${alternative.instancePath}/`);
      if (!within || !error.schemaPath.startsWith(`${alternative.schemaPath}/`)) continue;
      if (chosen === undefined || !error.schemaPath.startsWith(chosen)) dropped.add(error);
    }
  }
  return errors.filter((error) => !dropped.has(error));
}

function typeMatches(type: unknown, value: unknown): boolean {
  const jsonType = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' && Number.isInteger(value) ? 'integer' : typeof value;
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => t === jsonType || (t === 'number' && jsonType === 'integer'));
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'a string',
  object: 'a JSON object',
  array: 'a list',
  boolean: 'true or false',
  null: 'null',
};

function detailOf(error: ErrorObject, { place, notes = {} }: SchemaCheckOptions): ErrorDetail {
  const path = pathOf(error.instancePath);
  const field = path === '' ? place : path;
  const note = noteFor(notes, path);
  const params = error.params as Record<string, unknown>;
  const limit = params.limit as number;
  const unit = note?.unit ? ` ${note.unit}` : '';
  switch (error.keyword) {
    case 'required': {
      const missing = join(path, String(params.missingProperty));
      return { field: missing, code: 'missing_field', message: `${missing} is required` };
    }
    case 'additionalProperties': {
      const unknown = join(path, String(params.additionalProperty));
      return { field: unknown, code: place === 'query' ? 'unknown_parameter' : 'unknown_field', message: unknownMessage(unknown, path, error, place) };
    }
    case 'type':
      return { field, code: 'invalid_type', message: `${field} must be ${typeNames(params.type)}` };
    case 'enum':
      return { field, code: 'invalid_value', message: `${field} must be one of ${(params.allowedValues as unknown[]).map(show).join(', ')}` };
    case 'const':
      return { field, code: 'invalid_value', message: `${field} must be ${show(params.allowedValue)}` };
    case 'minimum':
    case 'exclusiveMinimum': {
      const bound = error.keyword === 'minimum' ? 'at least' : 'more than';
      return { field, code: note?.belowMinimumCode ?? 'below_minimum', message: `${field} must be ${bound} ${limit}${unit}` };
    }
    case 'maximum':
    case 'exclusiveMaximum': {
      const bound = error.keyword === 'maximum' ? 'at most' : 'less than';
      return { field, code: 'above_maximum', message: `${field} must be ${bound} ${limit}${unit}` };
    }
    case 'maxLength':
      return { field, code: 'too_long', message: `${field} must be at most ${limit} characters (Unicode code points)` };
    case 'minLength':
      return { field, code: 'too_short', message: limit === 1 ? `${field} must not be empty` : `${field} must be at least ${limit} characters` };
    case 'pattern':
      return { field, code: 'invalid_format', message: note?.expected ? `${field} must be ${note.expected}` : `${field} is not in the expected format` };
    case 'format':
      return { field, code: 'invalid_format', message: `${field} must be a ${String(params.format)}` };
    case 'minItems':
      return { field, code: 'too_few_items', message: `${field} must have at least ${limit} item${limit === 1 ? '' : 's'}` };
    case 'maxItems':
      return { field, code: 'too_many_items', message: `${field} must have at most ${limit} items` };
    case 'uniqueItems':
      return { field, code: 'duplicate_items', message: `${field} must not repeat an item (items ${params.j} and ${params.i} are the same)` };
    case 'minProperties':
      return { field, code: 'too_few_fields', message: `${field} must have at least ${limit} field${limit === 1 ? '' : 's'}` };
    case 'oneOf':
    case 'anyOf':
      return { field, code: 'invalid_type', message: `${field} must be ${formsOf(error.schema)}` };
    default:
      // A keyword our schemas do not use yet: still a field-named 400, in ajv's words.
      return { field, code: 'invalid_value', message: `${field} ${error.message ?? 'is not allowed'}` };
  }
}

/** `/faults/duplicate` → `faults.duplicate` (JSON Pointer escapes undone). */
function pathOf(instancePath: string): string {
  if (instancePath === '') return '';
  return instancePath
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
}

function join(parent: string, name: string): string {
  return parent === '' ? name : `${parent}.${name}`;
}

function noteFor(notes: Readonly<Record<string, FieldNote>>, path: string): FieldNote | undefined {
  return notes[path] ?? notes[path.replace(/(^|\.)\d+(?=\.|$)/g, '$1*')];
}

function unknownMessage(field: string, parent: string, error: ErrorObject, place: InputPlace): string {
  const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
  const list = known.length === 0 ? 'it takes none' : `known: ${known.join(', ')}`;
  if (place === 'query') return `${field} is not a parameter here (${list})`;
  return `${field} is not a field ${parent === '' ? 'here' : `of ${parent}`} (${list})`;
}

function typeNames(type: unknown): string {
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((t) => TYPE_NAMES[String(t)] ?? String(t)).join(' or ');
}

/** The forms a oneOf/anyOf allows, from its branches' types: "a whole number or a JSON object". */
function formsOf(branches: unknown): string {
  if (!Array.isArray(branches)) return 'in one of the allowed forms';
  const forms = branches.map((branch) => {
    const schema = branch as { type?: unknown; enum?: unknown[]; const?: unknown };
    if (schema.type !== undefined) return typeNames(schema.type);
    if (schema.enum) return `one of ${schema.enum.map(show).join(', ')}`;
    if ('const' in schema) return show(schema.const);
    return 'another form';
  });
  return [...new Set(forms)].join(' or ');
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
