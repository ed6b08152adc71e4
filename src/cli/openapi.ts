/**
 * `lnpr openapi`: prints the OpenAPI 3.1 document `GET /openapi.json` serves, as pretty JSON, for
 * a server started with the same flags; `--output FILE` writes it to a file instead.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolveSettings } from '../core/settings.js';
import { openApiDocumentOf } from '../openapi/route.js';
import { wholeNumber } from './args.js';
import { UsageError } from './usage-error.js';

/** `lnpr openapi --help`. */
export const OPENAPI_USAGE = `Usage: lnpr openapi [options] > openapi.json

  --output FILE       write to FILE instead of stdout
  --server-url URL    the server the document names; by default "/", as the server itself says
                      (the origin the document came from)
  --port N, --host H  as lnpr serve: name http://H:N (host 127.0.0.1, port 8787 by default) when
                      either is given (PORT, HOST in the environment count as given)
  --min-amount N      as lnpr serve --min-amount: the smallest amount the document accepts (default 21)
  --no-controls       as lnpr serve --no-controls: v1 only, without the control API and the webhooks

A running server serves the same document at GET /openapi.json.
`;

/** The flags `lnpr openapi` parses (its usage text above lists each: a test holds it). */
export const OPENAPI_OPTIONS = {
  output: { type: 'string' },
  'server-url': { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'min-amount': { type: 'string' },
  'no-controls': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** Runs `lnpr openapi` with `args`. */
export async function openapi(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: OPENAPI_OPTIONS,
  });
  if (values.help) {
    process.stdout.write(OPENAPI_USAGE);
    return;
  }
  if (positionals.length > 0) throw new UsageError(`lnpr openapi takes no arguments (got "${positionals[0]}")\n\n${OPENAPI_USAGE}`);
  const serverUrl = serverUrlOf(values, process.env);
  const minAmount = values['min-amount'] === undefined ? undefined : wholeNumber('--min-amount', values['min-amount'], 1);
  const settings = resolveSettings({ minAmount, controls: !values['no-controls'] });
  const text = `${JSON.stringify(openApiDocumentOf(settings, serverUrl === undefined ? {} : { serverUrl }), null, 2)}\n`;
  if (values.output === undefined) {
    process.stdout.write(text);
    return;
  }
  try {
    await writeFile(values.output, text);
  } catch (error) {
    throw new UsageError(`--output ${values.output}: ${(error as Error).message}`);
  }
}

/**
 * The server the document names: `--server-url`; else, when a port or host is given (flags or
 * PORT/HOST, as for lnpr serve), that server; else none, so `servers` says "/" as GET
 * /openapi.json does, rather than guess a port the user's server may not have.
 */
function serverUrlOf(values: { 'server-url'?: string; port?: string; host?: string }, env: NodeJS.ProcessEnv): string | undefined {
  if (values['server-url'] !== undefined) {
    if (values.port !== undefined || values.host !== undefined) throw new UsageError('--server-url names the whole server: give it, or --port/--host, not both');
    return parseServerUrl(values['server-url']);
  }
  const port = values.port ?? (env.PORT || undefined);
  const host = values.host ?? (env.HOST || undefined);
  if (port === undefined && host === undefined) return undefined;
  const portNumber = port === undefined ? 8787 : wholeNumber('--port', port, 1);
  if (portNumber > 65_535) throw new UsageError(`--port: ${portNumber} is not a port (1 to 65535)`);
  return parseServerUrl(`http://${host?.includes(':') ? `[${host}]` : (host ?? '127.0.0.1')}:${portNumber}`);
}

function parseServerUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new UsageError(`--server-url: "${text}" is not an http(s) URL`);
  return text.replace(/\/+$/, '');
}
