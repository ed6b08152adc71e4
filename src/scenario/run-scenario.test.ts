import { describe, expect, it } from 'vitest';
import { createSandbox } from '../sandbox.js';
import { loadScenario } from './load-scenario.js';
import { countSteps, formatStep, formatSummary } from './report.js';
import { runScenario, TargetUnreachableError, type FetchLike, type StepResult } from './run-scenario.js';

/** `fetch` answered by an in-process sandbox, recording what was asked. */
function inProcess(): { fetch: FetchLike; calls: Array<{ method: string; url: string; authorization?: string; body?: string }> } {
  const sandbox = createSandbox({ wallClock: { now: () => Date.UTC(2030, 0, 1) } });
  const calls: Array<{ method: string; url: string; authorization?: string; body?: string }> = [];
  return {
    calls,
    fetch: async (url, init) => {
      const { pathname, search } = new URL(url);
      calls.push({ method: init.method, url, authorization: init.headers.authorization, body: init.body });
      const response = await sandbox.handle({ method: init.method, url: pathname + search, headers: init.headers, body: init.body });
      return { status: response.status, text: async () => response.body };
    },
  };
}

const BASE = { baseUrl: 'http://sandbox.test', apiKey: 'sk_test_custodial' };

describe('runScenario', () => {
  it('runs the steps in order, with references, and reports each as it finishes', async () => {
    const { fetch, calls } = inProcess();
    const seen: StepResult[] = [];
    const result = await runScenario(
      loadScenario(`
name: Pay
steps:
  - reset: true
  - create: { amount: 1000, description: Tea, destinationWallet: m@example.com, metadata: { n: 1 } }
    as: order
    expect: { status: 201, body: { status: pending, feeAmount: 5 } }
  - pay: \${order.invoice}
    expect: { body: { paymentRequestId: "\${order.id}" }, preimageMatches: "\${order.paymentHash}" }
  - read: \${order.id}
    expect: { body: { status: completed }, preimageMatchesPaymentHash: true }
  - advance: \${order.metadata.n}
    expect: { body: { frozen: false } }
`),
      { ...BASE, fetch, onStep: (step) => seen.push(step) },
    );
    expect(result.passed).toBe(true);
    expect(result.notRun).toBe(0);
    expect(result.steps.map((s) => [s.index, s.passed])).toEqual([[1, true], [2, true], [3, true], [4, true], [5, true]]);
    expect(seen).toEqual(result.steps);
    const id = (result.steps[1]!.response!.body as { id: string }).id;
    expect(calls.map((c) => `${c.method} ${new URL(c.url).pathname}`)).toEqual([
      'POST /sandbox/v1/reset',
      'POST /api/v1/payment-requests',
      'POST /sandbox/v1/pay',
      `GET /api/v1/payment-requests/${id}`,
      'POST /sandbox/v1/clock/advance',
    ]);
    // A reference that is the whole value keeps its type: the clock got a number.
    expect(calls[4]!.body).toBe('{"seconds":1}');
    expect(calls.every((c) => c.authorization === 'Bearer sk_test_custodial')).toBe(true);
    expect(result.steps[3]!.label).toBe(`read ${id}`);
  });

  it('stops at the first failing step, with the mismatches, and counts the steps not run', async () => {
    const { fetch, calls } = inProcess();
    const result = await runScenario(
      loadScenario(`
name: Wrong
steps:
  - reset: true
  - create: { amount: 999, description: Tea, destinationWallet: m@example.com }
    expect: { body: { feeAmount: 5 } }
  - reset: true
  - reset: true
`),
      { ...BASE, fetch },
    );
    expect(result.passed).toBe(false);
    expect(result.notRun).toBe(2);
    expect(calls).toHaveLength(2);
    expect(result.steps[1]).toMatchObject({ index: 2, passed: false, mismatches: [{ path: 'body.feeAmount', expected: '5', actual: '10' }] });
    const lines = formatStep(result.steps[1]!);
    expect(lines[0]).toMatch(/^✗ 2 create 999 sats "Tea" \(\d+ ms\)$/);
    expect(lines).toContain('    expected body.feeAmount: 5');
    expect(lines).toContain('    actual   body.feeAmount: 10');
    expect(lines).toContain('    response: HTTP 201');
    expect(formatSummary(countSteps([result]))).toBe('1 passed, 1 failed');
  });

  it('fails a step whose reference names nothing, without sending it', async () => {
    const { fetch, calls } = inProcess();
    const result = await runScenario(loadScenario('name: x\nsteps:\n  - reset: true\n  - read: ${order.id}\n'), { ...BASE, fetch });
    expect(result.passed).toBe(false);
    expect(result.steps[1]).toMatchObject({ index: 2, passed: false, error: expect.stringMatching(/unknown reference \$\{order\.id\}: no earlier step is named "order"/) });
    expect(calls).toHaveLength(1);
  });

  it('uses named keys from the file, overridden by options, and literal keys', async () => {
    const { fetch, calls } = inProcess();
    const result = await runScenario(
      loadScenario(`
name: Keys
keys: { nwc: sk_file, other: sk_test_nwc }
steps:
  - clock: true
    key: nwc
  - clock: true
    key: other
  - clock: true
    key: sk_test_readonly
  - clock: true
    key: default
  - request: { method: GET, path: /sandbox/v1/clock, headers: { authorization: "Bearer \${keys.other}" } }
`),
      { ...BASE, fetch, keys: { nwc: 'sk_test_nwc' } },
    );
    expect(result.passed).toBe(true);
    expect(calls.map((c) => c.authorization)).toEqual([
      'Bearer sk_test_nwc',
      'Bearer sk_test_nwc',
      'Bearer sk_test_readonly',
      'Bearer sk_test_custodial',
      'Bearer sk_test_nwc',
    ]);
  });

  it('installs the rules before the steps (a reset keeps them), and removes them after', async () => {
    const { fetch, calls } = inProcess();
    const result = await runScenario(
      loadScenario(`
name: Rules
rules: [{ name: auto-pay, outcome: complete, after: 5 }]
steps:
  - reset: true
  - request: { method: GET, path: /sandbox/v1/rules }
    expect: { body: { rules: [{ name: auto-pay }] } }
`),
      { ...BASE, fetch },
    );
    expect(result.passed).toBe(true);
    expect(calls.map((c) => `${c.method} ${new URL(c.url).pathname} ${c.body ?? ''}`.trim())).toEqual([
      'PUT /sandbox/v1/rules {"rules":[{"name":"auto-pay","outcome":"complete","after":5}]}',
      'POST /sandbox/v1/reset',
      'GET /sandbox/v1/rules',
      'PUT /sandbox/v1/rules {"rules":[]}',
    ]);
    expect(result.steps.map((s) => s.index)).toEqual([null, 1, 2, null]);
    expect(formatStep(result.steps[0]!)[0]).toMatch(/^✓ · install the scenario's rules: auto-pay \(\d+ ms\)$/);
  });

  it('reset: all sends {"scope": "all"}, and installs the rules again after it for the default key only', async () => {
    const { fetch, calls } = inProcess();
    const result = await runScenario(
      loadScenario(`
name: Rules
keys: { nwc: sk_test_nwc }
rules: [{ name: auto-pay, outcome: complete, after: 5 }]
steps:
  - reset: all
  - reset: all
    key: nwc
  - request: { method: GET, path: /sandbox/v1/rules }
    expect: { body: { rules: [{ name: auto-pay }] } }
`),
      { ...BASE, fetch },
    );
    expect(result.passed).toBe(true);
    expect(calls.map((c) => `${c.method} ${new URL(c.url).pathname} ${c.body ?? ''}`.trim())).toEqual([
      'PUT /sandbox/v1/rules {"rules":[{"name":"auto-pay","outcome":"complete","after":5}]}',
      'POST /sandbox/v1/reset {"scope":"all"}',
      'PUT /sandbox/v1/rules {"rules":[{"name":"auto-pay","outcome":"complete","after":5}]}',
      'POST /sandbox/v1/reset {"scope":"all"}',
      'GET /sandbox/v1/rules',
      'PUT /sandbox/v1/rules {"rules":[]}',
    ]);
    expect(result.steps.map((s) => s.index)).toEqual([null, 1, null, 2, 3, null]);
    expect(result.steps[1]!.label).toBe('reset the account, webhook endpoints and rules too');
    expect(formatStep(result.steps[2]!)[0]).toMatch(/^✓ · install the scenario's rules: auto-pay \(again, after the full reset\) \(\d+ ms\)$/);
  });

  it('removes the rules even when a step failed', async () => {
    const { fetch, calls } = inProcess();
    const result = await runScenario(
      loadScenario('name: x\nrules: [{ outcome: fail }]\nsteps:\n  - clock: true\n    expect: { status: 500 }\n'),
      { ...BASE, fetch },
    );
    expect(result.passed).toBe(false);
    expect(calls.at(-1)).toMatchObject({ method: 'PUT', body: '{"rules":[]}' });
  });

  it('throws TargetUnreachableError when the target does not answer at all', async () => {
    const refused: FetchLike = () => Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) }));
    await expect(runScenario(loadScenario('name: x\nsteps:\n  - reset: true\n'), { ...BASE, fetch: refused })).rejects.toThrow(
      new TargetUnreachableError('cannot reach http://sandbox.test/sandbox/v1/reset: connect ECONNREFUSED 127.0.0.1:9'),
    );
  });

  it('gives up on a target that does not answer, as unreachable', async () => {
    const silent: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    await expect(runScenario(loadScenario('name: x\nsteps:\n  - reset: true\n'), { ...BASE, fetch: silent, timeoutMs: 50 })).rejects.toThrow(
      new TargetUnreachableError('no answer from http://sandbox.test/sandbox/v1/reset within 0.05 s'),
    );
  });
});
