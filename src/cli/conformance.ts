/**
 * `lnpr conformance`: runs the v1 conformance suite against an implementation by URL and key.
 * Live lines as checks finish, then a summary (pretty); or JUnit XML / JSON for CI. Exit status:
 * 0 every required check passed, 1 a check failed, 2 bad usage or a target that does not answer
 * (thrown as `UsageError`). The keys are never printed: everything written goes through a
 * redactor that knows them, error messages included.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CheckFailure } from '../../conformance/check-errors.js';
import { TargetUnreachable } from '../../conformance/client.js';
import { KnownFailingFileError, parseKnownFailing } from '../../conformance/known-failing.js';
import type { ConformanceResult } from '../../conformance/result.js';
import { ConformanceUsageError, runConformance } from '../../conformance/run-conformance.js';
import { PROFILES } from '../../conformance/vocabulary.js';
import { formatJson } from '../reporting/conformance-json.js';
import { formatJunit } from '../reporting/conformance-junit.js';
import { formatCheckLine, formatPretty, formatSummary } from '../reporting/conformance-pretty.js';
import { shouldColor } from '../reporting/pretty-text.js';
import { oneOf, parseBaseUrl, wholeNumber } from './args.js';
import { assertWritableDirectory, emitReport, PROCESS_IO, runRedacted, type CommandIo } from './report-command.js';
import { UsageError } from './usage-error.js';

/** The usage text of `lnpr conformance`. */
export const CONFORMANCE_USAGE = `Usage: lnpr conformance --base-url URL (--api-key KEY | --admin-key KEY) [options]

  Runs the v1 conformance suite against an implementation (docs/guides/conformance.md).

  --base-url URL          the implementation, e.g. http://127.0.0.1:8787 (/api/v1/... is appended)
  --api-key KEY           a key with create and read permission
  --read-only-key KEY     a key of the same account without create permission (enables its check)
  --nwc-key KEY           a key of a non-custodial (NWC) account (enables the isNwc/nwcRelay checks)
  --admin-key KEY         a key with the accounts permission of a sandbox (sk_test_admin): the run
                          makes accounts of its own, uses their keys instead of the three above,
                          and deletes them at the end; without it, the report says what the run
                          left in the --api-key account
  --profile P             core (default: black box), lifecycle (moves requests on) or full (both)
  --pay-command 'CMD {invoice}'
                          a shell command that pays a BOLT11 invoice, for lifecycle without the
                          /sandbox/v1 control API, e.g. 'lncli --network=regtest payinvoice --force {invoice}'
  --allow-mainnet-payments  let the pay command pay mainnet (lnbc) invoices: real bitcoin; refused otherwise
  --payer-nwc-url URI     a Nostr Wallet Connect URI (nostr+walletconnect://…) of a funded wallet: the
                          lifecycle checks pay invoices through it (pay_invoice) instead of the control
                          API, and an NWC request paid through it must complete with its preimage;
                          the URI holds a secret and is never printed
  --min-amount N          hold the target to this minimum amount (21 or 1); default: accept either
  --reporter R            pretty (default), junit or json
  --output FILE           write the report to FILE (default: stdout; live lines then go to stdout)
  --known-failing FILE    check ids expected to fail, one per line (# comments); one that passes fails the run

  Exit status: 0 every required check passed; 1 a check failed (or a known failure passed);
  2 bad usage or a target that cannot be reached.
`;

/** The flags `lnpr conformance` parses (its usage text above lists each: a test holds it). */
export const CONFORMANCE_OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'read-only-key': { type: 'string' },
  'nwc-key': { type: 'string' },
  'admin-key': { type: 'string' },
  profile: { type: 'string' },
  'pay-command': { type: 'string' },
  'allow-mainnet-payments': { type: 'boolean' },
  'payer-nwc-url': { type: 'string' },
  'min-amount': { type: 'string' },
  reporter: { type: 'string' },
  output: { type: 'string' },
  'known-failing': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

const REPORTERS = ['pretty', 'junit', 'json'] as const;
/** Flags whose values are secret: the keys, and the payer's NWC URI (it holds the client's secret key). */
const KEY_FLAGS = ['--api-key', '--read-only-key', '--nwc-key', '--admin-key', '--payer-nwc-url'];
/** How long one payment by `--pay-command` may take. */
const PAY_TIMEOUT_MS = 60_000;

/** Where the command writes. */
export type ConformanceIo = CommandIo;

