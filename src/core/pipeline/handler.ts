/**
 * The transport-neutral request handler: plain request in, plain response out. It applies what
 * each route declares (`route.ts`): routing, auth, body and query, then the handler; and it gives
 * every failure the one error shape. So the Fastify server and the MSW handlers only translate and
 * answer byte for byte alike.
 */
import { requireAccount, requirePermission, type AccountDirectory, type KeyHolder } from '../accounts/accounts.js';
import { ApiError } from '../errors/errors.js';
import { bodyReader, queryReader, type BodyReader, type QueryReader } from './input-readers.js';
import { JsonText } from './json-text.js';
import type { AnyRoute } from './route.js';
import { writeAnswerJson } from '../secret.js';
import { MethodNotAllowed, Router } from './router.js';
import type { ApiRequest, ApiResponse, RouteReply } from './messages.js';
import { pathOf } from './messages.js';

export type { ApiRequest, ApiResponse, RouteReply } from './messages.js';

/** Handles one request. Never throws: every failure becomes a JSON error response. */
export type RequestHandler = (request: ApiRequest) => Promise<ApiResponse>;

/**
 * A handler that answers at once when it can: a route that answers synchronously (every read)
 * costs no promise and no microtask hop; one that waits (a create) gives a promise. Never throws.
 * Transports take either (`await` does); `RequestHandler` is what the engine shows outside.
 */
export type AnsweringHandler = (request: ApiRequest) => ApiResponse | Promise<ApiResponse>;

/** The headers of every JSON answer (frozen: answers share it). */
export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });

/** What the pipeline needs besides the routes. */
export interface PipelineOptions<Deps> {
  /** What every handler gets: the engine's parts. */
  deps: Deps;
  /** Finds the caller behind a key. */
  directory: AccountDirectory;
  /** Sees bugs (for logging) before they become a 500. */
  onUnexpectedError?: (error: unknown, request: ApiRequest) => void;
}

/** A route with its readers compiled once. */
interface PreparedRoute<Deps> {
  route: AnyRoute<Deps>;
  readBody: BodyReader | undefined;
  readQuery: QueryReader | undefined;
}

/**
 * The handler over a route table. Each request runs the pipeline in one order: route, auth (so a
 * caller without a valid key learns nothing else), body, query, then the handler.
 */
export function createRequestHandler<Deps>(routes: ReadonlyArray<AnyRoute<Deps>>, options: PipelineOptions<Deps>): AnsweringHandler {
  const { deps, directory } = options;
  const onUnexpectedError = options.onUnexpectedError ?? (() => {});
  const router = new Router<PreparedRoute<Deps>>(
    routes.map((route) => ({
      method: route.method,
      pattern: route.path,
      handler: {
        route,
        readBody: route.body ? bodyReader(route.body) : undefined,
        readQuery: route.query ? queryReader(route.query) : undefined,
      },
    })),
  );
  const failed = (error: unknown, request: ApiRequest, method: string): ApiResponse => serialize(errorReply(error, request, onUnexpectedError), method);
  return (request) => {
    const method = request.method.toUpperCase();
    // Serializing is inside the `try`: a body JSON cannot write (a BigInt, a cycle) is a bug like any other, a 500.
    try {
      const { handler: prepared, params } = router.match(method, pathOf(request.url));
      const { route } = prepared;
      const caller = route.access === 'public' ? undefined : directory.identify(request.headers.authorization);
      if (caller !== undefined) {
        // Every route but the accounts API acts on the key's account; a key that only manages accounts has none.
        if (route.access !== 'accounts') requireAccount(caller);
        if (route.access !== 'key') requirePermission(caller, route.access);
      }
      const body = prepared.readBody?.(request);
      const query = prepared.readQuery?.(request.url);
      const reply = route.handle({ caller, params, body, query, request }, deps);
      if (!(reply instanceof Promise)) return serialize(reply, method, caller);
      return reply.then(
        (settled) => {
          try {
            return serialize(settled, method, caller);
          } catch (error) {
            return failed(error, request, method);
          }
        },
        (error: unknown) => failed(error, request, method),
      );
    } catch (error) {
      return failed(error, request, method);
    }
  };
}

/** The response for an error raised outside the engine's handler (e.g. a transport's body limit). */
export function errorResponse(error: ApiError): ApiResponse {
  return serialize(errorReply(error, undefined, () => {}), 'GET');
}

function errorReply(
  error: unknown,
  request: ApiRequest | undefined,
  onUnexpectedError: (error: unknown, request: ApiRequest) => void,
): RouteReply {
  if (!(error instanceof ApiError)) {
    if (request) {
      try {
        onUnexpectedError(error, request);
      } catch {
        // A failing logger must not turn the 500 into a rejected promise.
      }
    }
    return errorReply(new ApiError('internal_error'), request, onUnexpectedError);
  }
  const headers: Record<string, string> = error instanceof MethodNotAllowed ? { allow: error.allow.join(', ') } : {};
  if (error.status === 401) headers['www-authenticate'] = 'Bearer realm="lnpr-sandbox"';
  // The store retries every 2 s at most while it cannot write: a client may try again then.
  if (error.code === 'storage_unavailable') headers['retry-after'] = '2';
  return { status: error.status, body: error.toBody(), headers };
}

/** The response of `reply`; its secrets (`secret.ts`) written only if `caller` may see them. */
function serialize(reply: RouteReply, method: string, caller?: KeyHolder): ApiResponse {
  const hasBody = reply.body !== undefined && method !== 'HEAD';
  return {
    status: reply.status,
    // The shared headers object as is when a reply adds none (transports copy headers, never change them).
    headers: reply.headers === undefined || isEmpty(reply.headers) ? (reply.body !== undefined ? JSON_HEADERS : {}) : { ...(reply.body !== undefined ? JSON_HEADERS : {}), ...reply.headers },
    body: !hasBody ? '' : reply.body instanceof JsonText ? reply.body.text : writeAnswerJson(reply.body, caller),
  };
}

function isEmpty(headers: Readonly<Record<string, string>>): boolean {
  for (const _name in headers) return false;
  return true;
}
