/**
 * Validation of the create body: ajv, compiled once per sandbox from the schema in src/schemas,
 * turned into one error naming each offending field. Metadata limits the schema cannot state
 * (depth, serialized size) are checked here too, so one 400 lists every problem.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { createPaymentRequestBodySchema, type CreatePaymentRequestBody } from '../schemas/create-payment-request.js';
import { ApiError, type ErrorDetail } from './errors.js';
import { jsonDepthExceeds } from './json-body.js';
import type { SandboxSettings } from './settings.js';

/** Checks a parsed create body; returns it typed, or throws `invalid_request` with details. */
export type CreateBodyValidator = (body: unknown) => CreatePaymentRequestBody;

/** Compiles the validator for these settings. */
export function compileCreateBodyValidator(settings: SandboxSettings): CreateBodyValidator {
  const ajv = new Ajv({ allErrors: true, strict: true });
  const validate = ajv.compile<CreatePaymentRequestBody>(createPaymentRequestBodySchema(settings));
  return (body) => {
    const details = validate(body) ? [] : uniqueDetails((validate.errors ?? []).map(detailOf));
    if (isObject(body) && isObject(body.metadata)) details.push(...metadataProblems(body.metadata, settings));
    if (details.length > 0) {
      throw new ApiError('invalid_request', `Invalid payment request: ${details.map((d) => d.message).join('; ')}.`, details);
    }
    return body as CreatePaymentRequestBody;
  };
}

const TYPE_NAMES: Record<string, string> = {
  integer: 'a whole number',
  string: 'a string',
  object: 'a JSON object',
};

function detailOf(error: ErrorObject): ErrorDetail {
  const field = error.instancePath.slice(1) || (error.keyword === 'required' ? String(error.params.missingProperty) : 'body');
  switch (error.keyword) {
    case 'required':
      return { field, code: 'missing_field', message: `${field} is required` };
    case 'type':
      return {
        field,
        code: 'invalid_type',
        message: `${field} must be ${TYPE_NAMES[String(error.params.type)] ?? error.params.type}`,
      };
    case 'minimum':
      return field === 'amount'
        ? { field, code: 'amount_below_minimum', message: `amount must be at least ${error.params.limit} sats` }
        : { field, code: 'below_minimum', message: `${field} must be at least ${error.params.limit}` };
    case 'maximum':
      return { field, code: 'above_maximum', message: `${field} must be at most ${error.params.limit}` };
    case 'maxLength':
      return {
        field,
        code: 'too_long',
        message: `${field} must be at most ${error.params.limit} characters (Unicode code points)`,
      };
    case 'pattern':
      return field === 'destinationWallet'
        ? { field, code: 'invalid_format', message: 'destinationWallet must be a Lightning address, <name>@<domain>' }
        : { field, code: 'invalid_format', message: `${field} is not in the expected format` };
    default:
      return { field, code: 'invalid', message: `${field} ${error.message ?? 'is invalid'}` };
  }
}

function metadataProblems(metadata: Record<string, unknown>, settings: SandboxSettings): ErrorDetail[] {
  if (jsonDepthExceeds(metadata, settings.maxMetadataDepth)) {
    return [{ field: 'metadata', code: 'too_deep', message: `metadata must nest at most ${settings.maxMetadataDepth} levels` }];
  }
  const bytes = new TextEncoder().encode(JSON.stringify(metadata)).length;
  if (bytes > settings.maxMetadataBytes) {
    return [{ field: 'metadata', code: 'too_large', message: `metadata must be at most ${settings.maxMetadataBytes} bytes as JSON` }];
  }
  return [];
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
