/**
 * `lnpr trigger` as users run it: a child process against a real server (Fastify on 127.0.0.1),
 * for every event type, side by side, and for each way of calling it wrong.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test/support/cli-process.js';
import { freePort } from '../../test/support/free-port.js';
import { KEYS, startServer, type RunningServer } from '../../test/support/sandbox-server.js';
import { EVENT_TYPES } from '../schemas/webhooks.js';

let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.close();
});

/** Runs `lnpr ...args` to the end (killed after 20 s at the latest). */
async function lnpr(args: string[]): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const cli = runCli(args);
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), 20_000);
  try {
    const code = await cli.exited;
    return { code, ...cli.output() };
  } finally {
    clearTimeout(timer);
    cli.child.kill('SIGKILL');
  }
}

const trigger = (type: string, ...more: string[]) => lnpr(['trigger', type, '--base-url', server.url, '--api-key', KEYS.custodial, ...more]);

const STATUS_AFTER = {
  'payment_request.created': 'pending',
  'payment_request.completed': 'completed',
  'payment_request.failed': 'failed',
  'payment_request.expired': 'expired',
} as const;

describe('lnpr trigger', () => {
  it('every event type, all side by side (two of one type too): each prints an event id that GET /sandbox/v1/events/{id} returns with that type; the clock never moves', async () => {
    expect((await server.api('/sandbox/v1/clock/freeze', { method: 'POST' })).status).toBe(200);
    const clockBefore = (await server.api('/sandbox/v1/clock')).body;
    try {
      const types = [...EVENT_TYPES, 'payment_request.completed'] as const;
      const runs = await Promise.all(types.map((type) => trigger(type)));
      const ids = new Set<string>();
      for (const [index, run] of runs.entries()) {
        const type = types[index]!;
        expect(run, type).toMatchObject({ code: 0, stderr: '' });
        expect(run.stdout).toMatch(/^evt_[A-Za-z0-9]+\n$/);
        const id = run.stdout.trim();
        ids.add(id);
        const event = await server.api(`/sandbox/v1/events/${id}`);
        expect(event.status).toBe(200);
        expect(event.body).toMatchObject({ id, type, data: { amount: 1000, status: STATUS_AFTER[type], description: `Triggered by lnpr trigger (${type})` } });
      }
      expect(ids.size).toBe(types.length);
      expect((await server.api('/sandbox/v1/clock')).body).toEqual(clockBefore);
    } finally {
      await server.api('/sandbox/v1/clock/unfreeze', { method: 'POST' });
    }
  }, 40_000);

  it('--amount N sets the amount', async () => {
    const run = await trigger('payment_request.failed', '--amount', '2100');
    expect(run.code).toBe(0);
    const event = await server.api(`/sandbox/v1/events/${run.stdout.trim()}`);
    expect(event.body).toMatchObject({ type: 'payment_request.failed', data: { amount: 2100, status: 'failed' } });
  });

  it('exit 2 for an unknown type (listing the types), a bad --amount and an unreachable sandbox; exit 1 with the status and error code when the sandbox refuses', async () => {
    const port = await freePort();
    const [badType, badAmount, unreachable, refused, noType] = await Promise.all([
      trigger('payment_request.paid'),
      trigger('payment_request.completed', '--amount', '0'),
      lnpr(['trigger', 'payment_request.created', '--base-url', `http://127.0.0.1:${port}`, '--api-key', KEYS.custodial]),
      lnpr(['trigger', 'payment_request.completed', '--base-url', server.url, '--api-key', KEYS.readonly]),
      lnpr(['trigger', '--base-url', server.url, '--api-key', KEYS.custodial]),
    ]);
    expect(badType).toMatchObject({ code: 2, stdout: '' });
    expect(badType.stderr).toBe(`lnpr: unknown event type "payment_request.paid"; TYPE is one of ${EVENT_TYPES.join(', ')}\n`);
    expect(badAmount).toMatchObject({ code: 2, stdout: '', stderr: 'lnpr: --amount must be a whole number at least 1 (got "0")\n' });
    expect(unreachable).toMatchObject({ code: 2, stdout: '' });
    expect(unreachable.stderr).toMatch(/^lnpr: cannot reach http:\/\/127\.0\.0\.1:\d+\/api\/v1\/payment-requests: connect ECONNREFUSED [\d.:]+\n$/);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^lnpr: POST \/api\/v1\/payment-requests answered 401 insufficient_permission: .+\n$/);
    expect(noType).toMatchObject({ code: 2, stdout: '' });
    expect(noType.stderr).toContain('lnpr trigger needs an event TYPE');
  });

  it('--help prints the usage; lnpr --help lists trigger and listen', async () => {
    const [help, main] = await Promise.all([lnpr(['trigger', '--help']), lnpr(['--help'])]);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: lnpr trigger TYPE --base-url URL --api-key KEY \[--amount N\]\n/);
    for (const type of EVENT_TYPES) expect(help.stdout).toContain(type);
    expect(main.stdout).toContain('  trigger      make a sandbox emit an event');
    expect(main.stdout).toContain('  listen       forward a sandbox');
  });
});
