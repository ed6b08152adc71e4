/**
 * Request-body validation: ajv, compiled once from a schema in src/schemas, turned into one
 * `invalid_request` error whose details name each offending field. Checks a schema cannot state
 * join the same list, so one 400 reports every problem.
 */
import { Ajv, type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv';
import { ApiError, type ErrorDetail } from './errors.js';

/** Checks a parsed body; returns it typed, or throws `invalid_request` with details. */
export type BodyValidator<T> = (body: unknown) => T;

/** Options of `compileBodyValidator`. */
export interface BodyValidatorOptions {
  /** Names the body in the error message, e.g. "payment request". */
  what: string;
  /** Problems beyond the schema, looked for whether or not the schema passed. */
  extraProblems?: (body: unknown) => ErrorDetail[];
}

/** The validator of `schema`, compiled on first use (compiling every schema up front slows start-up). */
export function compileBodyValidator<T>(schema: AnySchema, { what, extraProblems }: BodyValidatorOptions): BodyValidator<T> {
  let validate: ValidateFunction<T> | undefined;
  return (body) => {
    validate ??= new Ajv({ allErrors: true, strict: true }).compile<T>(schema);
    const details = validate(body) ? [] : uniqueDetails((validate.errors ?? []).map(detailOf));
    if (extraProblems) details.push(...extraProblems(body));
    if (details.length > 0) {
      throw new ApiError('invalid_request', `Invalid ${what}: ${details.map((d) => d.message).join('; ')}.`, details);
    }
    return body as T;
  };
}

const TYPE_NAMES: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'a string',
  object: 'a JSON object',
  array: 'an array',
};

function detailOf(error: ErrorObject): ErrorDetail {
  const field = error.instancePath.slice(1).replaceAll('/', '.') || (error.keyword === 'required' ? String(error.params.missingProperty) : 'body');
  switch (error.keyword) {
    case 'required':
      return { field, code: 'missing_field', message: `${field} is required` };
    case 'type':
      return { field, code: 'invalid_type', message: `${field} must be ${TYPE_NAMES[String(error.params.type)] ?? error.params.type}` };
    case 'minimum':
      return field === 'amount'
        ? { field, code: 'amount_below_minimum', message: `amount must be at least ${error.params.limit} sats` }
        : { field, code: 'below_minimum', message: `${field} must be at least ${error.params.limit}` };
    case 'maximum':
      return { field, code: 'above_maximum', message: `${field} must be at most ${error.params.limit}` };
    case 'maxLength':
      return { field, code: 'too_long', message: `${field} must be at most ${error.params.limit} characters (Unicode code points)` };
    case 'minLength':
      return { field, code: 'too_short', message: `${field} must be at least ${error.params.limit} characters` };
    case 'pattern':
      return field === 'destinationWallet'
        ? { field, code: 'invalid_format', message: 'destinationWallet must be a Lightning address, <name>@<domain>' }
        : { field, code: 'invalid_format', message: `${field} is not in the expected format` };
    default:
      return { field, code: 'invalid', message: `${field} ${error.message ?? 'is invalid'}` };
  }
}

function uniqueDetails(details: ErrorDetail[]): ErrorDetail[] {
  const seen = new Set<string>();
  return details.filter((detail) => {
    const key = `${detail.field}:${detail.code}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
