import { describe, expect, it } from 'vitest';
import { KnownFailingFileError, parseKnownFailing } from './known-failing.js';

describe('parseKnownFailing', () => {
  it('reads one id per line, skipping blank lines and # comments (whole-line or trailing)', () => {
    const text = [
      '# Known failures of our implementation',
      '',
      'create.fields-present',
      '   fees.rounding   # rounds down: issue #12',
      '\t',
      'auth.unknown-key',
      '# the end',
    ].join('\n');
    expect(parseKnownFailing(text)).toEqual(['create.fields-present', 'fees.rounding', 'auth.unknown-key']);
  });

  it('accepts CRLF line ends, a BOM, an empty file, and drops duplicates', () => {
    expect(parseKnownFailing('\uFEFFa.b\r\nc.d\r\na.b\r\n')).toEqual(['a.b', 'c.d']);
    expect(parseKnownFailing('')).toEqual([]);
    expect(parseKnownFailing('# nothing yet\n')).toEqual([]);
  });

  it('accepts a JSON array of ids', () => {
    expect(parseKnownFailing('["create.fields-present", "fees.rounding"]\n')).toEqual(['create.fields-present', 'fees.rounding']);
    expect(parseKnownFailing('  []')).toEqual([]);
  });

  it('names the line of a malformed entry', () => {
    const text = 'create.fields-present\n\n# fine\ncreate.status fees.rounding\n';
    expect(() => parseKnownFailing(text, 'known.txt')).toThrow(KnownFailingFileError);
    expect(() => parseKnownFailing(text, 'known.txt')).toThrow(/^known\.txt line 4: "create\.status fees\.rounding" is not a check id \(one check id per line\)$/);
    expect(() => parseKnownFailing('ok.id\n"quoted.id",\n')).toThrow(/^known-failing file line 2: .*quoted\.id.* \(a check id has letters, digits and \. _ - : \/ only\)$/);
    expect(() => parseKnownFailing('a.b#c\n')).toThrow(/line 1:/);
  });

  it('rejects JSON that is not an array of id strings, saying which item', () => {
    expect(() => parseKnownFailing('[1', 'k.json')).toThrow(/^k\.json: not valid JSON/);
    expect(() => parseKnownFailing('["a.b", 3]', 'k.json')).toThrow(/^k\.json: item 1 \(3\) is not a check id$/);
    expect(() => parseKnownFailing('["a b"]', 'k.json')).toThrow(/item 0/);
  });
});
