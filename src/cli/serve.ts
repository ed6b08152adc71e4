/**
 * `lnpr serve`: the sandbox over HTTP. Prints the URL and the keys it accepts, serves until
 * SIGINT/SIGTERM, then finishes in-flight requests, flushes storage and exits 0.
 */
import { parseArgs } from 'node:util';
import { parseRules } from '../core/payments/rules.js';
import type { Rule } from '../schemas/rules.js';
import { createLogOutput, LOG_FORMATS, LOG_LEVELS } from '../http/log-output.js';
import { originOf } from '../http/cors.js';
import { NwcRequestLog } from '../http/nwc-requests.js';
import { NETWORKS } from '../lightning/networks.js';
import type { NodeSandbox } from '../sandbox.node.js';
import { isIP } from 'node:net';
import { clientAddresses, normalAddress } from '../http/client-address.js';
import { closeSandbox, SERVE_TIME_LIMITS, startSandboxServer, type SandboxRecipe } from './sandbox-server.js';
import { usageOf, type CommandDefinition } from './command-flags.js';
import { oneOf, readAccountsFile, readJsonFile, readTextFile, wholeNumber } from './args.js';
import { serveWebhooks } from './serve-webhooks.js';
import { UsageError } from './usage-error.js';
import { redactedDatabaseUrl } from '../store/postgres/database-url.js';

/** The flags of `lnpr serve`: what it parses, and what `--help` and the CLI reference show. */
export const SERVE_COMMAND = {
  name: 'serve',
  synopsis: 'lnpr serve [options]',
  flags: {
    port: { type: 'string', value: 'N', help: ['port to listen on (env PORT; default 8787, 0 = any free port)'] },
    host: { type: 'string', value: 'H', help: ['address to bind (env HOST; default 127.0.0.1)'] },
    data: { type: 'string', value: 'FILE.json', help: ['keep payment requests in a JSON file (env LNPR_DATA; default: in memory)'] },
    'database-url': {
      type: 'string',
      value: 'URL',
      help: ['keep the sandbox in PostgreSQL 14+ (postgres://USER[:PASSWORD]@HOST:PORT/DB;', 'env LNPR_DATABASE_URL; not with --data)'],
    },
    'advertise-url': {
      type: 'string',
      value: 'URL',
      help: ['with --database-url: how the other replicas reach this one (env', 'LNPR_ADVERTISE_URL; default http://HOST:PORT; required when HOST is 0.0.0.0 or ::)'],
    },
    'trust-proxy': {
      type: 'string',
      multiple: true,
      value: 'ADDR',
      help: ['honour X-Forwarded-For from this address only (a load balancer): the', 'per-address limits then count the real clients (repeatable)'],
    },
    network: { type: 'string', value: 'NET', help: ['regtest (default), signet, testnet or mainnet invoices'] },
    config: { type: 'string', value: 'FILE', help: ['accounts and API keys (default: fixtures/accounts.json)'] },
    scenario: { type: 'string', multiple: true, value: 'FILE', help: ['load behaviour rules from a scenario file (repeatable)'] },
    fixtures: { type: 'string', value: 'FILE', help: ['start with the payment requests of a fixtures file (lnpr fixtures)'] },
    clock: { type: 'string', value: 'MODE', help: ['running (default) or frozen account clocks'] },
    'min-amount': { type: 'string', value: 'N', help: ['smallest accepted amount in sats (default 21)'] },
    'no-controls': { type: 'boolean', help: ['serve no /sandbox/v1 control API (404 there)'] },
    'body-limit': { type: 'string', value: 'BYTES', help: ['largest accepted request body (default 1048576)'] },
    'no-cors': { type: 'boolean', help: ['send no CORS headers (pages of other origins still cannot drive /sandbox/v1)'] },
    'public-url': {
      type: 'string',
      value: 'URL',
      help: ["the URL browsers reach the sandbox at, behind a proxy or a container's port", 'map: its host is accepted in Host, its origin may drive /sandbox/v1'],
    },
    'cors-origin': {
      type: 'string',
      multiple: true,
      value: 'ORIGIN',
      help: ['an origin (https://app.example:8443) whose pages may drive /sandbox/v1, the', "dashboard's API and live streams, besides loopback ones (repeatable)"],
    },
    webhook: { type: 'string', multiple: true, value: 'URL', help: ["send every account's events to URL (repeatable)"] },
    'webhook-secret': { type: 'string', value: 'S', help: ['the secret (whsec_...) of the --webhook endpoints (default: generated, printed)'] },
    'webhook-allow-host': {
      type: 'string',
      multiple: true,
      value: 'H',
      help: ['a host webhook URLs registered through the API may name when', '--host is not loopback (repeatable; * for any)'],
    },
    'nwc-timeout': {
      type: 'string',
      value: 'SECONDS',
      help: ["how long an NWC account's connected wallet has to answer make_invoice", 'before a create gets 502 wallet_unavailable (default 10, at most 300)'],
    },
    'rate-limit': {
      type: 'string',
      value: 'N',
      help: ['at most N /api/v1 calls per second per API key (429 rate_limited beyond,', 'with Retry-After and RateLimit-* headers; default 0: no limit)'],
    },
    'log-level': { type: 'string', value: 'LEVEL', help: ['fatal, error, warn, info (default: a line per request), debug, trace or silent'] },
    'log-format': { type: 'string', value: 'FORMAT', help: ['pretty (default on a terminal) or json (default otherwise: pino JSON lines)'] },
    help: { type: 'boolean', short: 'h', help: ['print this'] },
  },
} as const satisfies CommandDefinition;

