import { describe, expect, it } from 'vitest';
import { createSandbox } from '../sandbox.js';
import { loadScenario } from './load-scenario.js';
import { countSteps, formatStep, formatSummary } from './report.js';
import { runScenario, TargetUnreachableError, type FetchLike, type PayThroughWallet, type StepResult } from './run-scenario.js';

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

/** Like `inProcess`, but the API faults' transport happens: a drop rejects as fetch does, a delay waits. */
function withTransport(): { fetch: FetchLike; calls: string[] } {
  const sandbox = createSandbox();
  const calls: string[] = [];
  return {
    calls,
    fetch: async (url, init) => {
      const { pathname, search } = new URL(url);
      calls.push(`${init.method} ${pathname}${search}`);
      const response = await sandbox.handle({ method: init.method, url: pathname + search, headers: init.headers, body: init.body });
      if (response.transport?.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, response.transport!.delayMs));
      if (response.transport?.drop === true) throw new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
      const headers = new Headers(Object.entries(response.headers ?? {}).map(([name, value]): [string, string] => [name, String(value)]));
      return { status: response.status, text: async () => response.body, headers };
    },
  };
}

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

  it('within: asks a read-only step again until it holds, for up to that many seconds', async () => {
    let reads = 0;
    const later: FetchLike = async (url) => {
      if (new URL(url).pathname.endsWith('/status')) reads++;
      return { status: 200, text: async () => JSON.stringify({ status: reads >= 3 ? 'completed' : 'pending' }) };
    };
    const held = await runScenario(loadScenario('name: x\nsteps:\n  - status: pr_1\n    within: 2\n    expect: { body: { status: completed } }\n'), { ...BASE, fetch: later });
    expect(held.passed).toBe(true);
    expect(reads).toBe(3);
    // Without within, one read and the step fails.
    reads = 0;
    const once = await runScenario(loadScenario('name: x\nsteps:\n  - status: pr_1\n    expect: { body: { status: completed } }\n'), { ...BASE, fetch: later });
    expect(once.passed).toBe(false);
    expect(reads).toBe(1);
    // It gives up when the time is over, with the last answer's mismatches.
    reads = -1_000;
    const started = performance.now();
    const over = await runScenario(loadScenario('name: x\nsteps:\n  - status: pr_1\n    within: 0.3\n    expect: { body: { status: completed } }\n'), { ...BASE, fetch: later });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(over.steps[0]).toMatchObject({ passed: false, mismatches: [{ path: 'body.status', expected: '"completed"', actual: '"pending"' }] });
  });

  it('API faults: dropped (a reset, a hang), tookAtLeastMs (latency), headers (Retry-After), and the journal', async () => {
    const { fetch } = withTransport();
    const result = await runScenario(
      loadScenario(`
name: Faults
steps:
  - reset: all
  - request: { method: PUT, path: /sandbox/v1/faults, body: { faults: [{ times: 1, fault: { status: 503, retryAfter: 2 } }] } }
  - create: { amount: 1000, description: A-1, destinationWallet: m@example.com, metadata: { orderId: A-1 } }
    expect: { status: 503, error: simulated_fault, headers: { retry-after: 2 } }
  - request: { method: PUT, path: /sandbox/v1/faults, body: { faults: [{ times: 1, fault: { resetAfterCommit: true } }] } }
  - create: { amount: 1000, description: A-1, destinationWallet: m@example.com, metadata: { orderId: A-1 } }
    as: lost
    expect: { dropped: true }
  - request: { method: PUT, path: /sandbox/v1/faults, body: { faults: [{ times: 1, fault: { latencyMs: 150 } }] } }
  - create: { amount: 1000, description: late, destinationWallet: m@example.com }
    expect: { status: 201, tookAtLeastMs: 150 }
  - request: { method: PUT, path: /sandbox/v1/faults, body: { faults: [{ times: 1, fault: { hangMs: 150 } }] } }
  - create: { amount: 1000, description: hung, destinationWallet: m@example.com }
    expect: { dropped: true, tookAtLeastMs: 150 }
  - request: { method: GET, path: "/sandbox/v1/requests?method=POST" }
    expect:
      count: 4
      body:
        data:
          - { status: null, fault: { hangMs: 150 } }
          - { status: 201, fault: { latencyMs: 150 } }
          - { status: null, fault: { resetAfterCommit: true }, body: { metadata: { orderId: A-1 } } }
          - { status: 503, body: { metadata: { orderId: A-1 } } }
  - request: { method: PUT, path: /sandbox/v1/faults, body: { faults: [] } }
`),
      { ...BASE, fetch },
    );
    expect(result.steps.filter((step) => !step.passed).map((step) => formatStep(step))).toEqual([]);
    expect(result.passed).toBe(true);
    // A dropped step passes with no response; its name stands for null.
    expect(result.steps[4]!.response).toBeUndefined();
  });

  it('dropped: an answer fails the step, shown as usual; without dropped, no answer stops the run as before', async () => {
    const { fetch } = withTransport();
    const answered = await runScenario(loadScenario('name: x\nsteps:\n  - clock: true\n    expect: { dropped: true }\n  - clock: true\n'), { ...BASE, fetch });
    expect(answered.steps[0]).toMatchObject({ passed: false, mismatches: [{ path: 'answer', expected: '(none: the connection closed)', actual: 'HTTP 200' }] });
    expect(formatStep(answered.steps[0]!)).toContain('    response: HTTP 200');
    expect(answered.notRun).toBe(1);

    const slow = await runScenario(
      loadScenario(`
name: x
steps:
  - request: { method: PUT, path: /sandbox/v1/faults, body: { faults: [{ fault: { reset: true } }] } }
  - create: { amount: 1000, description: x, destinationWallet: m@example.com }
    expect: { dropped: true, tookAtLeastMs: 5000 }
`),
      { ...BASE, fetch },
    );
    expect(slow.steps[1]).toMatchObject({ passed: false, mismatches: [{ path: 'time', expected: 'at least 5000 ms' }], details: [expect.stringMatching(/^no answer: cannot reach http:\/\/sandbox\.test\/api\/v1\/payment-requests: UND_ERR_SOCKET \(other side closed\)$/)] });
    await expect(
      runScenario(loadScenario('name: x\nsteps:\n  - create: { amount: 1000, description: x, destinationWallet: m@example.com }\n'), { ...BASE, fetch }),
    ).rejects.toThrow(TargetUnreachableError);
  });

  it('walletPay: hands the URI and invoice to payThroughWallet, checks the answer, keeps it for references', async () => {
    const { fetch } = inProcess();
    const payments: Array<{ nwcUrl: string; invoice: string; timeoutMs: number }> = [];
    let paid = false;
    const payThroughWallet: PayThroughWallet = async (payment) => {
      payments.push(payment);
      if (paid) return { error: { code: 'PAYMENT_FAILED', message: 'already paid' } };
      paid = true;
      // The in-process sandbox pays, as a wallet of the sandbox would.
      const answer = await fetch('http://sandbox.test/sandbox/v1/pay', {
        method: 'POST',
        headers: { authorization: 'Bearer sk_test_custodial', 'content-type': 'application/json' },
        body: JSON.stringify({ invoice: payment.invoice }),
      });
      const { preimage } = JSON.parse(await answer.text()) as { preimage: string };
      return { result: { preimage, fees_paid: 0 } };
    };
    const result = await runScenario(
      loadScenario(`
name: Wallet
steps:
  - reset: true
  - create: { amount: 1000, description: Tea, destinationWallet: m@example.com }
    as: order
  - walletPay: { nwcUrl: "nostr+walletconnect://wallet-of-\${order.id}?secret=5555", invoice: "\${order.invoice}" }
    as: paid
    expect: { preimageMatches: "\${order.paymentHash}", body: { fees_paid: 0 } }
  - read: \${order.id}
    expect: { body: { status: completed, preimage: "\${paid.preimage}" } }
  - walletPay: { nwcUrl: x, invoice: "\${order.invoice}" }
    expect: { error: PAYMENT_FAILED }
  - walletPay: { nwcUrl: x, invoice: "\${order.invoice}" }
`),
      { ...BASE, fetch, payThroughWallet, walletTimeoutMs: 1234 },
    );
    expect(result.steps.map((step) => step.passed)).toEqual([true, true, true, true, true, false]);
    const order = result.steps[1]!.response!.body as { id: string; invoice: string };
    expect(payments[0]).toEqual({ nwcUrl: `nostr+walletconnect://wallet-of-${order.id}?secret=5555`, invoice: order.invoice, timeoutMs: 1234 });
    // Only a URI that is one reference is named: anything written out may hold a secret.
    expect(result.steps[2]!.label).toBe('pay ${order.invoice} through an NWC wallet as paid');
    // A refusal nobody expected: the wallet's code and message, and what it answered.
    expect(result.steps[5]).toMatchObject({
      mismatches: [{ path: 'wallet', expected: 'a payment (a preimage)', actual: '"PAYMENT_FAILED: already paid"' }],
      details: ['the wallet answered {"error":{"code":"PAYMENT_FAILED","message":"already paid"}}'],
    });
    expect(result.steps[5]!.response).toBeUndefined();
  });

  it('walletPay fails without a payer, and when the wallet does not answer; the run goes on to the end', async () => {
    const { fetch } = inProcess();
    const scenario = loadScenario('name: x\nsteps:\n  - walletPay: { nwcUrl: x, invoice: y }\n');
    const without = await runScenario(scenario, { ...BASE, fetch });
    expect(without.steps[0]).toMatchObject({ passed: false, error: 'this runner cannot pay through a wallet (runScenario needs a payThroughWallet; the lnpr CLI has one)' });
    const silent = await runScenario(scenario, {
      ...BASE,
      fetch,
      payThroughWallet: () => Promise.reject(new Error('no answer from the wallet to pay_invoice within 10000 ms')),
    });
    expect(silent.steps[0]).toMatchObject({ passed: false, error: 'no answer from the wallet: no answer from the wallet to pay_invoice within 10000 ms' });
    // A reference to something that is not text is no invoice.
    const wrong = await runScenario(loadScenario('name: x\nsteps:\n  - clock: true\n    as: c\n  - walletPay: { nwcUrl: x, invoice: "${c}" }\n'), {
      ...BASE,
      fetch,
      payThroughWallet: () => Promise.reject(new Error('not called')),
    });
    expect(wrong.steps[1]!.error).toMatch(/^walletPay\.invoice must be an invoice, got \{/);
  });
});
