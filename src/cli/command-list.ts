/**
 * Every `lnpr` command with its usage text and the flags it parses, in the order of `lnpr --help`:
 * what the site's CLI reference is generated from (`scripts/docs/cli-reference.ts`). Not imported by
 * the CLI itself, which loads one command at a time.
 */
import type { ParseArgsConfig } from 'node:util';
import { CONFORMANCE_OPTIONS, CONFORMANCE_USAGE } from './conformance.js';
import { FIXTURES_OPTIONS, FIXTURES_USAGE } from './fixtures.js';
import { LISTEN_OPTIONS, LISTEN_USAGE } from './listen.js';
import { OPENAPI_OPTIONS, OPENAPI_USAGE } from './openapi.js';
import { SCENARIO_OPTIONS, SCENARIO_USAGE } from './scenario.js';
import { SERVE_COMMAND, SERVE_USAGE } from './serve.js';
import { TRIGGER_OPTIONS, TRIGGER_USAGE } from './trigger.js';
import { WEBHOOKS_CHECK_OPTIONS, WEBHOOKS_CHECK_USAGE } from './webhooks-check.js';

/** One command: the words after `lnpr`, its `--help`, the flags it parses. */
export interface CliCommand {
  name: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
}

export const CLI_COMMANDS: readonly CliCommand[] = [
  { name: 'serve', usage: SERVE_USAGE, options: SERVE_COMMAND.flags },
  { name: 'scenario run', usage: SCENARIO_USAGE, options: SCENARIO_OPTIONS },
  { name: 'fixtures', usage: FIXTURES_USAGE, options: FIXTURES_OPTIONS },
  { name: 'conformance', usage: CONFORMANCE_USAGE, options: CONFORMANCE_OPTIONS },
  { name: 'webhooks check', usage: WEBHOOKS_CHECK_USAGE, options: WEBHOOKS_CHECK_OPTIONS },
  { name: 'trigger', usage: TRIGGER_USAGE, options: TRIGGER_OPTIONS },
  { name: 'listen', usage: LISTEN_USAGE, options: LISTEN_OPTIONS },
  { name: 'openapi', usage: OPENAPI_USAGE, options: OPENAPI_OPTIONS },
];
