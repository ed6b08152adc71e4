/**
 * The OpenAPI 3.1 document of this sandbox: a view of the route table (`paths.ts`, worded by
 * `operations/`), the schemas of `src/schemas` (`components.ts`), the error catalogue and the
 * webhook events. It describes what a server with these settings serves: with the controls off,
 * the control paths and the webhooks are left out. This file only assembles: info, tags, the
 * security scheme, shared headers and the `x-lnpr-*` extensions. Browser-safe.
 *
 * Adding a route to the engine? Give it prose in `operations/` (the file named like its routes'
 * file); the build throws until it has some.
 */
import type { AnyRoute } from '../core/pipeline/route.js';
import { DEFAULT_SETTINGS, type SandboxSettings } from '../core/settings.js';
import { componentSchemas } from './components.js';
import { errorExamples, errorResponse } from './error-responses.js';
import { FEES, formatNumber } from './facts.js';
import { operationProse } from './operations/index.js';
import { pathsOf } from './paths.js';
import { collectRefs, type JsonObject } from './schema-tools.js';
import { webhookEvents } from './webhook-events.js';

/** The OpenAPI version of the document. */
export const OPENAPI_VERSION = '3.1.0';

/** Options of `buildOpenApiDocument`. */
export interface OpenApiOptions {
  /** `servers[0].url`: `/` (the origin that serves the document) by default. */
  serverUrl?: string;
}

/** Builds the document of a server with these settings that serves `routes`. */
export function buildOpenApiDocument(routes: ReadonlyArray<AnyRoute<unknown>>, settings: SandboxSettings = DEFAULT_SETTINGS, options: OpenApiOptions = {}): JsonObject {
  const components = componentSchemas(settings);
  const tagList = tags(settings);
  const paths = pathsOf(routes, operationProse(settings), components, new Set(tagList.map(({ name }) => name as string)));
  const keyless = publicPathsText(routes);
  const document: JsonObject = {
    openapi: OPENAPI_VERSION,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Lightning payment requests: lnpr-sandbox',
      version: '1',
      summary: settings.controls
        ? 'The v1 payment-request API of the spec, as the offline sandbox serves it, with its control API and webhooks.'
        : 'The v1 payment-request API of the spec, as the offline sandbox serves it.',
      description: infoDescription(settings, keyless),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.serverUrl ?? '/', description: options.serverUrl ? 'The sandbox' : 'The sandbox that served this document' }],
    security: [{ bearerAuth: [] }],
    tags: tagList,
    paths,
    ...(settings.controls ? { webhooks: webhookEvents() } : {}),
    components: {
      schemas: components.schemas,
      headers: { ...HEADERS },
      examples: errorExamples(),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            `Every call but ${keyless} carries an API key: \`Authorization: Bearer <API_KEY>\`. Missing, malformed or unknown keys get 401 \`unauthorized\`; a key without the permission gets 401 \`insufficient_permission\`. The default test keys: \`sk_test_custodial\`, \`sk_test_nwc\` (non-custodial), \`sk_test_readonly\` (read only), \`sk_test_admin\` (the accounts API only: it has no account).`,
        },
      },
    },
    'x-lnpr-responses': {
      description:
        'Answers outside the operations, for tools that check traffic against this document. `noRoute`: a path no operation has. `methodNotAllowed`: a path of `paths` with a method it does not list (every GET also answers HEAD, without a body). `anyRequest`: what any request to the HTTP server may get (421 for a `Host` it does not serve, 403 for a web page of a foreign origin on the control surface; see docs/concepts/security.md).',
      noRoute: { '404': errorResponse(['route_not_found']) },
      methodNotAllowed: { '405': errorResponse(['method_not_allowed']) },
      anyRequest: {
        '403': errorResponse(['origin_not_allowed']),
        '417': errorResponse(['expectation_failed']),
        '421': errorResponse(['misdirected_request']),
        '500': errorResponse(['internal_error']),
      },
    },
    'x-lnpr-settings': {
      minAmount: settings.minAmount,
      maxAmount: settings.maxAmount,
      feeRounding: settings.feeRounding,
      feePercentageBelowThreshold: settings.feePercentageBelowThreshold,
      defaultExpiresIn: settings.defaultExpiresIn,
      minExpiresIn: settings.minExpiresIn,
      maxExpiresIn: settings.maxExpiresIn,
      maxMetadataBytes: settings.maxMetadataBytes,
      maxMetadataDepth: settings.maxMetadataDepth,
      controls: settings.controls,
    },
  };
  return withoutUnusedComponents(document);
}

// ---------------------------------------------------------------------------------------------
// Headers, tags, the description

const HEADERS: Record<string, JsonObject> = {
  Location: { description: 'The path of the created resource.', schema: { type: 'string' }, required: true },
  Allow: { description: 'The methods the path accepts.', schema: { type: 'string' }, required: true },
  'WWW-Authenticate': { description: '`Bearer realm="lnpr-sandbox"`.', schema: { type: 'string' }, required: true },
  ETag: { description: 'The version of the document.', schema: { type: 'string' }, required: true },
  'Cache-Control': { description: 'Revalidate before use (`no-cache`).', schema: { type: 'string' } },
};

