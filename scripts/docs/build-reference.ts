/**
 * Writes the site's reference pages into `docs/reference/` (git-ignored), each generated from its
 * single source: the CLI's flag definitions, the OpenAPI document, the error and detail-code
 * catalogues, the accounts file's schema, the conformance checks. Run before every site build
 * (`npm run docs:build`); `referencePages()` is what the tests check.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_CHECKS } from '../../conformance/checks/index.js';
import { coverageTable, openPointsTable, statementCounts, statementTable } from '../../conformance/coverage-table.js';
import { CLI_COMMANDS } from '../../src/cli/command-list.js';
import { DETAIL_CODE_CATALOGUE } from '../../src/core/errors/detail-codes.js';
import { ERROR_CATALOGUE } from '../../src/core/errors/errors.js';
import { routeTable } from '../../src/core/routes/route-table.js';
import { DEFAULT_SETTINGS } from '../../src/core/settings.js';
import { ERROR_CONDITIONS } from '../../src/openapi/error-responses.js';
import { openApiDocumentOf, openApiRoute } from '../../src/openapi/route.js';
import { accountsConfigSchema } from '../../src/schemas/accounts-config.js';
import { accountsFileReference } from './accounts-file-reference.js';
import { cliReference } from './cli-reference.js';
import { errorsReference } from './errors-reference.js';
import { generatedFaultsSection, readFaultReport } from './generated-faults-reference.js';
import { httpApiReference } from './http-api-reference.js';
import { generatedPage } from './markdown.js';

/** Where the pages go. */
export const REFERENCE_DIR = fileURLToPath(new URL('../../docs/reference/', import.meta.url));

/** Every reference page by file name, generated now. */
export function referencePages(): Map<string, string> {
  const routes = [...routeTable(DEFAULT_SETTINGS), openApiRoute(DEFAULT_SETTINGS)];
  const access = new Map(routes.map((route) => [route.name, String(route.access)]));
  return new Map([
    ['index.md', overview()],
    ['cli.md', cliReference(CLI_COMMANDS)],
    ['http-api.md', httpApiReference(openApiDocumentOf(DEFAULT_SETTINGS), (id) => access.get(id))],
    ['errors.md', errorsReference(ERROR_CATALOGUE, ERROR_CONDITIONS, DETAIL_CODE_CATALOGUE)],
    ['accounts-file.md', accountsFileReference(accountsConfigSchema as never)],
    ['conformance-checks.md', conformanceChecks()],
  ]);
}

function overview(): string {
  return generatedPage({
    title: 'Reference',
    order: 0,
    source: 'the list of reference pages',
    body: [
      'Generated from the sources the sandbox itself runs on, so they say what it does:',
      '',
      '- [CLI](/reference/cli.md): every `lnpr` command and flag.',
      '- [HTTP API](/reference/http-api.md): every operation of the OpenAPI document.',
      '- [Errors and detail codes](/reference/errors.md): every error code and `details[].code`.',
      '- [Accounts file](/reference/accounts-file.md): every field of `--config FILE`.',
      '- [Conformance checks](/reference/conformance-checks.md): every statement of the spec and CONTRACT.md, and every check of `lnpr conformance` that holds it.',
    ].join('\n'),
  });
}

function conformanceChecks(): string {
  const counts = statementCounts();
  return generatedPage({
    title: 'Conformance checks',
    order: 5,
    source: 'the statement table (conformance/statements.ts), the checks of the conformance suite (conformance/checks) and the generated faults\' reports (docs/data/generated-faults*.json)',
    body: [
      `Every normative statement of the spec and of CONTRACT.md, stated once (${counts.spec} of the spec, ${counts.contract} of CONTRACT.md), with what holds it.`,
      `A client sees ${counts.v1} of them through \`/api/v1\` and ${counts.control} through the \`/sandbox/v1\` control API that the \`full\` profile holds a target to: ${counts.heldByChecks} are held by checks of \`lnpr conformance\`, ${counts.gaps} are gaps no check holds yet (each says why).`,
      `The other ${counts.sandbox + counts.notOverHttp} are this sandbox's own (its webhooks, wallets, pages, CLI, files, PostgreSQL, packages: ${counts.sandbox} over HTTP, ${counts.notOverHttp} not) and name the test of this repository that holds them instead, or why none does.`,
      '',
      '## Statements',
      '',
      statementTable(),
      '',
      '## Open points',
      '',
      'Where the sources leave a fact open, every reading below conforms (CONTRACT.md, "Open points"): none of them is a fault, and the suite must pass each.',
      '',
      openPointsTable(),
      '',
      '## Checks',
      '',
      `Every check \`lnpr conformance\` runs (${ALL_CHECKS.length}), with the statements it holds and the spec's words it enforces, ordered by the spec's sections.`,
      'A `MUST` check fails the run; a `SHOULD` check only warns. `core` checks treat the target as a black box; `lifecycle` ones move requests on.',
      '',
      coverageTable(),
      '',
      '## Generated faults',
      '',
      generatedFaultsSection(readFaultReport('small'), readFaultReport('large')),
    ].join('\n'),
  });
}

/** Writes the pages, removing any generated page that no longer has a source. */
export function writeReference(dir: string = REFERENCE_DIR): string[] {
  mkdirSync(dir, { recursive: true });
  const pages = referencePages();
  for (const name of readdirSync(dir)) if (name.endsWith('.md') && !pages.has(name)) rmSync(join(dir, name));
  for (const [name, text] of pages) writeFileSync(join(dir, name), text);
  return [...pages.keys()];
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(`docs/reference: ${writeReference().join(', ')}`);
}
