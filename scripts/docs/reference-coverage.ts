/**
 * What the reference must hold, listed from the sources, and what a set of pages lacks of it:
 * every CLI flag (in its command's usage and in the CLI page), every error and detail code,
 * every accounts-file field, every operation (id and path). The test runs it on the generated
 * pages (empty: it holds by construction) and on pages with one fact removed (not empty).
 */
import type { CliCommand } from '../../src/cli/command-list.js';
import { accountsFileFields } from './accounts-file-reference.js';
import { operationsOf } from './http-api-reference.js';

/** The sources the reference is made from. */
export interface ReferenceSources {
  commands: readonly CliCommand[];
  errorCodes: readonly string[];
  detailCodes: readonly string[];
  accountsSchema: object;
  openApi: Record<string, unknown>;
}

/** Every fact of `sources` that `pages` (by file name) do not show; empty when the reference is complete. */
export function missingFromReference(sources: ReferenceSources, pages: ReadonlyMap<string, string>): string[] {
  const missing: string[] = [];
  const page = (name: string) => pages.get(name) ?? '';
  for (const command of sources.commands) {
    for (const flag of Object.keys(command.options)) {
      // `--help` is every command's; the usage text need not list it.
      if (flag !== 'help' && !new RegExp(`--${flag}(?![\\w-])`).test(command.usage)) missing.push(`lnpr ${command.name} --help: --${flag}`);
      const section = sectionOf(page('cli.md'), `## lnpr ${command.name}`);
      if (!section.includes(`\`--${flag}\``)) missing.push(`cli.md, lnpr ${command.name}: --${flag}`);
    }
  }
  for (const code of sources.errorCodes) if (!page('errors.md').includes(`| \`${code}\` |`)) missing.push(`errors.md: ${code}`);
  for (const code of sources.detailCodes) if (!page('errors.md').includes(`| \`${code}\` |`)) missing.push(`errors.md: detail ${code}`);
  for (const field of accountsFileFields(sources.accountsSchema as never)) {
    if (!page('accounts-file.md').includes(`| \`${field.path}\` |`)) missing.push(`accounts-file.md: ${field.path}`);
  }
  for (const { operationId, method, path } of operationsOf(sources.openApi)) {
    const text = page('http-api.md');
    if (!text.includes(`### \`${method} ${path}\``)) missing.push(`http-api.md: ${method} ${path}`);
    if (!text.includes(`\`${operationId}\``)) missing.push(`http-api.md: ${operationId}`);
  }
  return missing;
}

/** The text from `heading` to the next heading of its level. */
function sectionOf(text: string, heading: string): string {
  const start = text.indexOf(`${heading}\n`);
  if (start === -1) return '';
  const end = text.indexOf('\n## ', start + heading.length);
  return text.slice(start, end === -1 ? undefined : end);
}
