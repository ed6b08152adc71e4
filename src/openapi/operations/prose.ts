/**
 * What the document says of an operation that its route declaration does not: words and
 * examples. Everything else (method, path, who may call it, parameters and their schemas, body,
 * answer, errors) comes from the declaration, so prose cannot contradict it; `paths.ts` throws on
 * prose for a parameter, body or answer the route does not have.
 */
import type { ErrorExampleOverrides } from '../error-responses.js';
import { pendingExample } from '../examples.js';
import type { JsonObject } from '../schema-tools.js';

/** The prose of one operation. */
export interface OperationProse {
  /** One of the document's tags. */
  tag: string;
  summary: string;
  description?: string;
  /** A description of each parameter of the path pattern, by name. */
  pathParameters?: Readonly<Record<string, string>>;
  /** A description of each query parameter the route declares, by name. */
  queryParameters?: Readonly<Record<string, string>>;
  /** Headers the handler reads, as OpenAPI parameter objects (e.g. `If-None-Match`). */
  headerParameters?: readonly JsonObject[];
  /** Examples of the request body, by name. */
  bodyExamples?: Readonly<Record<string, unknown>>;
  /** The answer of success: what it is, its examples (by name) and its headers. */
  answer: { description: string; examples?: Readonly<Record<string, unknown>>; headers?: Readonly<Record<string, JsonObject>> };
  /** Answers that are neither success nor error (the 304 of a revalidation), by status. */
  moreResponses?: Readonly<Record<string, JsonObject>>;
  /** The operation's own example of an error code, e.g. `invalid_request` with its details. */
  errorExamples?: ErrorExampleOverrides;
}

/** The prose of a group of routes, by operation id (the route's `name`). */
export type ProseRecord = Readonly<Record<string, OperationProse>>;

/** The `{id}` of a payment request. */
export const PAYMENT_REQUEST_ID = 'The payment request id, `pr_<identifier>`.';

/** `Location` of a created resource. */
export const LOCATION_HEADER = { Location: { $ref: '#/components/headers/Location' } };

/** A change asked of a payment request that has ended. */
export const invalidTransitionExample: ErrorExampleOverrides = {
  invalid_transition: {
    error: {
      code: 'invalid_transition',
      message: `Cannot complete payment request ${pendingExample.id}: it is already completed; completed, expired and failed are final.`,
    },
  },
};
