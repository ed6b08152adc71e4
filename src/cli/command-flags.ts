/**
 * A command's flags, defined once: each definition is what `node:util` `parseArgs` takes (`type`,
 * `multiple`, `short`) plus what a person reads (`value`, the placeholder; `help`, its lines). The
 * command parses with the definitions themselves, its `--help` is printed from them
 * (`usageOf`), and so is the site's CLI reference: no flag can be parsed yet left unsaid.
 */

/** One flag: `parseArgs`'s option, with its placeholder and its help. */
export interface FlagDefinition {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly short?: string;
  /** The value's placeholder in the usage (`N`, `FILE`); none for a boolean. */
  readonly value?: string;
  /** What it does, one string per line of the usage text (wrapped by hand, about 75 columns). */
  readonly help: readonly string[];
  /** Left out of the usage (e.g. `--help` itself). */
  readonly hidden?: boolean;
}

/** A command as its usage shows it. */
export interface CommandDefinition<F extends Readonly<Record<string, FlagDefinition>> = Readonly<Record<string, FlagDefinition>>> {
  /** The words that call it: `serve`, `webhooks check`. */
  readonly name: string;
  /** The line after `Usage: `. */
  readonly synopsis: string;
  /** Paragraphs before the flags. */
  readonly intro?: string;
  readonly flags: F;
  /** Paragraphs after the flags (exit status, environment). */
  readonly outro?: string;
}

/** The column where help text starts. */
const HELP_COLUMN = 24;

/** `--name VALUE` as the usage spells it. */
export function flagSpelling(name: string, flag: FlagDefinition): string {
  return `--${name}${flag.value === undefined ? '' : ` ${flag.value}`}`;
}

/** The usage text (`--help`) of a command. */
export function usageOf(command: CommandDefinition): string {
  const lines = [`Usage: ${command.synopsis}`, ''];
  if (command.intro !== undefined) lines.push(...indent(command.intro), '');
  for (const [name, flag] of Object.entries(command.flags)) {
    if (flag.hidden) continue;
    const left = `  ${flagSpelling(name, flag)}`;
    const [first = '', ...rest] = flag.help;
    lines.push(left.length < HELP_COLUMN - 1 ? `${left.padEnd(HELP_COLUMN)}${first}` : `${left}  ${first}`);
    for (const line of rest) lines.push(`${' '.repeat(HELP_COLUMN)}${line}`);
  }
  if (command.outro !== undefined) lines.push('', ...indent(command.outro));
  return `${lines.join('\n')}\n`;
}

function indent(text: string): string[] {
  return text.split('\n').map((line) => (line === '' ? '' : `  ${line}`));
}
