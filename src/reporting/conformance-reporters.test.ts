/** The three conformance reporters (and the shared escaping and colour rules) on one hand-built run that has every outcome, a hostile message, observations and warnings. */
import { describe, expect, it } from 'vitest';
import { formatJson, JSON_REPORT_FORMAT, JSON_REPORT_VERSION } from './conformance-json.js';
import { formatJunit } from './conformance-junit.js';
import { formatCheckLine, formatCountsLine, formatPretty, formatSummary } from './conformance-pretty.js';
import type { CheckReport, ConformanceReport } from './conformance-report.js';
import { xmlAttr, xmlText } from './junit-xml.js';
import { shouldColor } from './pretty-text.js';

const HOSTILE = `expected <401> & got "200" 'ok'\u0007 done`;

function check(overrides: Partial<CheckReport> & Pick<CheckReport, 'id' | 'outcome'>): CheckReport {
  return { title: `Title of ${overrides.id}`, section: 'Creating', level: 'MUST', profile: 'core', durationMs: 12.3456, ...overrides };
}

/** One check of every outcome, in two sections. */
function sampleResult(): ConformanceReport {
  const checks: CheckReport[] = [
    check({ id: 'create.fields-present', title: 'Every field of the spec is present', outcome: 'passed' }),
    check({ id: 'create.status-201', outcome: 'failed', message: `${HOSTILE}\nsecond line of the body` }),
    check({ id: 'fees.rounding', section: 'Fees', level: 'SHOULD', outcome: 'warned', message: 'fee 5.5 is not whole sats' }),
    check({ id: 'auth.read-only-cannot-create', section: 'Authentication', outcome: 'skipped', message: 'needs a read-only key (--read-only-key)', durationMs: 0 }),
    check({ id: 'create.metadata-echo', outcome: 'known-failure', message: 'metadata comes back as {}' }),
    check({ id: 'create.id-prefix', outcome: 'unexpected-pass', message: 'listed as known-failing but passes: remove it from the list', durationMs: 1500 }),
  ];
  return {
    passed: false,
    baseUrl: 'http://127.0.0.1:8787',
    profile: 'core',
    lifecycle: 'none',
    checks,
    observations: { network: 'mainnet', minAmount: '21' },
    warnings: ['the target issues MAINNET invoices: paying them moves real bitcoin'],
    footprint: { isolated: false, left: [{ key: 'main', paymentRequests: 97, clockAdvancedSeconds: 61 }, { key: 'nwc', paymentRequests: 1, clockAdvancedSeconds: 0 }] },
    counts: { passed: 1, failed: 1, warned: 1, skipped: 1, 'known-failure': 1, 'unexpected-pass': 1 },
    durationMs: 2345.6789,
  };
}

