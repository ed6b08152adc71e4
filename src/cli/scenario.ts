/**
 * `lnpr scenario run FILE...`: runs scenario files against a server with the control API and
 * prints each step as it finishes. Exit status: 0 every step held, 1 an expectation failed,
 * 2 bad usage, an invalid file or a target that does not answer (thrown as `UsageError`).
 */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadScenario, ScenarioFileError } from '../scenario/load-scenario.js';
import { countSteps, formatScenarioEnd, formatStep, formatSummary } from '../scenario/report.js';
import { runScenario, TargetUnreachableError, type ScenarioResult } from '../scenario/run-scenario.js';
import type { Scenario } from '../scenario/scenario-schema.js';
import { nodeWalletPayer } from '../scenario/wallet-payer.node.js';
import { nodeReceivers } from '../scenario/webhook-receiver.node.js';
import { parseBaseUrl } from './args.js';
import { UsageError } from './usage-error.js';

/** The usage text of `lnpr scenario`. */
export const SCENARIO_USAGE = `Usage: lnpr scenario run FILE... --base-url URL --api-key KEY [--key NAME=KEY]... [--receiver-host HOST]

  Runs scenario files (scenarios/*.yaml; format in scenarios/README.md) step by step against a
  server with the /sandbox/v1 control API, and stops a file at its first failing step.

  --base-url URL     the server, e.g. http://127.0.0.1:8787
  --api-key KEY      the default key (steps without key:, and the account the file's rules go to)
  --key NAME=KEY     a named key for steps with key: NAME; wins over the file's keys (repeatable)
  --receiver-host HOST
                     where receiver: steps listen for webhook deliveries, and the host in their
                     URLs (default 127.0.0.1); the server must be able to reach it

  Exit status: 0 every step passed; 1 a step failed; 2 bad usage, an invalid file, or a server
  that cannot be reached.
`;

/** The flags `lnpr scenario` parses (its usage text above lists each: a test holds it). */
export const SCENARIO_OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  key: { type: 'string', multiple: true },
  'receiver-host': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** Runs `lnpr scenario <args>`; sets the exit code to 1 when a step failed. */
export async function scenario(args: string[]): Promise<void> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || subcommand === 'help' || subcommand === '--help' || subcommand === '-h') {
    process.stdout.write(SCENARIO_USAGE);
    return;
  }
  if (subcommand !== 'run') throw new UsageError(`unknown scenario command "${subcommand}"\n\n${SCENARIO_USAGE}`);

  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: SCENARIO_OPTIONS,
  });
  if (values.help) {
    process.stdout.write(SCENARIO_USAGE);
    return;
  }
  if (positionals.length === 0) throw new UsageError(`lnpr scenario run needs at least one scenario file\n\n${SCENARIO_USAGE}`);
  const baseUrl = parseBaseUrl(values['base-url']);
  const apiKey = values['api-key'];
  if (apiKey === undefined || apiKey === '') throw new UsageError('--api-key KEY is required');
  const keys = parseKeys(values.key ?? []);
  const receiverHost = values['receiver-host'];
  if (receiverHost === '') throw new UsageError('--receiver-host needs a host, e.g. --receiver-host 192.168.1.20');
  const startReceiver = nodeReceivers(receiverHost === undefined ? {} : { host: receiverHost });
  const payThroughWallet = nodeWalletPayer();

  // Every file is read and validated before anything runs: a typo in the last file costs nothing.
  const scenarios: Array<{ file: string; scenario: Scenario }> = positionals.map((file) => ({ file, scenario: readScenario(file) }));

  const results: ScenarioResult[] = [];
  for (const { file, scenario: loaded } of scenarios) {
    process.stdout.write(`${loaded.name} (${file})\n`);
    try {
      const result = await runScenario(loaded, {
        baseUrl,
        apiKey,
        keys,
        startReceiver,
        payThroughWallet,
        onStep: (step) => process.stdout.write(formatStep(step).map((line) => `  ${line}\n`).join('')),
      });
      results.push(result);
      process.stdout.write(formatScenarioEnd(result).map((line) => `${line}\n`).join(''));
    } catch (error) {
      if (error instanceof TargetUnreachableError) throw new UsageError(error.message);
      throw error;
    }
  }
  process.stdout.write(`${formatSummary(countSteps(results))}\n`);
  if (results.some((result) => !result.passed)) process.exitCode = 1;
}

function readScenario(file: string): Scenario {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read scenario file ${file}: ${(error as Error).message}`);
  }
  try {
    return loadScenario(text, file);
  } catch (error) {
    if (error instanceof ScenarioFileError) throw new UsageError(error.message);
    throw error;
  }
}


/** `--key nwc=sk_...` pairs; `default` is the --api-key and cannot be renamed here. */
function parseKeys(pairs: string[]): Record<string, string> {
  const entries = pairs.map((pair) => {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.+)$/.exec(pair);
    if (!match) throw new UsageError(`--key expects NAME=KEY, got "${pair}"`);
    if (match[1] === 'default') throw new UsageError('--key default=... is not allowed: the default key is --api-key');
    return [match[1]!, match[2]!] as const;
  });
  // fromEntries makes own properties, so even a name like __proto__ stays a plain key.
  return Object.fromEntries(entries);
}
