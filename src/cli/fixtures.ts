/**
 * `lnpr fixtures`: writes a deterministic, faker-seeded fixtures file (stdout, or `--output`).
 * The generator (and faker with it) is imported only when this command runs, so `lnpr serve`
 * does not pay for loading it.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { NETWORKS } from '../lightning/networks.js';
import { readAccountsFile, wholeNumber } from './args.js';
import { UsageError } from './usage-error.js';

/** `lnpr fixtures --help`. */
export const FIXTURES_USAGE = `Usage: lnpr fixtures [options] > fixtures.json

  --seed N          seed of everything random (default 1; 0 to 4294967295): the same seed, the same file
  --count N         how many payment requests (default 50; 1 to 100000)
  --accounts FILE   accounts and API keys whose requests to make (default: fixtures/accounts.json)
  --network NET     regtest (default), signet, testnet or mainnet invoices
  --now ISO         the instant the data is "as of" (default 2026-01-01T00:00:00.000Z)
  --output FILE     write to FILE instead of stdout

Load the file with: lnpr serve --fixtures FILE (same --config and --network as here)
`;

/** The flags `lnpr fixtures` parses (its usage text above lists each: a test holds it). */
export const FIXTURES_OPTIONS = {
  seed: { type: 'string' },
  count: { type: 'string' },
  accounts: { type: 'string' },
  network: { type: 'string' },
  now: { type: 'string' },
  output: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** Runs `lnpr fixtures` with `args`. */
export async function fixtures(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: FIXTURES_OPTIONS,
  });
  if (values.help) {
    process.stdout.write(FIXTURES_USAGE);
    return;
  }
  const [{ generateFixtures, parseFixturesNow, DEFAULT_FIXTURES_NOW, MAX_FIXTURES_COUNT, MAX_FIXTURES_SEED }, { stringifyFixtures }, { wasmSigner }] =
    await Promise.all([import('../fixtures/generate-fixtures.js'), import('../fixtures/fixtures-format.js'), import('../lightning/signer.node.js')]);
  const seed = wholeNumber('--seed', values.seed ?? '1', 0, MAX_FIXTURES_SEED);
  const count = wholeNumber('--count', values.count ?? '50', 1, MAX_FIXTURES_COUNT);
  const network = values.network ?? 'regtest';
  if (!(NETWORKS as readonly string[]).includes(network)) throw new UsageError(`--network must be one of ${NETWORKS.join(', ')} (got "${network}")`);
  const now = values.now ?? DEFAULT_FIXTURES_NOW;
  try {
    parseFixturesNow(now);
  } catch (error) {
    throw new UsageError(`--${(error as Error).message}`);
  }
  const accounts = values.accounts === undefined ? undefined : await readAccountsFile('--accounts', values.accounts);

  const file = await generateFixtures({
    seed,
    count,
    now,
    network: network as (typeof NETWORKS)[number],
    // Identical signatures to the default noble signer (both RFC 6979), several times faster.
    signer: wasmSigner,
    ...(accounts ? { accounts } : {}),
  });
  const text = stringifyFixtures(file);
  if (values.output === undefined) {
    process.stdout.write(text);
  } else {
    try {
      await writeFile(values.output, text);
    } catch (error) {
      throw new UsageError(`--output ${values.output}: ${(error as Error).message}`);
    }
    process.stderr.write(`lnpr: wrote ${file.paymentRequests.length} payment requests to ${values.output}\n`);
  }
}


