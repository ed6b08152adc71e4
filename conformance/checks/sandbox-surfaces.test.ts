/**
 * The checks of the sandbox surfaces (sandbox.*: the events list, webhook endpoints, test wallets,
 * /healthz) against our server, in scratch accounts (--admin-key) and in the main account (where
 * they leave no endpoint or wallet behind); skipped, saying why, against a target without those
 * surfaces; failed against a target that breaks one promise of each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../test/support/sandbox-server.js';
import { jsonResponse, startProxy, type Fault } from '../test/faulty-proxy.js';
import { runConformance } from '../run-conformance.js';
import { ADMIN_KEY, notPassed, outcomes, runsBehindFault, SURFACE_KEYS } from '../test/surface-fault-runs.js';
import { sandboxSurfaceChecks } from './sandbox-surfaces.js';

const KEYS = SURFACE_KEYS;

/** Faults, each breaking one promise, with the check that must fail. */
const FAULTS: Array<{ catches: string; fault: Fault }> = [
  {
    catches: 'sandbox.events-list',
    fault: { name: 'events oldest first', description: '', response: (req, res) => void (req.path.startsWith('/sandbox/v1/events') && Array.isArray(res.body?.data) && res.body.data.reverse()) },
  },
  {
    catches: 'sandbox.events-list',
    fault: {
      name: "a completion event's data without the preimage",
      description: '',
      response: (req, res) => void (req.path.startsWith('/sandbox/v1/events') && Array.isArray(res.body?.data) && res.body.data.forEach((event: any) => delete event.data?.preimage)),
    },
  },
  {
    catches: 'sandbox.webhook-endpoints',
    fault: { name: 'the filter widened', description: '', request: (req) => void (req.method === 'POST' && req.path === '/sandbox/v1/webhook-endpoints' && delete req.body?.events) },
  },
  {
    catches: 'sandbox.webhook-endpoints',
    fault: { name: 'DELETE of an endpoint does nothing', description: '', request: (req) => (req.method === 'DELETE' && req.path.startsWith('/sandbox/v1/webhook-endpoints/') ? jsonResponse(204, undefined) : undefined) },
  },
  {
    catches: 'sandbox.test-wallets',
    fault: { name: 'balances in msats', description: '', response: (req, res) => void (req.path.startsWith('/sandbox/v1/wallets') && typeof res.body?.balance === 'number' && (res.body.balance *= 1000)) },
  },
  {
    catches: 'sandbox.test-wallets',
    fault: { name: 'a top-up adds one sat more', description: '', request: (req) => void (req.path.endsWith('/topup') && typeof req.body?.amount === 'number' && (req.body.amount += 1)) },
  },
  {
    catches: 'sandbox.healthz',
    fault: { name: '/healthz needs a key', description: '', request: (req) => (req.path === '/healthz' && req.key === undefined ? jsonResponse(401, { error: { code: 'unauthorized', message: 'no key' } }) : undefined) },
  },
];

describe('the sandbox surface checks', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('pass against our server in scratch accounts (--admin-key) and in the main account, which they leave without endpoints or wallets', async () => {
    const [endpointsBefore, walletsBefore] = await Promise.all([server.api('/sandbox/v1/webhook-endpoints'), server.api('/sandbox/v1/wallets')]);
    const [withAdmin, without] = await Promise.all([
      runConformance({ baseUrl: server.url, ...KEYS, adminKey: ADMIN_KEY, profile: 'full' }, sandboxSurfaceChecks),
      runConformance({ baseUrl: server.url, ...KEYS, profile: 'full' }, sandboxSurfaceChecks),
    ]);
    expect(notPassed(withAdmin)).toEqual([]);
    expect(notPassed(without)).toEqual([]);
    const [endpointsAfter, walletsAfter] = await Promise.all([server.api('/sandbox/v1/webhook-endpoints'), server.api('/sandbox/v1/wallets')]);
    expect(endpointsAfter.body.data).toEqual(endpointsBefore.body.data);
    expect(walletsAfter.body.data).toEqual(walletsBefore.body.data);
  });

  it('are not run by core and lifecycle', async () => {
    const [core, lifecycle] = await Promise.all([
      runConformance({ baseUrl: server.url, ...KEYS, profile: 'core' }, sandboxSurfaceChecks),
      runConformance({ baseUrl: server.url, ...KEYS, profile: 'lifecycle' }, sandboxSurfaceChecks),
    ]);
    expect(core.checks).toEqual([]);
    expect(lifecycle.checks).toEqual([]);
  });

  it('are skipped, saying why, against a target without the surfaces (404 on their first call)', async () => {
    const absent: Fault = {
      name: 'no sandbox surfaces',
      description: '',
      request: (req) => (/^\/(sandbox\/v1\/(events|webhook-endpoints|wallets)|healthz)/.test(req.path) ? jsonResponse(404, { error: { code: 'not_found', message: 'no such route' } }) : undefined),
    };
    const proxy = await startProxy(server.url, absent);
    try {
      for (const adminKey of [ADMIN_KEY, undefined]) {
        const result = await runConformance({ baseUrl: proxy.url, ...KEYS, ...(adminKey ? { adminKey } : {}), profile: 'full' }, sandboxSurfaceChecks);
        expect(result.passed).toBe(true);
        expect(result.checks.map((check) => `${check.id} ${check.outcome}`)).toEqual(sandboxSurfaceChecks.map((check) => `${check.id} skipped`));
        expect(result.checks.every((check) => /answered 404/.test(check.message ?? ''))).toBe(true);
      }
    } finally {
      await proxy.close();
    }
  });

  for (const { catches, fault } of FAULTS) {
    it(`${catches} fails against "${fault.name}", with and without the admin key`, async () => {
      for (const result of await runsBehindFault(server.url, fault, sandboxSurfaceChecks)) {
        expect(outcomes(result)[catches]).toBe('failed');
        // Messages never show a secret.
        expect(result.checks.map((check) => check.message ?? '').join('\n')).not.toMatch(/whsec_[A-Za-z0-9]|secret=[0-9a-f]/);
      }
    });
  }
});
