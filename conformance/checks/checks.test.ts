/**
 * The checks against real targets: our own server (every reading of the open points it can be set
 * to) must pass, and a tiny wrong server must fail the checks its faults break.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../test/support/sandbox-server.js';
import { runConformance } from '../run-conformance.js';
import type { ConformanceResult } from '../result.js';
import { ALL_CHECKS } from './index.js';

const KEYS = { apiKey: 'sk_test_custodial', readOnlyKey: 'sk_test_readonly', nwcKey: 'sk_test_nwc' } as const;
/** The key with the accounts permission: the full profile's accounts, reset and credential checks make scratch accounts with it. */
const ADMIN_KEY = 'sk_test_admin';

function outcomes(result: ConformanceResult): Record<string, string> {
  return Object.fromEntries(result.checks.map((check) => [check.id, check.outcome]));
}

/** The NWC URI of a funded test wallet of `server` (POST /sandbox/v1/wallets): a payer for the run. */
async function payerOf(server: RunningServer): Promise<string> {
  const wallet = await server.api('/sandbox/v1/wallets', { body: { balance: 100_000, name: 'conformance payer' } });
  expect(wallet.status).toBe(201);
  return wallet.body.nwcUrl;
}

function notPassed(result: ConformanceResult): string[] {
  return result.checks.filter((check) => check.outcome !== 'passed').map((check) => `${check.id} ${check.outcome}: ${check.message ?? ''}`);
}

describe('the check list', () => {
  it('has unique, stable-shaped ids, a section and a level on every check', () => {
    const ids = ALL_CHECKS.map((check) => check.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const check of ALL_CHECKS) {
      expect(check.id).toMatch(/^[a-z0-9]+\.[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(check.section.length).toBeGreaterThan(0);
      expect(check.title.length).toBeGreaterThan(0);
      expect(['MUST', 'SHOULD']).toContain(check.level);
      expect(['core', 'lifecycle', 'full']).toContain(check.profile);
    }
  });
});

describe('against our server with its defaults', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('passes the full profile with every key and a paying NWC wallet: nothing failed, warned or skipped, in under 15 s', async () => {
    const result = await runConformance({ baseUrl: server.url, ...KEYS, adminKey: ADMIN_KEY, profile: 'full', payerNwcUrl: await payerOf(server) });
    console.log(`full profile: ${result.checks.length} checks in ${Math.round(result.durationMs)} ms; observations ${JSON.stringify(result.observations)}`);
    expect(notPassed(result)).toEqual([]);
    expect(result.passed).toBe(true);
    expect(result.lifecycle).toBe('nwc-payer');
    expect(result.counts.passed).toBe(ALL_CHECKS.length);
    expect(result.observations).toMatchObject({ feeRounding: 'round', feePercentageBelow1000: 'rate', minimumAmount: '21', network: 'regtest' });
    expect(result.warnings).toEqual([]);
    expect(result.durationMs).toBeLessThan(15_000);
  });

  it('passes the core profile with the main key only; the checks that need more are skipped', async () => {
    const result = await runConformance({ baseUrl: server.url, apiKey: KEYS.apiKey, profile: 'core' });
    expect(result.passed).toBe(true);
    expect(result.counts.failed + result.counts.warned).toBe(0);
    expect(result.checks.some((check) => check.profile === 'lifecycle')).toBe(false);
    const skipped = result.checks.filter((check) => check.outcome === 'skipped').map((check) => check.id);
    const needing = ALL_CHECKS.filter((check) => check.profile === 'core' && (check.needs ?? []).length > 0).map((check) => check.id);
    expect(skipped.sort()).toEqual(needing.sort());
    expect(skipped).toContain('auth.read-only-cannot-create');
    expect(skipped).toContain('nwc.is-nwc-true');
    expect(skipped).toContain('fees.same-in-both-modes');
  });

  it('fails the minimum check when --min-amount pins 1 and the server keeps 21', async () => {
    const result = await runConformance({ baseUrl: server.url, apiKey: KEYS.apiKey, profile: 'core', minAmount: 1 });
    expect(outcomes(result)['validation.minimum-amount']).toBe('failed');
    expect(result.passed).toBe(false);
  });

  it('passes the lifecycle profile through a pay command that settles later (no controls detected)', async () => {
    // Hide the control API from detection, and pay out of band half a second after being asked.
    const hidingFetch: typeof fetch = (input, init) => (String(input).endsWith('/sandbox/v1/clock') ? Promise.resolve(new Response('', { status: 404 })) : fetch(input, init));
    const payments: Array<Promise<unknown>> = [];
    const payInvoice = async (invoice: string) => {
      payments.push(
        new Promise((resolve) => setTimeout(resolve, 500)).then(() => server.api('/sandbox/v1/pay', { body: { invoice } })),
      );
    };
    const result = await runConformance({ baseUrl: server.url, apiKey: KEYS.apiKey, profile: 'lifecycle', fetch: hidingFetch, payInvoice });
    await Promise.all(payments);
    expect(result.lifecycle).toBe('pay-command');
    expect(notPassed(result).filter((line) => !line.includes(' skipped: '))).toEqual([]);
    const byId = outcomes(result);
    expect(byId['lifecycle.completes']).toBe('passed');
    expect(byId['lifecycle.preimage']).toBe('passed');
    expect(byId['lifecycle.updated-at-moves']).toBe('passed');
    expect(byId['lifecycle.fails']).toBe('skipped');
    expect(byId['lifecycle.expires-by-clock']).toBe('skipped');
  });
});

describe('against our server set to the other readings', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ settings: { minAmount: 1, feeRounding: 'floor', feePercentageBelowThreshold: 'effective' } });
  });
  afterAll(() => server.close());

  it('passes and observes minimum 1, floor rounding and the effective percentage', async () => {
    const result = await runConformance({ baseUrl: server.url, ...KEYS, adminKey: ADMIN_KEY, profile: 'full', payerNwcUrl: await payerOf(server) });
    expect(notPassed(result)).toEqual([]);
    expect(result.passed).toBe(true);
    expect(result.observations).toMatchObject({ minimumAmount: '1', feeRounding: 'floor', feePercentageBelow1000: 'effective', network: 'regtest' });
  });

  it('fails the minimum check when --min-amount pins 21', async () => {
    const result = await runConformance({ baseUrl: server.url, apiKey: KEYS.apiKey, profile: 'core', minAmount: 21 });
    expect(outcomes(result)['validation.minimum-amount']).toBe('failed');
    expect(result.checks.find((check) => check.id === 'validation.minimum-amount')!.message).toMatch(/400.*201|expected HTTP 400, got 201/);
    expect(result.passed).toBe(false);
  });

  it('observes ceil rounding on a ceil server', async () => {
    const ceil = await startServer({ settings: { feeRounding: 'ceil' } });
    try {
      const result = await runConformance({ baseUrl: ceil.url, apiKey: KEYS.apiKey, profile: 'core' });
      expect(result.passed).toBe(true);
      expect(result.observations.feeRounding).toBe('ceil');
    } finally {
      await ceil.close();
    }
  });
});

