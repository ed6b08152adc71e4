/**
 * The checks of the control surface, credentials and exactness (control.*, accounts.*,
 * credentials.*, read.id-exact, read.other-account-as-unknown, nwc.relay-ws-url,
 * validation.description-code-points, invoice.field-multiplicities) against our own
 * server, and against it behind a proxy that breaks one promise each: the check written for that
 * promise must fail there, and pass without the proxy. Only these checks run, to keep it quick.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../test/support/sandbox-server.js';
import { jsonResponse, startProxy, type Fault } from '../test/faulty-proxy.js';
import { resignInvoice } from '../test/invoice-forgery.js';
import { runConformance } from '../run-conformance.js';
import type { ConformanceResult } from '../result.js';
import { accountsChecks } from './accounts.js';
import { controlChecks } from './control.js';
import { credentialChecks } from './credentials.js';
import { exactnessChecks } from './exactness.js';

const CHECKS = [...exactnessChecks, ...controlChecks, ...accountsChecks, ...credentialChecks];
const KEYS = { apiKey: 'sk_test_custodial', readOnlyKey: 'sk_test_readonly', nwcKey: 'sk_test_nwc' } as const;

function failed(result: ConformanceResult): string[] {
  return result.checks.filter((check) => check.outcome === 'failed').map((check) => check.id);
}

/** Ids the upstream made, so a fault can match near misses against them. */
function idsSeen(): { ids: Set<string>; fault: Pick<Fault, 'response'> } {
  const ids = new Set<string>();
  return {
    ids,
    fault: {
      response(req, res) {
        if (req.route === 'create' && res.status === 201 && typeof res.body?.id === 'string') ids.add(res.body.id);
      },
    },
  };
}

/** Faults, each breaking one promise, with the check that must catch it and whether the run needs the admin key. */
function faults(): Array<{ fault: Fault; catches: string; admin?: boolean }> {
  const loose = idsSeen();
  return [
    {
      catches: 'control.complete-answer',
      fault: { name: 'complete answers {ok}', description: '', response: (req, res) => void (req.route === 'control' && req.path.endsWith('/complete') && res.status === 200 && (res.body = { ok: true })) },
    },
    {
      catches: 'control.expire-answer',
      fault: { name: 'expire does nothing', description: '', request: (req) => (req.route === 'control' && req.path.endsWith('/expire') ? jsonResponse(200, { id: req.id, status: 'expired' }) : undefined) },
    },
    {
      catches: 'control.terminal-409',
      fault: { name: 'terminal transitions 400', description: '', response: (req, res) => void (req.route === 'control' && res.status === 409 && (res.status = 400)) },
    },
    {
      catches: 'control.pay-answer',
      fault: { name: '/pay without preimage', description: '', response: (req, res) => void (req.path === '/sandbox/v1/pay' && res.status === 200 && delete res.body.preimage) },
    },
    {
      catches: 'control.clock-answers',
      fault: { name: 'frozen as a string', description: '', response: (req, res) => void (req.path.startsWith('/sandbox/v1/clock') && res.status === 200 && (res.body.frozen = String(res.body.frozen))) },
    },
    {
      catches: 'read.id-exact',
      fault: {
        name: 'ids matched by prefix and case',
        description: '',
        request(req) {
          if (req.id === undefined || loose.ids.has(req.id)) return;
          const match = [...loose.ids].find((id) => id.toLowerCase() === req.id!.toLowerCase() || id.startsWith(req.id!) || req.id!.trim() === id);
          if (match !== undefined) req.path = req.path.replace(encodeURIComponent(req.id), match);
        },
        response: loose.fault.response,
      },
    },
    {
      catches: 'read.other-account-as-unknown',
      fault: {
        name: "another account's request: 404 with another body",
        description: '',
        async response(req, res, ctx) {
          if (req.route !== 'read' || res.status !== 404 || req.id === undefined) return;
          const other = await ctx.upstream('GET', `/api/v1/payment-requests/${encodeURIComponent(req.id)}`, { key: req.key === KEYS.nwcKey ? KEYS.apiKey : KEYS.nwcKey });
          if (other.status === 200) res.body = { error: { code: 'payment_request_not_found', message: 'Not yours.' } };
        },
      },
    },
    {
      catches: 'nwc.relay-ws-url',
      fault: { name: 'nwcRelay over http', description: '', response: (_req, res) => void (typeof res.body?.nwcRelay === 'string' && (res.body.nwcRelay = res.body.nwcRelay.replace(/^ws/, 'http'))) },
    },
    {
      catches: 'validation.description-code-points',
      fault: {
        name: 'descriptions counted in UTF-16 units',
        description: '',
        request: (req) => (req.route === 'create' && typeof req.body?.description === 'string' && req.body.description.length > 255 ? jsonResponse(400, { error: { code: 'invalid_request', message: 'description too long' } }) : undefined),
      },
    },
    {
      catches: 'invoice.field-multiplicities',
      fault: {
        name: 'two d fields in every invoice',
        description: '',
        response(_req, res) {
          if (typeof res.body?.invoice !== 'string') return;
          res.body.invoice = resignInvoice(res.body.invoice, (decoded) => ({ fields: [...decoded.fields, ...decoded.fields.filter((field) => field.tag === 'd')] }));
        },
      },
    },
    {
      catches: 'credentials.read-only-control-401',
      fault: {
        name: 'read-only key may fail requests',
        description: '',
        request: (req) => void (req.route === 'control' && req.path.endsWith('/fail') && req.key === KEYS.readOnlyKey && (req.headers.authorization = `Bearer ${KEYS.apiKey}`)),
      },
    },
    {
      catches: 'credentials.accounts-key-only',
      admin: true,
      fault: {
        name: 'the accounts key reads v1',
        description: '',
        request: (req) => void (req.path.startsWith('/api/v1/') && req.method === 'GET' && req.key === 'sk_test_admin' && (req.headers.authorization = `Bearer ${KEYS.apiKey}`)),
      },
    },
    {
      catches: 'accounts.list',
      admin: true,
      fault: {
        name: 'the accounts list shows keys',
        description: '',
        response: (req, res) => void (req.method === 'GET' && req.path.startsWith('/sandbox/v1/accounts') && Array.isArray(res.body?.data) && res.body.data.forEach((account: any) => (account.keys = { secret: 'sk_test_leaked' }))),
      },
    },
    {
      catches: 'accounts.reset',
      admin: true,
      fault: { name: 'reset keeps the clock', description: '', request: (req) => (req.path === '/sandbox/v1/reset' ? jsonResponse(204, undefined) : undefined) },
    },
  ];
}