describe('pretty reporter', () => {
  const result = sampleResult();
  const line = (id: string) => formatCheckLine(result.checks.find((c) => c.id === id)!);

  it('shows each outcome with its mark, id, title and time; messages indented below', () => {
    expect(line('create.fields-present')).toBe('✓ create.fields-present  Every field of the spec is present (12 ms)');
    expect(line('create.status-201')).toBe(
      `✗ create.status-201  Title of create.status-201 (12 ms)\n    ${HOSTILE}\n    second line of the body`,
    );
    expect(line('fees.rounding')).toBe('! warned fees.rounding  Title of fees.rounding (12 ms)\n    fee 5.5 is not whole sats');
    expect(line('auth.read-only-cannot-create')).toBe(
      '↷ skipped auth.read-only-cannot-create  Title of auth.read-only-cannot-create (needs a read-only key (--read-only-key))',
    );
    expect(line('create.metadata-echo')).toBe('✓ (known failure) create.metadata-echo  Title of create.metadata-echo (12 ms)\n    metadata comes back as {}');
    expect(line('create.id-prefix')).toMatch(/^✗ \(unexpected pass\) create\.id-prefix {2}Title of create\.id-prefix \(1\.50 s\)\n {4}listed as known-failing/);
  });

  it('colours only when asked, and only on a TTY without NO_COLOR', () => {
    const plain = formatCheckLine(result.checks[0]!);
    expect(plain).not.toContain('\u001b[');
    const coloured = formatCheckLine(result.checks[0]!, { color: true });
    expect(coloured).toContain('\u001b[32m✓\u001b[0m');
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(plain);
    expect(shouldColor({ isTTY: true }, {})).toBe(true);
    expect(shouldColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(shouldColor({ isTTY: false }, {})).toBe(false);
    expect(shouldColor({}, {})).toBe(false);
  });

  it('summarises: counts per outcome, the failing checks, observations as a table, warnings, duration, and the counts line last', () => {
    const summary = formatSummary(result);
    expect(summary).toContain('1 passed, 1 failed, 1 warned, 1 skipped, 1 known failures, 1 unexpected passes');
    expect(summary).toMatch(/Failed:\n {2}create\.status-201\n {2}create\.id-prefix \(unexpected pass\)/);
    expect(summary).toMatch(/ {2}open point {2}reading\n {2}minAmount {3}21\n {2}network {5}mainnet/);
    expect(summary).toContain('  ! the target issues MAINNET invoices');
    expect(summary).toContain('Duration: 2.35 s');
    expect(summary).toContain(
      '\nLeft behind: in the account of --api-key 97 payment requests, its clock moved forward 61 s; in the account of --nwc-key 1 payment request (--admin-key runs in an account of its own and deletes it).\nDuration:',
    );
    // The unexpected pass fails the run, so it counts as failed.
    expect(summary.split('\n').at(-1)).toBe('1 passed, 2 failed, 1 skipped');
    expect(formatCountsLine(result)).toMatch(/^\d+ passed, \d+ failed, \d+ skipped$/);
  });

  it('says when the run used accounts of its own, and which it could not delete', () => {
    const own = (deleted: boolean): ConformanceReport => ({ ...result, footprint: { isolated: true, accounts: [{ id: 'acct_a', mode: 'custodial', deleted: true }, { id: 'acct_b', mode: 'nwc', deleted }] } });
    expect(formatSummary(own(true))).toContain("\nAccounts: the run's own (acct_a, acct_b), deleted after it; it left nothing behind.\n");
    expect(formatSummary(own(false))).toContain("\nAccounts: the run's own (acct_a, acct_b); NOT deleted: acct_b (see the warnings).\n");
  });

  it('formatPretty is every check line, then the summary', () => {
    const all = formatPretty(result);
    expect(all.startsWith('✓ create.fields-present')).toBe(true);
    expect(all.trimEnd().split('\n').at(-1)).toBe('1 passed, 2 failed, 1 skipped');
    for (const c of result.checks) expect(all).toContain(c.id);
  });

  it('leaves out empty parts of the summary', () => {
    const clean: ConformanceReport = { ...sampleResult(), checks: [], observations: {}, warnings: [], passed: true };
    const summary = formatSummary(clean);
    expect(summary).not.toContain('Failed:');
    expect(summary).not.toContain('Observations');
    expect(summary).not.toContain('Warnings');
  });
});

/** A tiny XML reader, enough to prove well-formedness of what the JUnit reporter writes: elements nest, attributes are quoted, entities are known. */
interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

function parseXml(xml: string): XmlElement {
  const body = xml.replace(/^<\?xml [^?]*\?>\s*/, '');
  const root: XmlElement = { name: '#root', attributes: {}, children: [], text: '' };
  const stack = [root];
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let match: RegExpExecArray | null;
  let position = 0;
  while (position < body.length) {
    token.lastIndex = position;
    match = token.exec(body);
    if (!match) throw new Error(`not well-formed at ${position}: ${body.slice(position, position + 40)}`);
    position = token.lastIndex;
    const [, closing, name, attributeText, selfClosing, content] = match;
    const top = stack.at(-1)!;
    if (content !== undefined) {
      top.text += decode(content);
      continue;
    }
    if (closing) {
      if (top.name !== name) throw new Error(`</${name}> closes <${top.name}>`);
      stack.pop();
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const [, key, value] of attributeText!.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)) {
      if (key! in attributes) throw new Error(`duplicate attribute ${key}`);
      attributes[key!] = decode(value!);
    }
    const element: XmlElement = { name: name!, attributes, children: [], text: '' };
    top.children.push(element);
    if (!selfClosing) stack.push(element);
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack.at(-1)!.name}>`);
  if (root.children.length !== 1) throw new Error('not exactly one root element');
  return root.children[0]!;
}

function decode(value: string): string {
  if (/[<>]/.test(value)) throw new Error(`raw < or > in ${value}`);
  // Characters XML 1.0 forbids (C0 controls but tab, LF, CR).
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(value)) throw new Error(`control character in ${JSON.stringify(value)}`);
  return value.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);|&/g, (entity, name: string | undefined) => {
    if (name === undefined) throw new Error(`bare & in ${value}`);
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (!(name in named)) throw new Error(`unknown entity ${entity}`);
    return named[name]!;
  });
}

function all(element: XmlElement, name: string): XmlElement[] {
  return [...(element.name === name ? [element] : []), ...element.children.flatMap((child) => all(child, name))];
}

describe('JUnit reporter', () => {
  const result = sampleResult();
  const xml = formatJunit(result);
  const root = parseXml(xml);

  it('writes well-formed XML: <testsuites>, one <testsuite> per section, one <testcase> per check', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
    expect(root.name).toBe('testsuites');
    expect(root.attributes).toMatchObject({ tests: '6', failures: '2', errors: '0', skipped: '2', time: '2.346' });
    expect(root.children.map((suite) => [suite.name, suite.attributes.name, suite.attributes.tests])).toEqual([
      ['testsuite', 'Creating', '4'],
      ['testsuite', 'Fees', '1'],
      ['testsuite', 'Authentication', '1'],
    ]);
    const cases = all(root, 'testcase');
    expect(cases).toHaveLength(result.checks.length);
    expect(cases[0]!.attributes).toEqual({ classname: 'create', name: 'create.fields-present: Every field of the spec is present', time: '0.012' });
    expect(cases.map((c) => c.attributes.classname)).toEqual(['create', 'create', 'create', 'create', 'fees', 'auth']);
  });

  it('maps outcomes: failure for failed and unexpected pass, skipped for skipped and known failure, system-out for warned', () => {
    const byId = (id: string) => all(root, 'testcase').find((c) => c.attributes.name!.startsWith(`${id}:`))!;
    expect(byId('create.fields-present').children).toEqual([]);
    const failure = byId('create.status-201').children[0]!;
    expect(failure.name).toBe('failure');
    expect(failure.attributes.type).toBe('MUST check failed');
    expect(failure.attributes.message).toBe(`expected <401> & got "200" 'ok'\\u0007 done`);
    expect(failure.text).toBe(`expected <401> & got "200" 'ok'\\u0007 done\nsecond line of the body`);
    const unexpected = byId('create.id-prefix').children[0]!;
    expect([unexpected.name, unexpected.attributes.type]).toEqual(['failure', 'unexpected pass']);
    expect(byId('auth.read-only-cannot-create').children[0]).toMatchObject({ name: 'skipped', attributes: { message: 'needs a read-only key (--read-only-key)' } });
    expect(byId('create.metadata-echo').children[0]).toMatchObject({ name: 'skipped', attributes: { message: 'known failure: metadata comes back as {}' } });
    const warned = byId('fees.rounding').children;
    expect(warned.map((c) => c.name)).toEqual(['system-out']);
    expect(warned[0]!.text).toContain('fee 5.5 is not whole sats');
  });

  it('carries the run, its observations and warnings as properties', () => {
    const properties = Object.fromEntries(all(root.children[0]!, 'property').map((p) => [p.attributes.name, p.attributes.value]));
    expect(properties).toEqual({
      'lnpr.baseUrl': 'http://127.0.0.1:8787',
      'lnpr.profile': 'core',
      'lnpr.lifecycle': 'none',
      'lnpr.passed': 'false',
      'observation.minAmount': '21',
      'observation.network': 'mainnet',
      'warning.1': 'the target issues MAINNET invoices: paying them moves real bitcoin',
    });
  });

  it('escapes markup characters, keeps line breaks in attributes, and never writes a control character', () => {
    expect(xmlAttr(`<&>"'`)).toBe('&lt;&amp;&gt;&quot;&apos;');
    expect(xmlAttr('a\nb\tc\rd')).toBe('a&#10;b&#9;c&#13;d');
    expect(xmlText(`<&>"'`)).toBe(`&lt;&amp;&gt;"'`);
    expect(xmlText('bell\u0007 nul\u0000 fffe\uFFFE lone\uD800 pair\uD83D\uDE00')).toBe('bell\\u0007 nul\\u0000 fffe\\ufffe lone\\ud800 pair\uD83D\uDE00');
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
    expect(parseXml(`<a b="${xmlAttr('x\ny')}">${xmlText('1 < 2 & 3\r')}</a>`)).toEqual({ name: 'a', attributes: { b: 'x\ny' }, children: [], text: '1 < 2 & 3\r' });
  });

  it('writes an empty <testsuites> for a run without checks', () => {
    const empty = parseXml(formatJunit({ ...sampleResult(), checks: [] }));
    expect(empty).toMatchObject({ name: 'testsuites', attributes: { tests: '0' }, children: [] });
  });
});

