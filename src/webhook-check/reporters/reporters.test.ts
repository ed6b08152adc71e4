/** The three reporters of `lnpr webhooks check` on one hand-built run with every outcome and a hostile response body. */
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../schemas/webhooks.js';
import type { CaseResult, DeliveryRecord, WebhookCheckResult } from '../result.js';
import { formatJson, JSON_REPORT_FORMAT, JSON_REPORT_VERSION } from './json.js';
import { formatJunit } from './junit.js';
import { formatCaseLine, formatCountsLine, formatDeliveryLine, formatPretty, formatSummary } from './pretty.js';

const HOSTILE = `<error code="x">&amp; "quoted" 'single'\u0007\u001b[2J</error>\nsecond line`;

function delivery(overrides: Partial<DeliveryRecord>): DeliveryRecord {
  return {
    webhookId: 'evt_0123456789abcdefghijABCD',
    eventType: 'payment_request.completed',
    timestamp: 1_790_000_000,
    note: 'correctly signed',
    verdict: 'accepted',
    status: 200,
    responseExcerpt: '',
    durationMs: 3.4567,
    ...overrides,
  };
}

function sampleResult(): WebhookCheckResult {
  const cases: CaseResult[] = [
    {
      id: 'valid.created',
      title: 'payment_request.created, correctly signed: accepted',
      level: 'required',
      expect: 'accept',
      outcome: 'passed',
      deliveries: [delivery({ eventType: 'payment_request.created', status: 204 })],
      durationMs: 4.2,
    },
    {
      id: 'forged.other-secret',
      title: 'signed with another secret: refused',
      level: 'required',
      expect: 'refuse',
      outcome: 'failed',
      message: 'payment_request.completed (signed with another secret): accepted (200), expected a refusal (4xx)\nThe receiver accepted a forged signature.',
      deliveries: [delivery({ note: 'signed with another secret', responseExcerpt: HOSTILE })],
      durationMs: 2,
    },
    {
      id: 'forged.no-webhook-headers',
      title: 'none of the webhook-* headers: refused',
      level: 'required',
      expect: 'refuse',
      outcome: 'passed',
      deliveries: [delivery({ webhookId: undefined, timestamp: undefined, note: 'no webhook-* headers', verdict: 'redirected', status: 302, location: '/login' })],
      durationMs: 1,
    },
    {
      id: 'order.completed-before-created',
      title: "a second request's completed event, then its created event: both accepted",
      level: 'advisory',
      expect: 'accept',
      outcome: 'warned',
      message: 'payment_request.created (sent after its completed event): refused (409), expected a 2xx',
      deliveries: [delivery({ note: 'sent before its created event' }), delivery({ eventType: 'payment_request.created', verdict: 'refused', status: 409, responseExcerpt: 'out of order' })],
      durationMs: 6,
    },
    {
      id: 'stale.past',
      title: 'correctly signed, but webhook-timestamp 10 minutes old: refused',
      level: 'required',
      expect: 'refuse',
      outcome: 'failed',
      message: 'payment_request.completed (signed for a timestamp 10 minutes old): no answer (no answer within 10 s), expected a refusal',
      deliveries: [delivery({ verdict: 'no-answer', status: undefined, responseExcerpt: undefined, error: 'no answer within 10 s', durationMs: 10_000.5 })],
      durationMs: 10_001,
    },
  ];
  return { passed: false, url: 'http://127.0.0.1:3000/webhooks', cases, counts: { passed: 2, failed: 2, warned: 1 }, durationMs: 10_123.4567 };
}

