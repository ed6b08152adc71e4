/**
 * The generated classifier set: every mutation operator applied to every target of every statement
 * a client observes over HTTP (statement-targets.ts), and the conforming variants made from each
 * reading of each open point (OPEN_POINTS). Deterministic: a fixed seed picks which mutant stands
 * for a (statement, operator) pair in the small set; the large set takes them all.
 *
 * Statements that share a target share its mutants: `key` names the implementation, so the test
 * runs each once and credits the verdict to every statement and operator it stands for.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { NodeSandboxOptions } from '../../src/sandbox.node.js';
import { OPEN_POINTS, STATEMENTS, type Statement } from '../statements.js';
import { OPERATOR_NAMES, OPERATORS, type Mutant, type OperatorName } from './mutation-operators.js';
import { onRequest, onResponse, type Hooks } from './proxy-hooks.js';
import { everywhere, idRemap, seededRandom, shuffleKeys } from './rewrites.js';
import { resignInvoice } from './invoice-forgery.js';
import { TARGETS } from './statement-targets.js';

export const DEFAULT_SEED = 24;

/** `small`: one mutant per (statement, operator), for CI; `large`: every mutant (`npm run test:classifier`). */
export type SetSize = 'small' | 'large';

export interface GeneratedFault {
  /** `<statement>/<operator>/<n>`. */
  id: string;
  statement: string;
  operator: OperatorName;
  describe: string;
  /** The implementation: equal keys are the same faulty implementation. */
  key: string;
  /** Fresh proxy hooks for one run. */
  apply: () => Hooks;
  equivalent?: string;
}

/** Statements a client observes over v1 or the control API: the ones a generated fault must exist for. */
export function observableStatements(): Statement[] {
  return STATEMENTS.filter((statement) => statement.observable === 'v1' || statement.observable === 'control');
}

/** The generated faults (equivalent mutants included, marked), in statement then operator order. */
export function generateFaults(size: SetSize = 'small', seed = DEFAULT_SEED): GeneratedFault[] {
  const random = seededRandom(seed);
  const faults: GeneratedFault[] = [];
  for (const statement of observableStatements()) {
    for (const operator of OPERATOR_NAMES) {
      const mutants: Mutant[] = (TARGETS[statement.id] ?? []).flatMap((target) => OPERATORS[operator](target));
      const live = mutants.filter((m) => m.equivalent === undefined);
      const chosen = size === 'large' || live.length <= 1 ? live : [live[Math.floor(random() * live.length)]!];
      const equivalents = mutants.filter((m) => m.equivalent !== undefined);
      [...chosen, ...equivalents].forEach((m, n) =>
        faults.push({ id: `${statement.id}/${operator}/${n + 1}`, statement: statement.id, operator, describe: m.describe, key: m.key, apply: m.hooks, ...(m.equivalent ? { equivalent: m.equivalent } : {}) }),
      );
    }
  }
  return faults;
}

/** A conforming variant generated from one reading of an open point. */
export interface GeneratedVariant {
  id: string;
  point: string;
  reading: string;
  describe: string;
  sandbox?: NodeSandboxOptions;
  proxy?: () => Hooks;
  /** Why this reading is not generated (the suite cannot meet it, or it is our server's own). */
  notGenerated?: string;
}

/** Headers the proxy itself writes or drops by their lower-case names (faulty-proxy.ts). */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

const OURS = "our server's own reading: the plain run holds it";

/** How each reading of each open point is built, in OPEN_POINTS' order of readings. */
type Builder = Omit<GeneratedVariant, 'id' | 'point' | 'reading'>;

/** Rounds half to even (banker's rounding), one of the fee roundings the spec leaves open. */
function halfToEven(value: number): number {
  const floor = Math.floor(value);
  const rest = value - floor;
  if (Math.abs(rest - 0.5) > 1e-9) return Math.round(value);
  return floor % 2 === 0 ? floor : floor + 1;
}