describe('the control, credential and exactness checks', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('pass against our server, with and without the admin key (without it, the scratch-account checks skip)', async () => {
    const [withAdmin, without] = await Promise.all([
      runConformance({ baseUrl: server.url, ...KEYS, adminKey: 'sk_test_admin', profile: 'full' }, CHECKS),
      runConformance({ baseUrl: server.url, ...KEYS, profile: 'full' }, CHECKS),
    ]);
    expect(withAdmin.checks.filter((check) => check.outcome !== 'passed').map((check) => `${check.id}: ${check.message}`)).toEqual([]);
    expect(without.passed).toBe(true);
    const skipped = without.checks.filter((check) => check.outcome === 'skipped').map((check) => check.id);
    expect(skipped.sort()).toEqual(CHECKS.filter((check) => check.needs?.includes('adminKey')).map((check) => check.id).sort());
  });

  it('are not run by core and lifecycle, except the v1 ones in core', async () => {
    const [core, lifecycle] = await Promise.all([
      runConformance({ baseUrl: server.url, ...KEYS, profile: 'core' }, CHECKS),
      runConformance({ baseUrl: server.url, ...KEYS, profile: 'lifecycle' }, CHECKS),
    ]);
    expect(core.passed).toBe(true);
    expect(core.checks.map((check) => check.id).sort()).toEqual(['credentials.read-only-get', 'invoice.field-multiplicities', 'nwc.relay-ws-url', 'read.id-exact', 'read.other-account-as-unknown', 'validation.description-code-points']);
    expect(lifecycle.checks).toEqual([]);
  });

  for (const { fault, catches, admin } of faults()) {
    it(`${catches} fails against "${fault.name}"`, async () => {
      const proxy = await startProxy(server.url, fault);
      try {
        const result = await runConformance({ baseUrl: proxy.url, ...KEYS, ...(admin ? { adminKey: 'sk_test_admin' } : {}), profile: 'full' }, CHECKS);
        expect(failed(result)).toContain(catches);
      } finally {
        await proxy.close();
      }
    });
  }
});