/** Runs `lnpr conformance <args>`; sets the exit code to 1 when the run did not pass. */
export async function conformance(args: string[], io: ConformanceIo = PROCESS_IO): Promise<void> {
  return runRedacted(redactor(secretsIn(args)), (redact) => run(args, io, redact));
}

async function run(args: string[], io: ConformanceIo, redact: (text: string) => string): Promise<void> {
  const { values, positionals } = parseOptions(args);
  if (values.help) {
    io.stdout.write(CONFORMANCE_USAGE);
    return;
  }
  if (positionals.length > 0) throw new UsageError(`lnpr conformance takes options only (lnpr conformance --help)`);
  const baseUrl = parseBaseUrl(values['base-url']);
  const adminKey = optionalKey('--admin-key', values['admin-key']);
  const apiKey = adminKey === undefined ? requiredKey('--api-key', values['api-key']) : optionalKey('--api-key', values['api-key']);
  const readOnlyKey = optionalKey('--read-only-key', values['read-only-key']);
  const nwcKey = optionalKey('--nwc-key', values['nwc-key']);
  const profile = oneOf('--profile', values.profile ?? 'core', PROFILES);
  const reporter = oneOf('--reporter', values.reporter ?? 'pretty', REPORTERS);
  const minAmount = values['min-amount'] === undefined ? undefined : wholeNumber('--min-amount', values['min-amount'], 1);
  const payTemplate = values['pay-command'];
  if (payTemplate !== undefined && !payTemplate.includes('{invoice}')) {
    throw new UsageError(`--pay-command must contain {invoice}, where the invoice goes (e.g. 'lncli payinvoice --force {invoice}')`);
  }
  const payerNwcUrl = optionalKey('--payer-nwc-url', values['payer-nwc-url']);
  if (payerNwcUrl !== undefined && payTemplate !== undefined) throw new UsageError('give --pay-command or --payer-nwc-url, not both: they are two ways to pay');
  const knownFailing = values['known-failing'] === undefined ? undefined : await readKnownFailing(values['known-failing']);
  const output = values.output;
  if (output !== undefined) await assertWritableDirectory(output);

  // The report owns stdout when it goes there; the live lines then move to stderr.
  const live = reporter !== 'pretty' && output === undefined ? io.stderr : io.stdout;
  const color = shouldColor(live, io.env);
  const say = (text: string) => live.write(`${redact(text)}\n`);

  say(`lnpr conformance: ${baseUrl} (profile ${profile})`);
  if (adminKey !== undefined) {
    const unused = [apiKey && '--api-key', readOnlyKey && '--read-only-key', nwcKey && '--nwc-key'].filter(Boolean);
    say(`in accounts of its own (--admin-key), deleted at the end${unused.length > 0 ? `; ${unused.join(', ')} not used` : ''}`);
  }
  if (payerNwcUrl !== undefined) say(profile === 'core' ? '--payer-nwc-url is not used by the core profile (it pays nothing)' : 'paying through the NWC wallet of --payer-nwc-url');
  const pay =
    payTemplate === undefined ? undefined : guardMainnet(payCommand(payTemplate), values['allow-mainnet-payments'] === true, say);
  let result: ConformanceResult;
  try {
    result = await runConformance({
      baseUrl,
      profile,
      ...(adminKey !== undefined
        ? { adminKey }
        : { apiKey, ...(readOnlyKey !== undefined ? { readOnlyKey } : {}), ...(nwcKey !== undefined ? { nwcKey } : {}) }),
      ...(minAmount !== undefined ? { minAmount } : {}),
      ...(knownFailing !== undefined ? { knownFailing } : {}),
      ...(pay !== undefined ? { payInvoice: pay } : {}),
      ...(payerNwcUrl !== undefined ? { payerNwcUrl } : {}),
      onCheck: (check) => say(formatCheckLine(check, { color })),
    });
  } catch (error) {
    if (error instanceof TargetUnreachable) throw new UsageError(`the target cannot be reached: ${error.message}`);
    if (error instanceof ConformanceUsageError) throw new UsageError(error.message);
    throw error;
  }
  say(formatSummary(result, { color }));

  await emitReport(result, { reporter, reporters: { pretty: formatPretty, junit: formatJunit, json: formatJson }, output, redact, io });
}

function parseOptions(args: string[]) {
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: CONFORMANCE_OPTIONS,
    });
  } catch (error) {
    // parseArgs messages name options, not values; they still go through the redactor in conformance().
    throw new UsageError(`${(error as Error).message} (lnpr conformance --help)`);
  }
}

