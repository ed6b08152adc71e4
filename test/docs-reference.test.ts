/**
 * The site's reference is generated from the sources, so it holds every CLI flag, error code,
 * detail code, accounts-file field and API operation: checked on the generated pages, and the
 * check itself shown to fail when one fact is left out (of a page, or of a command's usage).
 */
import { describe, expect, it } from 'vitest';
import { referencePages } from '../scripts/docs/build-reference.js';
import { missingFromReference, type ReferenceSources } from '../scripts/docs/reference-coverage.js';
import { CLI_COMMANDS } from '../src/cli/command-list.js';
import { flagSpelling, usageOf, type FlagDefinition } from '../src/cli/command-flags.js';
import { SERVE_COMMAND, SERVE_USAGE } from '../src/cli/serve.js';
import { DETAIL_CODES } from '../src/core/errors/detail-codes.js';
import { ERROR_CATALOGUE } from '../src/core/errors/errors.js';
import { openApiDocumentOf } from '../src/openapi/route.js';
import { accountsConfigSchema } from '../src/schemas/accounts-config.js';

const sources: ReferenceSources = {
  commands: CLI_COMMANDS,
  errorCodes: Object.keys(ERROR_CATALOGUE),
  detailCodes: DETAIL_CODES,
  accountsSchema: accountsConfigSchema,
  openApi: openApiDocumentOf(),
};
const pages = referencePages();

describe('the generated reference', () => {
  it('shows every CLI flag, error code, detail code, accounts-file field and operation', () => {
    expect(missingFromReference(sources, pages)).toEqual([]);
  });

  it('covers the whole CLI, every accounts-file field and every operation (the check is not vacuous)', () => {
    expect(CLI_COMMANDS.map((command) => command.name)).toEqual(['serve', 'scenario run', 'fixtures', 'conformance', 'webhooks check', 'trigger', 'listen', 'openapi']);
    expect(pages.get('cli.md')).toContain('`--rate-limit`');
    expect(pages.get('cli.md')).toContain('`--nwc-timeout`');
    expect(pages.get('accounts-file.md')).toContain('| `accounts[].webhooks[].secret` |');
    expect(pages.get('http-api.md')).toContain('### `POST /api/v1/payment-requests`');
  });

  it('prints lnpr serve --help from the flags it parses', () => {
    expect(SERVE_USAGE).toBe(usageOf(SERVE_COMMAND));
    for (const [name, flag] of Object.entries(SERVE_COMMAND.flags as Record<string, FlagDefinition>)) expect(SERVE_USAGE).toContain(flagSpelling(name, flag));
  });

  it('fails when a fact is missing: a flag, an error code, a detail code, a field, an operation', () => {
    const without = (name: string, cut: string) => new Map([...pages].map(([file, text]) => [file, file === name ? text.split(cut).join('') : text]));
    expect(missingFromReference(sources, without('cli.md', '| `--rate-limit` |'))).toEqual(['cli.md, lnpr serve: --rate-limit']);
    expect(missingFromReference(sources, without('errors.md', '| `wallet_unavailable` |'))).toEqual(['errors.md: wallet_unavailable']);
    expect(missingFromReference(sources, without('errors.md', '| `too_deep` |'))).toEqual(['errors.md: detail too_deep']);
    expect(missingFromReference(sources, without('accounts-file.md', '| `accounts[].nwcUrl` |'))).toEqual(['accounts-file.md: accounts[].nwcUrl']);
    expect(missingFromReference(sources, without('http-api.md', '### `DELETE /sandbox/v1/wallets/{id}`'))).toEqual(['http-api.md: DELETE /sandbox/v1/wallets/{id}']);
  });

  it('fails when a flag the command parses is missing from its --help', () => {
    const serve = CLI_COMMANDS[0]!;
    const commands = [{ ...serve, usage: serve.usage.replace(/^ {2}--nwc-timeout.*$/m, '') }, ...CLI_COMMANDS.slice(1)];
    expect(missingFromReference({ ...sources, commands }, pages)).toEqual(['lnpr serve --help: --nwc-timeout']);
  });

  it('fails when a source gains a fact the pages do not show (e.g. a new error code)', () => {
    expect(missingFromReference({ ...sources, errorCodes: [...sources.errorCodes, 'brand_new_code'] }, pages)).toEqual(['errors.md: brand_new_code']);
  });
});
