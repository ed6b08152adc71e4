/**
 * `GET /dashboard/api/key`: what the dashboard's key may do, `{"permissions": ["create", "read"]}`
 * (a read-only key: `["read"]`), so the page shows a key the editors and clear buttons only when
 * it may use them. No other read tells a page this, and finding out by trying a change would log
 * a refused call, or change something. Authenticated like every control call (any key of an
 * account; 401 otherwise, in the API's error shape) and part of the control surface: the server's
 * request hook lets only the sandbox's own and loopback origins (and `--cors-origin` ones) reach
 * it. It holds no secret: the permissions of the key the caller sent.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../core/errors/errors.js';
import { errorResponse } from '../core/pipeline/handler.js';
import type { DashboardKeyView } from '../schemas/dashboard-key.js';
import type { LiveSource } from './live-streams.js';

/** The path of the dashboard's key permissions. */
export const DASHBOARD_KEY_PATH = '/dashboard/api/key';

/** Registers `GET /dashboard/api/key` on `app`. */
export function registerDashboardKey(app: FastifyInstance, live: Pick<LiveSource, 'permissionsOf'>): void {
  app.get(DASHBOARD_KEY_PATH, async (request, reply) => {
    let answer: DashboardKeyView;
    try {
      answer = { permissions: [...live.permissionsOf(request.headers.authorization)].sort() };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const { status, headers, body } = errorResponse(error);
      return reply.code(status).headers({ ...headers, 'cache-control': 'no-store' }).send(body);
    }
    return reply.code(200).headers({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).send(JSON.stringify(answer));
  });
}