/**
 * A function that pays an invoice by running `template` through the shell with `{invoice}`
 * replaced by the invoice, shell-quoted (BOLT11 is bech32, so quoting is belt and braces). The
 * invoice is also in the environment as `LNPR_INVOICE`. Rejects (as a failed check) on a non-zero
 * exit, with the command's stderr, or after `timeoutMs`.
 */
export function payCommand(template: string, timeoutMs = PAY_TIMEOUT_MS): (invoice: string) => Promise<void> {
  return (invoice) =>
    new Promise<void>((resolvePaid, reject) => {
      const command = template.replaceAll('{invoice}', shellQuote(invoice));
      const child = spawn(command, { shell: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LNPR_INVOICE: invoice } });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-4000);
      });
      let settled = false;
      const settle = (error?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolvePaid();
      };
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        child.stderr!.destroy();
        settle(new CheckFailure(`the pay command did not finish within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      child.on('error', (error) => settle(new CheckFailure(`the pay command could not start: ${error.message}`)));
      child.on('close', (code, signal) => {
        if (code === 0) return settle();
        const detail = stderr.trim();
        settle(new CheckFailure(`the pay command exited with ${code ?? signal}${detail === '' ? ' (no stderr)' : `: ${detail.slice(-1000)}`}`));
      });
    });
}

/** `value` as one POSIX shell word. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_.:/=@+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A conformance run pays dozens of invoices: on mainnet that is real bitcoin, so the pay command
 * is refused mainnet invoices unless the user says so, and warned once when allowed.
 */
export function guardMainnet(pay: (invoice: string) => Promise<void>, allowMainnet: boolean, say: (line: string) => void): (invoice: string) => Promise<void> {
  let warned = false;
  return (invoice) => {
    if (!isMainnetInvoice(invoice)) return pay(invoice);
    if (!allowMainnet) {
      return Promise.reject(new CheckFailure('refusing to pay a MAINNET invoice with the pay command (real bitcoin); pass --allow-mainnet-payments to allow it'));
    }
    if (!warned) {
      warned = true;
      say('! the pay command is paying MAINNET invoices: real bitcoin moves');
    }
    return pay(invoice);
  };
}

/** Mainnet BOLT11 invoices start `lnbc` (regtest is `lnbcrt`). */
function isMainnetInvoice(invoice: string): boolean {
  return /^lnbc(?!rt)/i.test(invoice);
}

/** The key values in `args` (and a password in a URL), found before parsing so that even parse errors cannot echo them. */
function secretsIn(args: string[]): string[] {
  const secrets: string[] = [];
  args.forEach((arg, index) => {
    if (KEY_FLAGS.includes(arg) && args[index + 1] !== undefined) secrets.push(args[index + 1]!);
    const inline = KEY_FLAGS.find((flag) => arg.startsWith(`${flag}=`));
    if (inline !== undefined) secrets.push(arg.slice(inline.length + 1));
    // An NWC URI's secret alone too, wherever it appears (e.g. a URI given with the flag's value split off).
    for (const match of arg.matchAll(/[?&]secret=([^&#\s]+)/gi)) secrets.push(match[1]!);
    if (arg === '--base-url' || arg.startsWith('--base-url=')) {
      const value = arg === '--base-url' ? args[index + 1] : arg.slice('--base-url='.length);
      try {
        const password = value === undefined ? '' : new URL(value).password;
        if (password !== '') secrets.push(password, decodeURIComponent(password));
      } catch {
        // Not a URL: parseBaseUrl says so.
      }
    }
  });
  // Keys of under 4 characters are no secret, and replacing them would garble every line.
  return [...new Set(secrets.filter((secret) => secret.length >= 4))].sort((a, b) => b.length - a.length);
}

function redactor(secrets: string[]): (text: string) => string {
  return (text) => secrets.reduce((result, secret) => result.split(secret).join('[redacted]'), text);
}


function requiredKey(flag: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} KEY is required: a key with create and read permission (or --admin-key KEY, to run in accounts of its own)`);
  return value;
}

function optionalKey(flag: string, value: string | undefined): string | undefined {
  if (value === '') throw new UsageError(`${flag} is empty`);
  return value;
}



async function readKnownFailing(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--known-failing ${path}: ${(error as Error).message}`);
  }
  try {
    return parseKnownFailing(text, `--known-failing ${path}`);
  } catch (error) {
    if (error instanceof KnownFailingFileError) throw new UsageError(error.message);
    throw error;
  }
}

