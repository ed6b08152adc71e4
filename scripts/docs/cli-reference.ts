/** The CLI reference page: every `lnpr` command's usage (its `--help`) and the flags it parses. */
import type { CliCommand } from '../../src/cli/command-list.js';
import { code, generatedPage, table } from './markdown.js';

/** The page for `commands` (`CLI_COMMANDS`). */
export function cliReference(commands: readonly CliCommand[]): string {
  const sections = commands.map((command) => {
    const flags = Object.entries(command.options).map(([name, option]) => [
      code(`--${name}`),
      option.type === 'boolean' ? 'switch' : 'value',
      option.multiple ? 'yes' : '',
      option.short === undefined ? '' : code(`-${option.short}`),
    ]);
    return [
      `## lnpr ${command.name}`,
      '',
      `What \`lnpr ${command.name} --help\` prints:`,
      '',
      '```text',
      command.usage.trimEnd(),
      '```',
      '',
      'The flags it accepts:',
      '',
      table(['flag', 'takes', 'repeatable', 'short'], flags),
    ].join('\n');
  });
  return generatedPage({
    title: 'CLI reference',
    order: 1,
    source: "the commands' flag definitions (src/cli)",
    body: [
      'Every command of `lnpr`, as its `--help` prints it, and every flag it parses. From a checkout, run',
      'them as `npm run lnpr -- COMMAND …` (or `npx lnpr COMMAND …` where the package is installed).',
      '',
      ...sections.flatMap((section) => [section, '']),
    ].join('\n'),
  });
}
