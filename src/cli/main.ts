#!/usr/bin/env node
/** `lnpr`: the command-line entry. Each subcommand lives in its own file. */
import { serve, SERVE_USAGE } from './serve.js';
import { UsageError } from './usage-error.js';

const USAGE = `Usage: lnpr <command> [options]

Commands:
  serve     run the sandbox server (lnpr serve --help)

${SERVE_USAGE}`;

async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  switch (command) {
    case 'serve':
      return serve(args);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return;
    default:
      throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
  process.stderr.write(`lnpr: ${usage ? (error as Error).message : (error as Error).stack ?? String(error)}\n`);
  process.exitCode = usage ? 2 : 1;
});
