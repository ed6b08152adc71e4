/**
 * The engine's route table: every endpoint of a sandbox with these settings, in one list. The
 * engine serves it and the OpenAPI document describes it, so the two cannot disagree.
 */
import type { SandboxSettings } from '../settings.js';
import { accountRoutes } from './account-routes.js';
import { controlRoutes } from './control-routes.js';
import { payPageRoutes } from './pay-page-routes.js';
import type { EngineRoute } from './route-deps.js';
import { resilienceRoutes } from './resilience-routes.js';
import { v1Routes } from './v1-routes.js';
import { walletRoutes } from './wallet-routes.js';
import { webhookRoutes } from './webhook-routes.js';

/** The routes of a sandbox with `settings`: v1 and the health check, and the controls unless turned off. */
export function routeTable(settings: SandboxSettings): EngineRoute[] {
  return [...v1Routes(settings), ...(settings.controls ? [...controlRoutes(), ...webhookRoutes(settings), ...payPageRoutes(), ...accountRoutes(), ...walletRoutes(), ...resilienceRoutes()] : [])];
}
