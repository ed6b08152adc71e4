#!/usr/bin/env node
/** `lnpr`: the command-line entry. Each subcommand lives in its own file. */
import { StoreLockedError } from '../store/lock-file.node.js';
import { StoreFileError } from '../store/store-file-error.js';
import { UsageError } from './usage-error.js';

const USAGE = `Usage: lnpr <command> [options]

Commands:
  serve        run the sandbox server (lnpr serve --help)
  scenario     run scenario files against a server (lnpr scenario --help)
  fixtures     write deterministic sample data (lnpr fixtures --help)
  conformance  run the conformance suite against an implementation (lnpr conformance --help)
  webhooks     test a webhook receiver: lnpr webhooks check (lnpr webhooks check --help)
  trigger      make a sandbox emit an event of a type now (lnpr trigger --help)
  listen       forward a sandbox's events to a local URL, signed (lnpr listen --help)
  openapi      print the OpenAPI 3.1 document of the API (lnpr openapi --help)

Options:
  --version    print the version of lnpr-sandbox
  --help       print this
`;

// Each subcommand is loaded only when called: `serve` starts without the conformance suite's
// decoder or faker, which would add ~0.3 s to every start.
async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  switch (command) {
    case 'serve':
      (await import('./stop-with-npm.js')).stopWithNpm();
      return (await import('./serve.js')).serve(args);
    case 'scenario':
      return (await import('./scenario.js')).scenario(args);
    case 'fixtures':
      return (await import('./fixtures.js')).fixtures(args);
    case 'conformance':
      return (await import('./conformance.js')).conformance(args);
    case 'webhooks':
      return webhooks(args);
    case 'openapi':
      return (await import('./openapi.js')).openapi(args);
    case 'trigger':
      return (await import('./trigger.js')).trigger(args);
    case 'listen':
      return (await import('./listen.js')).listen(args);
    case '--version':
    case '-v':
    case 'version':
      process.stdout.write(`${(await import('./package-version.js')).packageVersion()}\n`);
      return;
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

/** `lnpr webhooks <subcommand>`: `check` so far. The word is never echoed: it may be a stray secret. */
async function webhooks([subcommand, ...args]: string[]): Promise<void> {
  if (subcommand === 'check') return (await import('./webhooks-check.js')).webhooksCheck(args);
  if (subcommand === undefined || subcommand === '--help' || subcommand === '-h') {
    process.stdout.write('Usage: lnpr webhooks check --url URL --secret whsec_… (lnpr webhooks check --help)\n');
    return;
  }
  throw new UsageError('lnpr webhooks has one subcommand: check (lnpr webhooks check --help)');
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