function tags(settings: SandboxSettings): JsonObject[] {
  return [
    { name: 'Payment requests', description: 'The v1 API of the spec.' },
    { name: 'Server', description: 'Health and this document (no key needed).' },
    ...(settings.controls
      ? [
          { name: 'Sandbox: payment requests', description: 'Not part of v1: move payment requests on as a payer or the world would (off with `--no-controls`).' },
          { name: 'Sandbox: clock', description: "Not part of v1: each account's virtual clock." },
          { name: 'Sandbox: rules', description: 'Not part of v1: scripted outcomes.' },
          { name: 'Sandbox: webhooks', description: 'Not part of v1 (the spec says webhooks exist but shows no format): endpoints, events, deliveries.' },
          { name: 'Sandbox: pay page', description: 'Not part of v1: the API of the hosted pay page (`GET /pay/{id}`), which needs no key: the id is the secret.' },
          { name: 'Sandbox: accounts', description: 'Not part of v1: accounts for isolated runs, made and deleted with a key that has the `accounts` permission (`sk_test_admin` among the default keys).' },
          {
            name: 'Sandbox: resilience',
            description:
              "Not part of v1: API faults (the account's /api/v1 calls answered with 503s, late, or not at all, on purpose) and the request journal (what those calls sent and got).",
          },
          {
            name: 'Sandbox: wallets',
            description:
              "Not part of v1: Nostr Wallet Connect for real. Test wallets (an offline NWC faucet) pay any pending invoice of the sandbox over NIP-47 on the sandbox's relay (`ws://HOST:PORT/nostr`); an NWC account's invoices come from its connected wallet.",
          },
        ]
      : []),
  ];
}

/** The paths of the routes that need no key, for the prose: "`/healthz`, `/openapi.json` and …". */
function publicPathsText(routes: ReadonlyArray<AnyRoute<unknown>>): string {
  const paths = [...new Set(routes.filter((route) => route.access === 'public').map((route) => `\`${route.path.replace(/:(\w+)/g, '{$1}')}\``))];
  return paths.length <= 1 ? (paths[0] ?? 'none') : `${paths.slice(0, -1).join(', ')} and ${paths.at(-1)}`;
}

function infoDescription(settings: SandboxSettings, keyless: string): string {
  const lines = [
    'The payment-request API of the v1 spec (`/api/v1`), as the offline sandbox `lnpr-sandbox` serves it, generated from the same JSON Schemas it validates with. Every answer of the API conforms to this document; the web pages of the dashboard and the hosted pay page (HTML, from `lnpr serve`) and their live-update streams are not part of it.',
    '',
    `**Authentication.** \`Authorization: Bearer <API_KEY>\` on every call but ${keyless}. The key is checked before the body: a bad key and a bad body get 401.`,
    '',
    '**Errors.** Every 4xx/5xx has one JSON shape, `{"error": {"code", "message", "details"?}}` (schema `Error`); each response lists its codes (also in `x-lnpr-error-codes`). A path no operation has gets 404 `route_not_found`; a path with a method it does not list, 405 `method_not_allowed` with `Allow`; every GET also answers HEAD (no body). Bodies over the HTTP server\'s limit get 413, bodies not sent as JSON 415, an `Expect` header other than `100-continue` 417. These are under `x-lnpr-responses` too.',
    '',
    '**Open points.** Where the spec says "not shown", the sandbox picks a default and makes it a setting; the fields concerned say so. This server:',
    '',
    '| open point | this server | setting |',
    '| --- | --- | --- |',
    `| minimum amount (21 or 1) | ${formatNumber(settings.minAmount)} sats | \`minAmount\` (\`--min-amount\`) |`,
    `| maximum amount | ${formatNumber(settings.maxAmount)} sats | \`maxAmount\` |`,
    `| fee rounding | \`${settings.feeRounding}\` | \`feeRounding\` |`,
    `| \`feePercentage\` under ${FEES.threshold} sats | \`${settings.feePercentageBelowThreshold}\` | \`feePercentageBelowThreshold\` |`,
    `| \`expiresIn\` bounds | ${formatNumber(settings.minExpiresIn)} to ${formatNumber(settings.maxExpiresIn)} s (default ${formatNumber(settings.defaultExpiresIn)}) | \`minExpiresIn\`, \`maxExpiresIn\`, \`defaultExpiresIn\` |`,
    `| \`metadata\` size | ${formatNumber(settings.maxMetadataBytes)} bytes as JSON, ${settings.maxMetadataDepth} levels deep | \`maxMetadataBytes\`, \`maxMetadataDepth\` |`,
    '',
    'The same values are under `x-lnpr-settings`.',
    '',
    settings.controls
      ? '**Sandbox.** The `/sandbox/v1` control API (not part of v1) moves payment requests on, drives each account\'s clock, sets behaviour rules and manages webhook endpoints; the events it delivers are under `webhooks`. Every control call acts on the key\'s own account only; the accounts API makes and deletes accounts for isolated runs.'
      : '**Sandbox.** This server runs with `--no-controls`: it serves v1 only, so the control API and the webhooks are left out of this document.',
  ];
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------

/** Drops components nothing refers to (e.g. the control API's with the controls off). */
function withoutUnusedComponents(document: JsonObject): JsonObject {
  const components = document.components as Record<string, Record<string, JsonObject>>;
  const { components: _components, ...rest } = document;
  const used = new Set<string>();
  const pending = [...collectRefs(rest)];
  // Security schemes are referred to by name, not by `$ref`.
  used.add('#/components/securitySchemes/bearerAuth');
  while (pending.length > 0) {
    const ref = pending.pop()!;
    if (used.has(ref)) continue;
    used.add(ref);
    const [, , kind, name] = ref.split('/');
    const target = components[kind!]?.[name!];
    if (target === undefined) throw new Error(`the OpenAPI document refers to ${ref}, which does not exist`);
    pending.push(...collectRefs(target));
  }
  for (const [kind, entries] of Object.entries(components)) {
    for (const name of Object.keys(entries)) if (!used.has(`#/components/${kind}/${name}`)) delete entries[name];
  }
  return document;
}
