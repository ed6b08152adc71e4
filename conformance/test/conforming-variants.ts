/**
 * Conforming implementations that differ from ours only where the spec leaves things open: our
 * server with other settings, or behind a proxy that changes what no rule fixes. The conformance
 * suite must pass against every one.
 */
import { createHash } from 'node:crypto';
import type { NodeSandboxOptions } from '../../src/sandbox.node.js';
import { isPaymentRequest, type Fault } from './faulty-proxy.js';
import { chain, eachDeliveredPaymentRequest, eachPaymentRequest, eachPaymentRequestAndEvent, everywhere, idRemap, seededRandom, shuffleKeys } from './rewrites.js';

/** A conforming variant: upstream options, an optional proxy, and the observations it must show. */
export interface VariantCase {
  name: string;
  description: string;
  /** Options of the upstream sandbox. */
  sandbox?: NodeSandboxOptions;
  /** Whether the upstream keeps its data in a JSON file (in a temporary directory). */
  dataFile?: boolean;
  /** A proxy in front of the upstream, when the variant changes the wire. */
  proxy?: Omit<Fault, 'name' | 'description'>;
  /** Observations the run must report (point → reading), where the variant pins an open point. */
  observe?: Record<string, string>;
  /** A warning the run must give (not a failure). */
  warning?: RegExp;
  /** The run pays through an NWC wallet (a funded test wallet of the upstream, as payerNwcUrl). */
  payer?: boolean;
}

/** The extra fields of the "extra fields" variant. */
function withExtraFields(pr: Record<string, any>): void {
  Object.assign(pr, {
    object: 'payment_request',
    currency: 'BTC',
    livemode: false,
    links: { self: `/api/v1/payment-requests/${pr.id}`, status: `/api/v1/payment-requests/${pr.id}/status` },
  });
}

