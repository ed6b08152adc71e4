/**
 * `lnpr serve`'s webhook flags: `--webhook URL` (repeatable) registers URL for every account,
 * with `--webhook-secret` or a generated secret; `--webhook-allow-host HOST` (repeatable) names the
 * hosts that API-registered URLs may use when the server listens beyond loopback, where any key
 * holder could otherwise make the sandbox send requests into the operator's network.
 */
import { Webhook } from 'standardwebhooks';
import type { AccountsConfig } from '../core/accounts/accounts.js';
import { newWebhookSecret, webhookUrlProblem, type WebhookHostPolicy } from '../core/webhooks/webhook-endpoints.js';
import { cryptoRandom } from '../core/random.js';
import type { Sandbox } from '../sandbox.js';
import { UsageError } from './usage-error.js';

/** The webhook flags as parsed. */
export interface WebhookFlags {
  webhook?: string[];
  'webhook-secret'?: string;
  'webhook-allow-host'?: string[];
}

/** What the flags decide before the sandbox exists, and what they do once it does. */
export interface ServeWebhooks {
  allowedHosts: WebhookHostPolicy;
  /** Registers the `--webhook` URLs for every account; returns the banner's lines about them. */
  register(sandbox: Sandbox): Promise<string[]>;
}

/** Checks the flags; throws UsageError naming the bad one. */
export function serveWebhooks(flags: WebhookFlags, host: string, accounts: AccountsConfig | undefined): ServeWebhooks {
  const urls = flags.webhook ?? [];
  for (const url of urls) {
    const problem = webhookUrlProblem(url, 'any');
    if (problem) throw new UsageError(`--webhook ${url}: ${problem.message}`);
  }
  const fixedSecret = flags['webhook-secret'];
  if (fixedSecret !== undefined) {
    if (urls.length === 0) throw new UsageError('--webhook-secret needs --webhook URL');
    if (!isWebhookSecret(fixedSecret)) throw new UsageError('--webhook-secret must be whsec_ followed by base64 (as Standard Webhooks secrets are)');
  }
  const allowHosts = flags['webhook-allow-host'] ?? [];
  if (allowHosts.some((allowed) => allowed.trim() === '')) throw new UsageError('--webhook-allow-host needs a host name or address (or * for any)');
  const configuredUrls = (accounts?.accounts ?? []).flatMap((account) => (account.webhooks ?? []).map((webhook) => webhook.url));
  const allowedHosts: WebhookHostPolicy = isLoopback(host)
    ? 'any'
    : [...new Set([...allowHosts, ...[...urls, ...configuredUrls].map(hostOf)].map((name) => name.toLowerCase()))];

  return {
    allowedHosts,
    async register(sandbox) {
      const lines: string[] = [];
      const accountIds = sandbox.accountsConfig.accounts.map((account) => account.id);
      for (const url of urls) {
        // One secret per URL for all accounts; kept from an earlier start with the same --data.
        const kept = accountIds.flatMap((id) => sandbox.store.endpointsOf(id)).find((endpoint) => endpoint.url === url)?.secret;
        const secret = fixedSecret ?? kept ?? newWebhookSecret(cryptoRandom);
        await Promise.all(accountIds.map((accountId) => sandbox.events.endpoints.ensure(accountId, { url, secret })));
        lines.push(`  webhook: ${url} for every account, secret ${secret}`);
      }
      if (allowedHosts !== 'any') {
        lines.push(`  webhook URLs registered through the API may name: ${allowedHosts.length > 0 ? allowedHosts.join(', ') : 'no host'} (--webhook-allow-host)`);
      }
      return lines;
    },
  };
}

/** Whether the server is only reachable from this machine. */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name);
}

function hostOf(url: string): string {
  return new URL(url).hostname.replace(/^\[|\]$/g, '');
}

function isWebhookSecret(secret: string): boolean {
  if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) return false;
  try {
    new Webhook(secret);
    return true;
  } catch {
    return false;
  }
}