/** `lnpr serve --help`. */
export const SERVE_USAGE = usageOf(SERVE_COMMAND);

/** Runs `lnpr serve` with `args`; resolves once the server has stopped. */
export async function serve(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values } = parseArgs({ args, strict: true, options: SERVE_COMMAND.flags });
  if (values.help) {
    process.stdout.write(SERVE_USAGE);
    return;
  }
  const port = wholeNumber('--port', values.port ?? env.PORT ?? '8787', 0, 65535);
  const host = values.host ?? env.HOST ?? '127.0.0.1';
  const dataFile = values.data ?? env.LNPR_DATA;
  const databaseUrl = values['database-url'] ?? env.LNPR_DATABASE_URL;
  if (dataFile !== undefined && databaseUrl !== undefined) {
    throw new UsageError('--data and --database-url (or LNPR_DATA and LNPR_DATABASE_URL) are two places to keep the sandbox: give one');
  }
  const network = oneOf('--network', values.network ?? 'regtest', NETWORKS);
  const clock = oneOf('--clock', values.clock ?? 'running', ['running', 'frozen'] as const);
  const minAmount = values['min-amount'] === undefined ? undefined : wholeNumber('--min-amount', values['min-amount'], 1);
  const bodyLimit = wholeNumber('--body-limit', values['body-limit'] ?? '1048576', 1);
  const nwcTimeoutSeconds = wholeNumber('--nwc-timeout', values['nwc-timeout'] ?? '10', 1, 300);
  const rateLimit = wholeNumber('--rate-limit', values['rate-limit'] ?? '0', 0);
  const publicUrl = values['public-url'] === undefined ? undefined : origin('--public-url', values['public-url']);
  const corsOrigins = (values['cors-origin'] ?? []).map((value) => origin('--cors-origin', value));
  const log = createLogOutput({
    level: oneOf('--log-level', values['log-level'] ?? 'info', LOG_LEVELS),
    format: oneOf('--log-format', values['log-format'] ?? (process.stdout.isTTY ? 'pretty' : 'json'), LOG_FORMATS),
  });
  const accounts = values.config === undefined ? undefined : await readAccountsFile('--config', values.config);
  const rules = (await Promise.all((values.scenario ?? []).map(readScenarioRules))).flat();
  const fixtures = values.fixtures === undefined ? undefined : await readJsonFile('--fixtures', values.fixtures);
  const webhooks = serveWebhooks(values, host, accounts);
  // The dashboard's recent NIP-47 requests, kept by the web layer.
  const nwcRequests = new NwcRequestLog();

  const trustProxy = (values['trust-proxy'] ?? []).map((value) => proxyAddress(value));
  const recipe: SandboxRecipe = {
    sandboxOptions: {
      network,
      clock,
      rules,
      ...(accounts ? { accounts } : {}),
      settings: { minAmount, controls: !values['no-controls'], webhookAllowedHosts: webhooks.addressPolicy, nwcTimeoutSeconds, rateLimit },
      onNwcRequest: nwcRequests.record,
    },
    ...(fixtures === undefined ? {} : { fixtures: { data: fixtures, path: values.fixtures! } }),
    webhooks,
    serverOptions: {
      bodyLimit,
      cors: !values['no-cors'],
      ...(publicUrl === undefined ? {} : { publicUrl }),
      corsOrigins,
      // `--host` may be a name (`--host my-laptop.lan`): the user's own, so Host may carry it.
      hostNames: [host],
      ...SERVE_TIME_LIMITS,
      logger: log.logger,
      requestLog: log.requestLog,
    },
    nwcRequests,
  };

  if (databaseUrl !== undefined) {
    const advertiseUrl = values['advertise-url'] ?? env.LNPR_ADVERTISE_URL;
    if (advertiseUrl === undefined && isWildcardHost(host)) {
      throw new UsageError(`--host ${host} listens on every address: say with --advertise-url URL (or LNPR_ADVERTISE_URL) how the other replicas reach this one`);
    }
    checkDatabaseUrl(databaseUrl);
    const { serveReplica } = await import('../replicas/serve-replica.js');
    await serveReplica({
      recipe,
      databaseUrl,
      host,
      port,
      ...(advertiseUrl === undefined ? {} : { advertiseUrl: origin('--advertise-url', advertiseUrl) }),
      trustProxy,
      banner: (url, sandbox, webhookLines, stored) => banner(url, sandbox, `PostgreSQL ${redactedDatabaseUrl(databaseUrl)}`, webhookLines, publicUrl, stored),
    });
    log.flush();
    return;
  }

  const { sandbox, app, webhookLines } = await startSandboxServer(recipe, {
    ...(dataFile ? { dataFile } : {}),
    clientAddresses: clientAddresses({ trustProxy }),
  });
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      app.log.info(`${signal}: finishing in-flight requests, flushing storage`);
      void app
        .close()
        .then(() => closeSandbox(sandbox))
        .then(resolve, (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exitCode = 1;
          resolve();
        });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  try {
    await app.listen({ port, host });
  } catch (error) {
    await closeSandbox(sandbox);
    throw new UsageError(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
  }
  process.stdout.write(banner(app.listeningOrigin, sandbox, dataFile ?? 'memory', webhookLines, publicUrl));
  await stopped;
  // Last: the log is buffered, and every request's line is in it by now.
  log.flush();
}

