#!/usr/bin/env node
/** `lnpr`: the command-line entry. Each subcommand lives in its own file. */
import { StoreLockedError } from '../store/lock-file.node.js';
import { StoreFileError } from '../store/store-file-error.js';
import { conformance } from './conformance.js';
import { fixtures } from './fixtures.js';
import { scenario } from './scenario.js';
import { serve, SERVE_USAGE } from './serve.js';
import { UsageError } from './usage-error.js';

const USAGE = `Usage: lnpr <command> [options]

Commands:
  serve     run the sandbox server (lnpr serve --help)
  scenario  run scenario files against a server (lnpr scenario --help)
  fixtures  write deterministic sample data (lnpr fixtures --help)
  conformance  run the conformance suite against an implementation (lnpr conformance --help)

${SERVE_USAGE}`;

async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  switch (command) {
    case 'serve':
      return serve(args);
    case 'scenario':
      return scenario(args);
    case 'fixtures':
      return fixtures(args);
    case 'conformance':
      return conformance(args);
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

/** Errors that mean the call or its environment is wrong, not the program: a message, exit 2. */
function isUsageProblem(error: unknown): boolean {
  return (
    error instanceof UsageError ||
    error instanceof StoreLockedError ||
    error instanceof StoreFileError ||
    ((error as { code?: unknown }).code as string | undefined)?.startsWith('ERR_PARSE_ARGS') === true
  );
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const usage = isUsageProblem(error);
  process.stderr.write(`lnpr: ${usage ? (error as Error).message : ((error as Error).stack ?? String(error))}\n`);
  process.exitCode = usage ? 2 : 1;
});
