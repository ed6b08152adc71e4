/**
 * Parity, the whole of it: the conformance suite's full profile against the MSW handlers under
 * `setupServer`, through the global fetch MSW intercepts, as it runs against the Fastify server.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_CHECKS } from '../conformance/checks/index.js';
import { runConformance } from '../conformance/run-conformance.js';
import { createHandlers } from '../src/msw/index.node.js';
import { EXPECTED_MSW_MAJOR, loadedMswVersion, unhandledRequestsFail } from './support/msw-under-test.js';

const BASE_URL = 'http://sandbox.msw.test';
const server = setupServer(...createHandlers({ baseUrl: BASE_URL }));

beforeAll(() => server.listen(unhandledRequestsFail()));
afterAll(() => server.close());

describe('the conformance suite against the MSW handlers (setupServer)', () => {
  it(`runs on msw ${EXPECTED_MSW_MAJOR} (npm test: msw 2, and msw 3 on Node >= 22.12)`, async () => {
    expect(await loadedMswVersion()).toMatch(new RegExp(`^${EXPECTED_MSW_MAJOR}\\.`));
  });

  it('passes the full profile with every key: nothing failed or warned, nothing skipped but what needs a paying NWC wallet or an HTTP server', async () => {
    const result = await runConformance({
      baseUrl: BASE_URL,
      apiKey: 'sk_test_custodial',
      readOnlyKey: 'sk_test_readonly',
      nwcKey: 'sk_test_nwc',
      // The accounts, reset and credential checks of the full profile make scratch accounts with it.
      adminKey: 'sk_test_admin',
      profile: 'full',
      // Handlers, not an HTTP server: the checks of the server's own rules (CORS) skip.
      inPage: true,
    });
    console.log(`MSW ${await loadedMswVersion()}, full profile: ${result.checks.length} checks in ${Math.round(result.durationMs)} ms`);
    // Paying through an NWC wallet (payerNwcUrl) needs a relay to reach it over: MSW has none, so those checks skip.
    const needPayer = new Set(ALL_CHECKS.filter((check) => check.needs?.includes('nwcPayer') || check.needs?.includes('httpServer')).map((check) => check.id));
    expect(needPayer.size).toBeGreaterThan(0);
    const notPassed = result.checks
      .filter((check) => check.outcome !== 'passed' && !(check.outcome === 'skipped' && needPayer.has(check.id)))
      .map((check) => `${check.id} ${check.outcome}: ${check.message ?? ''}`);
    expect(notPassed).toEqual([]);
    expect(result.passed).toBe(true);
    expect(result.lifecycle).toBe('controls');
    expect(result.counts.passed).toBe(ALL_CHECKS.length - needPayer.size);
    expect(result.observations).toMatchObject({ feeRounding: 'round', feePercentageBelow1000: 'rate', minimumAmount: '21', network: 'regtest' });
    expect(result.warnings).toEqual([]);
  });
});
