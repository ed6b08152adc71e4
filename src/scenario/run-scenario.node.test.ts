/**
 * The webhook steps end to end in one process: an in-process sandbox (delivering with fetch) and
 * receivers on node:http, as the CLI runs them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../sandbox.js';
import { loadScenario } from './load-scenario.js';
import { formatStep } from './report.js';
import { runScenario, TargetUnreachableError, type FetchLike, type StartReceiver } from './run-scenario.js';
import { nodeReceivers } from './webhook-receiver.node.js';

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.close());

/** `fetch` answered by an in-process sandbox with a frozen clock, recording what was asked. */
function inProcess(fail?: (path: string) => boolean): { fetch: FetchLike; calls: string[] } {
  const engine = createSandbox({ clock: 'frozen' });
  sandbox = engine;
  const calls: string[] = [];
  return {
    calls,
    fetch: async (url, init) => {
      const { pathname, search } = new URL(url);
      calls.push(`${init.method} ${pathname}${search}`);
      if (fail?.(pathname)) throw new TypeError('fetch failed');
      const response = await engine.handle({ method: init.method, url: pathname + search, headers: init.headers, body: init.body });
      return { status: response.status, text: async () => response.body };
    },
  };
}

/** Node receivers, remembering their URLs. */
function receivers(): { startReceiver: StartReceiver; urls: string[] } {
  const urls: string[] = [];
  const start = nodeReceivers();
  return {
    urls,
    startReceiver: async (log) => {
      const handle = await start(log);
      urls.push(handle.url);
      return handle;
    },
  };
}

async function refuses(url: string): Promise<boolean> {
  try {
    await fetch(url, { method: 'POST', body: '{}' });
    return false;
  } catch {
    return true;
  }
}

const BASE = { baseUrl: 'http://sandbox.test', apiKey: 'sk_test_custodial' };

describe('runScenario with webhook steps', () => {
  it('starts receivers, registers endpoints, checks deliveries, lists events and deliveries, and cleans up', async () => {
    const { fetch, calls } = inProcess();
    const { startReceiver, urls } = receivers();
    const result = await runScenario(
      loadScenario(`
name: Webhooks
steps:
  - reset: true
  - receiver: { answer: [500, 204] }
    as: shop
  - webhook: { url: "\${shop.url}" }
    as: hook
  - create: { amount: 1000, description: Tea, destinationWallet: m@example.com }
    as: order
  - received: shop
    as: got
    expect: { count: 1, types: [payment_request.created], events: [{ data: "\${order}" }], verified: true, sameWebhookId: true }
  - deliveries: { endpoint: "\${hook.id}" }
    expect: { body: { data: [{ attempt: 2, status: pending }, { attempt: 1, status: failed, responseStatus: 500 }] } }
  - advance: 5
  - received: shop
    expect: { count: 2, sameWebhookId: true, verified: true }
  - deliveries: { event: "\${got.data.0.event.id}" }
    expect: { count: 2, body: { data: [{ attempt: 2, status: succeeded, responseStatus: 204 }, {}] } }
  - events: { paymentRequest: "\${order.id}" }
    expect: { count: 1, body: { data: [{ id: "\${got.data.0.webhookId}" }] } }
  - redeliver: \${got.data.0.event.id}
    expect: { status: 202 }
  - received: shop
    expect: { count: 3, types: [payment_request.created, payment_request.created, payment_request.created] }
`),
      { ...BASE, fetch, startReceiver },
    );
    expect(result.steps.filter((s) => !s.passed).flatMap(formatStep)).toEqual([]);
    expect(result.passed).toBe(true);
    expect(result.steps[1]!.label).toBe(`start a webhook receiver answering 500, then 204 as shop: ${urls[0]}`);
    // The endpoint is removed after the last step, and the receiver is stopped.
    const endpointId = (result.steps[2]!.response!.body as { id: string }).id;
    expect(calls.at(-1)).toBe(`DELETE /sandbox/v1/webhook-endpoints/${endpointId}`);
    expect(result.steps.at(-1)).toMatchObject({ index: null, passed: true, label: `remove the scenario's webhook endpoint ${endpointId}` });
    expect(await refuses(urls[0]!)).toBe(true);
  });

  it('tells the secret only to a receiver at the endpoint URL; a failed received step shows what came', async () => {
    const { fetch } = inProcess();
    const { startReceiver } = receivers();
    const result = await runScenario(
      loadScenario(`
name: Secrets
steps:
  - receiver: true
    as: shop
  - receiver: true
    as: unknown
  # Same scheme, host and port, another path: still the shop's receiver.
  - webhook: { url: "\${shop.url}/orders" }
  # Registered by hand, so the runner does not know the secret.
  - request: { method: POST, path: /sandbox/v1/webhook-endpoints, body: { url: "\${unknown.url}" } }
    as: manual
  - create: { amount: 1000, description: Tea, destinationWallet: m@example.com }
  - received: shop
    expect: { verified: true }
  - request: { method: DELETE, path: "/sandbox/v1/webhook-endpoints/\${manual.id}" }
  - received: unknown
    expect: { count: 1, verified: true }
`),
      { ...BASE, fetch, startReceiver },
    );
    expect(result.passed).toBe(false);
    const failed = result.steps.find((s) => !s.passed)!;
    expect(failed.index).toBe(8);
    const lines = formatStep(failed);
    expect(lines[0]).toMatch(/^✗ 8 deliveries received by unknown \(\d+ ms\)$/);
    expect(lines).toContain('    expected deliveries[0].verified: true');
    expect(lines).toContain('    received: 1 delivery');
    expect(lines.at(-1)).toMatch(/^ {6}1\. payment_request\.created evt_\w+ webhook-id evt_\w+, NOT verified, answered 204$/);
  });

  it('fails a receiver step when the runner has no way to start one', async () => {
    const { fetch } = inProcess();
    const result = await runScenario(loadScenario('name: x\nsteps:\n  - receiver: true\n    as: shop\n  - reset: true\n'), { ...BASE, fetch });
    expect(result.passed).toBe(false);
    expect(result.steps[0]!.error).toMatch(/cannot start webhook receivers/);
    expect(result.notRun).toBe(1);
  });

  it('asks again while an events or deliveries step does not hold, then fails with the last answer', async () => {
    const { fetch, calls } = inProcess();
    const result = await runScenario(loadScenario('name: x\nsteps:\n  - events: { type: payment_request.failed }\n    expect: { count: 1 }\n'), {
      ...BASE,
      fetch,
      pollTimeoutMs: 350,
    });
    expect(result.passed).toBe(false);
    expect(result.steps[0]!.mismatches).toEqual([{ path: 'body.data.length', expected: '1', actual: '0' }]);
    expect(calls.length).toBeGreaterThan(2);
    expect(new Set(calls)).toEqual(new Set(['GET /sandbox/v1/events?type=payment_request.failed']));
  });

  it('stops its receivers when the target stops answering', async () => {
    const { fetch } = inProcess((path) => path === '/sandbox/v1/clock');
    const { startReceiver, urls } = receivers();
    await expect(
      runScenario(loadScenario('name: x\nsteps:\n  - receiver: true\n    as: shop\n  - clock: true\n'), { ...BASE, fetch, startReceiver }),
    ).rejects.toBeInstanceOf(TargetUnreachableError);
    expect(urls).toHaveLength(1);
    expect(await refuses(urls[0]!)).toBe(true);
  });
});