/** A usage error unless `url` is a postgres:// URL. */
function checkDatabaseUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--database-url must be postgres://USER[:PASSWORD]@HOST:PORT/DB (it is ${JSON.stringify(url)})`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new UsageError(`--database-url must be postgres://USER[:PASSWORD]@HOST:PORT/DB (it is ${redactedDatabaseUrl(url)})`);
  }
}

/** An address of `--trust-proxy` (an IP address), or a usage error. */
function proxyAddress(value: string): string {
  const address = normalAddress(value.trim());
  if (isIP(address) === 0) throw new UsageError(`--trust-proxy must be an IP address (a proxy's or a load balancer's), not ${JSON.stringify(value)}`);
  return address;
}

/** Whether `host` listens on every address (`0.0.0.0`, `::`): no URL of its own to give others. */
function isWildcardHost(host: string): boolean {
  return ['0.0.0.0', '::', '[::]', '0', ''].includes(host.trim());
}


/** `value` as an origin (`scheme://host[:port]`), or a usage error naming `flag`. */
function origin(flag: string, value: string): string {
  try {
    return originOf(value);
  } catch {
    throw new UsageError(`${flag} must be an http(s) origin such as https://sandbox.example:8443 (no path), not ${JSON.stringify(value)}`);
  }
}

function banner(url: string, sandbox: NodeSandbox, storage: string, webhookLines: string[], publicUrl: string | undefined, stored = sandbox.store.size()): string {
  const keys = sandbox.accountsConfig.keys.map((k) => {
    // A key without an account (sk_test_admin) only manages accounts.
    const account = sandbox.accountsConfig.accounts.find((a) => a.id === k.account);
    return `    ${k.key.padEnd(20)} ${(account?.id ?? '(none)').padEnd(16)} ${(account?.mode ?? '-').padEnd(10)} ${k.permissions.join(', ') || '(none)'}`;
  });
  return [
    `lnpr-sandbox listening on ${url}`,
    ...(publicUrl === undefined ? [] : [`  public URL: ${publicUrl}`]),
    `  network: ${sandbox.network}   storage: ${storage}   payment requests: ${stored}`,
    `  control API: ${sandbox.settings.controls ? `${url}/sandbox/v1` : 'off'}   behaviour rules: ${sandbox.rules.fixedRules.length}`,
    `  Nostr relay (NWC): ${sandbox.relay.url ?? `${url.replace(/^http/, 'ws')}/nostr`}`,
    ...(sandbox.settings.controls ? [`  dashboard: ${publicUrl ?? url}/dashboard   (hosted pay pages: ${publicUrl ?? url}/pay/<id>)`] : []),
    `  docs: ${publicUrl ?? url}/docs/`,
    ...webhookLines,
    `  API keys (Authorization: Bearer <key>):`,
    ...keys,
    `  try: curl -s ${url}/api/v1/payment-requests -H 'Authorization: Bearer ${(sandbox.accountsConfig.keys.find((k) => k.permissions.includes('create')) ?? sandbox.accountsConfig.keys[0]!).key}' \\`,
    `         -H 'Content-Type: application/json' -d '{"amount":1000,"description":"test","destinationWallet":"merchant@example.com"}'`,
    '',
  ].join('\n');
}


/** The `rules` of a scenario file (YAML or JSON); its steps are for `lnpr scenario run`. */
async function readScenarioRules(path: string): Promise<Rule[]> {
  const text = await readTextFile('--scenario', path);
  const { parse: parseYaml } = await import('yaml');
  let scenario: unknown;
  try {
    scenario = parseYaml(text);
  } catch (error) {
    throw new UsageError(`--scenario ${path}: not valid YAML: ${(error as Error).message}`);
  }
  const rules = (scenario as { rules?: unknown } | null)?.rules ?? [];
  try {
    return parseRules(rules);
  } catch (error) {
    throw new UsageError(`--scenario ${path}: ${(error as Error).message}`);
  }
}




