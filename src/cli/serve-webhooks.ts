/**
 * `lnpr serve`'s webhook flags: `--webhook URL` (repeatable) registers URL for every account,
 * with `--webhook-secret` or a generated secret. When the server listens beyond loopback, where any
 * key holder could otherwise make the sandbox send requests into the operator's network, webhooks
 * may go to public addresses only (address-policy.ts), except the exact origins of `--webhook` URLs
 * (and of the accounts file's) and the hosts of `--webhook-allow-host HOST` (repeatable; `*` for any).
 */
import { Webhook } from 'standardwebhooks';
import type { AccountsConfig } from '../core/accounts/accounts.js';
import { allowedHostOf, isLoopbackHost } from '../core/webhooks/address-policy.js';
import type { WebhookAddressPolicy } from '../core/settings.js';
import { newWebhookSecret, webhookUrlProblem } from '../core/webhooks/webhook-endpoints.js';
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
  /** Where webhooks may go: the sandbox's `webhookAllowedHosts` setting. */
  addressPolicy: WebhookAddressPolicy;
  /**
   * Registers the `--webhook` URLs for every account (or for `accountIds` only: a replica, as it
   * adopts each account); returns the banner's lines about them.
   */
  register(sandbox: Sandbox, accountIds?: readonly string[]): Promise<string[]>;
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
  const allowedHosts = (flags['webhook-allow-host'] ?? []).map((value) => {
    const host = allowedHostOf(value);
    if (host === undefined) throw new UsageError(`--webhook-allow-host ${value}: needs a host name or address, without a port (or * for any)`);
    return host;
  });
  const configuredUrls = (accounts?.accounts ?? []).flatMap((account) => (account.webhooks ?? []).map((webhook) => webhook.url));
  const allowedOrigins = [...new Set([...urls, ...configuredUrls].map(originOf).filter((origin) => origin !== undefined))];
  const addressPolicy: WebhookAddressPolicy = isLoopbackHost(host) || allowedHosts.includes('*') ? 'any' : { allowedOrigins, allowedHosts: [...new Set(allowedHosts)] };

  return {
    addressPolicy,
    async register(sandbox, only) {
      const lines: string[] = [];
      const accountIds = only ?? sandbox.accountsConfig.accounts.map((account) => account.id);
      for (const url of urls) {
        // One secret per URL for all accounts; kept from an earlier start with the same --data
        // (replicas: given with --webhook-secret, or each account keeps the one it was given first).
        const kept = accountIds.flatMap((id) => sandbox.store.endpointsOf(id)).find((endpoint) => endpoint.url === url)?.secret;
        const secret = fixedSecret ?? kept ?? newWebhookSecret(cryptoRandom);
        await Promise.all(accountIds.map((accountId) => sandbox.events.endpoints.ensure(accountId, { url, secret })));
        if (only === undefined) lines.push(`  webhook: ${url} for every account, secret ${secret}`);
        else if (only.length === 0) lines.push(`  webhook: ${url} for every account${fixedSecret ? `, secret ${fixedSecret}` : ' (give --webhook-secret so that every replica uses the same secret)'}`);
      }
      if (addressPolicy !== 'any') {
        const exceptions = [...addressPolicy.allowedOrigins, ...addressPolicy.allowedHosts];
        lines.push(
          `  webhooks go to public addresses only (the server listens beyond loopback); other addresses only at: ${exceptions.length > 0 ? exceptions.join(', ') : 'none'} (--webhook, --webhook-allow-host)`,
        );
      }
      return lines;
    },
  };
}

/** A URL's origin (scheme, host, port), or undefined for what is no URL (the accounts file is checked elsewhere). */
function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
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
