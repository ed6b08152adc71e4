/**
 * Reading a route's declared input: the JSON body and the query, each checked against its schema
 * by the one translator and by the route's own checks of its fields' form, together, so every
 * problem of either is reported in one `invalid_request`. Query values are text; a parameter
 * declared as a whole number is read as one when it looks like one, so the schema (not this file)
 * says what is allowed.
 */
import { ApiError, type ErrorDetail } from '../errors/errors.js';
import { parseJsonBody } from './json-body.js';
import type { ApiRequest } from './messages.js';
import type { BodyDeclaration, QueryDeclaration } from './route.js';
import { compileSchemaCheck, MAX_DETAILS, withMoreNotListed } from './schema-check.js';

/** Reads a request's body as `declaration` says, or throws the 4xx that says why not. */
export type BodyReader = (request: ApiRequest) => unknown;

/** Reads a request URL's query as `declaration` says, or throws `invalid_request`. */
export type QueryReader = (url: string) => unknown;

/** The reader of a declared body. */
export function bodyReader(declaration: BodyDeclaration<unknown>): BodyReader {
  const check = bodyCheck(declaration);
  const parse = (request: ApiRequest) => parseJsonBody(request.headers['content-type'], request.body);
  // An optional body left out (no bytes, whatever the Content-Type) reads as `{}`.
  if (declaration.optional) return (request) => check(request.body === undefined || request.body === '' ? {} : parse(request));
  return (request) => check(parse(request));
}

/**
 * Checks a parsed body as `declaration` says: returns it typed, or throws `invalid_request` naming
 * its problems, the schema's first and then the route's own, at most `MAX_DETAILS` as the translator lists them.
 */
export function bodyCheck<Body>(declaration: BodyDeclaration<Body>): (body: unknown) => Body {
  const check = compileSchemaCheck(declaration.schema, { place: 'body', ...(declaration.notes ? { notes: declaration.notes } : {}) });
  return (body) => {
    const details = check(body);
    if (declaration.check) details.push(...declaration.check(body));
    if (details.length > 0) throw invalidRequest(declaration.what, details.length > MAX_DETAILS ? withMoreNotListed(details) : details);
    return body as Body;
  };
}

/** The reader of a declared query. */
export function queryReader(declaration: QueryDeclaration<unknown>): QueryReader {
  const check = compileSchemaCheck(declaration.schema, { place: 'query' });
  const { properties } = declaration.schema;
  return (url) => {
    // No prototype: parameters named `constructor` or `__proto__` are parameters like any other.
    const query: Record<string, string | number> = Object.create(null);
    const start = url.indexOf('?');
    if (start !== -1) {
      for (const [name, text] of new URLSearchParams(url.slice(start + 1))) {
        if (Object.hasOwn(query, name)) continue; // the first of repeated parameters counts
        const schema = properties[name];
        query[name] = schema && 'type' in schema && schema.type === 'integer' && /^-?\d+$/.test(text) ? Number(text) : text;
      }
    }
    const details = check(query);
    if (declaration.check) details.push(...declaration.check(query));
    if (details.length > 0) throw invalidRequest('query', details.length > MAX_DETAILS ? withMoreNotListed(details) : details);
    return query;
  };
}

function invalidRequest(what: string, details: ErrorDetail[]): ApiError {
  return new ApiError('invalid_request', `Invalid ${what}: ${details.map((d) => d.message).join('; ')}.`, details);
}
