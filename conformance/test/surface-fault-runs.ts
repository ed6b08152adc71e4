/**
 * What the tests of the surface checks share (sandbox-surfaces.test.ts, sandbox-records.test.ts):
 * the default keys, and runs of a set of checks against our server behind one fault, with and
 * without the admin key, whose outcomes they judge.
 */
import type { Check } from '../check.js';
import type { ConformanceResult } from '../result.js';
import { runConformance } from '../run-conformance.js';
import { startProxy, type Fault } from './faulty-proxy.js';

export const SURFACE_KEYS = { apiKey: 'sk_test_custodial', readOnlyKey: 'sk_test_readonly', nwcKey: 'sk_test_nwc' } as const;
export const ADMIN_KEY = 'sk_test_admin';

/** Each check's outcome, by id. */
export function outcomes(result: ConformanceResult): Record<string, string> {
  return Object.fromEntries(result.checks.map((check) => [check.id, check.outcome]));
}

/** The checks that did not pass, with their messages. */
export function notPassed(result: ConformanceResult): string[] {
  return result.checks.filter((check) => check.outcome !== 'passed').map((check) => `${check.id} ${check.outcome}: ${check.message ?? ''}`);
}

/** `checks` (profile full) against the server at `upstreamUrl` behind `fault`: one run with the admin key, one without. */
export async function runsBehindFault(upstreamUrl: string, fault: Fault, checks: readonly Check[]): Promise<ConformanceResult[]> {
  const proxy = await startProxy(upstreamUrl, fault);
  try {
    return await Promise.all(
      [ADMIN_KEY, undefined].map((adminKey) => runConformance({ baseUrl: proxy.url, ...SURFACE_KEYS, ...(adminKey ? { adminKey } : {}), profile: 'full' }, checks)),
    );
  } finally {
    await proxy.close();
  }
}