/** Per open point, per reading (in order), one builder or several (each a variant). */
const READINGS: Record<string, Array<Builder | Builder[]>> = {
  'open.fee-rounding': [
    { describe: 'below 1,000 sats exactly 10', notGenerated: OURS },
    [
      { describe: 'fees rounded down from 1,000 sats', sandbox: { settings: { feeRounding: 'floor' } } },
      { describe: 'fees rounded up from 1,000 sats', sandbox: { settings: { feeRounding: 'ceil' } } },
      { describe: 'fees rounded half to even from 1,000 sats', proxy: () => everywhere((pr) => void (typeof pr.amount === 'number' && pr.amount >= 1000 && (pr.feeAmount = halfToEven(pr.amount / 200)))) },
    ],
  ],
  'open.fee-percentage-below-threshold': [
    { describe: 'feePercentage 0.5 below 1,000 sats', notGenerated: OURS },
    { describe: 'effective feePercentage below 1,000 sats', sandbox: { settings: { feePercentageBelowThreshold: 'effective' } } },
    { describe: 'feePercentage below 1,000 sats the effective one rounded to 2 places', proxy: () => everywhere((pr) => void (pr.amount < 1000 && typeof pr.feeAmount === 'number' && (pr.feePercentage = Math.round((pr.feeAmount / pr.amount) * 10000) / 100))) },
  ],
  'open.transitions': [{ describe: 'pending → completed, expired, failed; terminal states refuse', notGenerated: OURS }],
  'open.events': [
    {
      describe: 'no events: the events list, webhook endpoints and deliveries answer 404 (full skips its checks of them, saying why)',
      proxy: () =>
        onRequest((req) =>
          /^\/sandbox\/v1\/(events|webhook-endpoints|webhook-deliveries)(\/|\?|$)/.test(req.path)
            ? { status: 404, headers: { 'content-type': 'application/json' }, body: { error: { code: 'not_found', message: 'no such route' } }, text: '{"error":{"code":"not_found","message":"no such route"}}' }
            : undefined,
        ),
    },
  ],
  'open.error-bodies': [{ describe: 'errors as {"message", "code"}', proxy: () => onResponse((_req, res) => void (res.status >= 400 && (res.body = { message: String(res.body?.error?.message ?? 'error'), code: String(res.body?.error?.code ?? 'error') }))) }],
  'open.minimum-amount': [
    { describe: 'minimum 1 sat', sandbox: { settings: { minAmount: 1 } } },
    { describe: 'minimum 21 sats', notGenerated: OURS },
    { describe: '--min-amount given to the run', notGenerated: 'a flag of the run, not of the target' },
  ],
  'open.bounds': [
    { describe: 'amounts up to 100,000,000 sats, expiresIn 60..604,800, metadata up to 4 KiB', sandbox: { settings: { maxAmount: 100_000_000, minExpiresIn: 60, maxExpiresIn: 604_800, maxMetadataBytes: 4096 } } },
  ],
  'open.id-shape': [{ describe: 'ids pr_ + 32 base32 characters', proxy: () => idRemap((id) => `pr_${createHash('sha256').update(id).digest('hex').slice(0, 32).toUpperCase().replace(/[018]/g, 'Z')}`) }],
  'open.extra-fields': [{ describe: 'every payment request carries object and links', proxy: () => everywhere((pr) => void Object.assign(pr, { object: 'payment_request', links: { self: `/api/v1/payment-requests/${pr.id}` } })) }],
  'open.unknown-body-fields': [
    { describe: 'unknown body fields ignored', notGenerated: OURS },
    {
      describe: 'unknown body fields refused with 400',
      proxy: () =>
        onRequest((req) => {
          const known = ['amount', 'description', 'destinationWallet', 'metadata', 'expiresIn'];
          if (req.route === 'create' && req.body && typeof req.body === 'object' && !Array.isArray(req.body) && Object.keys(req.body).some((k) => !known.includes(k)))
            return { status: 400, headers: { 'content-type': 'application/json' }, body: { error: { code: 'invalid_request', message: 'unknown field' } }, text: '{"error":{"code":"invalid_request","message":"unknown field"}}' };
          return undefined;
        }),
    },
  ],
  'open.key-order': [
    {
      describe: 'every JSON object in a shuffled key order (seeded)',
      proxy: () => {
        const random = seededRandom(DEFAULT_SEED);
        return onResponse((_req, res) => void (res.body !== undefined && (res.body = shuffleKeys(res.body, random))));
      },
    },
  ],
  'open.header-case-encoding': [
    {
      describe: 'header names in Title-Case (those of the connection left to the proxy)',
      proxy: () => onResponse((_req, res) => void (res.headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [CONNECTION_HEADERS.has(k) ? k : k.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase()), v])))),
    },
    {
      describe: 'answers gzip-compressed when the client lists gzip in accept-encoding',
      proxy: () =>
        onResponse((req, res) => {
          if (!/\bgzip\b/i.test(req.headers['accept-encoding'] ?? '') || res.status === 204 || res.text.length === 0) return;
          res.bytes = gzipSync(Buffer.from(res.body !== undefined ? JSON.stringify(res.body) : res.text, 'utf8'));
          res.headers['content-encoding'] = 'gzip';
        }),
    },
  ],
  'open.invoice-field-order': [
    { describe: 'tagged fields in reversed order (re-signed)', proxy: () => invoiceEdit((fields) => [...fields].reverse()) },
    { describe: 'without an `n` field', notGenerated: OURS },
  ],
  'open.nwc-completion-delay': [
    { describe: 'completed at once', notGenerated: OURS },
    { describe: 'completed up to 5 s after payment', notGenerated: 'the generated runs pay no NWC request through a wallet (no --payer-nwc-url: control calls complete at once, as CONTRACT.md asks of them), so there is no payment to delay; where one pays, the suite polls the status for up to 10 s (settledStatus)' },
  ],
  'open.wallet-errors': [
    { describe: '502 wallet_unavailable / wallet_error', notGenerated: 'no check makes the wallet fail: nothing to vary' },
    { describe: 'another 5xx or 4xx', notGenerated: 'no check makes the wallet fail: nothing to vary' },
  ],
  'open.metadata-when-absent': [
    { describe: 'absent', notGenerated: OURS },
    { describe: 'metadata null when none was given', proxy: () => everywhere((pr) => void (pr.metadata === undefined && (pr.metadata = null))) },
    { describe: 'metadata {} when none was given', proxy: () => everywhere((pr) => void (pr.metadata === undefined && (pr.metadata = {}))) },
  ],
  'open.unusual-values': [
    { describe: 'accepted and echoed exactly', notGenerated: OURS },
    {
      describe: 'blank descriptions and control characters refused with 400',
      proxy: () =>
        onRequest((req) =>
          req.route === 'create' && typeof req.body?.description === 'string' && (req.body.description.trim() === '' || /[\u0000-\u001f]/.test(req.body.description))
            ? { status: 400, headers: { 'content-type': 'application/json' }, body: { error: { code: 'invalid_request', message: 'description' } }, text: '{"error":{"code":"invalid_request","message":"description"}}' }
            : undefined,
        ),
    },
  ],
};

function invoiceEdit(reorder: (fields: any[]) => any[]): Hooks {
  const cache = new Map<string, string>();
  return everywhere((pr) => {
    if (typeof pr.invoice !== 'string') return;
    if (!cache.has(pr.invoice)) cache.set(pr.invoice, resignInvoice(pr.invoice, (d) => ({ fields: reorder(d.fields) })));
    pr.invoice = cache.get(pr.invoice);
  });
}

/** One variant per reading of each open point (those that cannot be built say why). */
export function generateVariants(): GeneratedVariant[] {
  return OPEN_POINTS.flatMap((point) =>
    point.readings.flatMap((reading, n) => {
      const entry = READINGS[point.id]?.[n] ?? { describe: reading, notGenerated: 'no builder for this reading yet' };
      const builders = Array.isArray(entry) ? entry : [entry];
      return builders.map((built, k) => ({ id: `${point.id}/${n + 1}${builders.length > 1 ? String.fromCharCode(97 + k) : ''}`, point: point.id, reading, ...built }));
    }),
  );
}
