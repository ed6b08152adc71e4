/**
 * The prose of every operation, in files that match `core/routes/` one for one, put together as
 * the route table is: v1 and the document's own route always, the control routes with the
 * controls on. `paths.ts` holds the two to each other, so a mismatch throws.
 */
import type { SandboxSettings } from '../../core/settings.js';
import { accountProse } from './accounts.js';
import { controlProse } from './control.js';
import { payPageProse } from './pay-page.js';
import type { OperationProse, ProseRecord } from './prose.js';
import { serverProse } from './server.js';
import { v1Prose } from './v1.js';
import { resilienceProse } from './resilience.js';
import { walletProse } from './wallets.js';
import { webhookProse } from './webhooks.js';

export type { OperationProse, ProseRecord } from './prose.js';

/** The prose of the operations of a sandbox with `settings`, by operation id. */
export function operationProse(settings: SandboxSettings): ProseRecord {
  const groups = [v1Prose(settings), serverProse, ...(settings.controls ? [controlProse, webhookProse, payPageProse, accountProse, walletProse, resilienceProse] : [])];
  const prose: Record<string, OperationProse> = {};
  for (const [name, operation] of groups.flatMap((group) => Object.entries(group))) {
    if (name in prose) throw new Error(`two prose records describe the operation ${name}`);
    prose[name] = operation;
  }
  return prose;
}
