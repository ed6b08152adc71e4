import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DETAIL_CODE_CATALOGUE } from './detail-codes.js';

describe('the detail-code catalogue', () => {
  it('is the table of the README, code for code and word for word', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('<!-- detail-codes:start -->'), readme.indexOf('<!-- detail-codes:end -->'));
    const rows = [...table.matchAll(/^\| `([a-z_]+)` \| (.+) \|$/gm)].map(([, code, when]) => [code, when]);
    expect(rows).toEqual(Object.entries(DETAIL_CODE_CATALOGUE));
  });
});