/**
 * A tiny, wrong implementation: 6 sats of fee on 1,000 sats, no invoice, destinationWallet shown,
 * a status endpoint with extra fields. Everything else is plausible.
 */
function wrongServer(): Promise<{ url: string; close(): Promise<void> }> {
  const requests = new Map<string, Record<string, unknown>>();
  const send = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    if (request.headers.authorization !== 'Bearer sk_fake') return send(response, 401, { error: 'unauthorized' });
    const url = request.url ?? '';
    if (request.method === 'POST' && url === '/api/v1/payment-requests') {
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        return send(response, 400, { error: 'bad json' });
      }
      if (typeof body?.amount !== 'number' || body.amount < 21 || typeof body.description !== 'string' || typeof body.destinationWallet !== 'string') {
        return send(response, 400, { error: 'invalid' });
      }
      const now = new Date();
      const amount: number = body.amount;
      const fee = amount === 1000 ? 6 : amount < 1000 ? 10 : Math.round(amount / 200);
      const created = {
        id: `pr_${randomBytes(8).toString('hex')}`,
        status: 'pending',
        amount,
        description: body.description,
        paymentHash: randomBytes(32).toString('hex'),
        expiresAt: new Date(now.getTime() + (body.expiresIn ?? 3600) * 1000).toISOString(),
        isNwc: false,
        feeAmount: fee,
        feePercentage: 0.5,
        destinationWallet: body.destinationWallet,
        ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      };
      requests.set(created.id, created);
      return send(response, 201, created);
    }
    const match = /^\/api\/v1\/payment-requests\/([^/]+)(\/status)?$/.exec(url);
    const found = match ? requests.get(decodeURIComponent(match[1]!)) : undefined;
    if (request.method === 'GET' && found) return send(response, 200, match![2] ? { status: found.status, id: found.id } : found);
    return send(response, 404, { error: 'not found' });
  };
  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => send(response, 500, { error: 'oops' }));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((done) => server.close(() => done())) });
    });
  });
}

describe('against a wrong server', () => {
  it('fails the checks its faults break, and still passes what it does right', async () => {
    const fake = await wrongServer();
    try {
      const result = await runConformance({ baseUrl: fake.url, apiKey: 'sk_fake', profile: 'core' });
      const byId = outcomes(result);
      expect(result.passed).toBe(false);
      // Fee 6 for 1,000 sats.
      expect(byId['fees.table']).toBe('failed');
      expect(byId['fees.threshold-edge']).toBe('failed');
      expect(result.checks.find((check) => check.id === 'fees.table')!.message).toContain('1000 sats: expected feeAmount 5, got 6');
      // No invoice.
      expect(byId['create.invoice-present']).toBe('failed');
      expect(byId['invoice.decodes']).toBe('failed');
      expect(byId['invoice.payment-hash']).toBe('failed');
      // destinationWallet shown.
      expect(byId['create.no-destination-wallet']).toBe('failed');
      // A status endpoint with more than {status}.
      expect(byId['read.status-exact']).toBe('failed');
      // What it does right.
      for (const id of ['create.status-pending', 'create.amount-echo', 'create.metadata-echo', 'create.default-expiry', 'create.expires-in-honoured', 'fees.rounding-above-threshold', 'auth.missing-key', 'read.unknown-id-404', 'validation.missing-amount']) {
        expect(byId[id], id).toBe('passed');
      }
      // 999 sats pays 10 and amounts 20 are refused: the minimum reading is 21.
      expect(result.observations.minimumAmount).toBe('21');
      // Error messages never carry the key.
      expect(JSON.stringify(result)).not.toContain('sk_fake');
    } finally {
      await fake.close();
    }
  });
});
