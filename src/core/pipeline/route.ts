/**
 * What a route is: data the pipeline acts on, and one handler. A route states its method and
 * path, who may call it, its body and query schemas and its answers; the pipeline authenticates,
 * parses and checks before the handler runs, so a handler receives a typed, valid input and never
 * validates. The OpenAPI document is a view of these declarations plus prose, never a second
 * statement of them (fastify's route schemas and Prism's pipeline stages, in our own words).
 */
import type { AnySchema } from 'ajv';
import type { Caller, KeyHolder, Permission } from '../accounts/accounts.js';
import type { ErrorCode, ErrorDetail } from '../errors/errors.js';
import type { ApiRequest, RouteReply } from './messages.js';
import type { PathParams } from './router.js';
import type { FieldNote } from './schema-check.js';

/** Who may call a route: anyone (`public`), any valid key (`key`), or a key with this permission. */
export type Access = 'public' | 'key' | Permission;

/** A JSON body a route takes. `Body` is the type a valid body has. */
export interface BodyDeclaration<Body> {
  /** A schema of src/schemas. */
  schema: AnySchema;
  /** Names the body in the error message: "Invalid payment request: …". */
  what: string;
  /** What the route knows of its fields, to word their problems (units, what a pattern means). */
  notes?: Readonly<Record<string, FieldNote>>;
  /**
   * Problems of a field's form a schema cannot state (a URL's scheme, a pattern that is no regular
   * expression), looked for whether or not the schema passed, so one answer names every wrong
   * field. It gets the body as sent, of any shape. Checks against the account's state (a balance,
   * its clock, how many it has) are the handler's, once the input is valid.
   */
  check?: (body: unknown) => ErrorDetail[];
  /** The body may be left out (no bytes at all): the route then gets `{}`. A body that is there is read as any other. */
  optional?: boolean;
  /** Carries `Body` for type inference only; never set. */
  readonly type?: Body;
}

/** One query parameter: a whole number, a string, or one of a list of strings. */
export type QueryParameterSchema =
  | { type: 'integer'; minimum?: number; maximum?: number; description?: string }
  | { type: 'string'; minLength?: number; maxLength?: number; description?: string }
  | { enum: readonly string[]; description?: string };

/** The query a route takes; any other parameter is a 400. `Query` is the type a valid one has. */
export interface QueryDeclaration<Query> {
  schema: { type: 'object'; additionalProperties: false; properties: Readonly<Record<string, QueryParameterSchema>> };
  /** Problems of a parameter's form the schema cannot state, looked for with the schema's (as a body's `check`). */
  check?: (query: Readonly<Record<string, string | number>>) => ErrorDetail[];
  /** Carries `Query` for type inference only; never set. */
  readonly type?: Query;
}

/** The answer of a route that succeeds. */
export interface RouteAnswer {
  status: number;
  /** The body's schema, from src/schemas; none for an answer without a body. */
  schema?: AnySchema;
}

/**
 * What a handler receives: the caller (none on public routes; on `accounts` routes the key's
 * holder, who may have no account) and the checked input.
 */
export interface RouteInput<Body, Query, A extends Access> {
  caller: A extends 'public' ? undefined : A extends 'accounts' ? KeyHolder : Caller;
  params: PathParams;
  body: Body;
  query: Query;
  request: ApiRequest;
}

/** A route: its declaration and its handler, which gets the input and the engine's parts. */
export interface RouteDeclaration<Deps, Body = undefined, Query = undefined, A extends Access = Access> {
  /** The operation's name, stable (the OpenAPI `operationId`). */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** A path pattern, parameters after a colon: `/api/v1/payment-requests/:id`. */
  path: string;
  access: A;
  body?: BodyDeclaration<Body>;
  query?: QueryDeclaration<Query>;
  answer: RouteAnswer;
  /** Codes the handler itself may answer with; those of access, body and query follow from them. */
  errors?: readonly ErrorCode[];
  handle(input: RouteInput<Body, Query, A>, deps: Deps): RouteReply | Promise<RouteReply>;
}

/** A route of any body and query, as tables hold them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute<Deps> = RouteDeclaration<Deps, any, any, any>;

/** Declares a route; only there to infer its types. */
export function declareRoute<Deps, Body = undefined, Query = undefined, A extends Access = Access>(
  route: RouteDeclaration<Deps, Body, Query, A>,
): RouteDeclaration<Deps, Body, Query, A> {
  return route;
}

/** Declares a body whose valid form has type `Body`. */
export function declareBody<Body>(body: Omit<BodyDeclaration<Body>, 'type'>): BodyDeclaration<Body> {
  return body;
}

/** Declares a query whose valid form has type `Query`. */
export function declareQuery<Query>(
  properties: Readonly<Record<string, QueryParameterSchema>>,
  check?: QueryDeclaration<Query>['check'],
): QueryDeclaration<Query> {
  return { schema: { type: 'object', additionalProperties: false, properties }, ...(check === undefined ? {} : { check }) };
}

/**
 * The error codes a route can answer with, from its declaration: those its body and query bring,
 * its access, its own, and what a transport answers for any body (413, 415).
 */
export function errorCodesOf(route: AnyRoute<unknown>): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (route.body) codes.push('invalid_json', 'invalid_request');
  if (route.query) codes.push('invalid_request');
  if (route.access !== 'public') codes.push('unauthorized');
  if (route.access !== 'public' && route.access !== 'key') codes.push('insufficient_permission');
  codes.push(...(route.errors ?? []));
  if (route.body) codes.push('payload_too_large', 'unsupported_media_type');
  // Whatever changes something writes it: a store that cannot write refuses it (503).
  if (route.method !== 'GET') codes.push('storage_unavailable');
  return [...new Set(codes)];
}
