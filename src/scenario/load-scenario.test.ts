import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenario, ScenarioFileError } from './load-scenario.js';

const SCENARIOS = fileURLToPath(new URL('../../scenarios/', import.meta.url));

/** The problems `text` is rejected with. */
function problemsOf(text: string): string[] {
  try {
    loadScenario(text, 'test.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioFileError);
    return (error as ScenarioFileError).problems;
  }
  throw new Error('the scenario was accepted');
}

describe('loadScenario', () => {
  it.each(readdirSync(SCENARIOS).filter((file) => file.endsWith('.yaml')))('loads the shipped scenario %s', (file) => {
    const scenario = loadScenario(readFileSync(SCENARIOS + file, 'utf8'), file);
    expect(scenario.description?.length).toBeGreaterThan(80);
    // Independence: each starts with a full reset of the account it mostly uses (webhook
    // endpoints and rules too), so it passes on a sandbox others have used.
    expect(scenario.steps[0]).toMatchObject({ reset: 'all' });
  });

  it('loads the example of the format in scenarios/README.md', () => {
    const readme = readFileSync(SCENARIOS + 'README.md', 'utf8');
    const example = /## Format\n\n```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    expect(loadScenario(example!, 'README.md').steps).toHaveLength(3);
  });

  it('parses a scenario with keys, rules, references and expectations', () => {
    const scenario = loadScenario(`
name: Example
keys: { nwc: sk_test_nwc }
rules: [{ name: auto-pay, outcome: complete, after: 5 }]
steps:
  - reset: true
  - create: { amount: 1000 }
    as: order
    key: nwc
    expect: { status: 201, body: { amount: 1000 }, absent: [preimage] }
  - advance: \${order.amount}
  - pay: \${order.invoice}
    expect: { preimageMatches: "\${order.paymentHash}" }
  - request: { method: GET, path: /healthz }
    title: the health check
`);
    expect(scenario.keys).toEqual({ nwc: 'sk_test_nwc' });
    expect(scenario.rules).toEqual([{ name: 'auto-pay', outcome: 'complete', after: 5 }]);
    expect(scenario.steps).toHaveLength(5);
    expect(scenario.steps[2]).toEqual({ advance: '${order.amount}' });
  });

  it('names the step, its line and the problem: two actions, none, unknown keys', () => {
    expect(
      problemsOf(`name: x
steps:
  - reset: true
  - create: {}
    pay: abc
  - title: only a title
  - read: pr_1
    expct: { status: 200 }
`),
    ).toEqual([
      'step 2 (line 4): 2 actions (create, pay): a step takes exactly one',
      expect.stringMatching(/^step 3 \(line 6\): no action: a step takes exactly one of reset, create, read/),
      expect.stringMatching(/^step 4 \(line 7\): unknown key "expct" \(a step takes one action of/),
    ]);
  });

  it('checks the values of actions and expectations', () => {
    const problems = problemsOf(`name: x
steps:
  - advance: -1
  - advance: soon
  - freeze: yes
  - read: 5
  - as: 1st
    reset: true
  - request: { method: GET, path: api, body: {}, rawBody: "" }
  - read: x
    expect: { status: "200", exactbody: true }
  - reset
`);
    expect(problems).toEqual([
      'step 1 (line 3): advance must be a whole number of seconds (0 or more), or one reference such as ${wait.seconds}',
      'step 2 (line 4): advance must be a whole number of seconds (0 or more), or one reference such as ${wait.seconds}',
      'step 3 (line 5): freeze must be true',
      'step 4 (line 6): read must be a payment request id, usually a reference such as ${order.id}',
      'step 5 (line 7): as must be a name: letters, digits and _, not starting with a digit (not keys)',
      'step 6 (line 9): request takes body or rawBody, not both',
      'step 6 (line 9): request.path must be a path starting with /, e.g. /api/v1/payment-requests',
      'step 7 (line 10): expect: unknown key "exactbody"',
      'step 7 (line 10): expect.status must be integer',
      'step 8 (line 12): a step must be a mapping, e.g. `- read: ${order.id}`',
    ]);
  });

  it('parses the webhook steps', () => {
    const scenario = loadScenario(`
name: Webhooks
steps:
  - reset: true
  - receiver: { answer: [500, 204] }
    as: shop
  - webhook: { url: "\${shop.url}", events: [payment_request.completed], faults: { duplicate: 1 } }
    as: hook
  - received: shop
    as: got
    expect: { count: 2, types: [payment_request.completed], events: [{}], verified: true, sameWebhookId: true }
  - events: { paymentRequest: pr_1, type: payment_request.created, limit: 1 }
    expect: { count: 1, body: { data: [{ type: payment_request.created }] } }
  - deliveries: { event: "\${got.data.0.event.id}", endpoint: "\${hook.id}", limit: "\${hook.limit}" }
  - redeliver: evt_1
    expect: { status: 202 }
  - receiver: true
    as: other
`);
    expect(scenario.steps[1]).toEqual({ receiver: { answer: [500, 204] }, as: 'shop' });
    expect(scenario.steps[7]).toEqual({ receiver: true, as: 'other' });
  });

  it('checks the webhook steps: receivers named and started before received, expectations that apply', () => {
    expect(
      problemsOf(`name: x
steps:
  - received: shop
  - receiver: true
  - receiver: false
    as: a
  - receiver: { answer: [500, 99], after: 1 }
    as: b
    expect: { status: 200 }
  - received: b
    key: nwc
    expect: { status: 200, count: 1, verified: false }
  - events: { type: x, colour: red }
    expect: { types: [x] }
  - webhook: { events: [] }
  - deliveries: { limit: 0 }
  - redeliver: ""
`),
    ).toEqual([
      'step 1 (line 3): received: "shop" is not the name of an earlier receiver step (none so far)',
      'step 2 (line 4): a receiver needs a name, `as: NAME`, for `received: NAME` and `${NAME.url}`',
      'step 3 (line 5): receiver must be true, or { answer: [status, …] }',
      'step 4 (line 7): receiver: unknown key "after"',
      'step 4 (line 7): receiver.answer.1 must be >= 100',
      'step 4 (line 7): a receiver takes no expect or key: it sends no request (a later `received` step expects on what it got)',
      'step 5 (line 10): expect.verified must be true',
      'step 5 (line 10): received takes no key: it sends no request',
      'step 5 (line 10): expect.status does not apply to received (it takes count, types, events, verified, sameWebhookId)',
      'step 6 (line 13): events: unknown key "colour"',
      'step 6 (line 13): expect.types applies only to received steps (what a receiver got)',
      'step 7 (line 15): webhook: "url" is required',
      'step 8 (line 16): deliveries.limit must be a whole number (1 or more), or one reference',
      'step 9 (line 17): redeliver must be an event id, usually a reference such as ${log.data.0.id}',
    ]);
  });

  it('parses walletPay, within, and the expectations dropped, tookAtLeastMs and headers', () => {
    const scenario = loadScenario(`
name: Wallets and faults
steps:
  - reset: all
  - walletPay: { nwcUrl: "\${payer.nwcUrl}", invoice: "\${order.invoice}" }
    as: paid
    expect: { preimageMatches: "\${order.paymentHash}", body: { fees_paid: 0 } }
  - walletPay: { nwcUrl: "\${payer.nwcUrl}", invoice: "\${order.invoice}" }
    expect: { error: PAYMENT_FAILED }
  - status: \${order.id}
    within: 6
    expect: { body: { status: completed } }
  - request: { method: get, path: /sandbox/v1/requests }
    within: 0.5
    expect: { count: 1 }
  - create: { amount: 1000 }
    expect: { dropped: true, tookAtLeastMs: 300 }
  - create: { amount: 1000 }
    expect: { status: 503, headers: { retry-after: 2, X-Other: "a" }, tookAtLeastMs: 0 }
`);
    expect(scenario.steps[1]).toEqual({ walletPay: { nwcUrl: '${payer.nwcUrl}', invoice: '${order.invoice}' }, as: 'paid', expect: { preimageMatches: '${order.paymentHash}', body: { fees_paid: 0 } } });
    expect(scenario.steps[3]).toMatchObject({ within: 6 });
    expect(scenario.steps[5]).toMatchObject({ expect: { dropped: true, tookAtLeastMs: 300 } });
  });

  it('checks walletPay, within and dropped: no key for a wallet, asking again only where it only reads, nothing else with dropped', () => {
    expect(
      problemsOf(`name: x
steps:
  - walletPay: { nwcUrl: nostr+walletconnect://x }
  - walletPay: { nwcUrl: a, invoice: b, amount: 1 }
    key: nwc
    expect: { status: 200, count: 1, dropped: true, verified: true }
  - create: { amount: 1 }
    within: 5
  - request: { method: POST, path: /sandbox/v1/pay }
    within: 5
  - status: pr_1
    within: 61
  - create: {}
    expect: { dropped: false, tookAtLeastMs: -1 }
  - create: {}
    expect: { dropped: true, status: 201, body: {} }
  - read: pr_1
    within: 1
    expect: { dropped: true }
  - received: shop
    expect: { dropped: true }
  - pay: x
    expect: { headers: { retry-after: [2] } }
`),
    ).toEqual([
      'step 1 (line 3): walletPay: "invoice" is required',
      'step 2 (line 4): walletPay: unknown key "amount"',
      'step 2 (line 4): walletPay takes no key: it pays through the wallet over Nostr, not through the server',
      'step 2 (line 4): expect.status does not apply to walletPay (it takes body, absent, error, exactBody, preimageMatches)',
      'step 2 (line 4): expect.count does not apply to walletPay (it takes body, absent, error, exactBody, preimageMatches)',
      'step 2 (line 4): expect.dropped does not apply to walletPay (it takes body, absent, error, exactBody, preimageMatches)',
      'step 2 (line 4): expect.verified does not apply to walletPay (it takes body, absent, error, exactBody, preimageMatches)',
      'step 2 (line 4): expect.dropped: there is no answer to expect status, count, verified of (only tookAtLeastMs goes with dropped)',
      'step 3 (line 7): within asks again, so it is only for steps that only read: read, status, clock, events, deliveries, and request with GET or HEAD',
      'step 4 (line 9): within asks again, so it is only for steps that only read: read, status, clock, events, deliveries, and request with GET or HEAD',
      'step 5 (line 11): within must be <= 60',
      'step 6 (line 13): expect.dropped must be true',
      'step 6 (line 13): expect.tookAtLeastMs must be >= 0',
      'step 7 (line 15): expect.dropped: there is no answer to expect status, body of (only tookAtLeastMs goes with dropped)',
      'step 8 (line 17): within does not go with expect.dropped: a request that got no answer is not asked again',
      'step 9 (line 20): received: "shop" is not the name of an earlier receiver step (none so far)',
      'step 9 (line 20): expect.dropped does not apply to received (it takes count, types, events, verified, sameWebhookId)',
      'step 10 (line 22): expect.headers.retry-after must be a header value, as text (a number stands for its digits)',
    ]);
  });

  it('checks the top level: name, steps, keys, rules', () => {
    expect(problemsOf('steps: []\nkeys: { default: a }\nrules: [{ outcome: win }]\nextra: 1\n')).toEqual([
      '"name" is required',
      'unknown key "extra"',
      'keys: "default" is not a usable name (letters, digits and _; not default, keys or __proto__)',
      'rules.0.outcome must be one of "complete", "fail", "expire", "none"',
      'steps: a scenario needs at least one step',
    ]);
    expect(problemsOf('- just a list')).toEqual(['the file must be a mapping with name and steps']);
    expect(problemsOf('')).toEqual(['the file must be a mapping with name and steps']);
  });

  it('rejects malformed references before anything runs', () => {
    expect(problemsOf('name: x\nsteps:\n  - reset: true\n  - read: "${ order id }"\n')).toEqual([
      'step 2 (line 4): malformed reference ${ order id }: write ${name} or ${name.field}',
    ]);
  });

  it('reports YAML syntax errors with their line, and the quoting hint for references in flow style', () => {
    expect(problemsOf('name: x\nsteps:\n  - read: a\n  - read: b\n    read: c\n')).toEqual(['line 5: Map keys must be unique']);
    const [first] = problemsOf('name: x\nsteps:\n  - pay: a\n    expect: { preimageMatches: ${a.b} }\n');
    expect(first).toMatch(/^line 4: .*quote references: "\$\{order\.id\}"/);
  });

  it('puts the file name and every problem in the message', () => {
    expect(() => loadScenario('name: x\nsteps:\n  - nope: 1\n', 'scenarios/bad.yaml')).toThrow(
      /^scenarios\/bad\.yaml is not a valid scenario:\n {2}- step 1 \(line 3\): /,
    );
  });
});
