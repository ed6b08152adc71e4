/**
 * The checks of what a sandbox records (sandbox.webhook-deliveries, sandbox.request-journal) and of
 * its HTTP server's rules (sandbox.openapi-document, sandbox.cors) against our server, in scratch
 * accounts (--admin-key) and in the main account (which they leave without endpoints); skipped,
 * saying why, where a target has no such surface or runs in the page; failed against a target that
 * breaks one promise of each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../test/support/sandbox-server.js';
import { jsonResponse, startProxy, type Fault } from '../test/faulty-proxy.js';
import { runConformance } from '../run-conformance.js';
import { ADMIN_KEY, notPassed, outcomes, runsBehindFault, SURFACE_KEYS } from '../test/surface-fault-runs.js';
import { httpServerChecks } from './http-server-rules.js';
import { sandboxRecordChecks } from './sandbox-records.js';

const KEYS = SURFACE_KEYS;
const CHECKS = [...sandboxRecordChecks, ...httpServerChecks];
const isList = (req: { path: string; method: string }, path: string) => req.method === 'GET' && req.path.split('?')[0] === path;

/** Faults, each breaking one promise, with the check that must fail. */
const FAULTS: Array<{ catches: string; fault: Fault }> = [
  {
    catches: 'sandbox.webhook-deliveries',
    fault: { name: 'delivery attempts oldest first', description: '', response: (req, res) => void (isList(req, '/sandbox/v1/webhook-deliveries') && Array.isArray(res.body?.data) && res.body.data.reverse()) },
  },
  {
    catches: 'sandbox.webhook-deliveries',
    fault: { name: 'a redelivery answers 202 and sends nothing', description: '', request: (req) => (req.method === 'POST' && /\/redeliver$/.test(req.path) ? jsonResponse(202, {}) : undefined) },
  },
  {
    catches: 'sandbox.request-journal',
    fault: {
      name: 'the journal keeps the Authorization header',
      description: '',
      response: (req, res) =>
        void (isList(req, '/sandbox/v1/requests') && Array.isArray(res.body?.data) && res.body.data.forEach((entry: any) => entry.headers && (entry.headers.authorization = `Bearer ${req.key}`))),
    },
  },
  {
    catches: 'sandbox.request-journal',
    fault: { name: 'the journal oldest first', description: '', response: (req, res) => void (isList(req, '/sandbox/v1/requests') && Array.isArray(res.body?.data) && res.body.data.reverse()) },
  },
  {
    catches: 'sandbox.openapi-document',
    fault: { name: 'no /openapi.json', description: '', request: (req) => (req.path === '/openapi.json' ? jsonResponse(404, { error: { code: 'route_not_found', message: 'no' } }) : undefined) },
  },
  {
    catches: 'sandbox.cors',
    fault: {
      name: 'no CORS on /api/v1',
      description: '',
      response: (req, res) => {
        if (!req.path.startsWith('/api/v1/')) return;
        for (const name of Object.keys(res.headers)) if (name.startsWith('access-control-')) delete res.headers[name];
      },
    },
  },
  {
    catches: 'sandbox.cors',
    fault: { name: 'the control API answers any origin', description: '', response: (req, res) => void (req.path.startsWith('/sandbox/v1/') && (res.headers['access-control-allow-origin'] = '*')) },
  },
  {
    catches: 'sandbox.webhook-delivery',
    fault: { name: 'deliveries signed with another secret', description: '', delivery: (delivery) => void (delivery.headers['webhook-signature'] = 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=') },
  },
  {
    catches: 'sandbox.webhook-delivery',
    fault: { name: 'deliveries never sent', description: '', delivery: () => 'drop' },
  },
  {
    catches: 'sandbox.pay-page',
    fault: { name: 'the pay page needs a key', description: '', request: (req) => (req.path.startsWith('/pay/') && req.key === undefined ? jsonResponse(401, { error: { code: 'unauthorized', message: 'no key' } }) : undefined) },
  },
];

describe('the checks of what a sandbox records and of its HTTP server', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('pass against our server in scratch accounts (--admin-key) and in the main account, which they leave without endpoints', async () => {
    const before = await server.api('/sandbox/v1/webhook-endpoints');
    const [withAdmin, without] = await Promise.all([
      runConformance({ baseUrl: server.url, ...KEYS, adminKey: ADMIN_KEY, profile: 'full' }, CHECKS),
      runConformance({ baseUrl: server.url, ...KEYS, profile: 'full' }, CHECKS),
    ]);
    expect(notPassed(withAdmin)).toEqual([]);
    expect(notPassed(without)).toEqual([]);
    expect(withAdmin.checks.map((check) => check.id).sort()).toEqual(CHECKS.map((check) => check.id).sort());
    expect((await server.api('/sandbox/v1/webhook-endpoints')).body.data).toEqual(before.body.data);
  });

  it('skip CORS and the pay page, saying why, for a target in the page (inPage: MSW handlers have no CORS to guard, nor pages)', async () => {
    const result = await runConformance({ baseUrl: server.url, ...KEYS, profile: 'full', inPage: true }, CHECKS);
    const inPageOnly = ['sandbox.cors', 'sandbox.pay-page', 'sandbox.webhook-delivery'];
    for (const id of inPageOnly) {
      expect(outcomes(result)[id]).toBe('skipped');
      expect(result.checks.find((check) => check.id === id)?.message).toMatch(/HTTP server/);
    }
    expect(notPassed(result).filter((line) => !inPageOnly.some((id) => line.startsWith(id)))).toEqual([]);
  });

  it('skip the deliveries and the journal, saying why, against a target without them (404 on their first call)', async () => {
    const absent: Fault = {
      name: 'no deliveries or journal',
      description: '',
      request: (req) => (/^\/sandbox\/v1\/(webhook-endpoints|requests)/.test(req.path) ? jsonResponse(404, { error: { code: 'route_not_found', message: 'no such route' } }) : undefined),
    };
    const proxy = await startProxy(server.url, absent);
    try {
      const result = await runConformance({ baseUrl: proxy.url, ...KEYS, profile: 'full' }, sandboxRecordChecks);
      expect(result.checks.map((check) => `${check.id} ${check.outcome}`)).toEqual(sandboxRecordChecks.map((check) => `${check.id} skipped`));
      expect(result.checks.every((check) => /answered 404/.test(check.message ?? ''))).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  for (const { catches, fault } of FAULTS) {
    it(`${catches} fails against "${fault.name}", with and without the admin key`, async () => {
      for (const result of await runsBehindFault(server.url, fault, CHECKS)) {
        expect(outcomes(result)[catches]).toBe('failed');
        // Messages never show a key.
        expect(result.checks.map((check) => check.message ?? '').join('\n')).not.toMatch(/sk_test_[A-Za-z0-9]/);
      }
    });
  }
});