describe('pretty reporter', () => {
  const result = sampleResult();
  const line = (id: string) => formatCaseLine(result.cases.find((c) => c.id === id)!);

  it('one line per case: mark, id, title, the answers, the time; reasons and responses indented below one that did not hold', () => {
    expect(line('valid.created')).toBe('✓ valid.created  payment_request.created, correctly signed: accepted → 204 (4 ms)');
    expect(line('forged.no-webhook-headers')).toBe('✓ forged.no-webhook-headers  none of the webhook-* headers: refused → 302 redirect (1 ms)');
    expect(line('forged.other-secret').split('\n')).toEqual([
      '✗ forged.other-secret  signed with another secret: refused → 200 (2 ms)',
      '    payment_request.completed (signed with another secret): accepted (200), expected a refusal (4xx)',
      '    The receiver accepted a forged signature.',
      `    response 200: <error code="x">&amp; "quoted" 'single'\\u0007\\u001b[2J</error> second line`,
    ]);
    expect(line('order.completed-before-created').split('\n')[0]).toBe(
      "! warned order.completed-before-created  a second request's completed event, then its created event: both accepted → completed 200, created 409 (6 ms)",
    );
    expect(line('stale.past').split('\n')[0]).toBe('✗ stale.past  correctly signed, but webhook-timestamp 10 minutes old: refused → no answer (10.0 s)');
  });

  it('a case of one delivery per event type: `401 ×4` when all answered alike, else each answer labelled; the summary and the responses name only the misses', () => {
    const types = EVENT_TYPES;
    const refused = (eventType: string) => delivery({ eventType, note: 'no webhook-signature header', verdict: 'refused', status: 401, responseExcerpt: 'bad signature' });
    const accepted = (eventType: string) => delivery({ eventType, note: 'no webhook-signature header', responseExcerpt: '{"ok":true}' });
    const base = { id: 'forged.no-signature', title: 'no webhook-signature header (each event type): refused', level: 'required', expect: 'refuse', durationMs: 5 } as const;
    expect(formatCaseLine({ ...base, outcome: 'passed', deliveries: types.map(refused) })).toBe(
      '✓ forged.no-signature  no webhook-signature header (each event type): refused → 401 ×4 (5 ms)',
    );
    const partly: CaseResult = {
      ...base,
      outcome: 'failed',
      message: 'payment_request.failed, payment_request.expired (no webhook-signature header): accepted (200), expected a refusal (4xx)\nRefused for payment_request.created, payment_request.completed only.',
      deliveries: types.map((type, index) => (index < 2 ? refused(type) : accepted(type))),
    };
    expect(formatCaseLine(partly).split('\n')).toEqual([
      '✗ forged.no-signature  no webhook-signature header (each event type): refused → created 401, completed 401, failed 200, expired 200 (5 ms)',
      '    payment_request.failed, payment_request.expired (no webhook-signature header): accepted (200), expected a refusal (4xx)',
      '    Refused for payment_request.created, payment_request.completed only.',
      '    response 200: {"ok":true}',
    ]);
    const summary = (cases: CaseResult[]) => formatSummary({ ...result, cases });
    expect(summary([partly])).toContain('\n  forged.no-signature  accepted (200) for payment_request.failed, payment_request.expired; must be refused\n');
    expect(summary([{ ...partly, deliveries: types.map(accepted) }])).toContain('\n  forged.no-signature  accepted (200); must be refused\n');
  });

  it('colours only when asked', () => {
    expect(line('valid.created')).not.toContain('\u001b[');
    const coloured = formatCaseLine(result.cases[0]!, { color: true });
    expect(coloured).toContain('\u001b[32m✓\u001b[0m');
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(line('valid.created'));
  });

  it('summarises: the URL, the failed and warned cases with what the receiver did, and the counts line last', () => {
    const summary = formatSummary(result);
    expect(summary).toContain('Webhook check of http://127.0.0.1:3000/webhooks: 5 cases (4 required, 1 advisory)');
    expect(summary).toContain(
      'Failed (required):\n  forged.other-secret  accepted (200); must be refused\n  stale.past           no answer (no answer within 10 s); must be refused',
    );
    expect(summary).toContain('Warned (advisory):\n  order.completed-before-created  refused (409) for payment_request.created; should be accepted');
    expect(summary).toContain('Duration: 10.1 s');
    expect(summary.split('\n').at(-1)).toBe('2 passed, 2 failed, 1 warned');
    expect(formatCountsLine(result)).toBe('2 passed, 2 failed, 1 warned');
    const clean = formatSummary({ ...result, cases: [result.cases[0]!], passed: true, counts: { passed: 1, failed: 0, warned: 0 } });
    expect(clean).not.toContain('Failed');
    expect(clean).not.toContain('Warned');
  });

  it('formatPretty is every case line, then the summary', () => {
    const all = formatPretty(result);
    expect(all.startsWith('✓ valid.created')).toBe(true);
    expect(all.trimEnd().split('\n').at(-1)).toBe('2 passed, 2 failed, 1 warned');
  });

  it('a delivery line says what was sent and what came back', () => {
    expect(formatDeliveryLine(result.cases[2]!.deliveries[0]!)).toBe(
      'POST payment_request.completed, no webhook-id, no webhook-timestamp (no webhook-* headers): redirected (302 to /login) in 3 ms',
    );
    expect(formatDeliveryLine(result.cases[3]!.deliveries[1]!)).toBe(
      'POST payment_request.created, webhook-id evt_0123456789abcdefghijABCD, webhook-timestamp 1790000000 (correctly signed): refused (409) in 3 ms; response: out of order',
    );
  });
});

/** A strict little XML reader: elements nest and close, attributes are quoted, entities are known, no raw markup or control characters in text. */
function parseXml(xml: string): XmlElement {
  const body = xml.replace(/^<\?xml [^?]*\?>\s*/, '');
  const root: XmlElement = { name: '#root', attributes: {}, children: [], text: '' };
  const stack = [root];
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  for (let position = 0; position < body.length; ) {
    token.lastIndex = position;
    const match = token.exec(body);
    if (!match) throw new Error(`not well-formed at ${position}: ${body.slice(position, position + 40)}`);
    position = token.lastIndex;
    const [, closing, name, attributeText, selfClosing, content] = match;
    const top = stack.at(-1)!;
    if (content !== undefined) top.text += decode(content);
    else if (closing) {
      if (top.name !== name) throw new Error(`</${name}> closes <${top.name}>`);
      stack.pop();
    } else {
      const attributes = Object.fromEntries([...attributeText!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)].map(([, key, value]) => [key!, decode(value!)]));
      const element: XmlElement = { name: name!, attributes, children: [], text: '' };
      top.children.push(element);
      if (!selfClosing) stack.push(element);
    }
  }
  if (stack.length !== 1 || root.children.length !== 1) throw new Error('not exactly one closed root element');
  return root.children[0]!;
}

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

