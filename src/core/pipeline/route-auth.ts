/** Wraps a route handler so it runs only for a caller with a valid key (and a permission, if named). */
import { requirePermission, type AccountDirectory, type Caller, type Permission } from '../accounts/accounts.js';
import type { RouteContext, RouteHandler, RouteReply } from './handler.js';

/** A route handler that knows its caller. */
export type CallerHandler = (caller: Caller, context: RouteContext) => RouteReply | Promise<RouteReply>;

/**
 * The handler behind authentication. Auth comes before anything about the body, so a caller
 * without a valid key learns nothing else.
 */
export function authenticated(directory: AccountDirectory, permission: Permission | undefined, handler: CallerHandler): RouteHandler {
  return (context) => {
    const caller = directory.authenticate(context.request.headers.authorization);
    if (permission !== undefined) requirePermission(caller, permission);
    return handler(caller, context);
  };
}