describe('JSON reporter', () => {
  const result = sampleResult();
  const json = formatJson(result);
  const parsed = JSON.parse(json);

  it('is the result under a format/version header, in a stable key order', () => {
    expect(Object.keys(parsed)).toEqual(['format', 'version', 'passed', 'baseUrl', 'profile', 'lifecycle', 'durationMs', 'counts', 'observations', 'warnings', 'footprint', 'checks']);
    expect(parsed.footprint).toEqual({ isolated: false, left: [{ key: 'main', paymentRequests: 97, clockAdvancedSeconds: 61 }, { key: 'nwc', paymentRequests: 1, clockAdvancedSeconds: 0 }] });
    expect(parsed.format).toBe(JSON_REPORT_FORMAT);
    expect(parsed.format).toBe('lnpr-conformance');
    expect(parsed.version).toBe(JSON_REPORT_VERSION);
    expect(parsed.version).toBe(1);
    expect(Object.keys(parsed.counts)).toEqual(['passed', 'failed', 'warned', 'skipped', 'known-failure', 'unexpected-pass']);
    expect(Object.keys(parsed.observations)).toEqual(['minAmount', 'network']);
    expect(parsed.durationMs).toBe(2345.679);
    expect(json.endsWith('}\n')).toBe(true);
    expect(json).toContain('\n  "format": "lnpr-conformance",\n');
  });

  it('has every check with id, outcome and message', () => {
    expect(parsed.checks).toHaveLength(result.checks.length);
    for (const [index, c] of result.checks.entries()) {
      expect(parsed.checks[index]).toEqual({ ...c, durationMs: Math.round(c.durationMs * 1000) / 1000 });
      expect(Object.keys(parsed.checks[index])[0]).toBe('id');
    }
    expect(parsed.checks[1].message).toBe(result.checks[1]!.message);
  });

  it('is the same text for the same result, whatever order its objects were built in', () => {
    const reordered: ConformanceReport = {
      ...sampleResult(),
      observations: { minAmount: '21', network: 'mainnet' },
      counts: { 'unexpected-pass': 1, 'known-failure': 1, skipped: 1, warned: 1, failed: 1, passed: 1 },
    };
    expect(formatJson(reordered)).toBe(json);
  });
});