function decode(value: string): string {
  if (/[<>\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(value)) throw new Error(`raw markup or control character in ${JSON.stringify(value)}`);
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return value.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);|&/g, (entity, name: string | undefined) => {
    if (name === undefined) throw new Error(`bare & in ${value}`);
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    if (!(name in named)) throw new Error(`unknown entity ${entity}`);
    return named[name]!;
  });
}

function all(element: XmlElement, name: string): XmlElement[] {
  return [...(element.name === name ? [element] : []), ...element.children.flatMap((child) => all(child, name))];
}

describe('JUnit reporter', () => {
  const result = sampleResult();
  const root = parseXml(formatJunit(result));
  const testcase = (id: string) => all(root, 'testcase').find((c) => c.attributes.name!.startsWith(`${id}:`))!;

  it('is well-formed: one <testsuite>, one <testcase> per case, the failures counted', () => {
    expect(root.name).toBe('testsuites');
    expect(root.attributes).toMatchObject({ name: 'lnpr webhooks check', tests: '5', failures: '2', errors: '0', skipped: '0', time: '10.123' });
    expect(root.children.map((suite) => suite.name)).toEqual(['testsuite']);
    expect(all(root, 'testcase').map((c) => [c.attributes.classname, c.attributes.name])).toEqual(
      result.cases.map((c) => [c.id.split('.')[0], `${c.id}: ${c.title}`]),
    );
    const properties = Object.fromEntries(all(root, 'property').map((p) => [p.attributes.name, p.attributes.value]));
    expect(properties).toEqual({ 'lnpr.url': 'http://127.0.0.1:3000/webhooks', 'lnpr.passed': 'false' });
  });

  it('a failed required case is a <failure>; a warned advisory one passes with the warning in <system-out>; every case logs its deliveries', () => {
    const failure = testcase('forged.other-secret').children.find((c) => c.name === 'failure')!;
    expect(failure.attributes).toEqual({
      message: 'payment_request.completed (signed with another secret): accepted (200), expected a refusal (4xx)',
      type: 'required case failed',
    });
    expect(failure.text).toBe(result.cases[1]!.message);
    expect(testcase('forged.other-secret').children.find((c) => c.name === 'system-out')!.text).toContain(`response: <error code="x">&amp; "quoted" 'single'\\u0007\\u001b[2J</error> second line`);
    expect(testcase('order.completed-before-created').children.map((c) => c.name)).toEqual(['system-out']);
    expect(testcase('order.completed-before-created').children[0]!.text).toMatch(/^warning \(advisory case did not hold\): payment_request\.created .*refused \(409\)/);
    expect(testcase('valid.created').children.map((c) => c.name)).toEqual(['system-out']);
    expect(testcase('stale.past').children.map((c) => c.name)).toEqual(['failure', 'system-out']);
  });
});

describe('JSON reporter', () => {
  const result = sampleResult();
  const json = formatJson(result);
  const parsed = JSON.parse(json);

  it('is the run under a format/version header, keys in a fixed order', () => {
    expect(Object.keys(parsed)).toEqual(['format', 'version', 'passed', 'url', 'durationMs', 'counts', 'cases']);
    expect([parsed.format, parsed.version]).toEqual([JSON_REPORT_FORMAT, JSON_REPORT_VERSION]);
    expect([parsed.format, parsed.version]).toEqual(['lnpr-webhooks-check', 1]);
    expect(parsed.counts).toEqual({ passed: 2, failed: 2, warned: 1 });
    expect(parsed.durationMs).toBe(10_123.457);
    expect(json.endsWith('}\n')).toBe(true);
  });

  it('has every case with its deliveries; headers a case left out are null', () => {
    expect(parsed.cases.map((c: { id: string }) => c.id)).toEqual(result.cases.map((c) => c.id));
    expect(Object.keys(parsed.cases[1])).toEqual(['id', 'title', 'level', 'expect', 'outcome', 'message', 'durationMs', 'deliveries']);
    expect(parsed.cases[1].deliveries[0].responseExcerpt).toBe(HOSTILE);
    expect(parsed.cases[2].deliveries[0]).toMatchObject({ webhookId: null, timestamp: null, verdict: 'redirected', status: 302, location: '/login' });
    expect(parsed.cases[4].deliveries[0]).toEqual({
      eventType: 'payment_request.completed',
      webhookId: 'evt_0123456789abcdefghijABCD',
      timestamp: 1_790_000_000,
      note: 'correctly signed',
      verdict: 'no-answer',
      status: null,
      error: 'no answer within 10 s',
      durationMs: 10_000.5,
    });
  });
});