/** Builds every variant, each with fresh state. */
export function buildVariants(): VariantCase[] {
  return [
    {
      name: 'our server, in memory',
      description: 'the defaults: minimum 21, fees rounded, feePercentage the rate',
      observe: { minimumAmount: '21', feeRounding: 'round', feePercentageBelow1000: 'rate' },
    },
    { name: 'our server, JSON data file', description: 'the defaults, storing in a JSON file (journal + fsync)', dataFile: true },
    { name: 'paid through an NWC wallet', description: 'the defaults; the lifecycle checks pay through a funded test wallet (payerNwcUrl)', payer: true },
    { name: 'minimum amount 1', description: 'the other reading of the minimum', sandbox: { settings: { minAmount: 1 } }, observe: { minimumAmount: '1' } },
    { name: 'fees rounded down', description: 'feeRounding floor above 1,000 sats', sandbox: { settings: { feeRounding: 'floor' } }, observe: { feeRounding: 'floor' } },
    { name: 'fees rounded up', description: 'feeRounding ceil above 1,000 sats', sandbox: { settings: { feeRounding: 'ceil' } }, observe: { feeRounding: 'ceil' } },
    {
      name: 'effective feePercentage',
      description: 'feePercentage under 1,000 sats is fee ÷ amount × 100 (100 sats → 10)',
      sandbox: { settings: { feePercentageBelowThreshold: 'effective' } },
      observe: { feePercentageBelow1000: 'effective' },
    },
    {
      name: 'all other readings, JSON file, signet',
      description: 'minimum 1, fees rounded up, effective feePercentage, JSON data file, signet invoices',
      sandbox: { settings: { minAmount: 1, feeRounding: 'ceil', feePercentageBelowThreshold: 'effective' }, network: 'signet' },
      dataFile: true,
      observe: { minimumAmount: '1', feeRounding: 'ceil', feePercentageBelow1000: 'effective' },
    },
    {
      name: 'another error shape',
      description: 'error bodies are {"message", "status"} (status codes unchanged)',
      proxy: {
        response(_req, res) {
          if (res.status >= 400) {
            const message = typeof res.body?.error?.message === 'string' ? res.body.error.message : 'error';
            res.body = { message, status: res.status };
          }
        },
      },
    },
    {
      name: 'problem+json errors',
      description: 'errors are RFC 9457 problem details (application/problem+json), validation details under "errors"',
      proxy: {
        response(_req, res) {
          if (res.status >= 400) {
            const error = res.body?.error ?? {};
            res.body = {
              type: `https://errors.example.com/${error.code ?? 'error'}`,
              title: error.code ?? 'error',
              status: res.status,
              detail: error.message ?? '',
              ...(Array.isArray(error.details) ? { errors: error.details.map((d: any) => ({ pointer: `/${d.field}`, detail: d.message })) } : {}),
            };
            res.headers['content-type'] = 'application/problem+json';
          }
        },
      },
    },
    {
      name: 'errors as JSON strings',
      description: 'an error body is a bare JSON string, its message',
      proxy: {
        response(_req, res) {
          if (res.status >= 400) res.body = typeof res.body?.error?.message === 'string' ? res.body.error.message : 'error';
        },
      },
    },
    {
      name: 'hex ids of 40',
      description: 'ids are pr_ + 40 lower-case hex characters',
      proxy: idRemap((id) => `pr_${createHash('sha256').update(id).digest('hex').slice(0, 40)}`),
    },
    {
      name: 'short ids',
      description: 'ids are pr_ + 8 characters with _ and - (pr_Ab_3-x9Z)',
      proxy: (() => {
        let next = 0;
        return idRemap(() => {
          next++;
          return `pr_${next.toString(36).padStart(4, '0')}_${'-x9Z'}`;
        });
      })(),
    },
    {
      name: 'extra fields',
      description: 'every payment request carries currency, object, livemode and links; errors carry a request id',
      proxy: {
        response(req, res) {
          // The payment requests and the events' data (the request as GET answered it then) alike.
          eachPaymentRequestAndEvent(withExtraFields)(req, res);
          if (!isPaymentRequest(res.body) && res.status >= 400 && res.body && typeof res.body === 'object') {
            res.body.requestId = `req_${req.method}_${res.status}`;
          }
          res.headers['x-request-id'] = 'req_variant';
        },
        delivery: eachDeliveredPaymentRequest(withExtraFields),
      },
    },
    {
      name: 'shuffled key order',
      description: 'every JSON object, metadata included, in a shuffled key order',
      proxy: (() => {
        const random = seededRandom(42);
        return {
          response(_req, res) {
            if (res.body !== undefined) res.body = shuffleKeys(res.body, random);
          },
        };
      })(),
    },
    {
      name: 'slow responses',
      description: 'every response 150 ms late',
      proxy: {
        async request() {
          await new Promise((resolve) => setTimeout(resolve, 150));
        },
      },
    },
    {
      name: 'metadata {} when absent',
      description: 'requests created without metadata show metadata: {} instead of omitting it',
      proxy: everywhere((pr) => {
        if (pr.metadata === undefined) pr.metadata = {};
      }),
    },
    {
      name: 'fewer headers',
      description: 'no Location, no WWW-Authenticate, Content-Type without charset',
      proxy: {
        response(_req, res) {
          delete res.headers.location;
          delete res.headers['www-authenticate'];
          if (res.headers['content-type']?.startsWith('application/json')) res.headers['content-type'] = 'application/json';
        },
      },
    },
    {
      name: 'nwcRelay only on GET',
      description: 'the 201 of an NWC request has no nwcRelay (the spec lists it for GET only); GET has it',
      proxy: {
        response: eachPaymentRequest((pr, req) => {
          if (req.route === 'create') delete pr.nwcRelay;
        }),
      },
    },
    {
      name: 'createdAt and updatedAt in whole seconds',
      description: 'createdAt and updatedAt without milliseconds (2026-11-23T10:00:00Z); only expiresAt must carry them',
      proxy: everywhere((pr) => {
        for (const field of ['createdAt', 'updatedAt']) {
          if (typeof pr[field] === 'string') pr[field] = pr[field].replace(/\.\d+Z$/, 'Z');
        }
      }),
    },
    {
      name: 'upper-case hex',
      description: 'paymentHash and preimage in upper-case hex (the spec fixes no case)',
      proxy: everywhere((pr) => {
        for (const field of ['paymentHash', 'preimage']) {
          if (typeof pr[field] === 'string') pr[field] = pr[field].toUpperCase();
        }
      }),
    },
    {
      name: 'frozen clock',
      description: 'the sandbox with frozen account clocks (lnpr serve --clock frozen)',
      sandbox: { clock: 'frozen' },
    },
    {
      name: 'tight limits',
      description: 'limits the spec leaves open set low: amounts up to 1,000,000 sats, expiresIn up to one day, metadata up to 2 KiB',
      sandbox: { settings: { maxAmount: 1_000_000, maxExpiresIn: 86_400, maxMetadataBytes: 2048 } },
    },
    {
      name: 'expiresIn at least 300',
      description: 'a shortest validity of 5 minutes ("bounds on expiresIn … not shown"): expiresIn under 300 answers 400',
      sandbox: { settings: { minExpiresIn: 300 } },
    },
    {
      name: 'mainnet invoices',
      description: 'invoices on mainnet (lnbc): conforming, with a warning',
      sandbox: { network: 'mainnet' },
      observe: { network: 'mainnet' },
      warning: /mainnet/i,
    },
    {
      name: 'all wire differences at once',
      description: 'hex ids, another error shape, extra fields, shuffled keys, metadata {} when absent',
      proxy: chain(
        {
          response(_req, res) {
            if (res.status >= 400) res.body = { message: 'error', status: res.status };
          },
        },
        everywhere((pr) => {
          if (pr.metadata === undefined) pr.metadata = {};
          pr.currency = 'BTC';
        }),
        (() => {
          const random = seededRandom(7);
          return {
            response(_req, res) {
              if (res.body !== undefined) res.body = shuffleKeys(res.body, random);
            },
          } satisfies Pick<Fault, 'response'>;
        })(),
        idRemap((id) => `pr_${createHash('sha256').update(id).digest('hex').slice(0, 40)}`),
      ),
    },
  ];
}
