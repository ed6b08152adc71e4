/**
 * `lnpr webhooks check`: tests a merchant's webhook receiver (src/webhook-check). Live lines as
 * cases finish, then a summary (pretty); or JUnit XML / JSON for CI. Exit status, as
 * `lnpr conformance`'s: 0 every required case held, 1 one did not, 2 bad usage or a receiver that
 * does not answer the first delivery (thrown as `UsageError`). The secret is never printed:
 * everything written goes through a redactor that knows it, error messages included.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { shouldColor } from '../reporting/pretty-text.js';
import { formatJson } from '../webhook-check/reporters/json.js';
import { formatJunit } from '../webhook-check/reporters/junit.js';
import { formatCaseLine, formatPretty, formatSummary } from '../webhook-check/reporters/pretty.js';
import type { WebhookCheckResult } from '../webhook-check/result.js';
import { ReceiverUnreachable, runWebhookCheck } from '../webhook-check/run-webhook-check.js';
import { InvalidWebhookSecret, parseWebhookSecret, redactor, secretForms } from '../webhook-check/webhook-secret.js';
import { oneOf } from './args.js';
import { assertWritableDirectory, emitReport, PROCESS_IO, runRedacted, type CommandIo } from './report-command.js';
import { UsageError } from './usage-error.js';

/** The usage text of `lnpr webhooks check`. */
export const WEBHOOKS_CHECK_USAGE = `Usage: lnpr webhooks check --url URL --secret whsec_… [options]

  Tests a webhook receiver (docs/guides/webhooks-check.md): sends it correctly signed events, a
  duplicate and events out of order, which it should accept (2xx), and forged signatures, stale
  timestamps and bodies altered after signing, of every event type, which it must refuse.

  --url URL          the receiver, POSTed to as is, e.g. http://127.0.0.1:3000/webhooks/lnpr
  --secret whsec_…   the secret the receiver verifies with (never printed)
  --reporter R       pretty (default), junit or json
  --output FILE      write the report to FILE (default: stdout; live lines then go to stdout)

  Exit status: 0 valid deliveries were accepted and forged, stale and altered ones refused;
  1 a required case did not hold; 2 bad usage or a receiver that cannot be reached.
`;

/** The flags `lnpr webhooks check` parses (its usage text above lists each: a test holds it). */
export const WEBHOOKS_CHECK_OPTIONS = {
  url: { type: 'string' },
  secret: { type: 'string' },
  reporter: { type: 'string' },
  output: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

const REPORTERS = ['pretty', 'junit', 'json'] as const;

/** Where the command writes. */
export type WebhooksCheckIo = CommandIo;

/** Runs `lnpr webhooks check <args>`; sets the exit code to 1 when a required case did not hold. */
export async function webhooksCheck(args: string[], io: WebhooksCheckIo = PROCESS_IO): Promise<void> {
  return runRedacted(redactor(secretsIn(args)), (redact) => run(args, io, redact));
}

async function run(args: string[], io: WebhooksCheckIo, redact: (text: string) => string): Promise<void> {
  const { values, positionals } = parseOptions(args);
  if (values.help) {
    io.stdout.write(WEBHOOKS_CHECK_USAGE);
    return;
  }
  if (positionals.length > 0) throw new UsageError('lnpr webhooks check takes options only (lnpr webhooks check --help)');
  const url = parseReceiverUrl(values.url);
  const secret = parseSecret(values.secret);
  const reporter = oneOf('--reporter', values.reporter ?? 'pretty', REPORTERS);
  const output = values.output;
  if (output !== undefined) await assertWritableDirectory(output);

  // The report owns stdout when it goes there; the live lines then move to stderr.
  const live = reporter !== 'pretty' && output === undefined ? io.stderr : io.stdout;
  const color = shouldColor(live, io.env);
  const say = (text: string) => live.write(`${redact(text)}\n`);

  say(`lnpr webhooks check: ${url}`);
  let result: WebhookCheckResult;
  try {
    result = await runWebhookCheck({ url, secret, onCase: (result) => say(formatCaseLine(result, { color })) });
  } catch (error) {
    if (error instanceof ReceiverUnreachable) throw new UsageError(`the receiver cannot be reached: ${error.message}`);
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
      options: WEBHOOKS_CHECK_OPTIONS,
    });
  } catch (error) {
    // parseArgs messages name options, not values; they still go through the redactor.
    throw new UsageError(`${(error as Error).message} (lnpr webhooks check --help)`);
  }
}

/** An http(s) URL, kept exactly as given: it is the receiver's own address, not a base. */
function parseReceiverUrl(value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError('--url URL is required: the receiver, e.g. --url http://127.0.0.1:3000/webhooks');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url: "${value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url: "${value}" is not an http(s) URL`);
  // fetch refuses such URLs, and so would the sandbox's sender: say so rather than "unreachable".
  if (url.username !== '' || url.password !== '') {
    throw new UsageError('--url: a user or password in the URL is never sent (deliveries carry no credentials but their signature); give the URL without it');
  }
  return value;
}

function parseSecret(value: string | undefined): string {
  if (value === undefined || value === '') throw new UsageError('--secret whsec_… is required: the secret the receiver verifies with');
  try {
    return parseWebhookSecret(value);
  } catch (error) {
    if (error instanceof InvalidWebhookSecret) throw new UsageError(`--secret: ${error.message}`);
    throw error;
  }
}

/**
 * The secret's forms in `args` (and a password in the URL, and any stray `whsec_` word), found
 * before parsing so that even parse errors cannot echo them.
 */
function secretsIn(args: string[]): string[] {
  const secrets: string[] = [];
  const valueOf = (flag: string, arg: string, index: number) => (arg === flag ? args[index + 1] : arg.startsWith(`${flag}=`) ? arg.slice(flag.length + 1) : undefined);
  args.forEach((arg, index) => {
    const secret = valueOf('--secret', arg, index);
    if (secret !== undefined) secrets.push(...secretForms(secret));
    if (arg.startsWith('whsec_')) secrets.push(...secretForms(arg));
    const url = valueOf('--url', arg, index);
    try {
      const password = url === undefined ? '' : new URL(url).password;
      if (password !== '') secrets.push(password, decodeURIComponent(password));
    } catch {
      // Not a URL: parseReceiverUrl says so.
    }
  });
  // Values under 4 characters are no secret, and replacing them would garble every line.
  return secrets.filter((secret) => secret.length >= 4);
}

