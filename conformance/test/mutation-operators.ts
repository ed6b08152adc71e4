/**
 * Mutation operators: each a small pure function from a statement's target (statement-targets.ts)
 * to the mutants that break it through the fault proxy — drop, duplicate, retype, shift a boundary
 * by one, re-encode, make stale, leak across accounts, leave a side effect on a refused request,
 * loosen a parser, break a structure. A mutant is a recipe (`hooks()` builds fresh proxy state per
 * run); fault-generator.ts turns them into faults per statement. A mutant a client cannot tell from
 * conforming behaviour says so in `equivalent` (with the reason) and is listed, not counted.
 */
import { hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { decodeInvoice, type DecodedInvoice } from '../../src/lightning/bolt11-decode.js';
import { bytesToWords, intToWords } from '../../src/lightning/words.js';
import { labelledNodeKey, resignInvoice, type InvoiceEdit } from './invoice-forgery.js';
import {
  clockNow,
  controlCall,
  idRegistry,
  jsonResponse,
  onObjects,
  onRawObjects,
  onRequest,
  onResponse,
  withId,
  withRawValue,
  type Hooks,
} from './proxy-hooks.js';
import { chain, sha256Hex } from './rewrites.js';
import type { RunKeys } from './run-keys.js';
import type { ProxyContext, ProxyDelivery, ProxyRequest, ProxyResponse } from './faulty-proxy.js';
import type { ControlCall, Target, ValueType } from './statement-targets.js';

export const OPERATOR_NAMES = ['drop', 'duplicate', 'retype', 'boundary', 're-encode', 'stale', 'leak', 'side-effect', 'loosen', 'break'] as const;
export type OperatorName = (typeof OPERATOR_NAMES)[number];

/** One way of breaking a target. `key` is the same for the same mutation of the same target, whichever statement asks. */
export interface Mutant {
  key: string;
  describe: string;
  hooks: () => Hooks;
  /** Why no client can tell it from a conforming implementation: listed, not counted. */
  equivalent?: string;
}

export type Operator = (target: Target) => Mutant[];

const SECOND = 1000;
const V1_PATH = /^\/api\/v1\/payment-requests/;

function keyOf(target: Target): string {
  return JSON.stringify(target);
}

function mutant(target: Target, operator: OperatorName, variant: string, describe: string, hooks: () => Hooks, equivalent?: string): Mutant {
  return { key: `${operator}:${variant}:${keyOf(target)}`, describe, hooks, ...(equivalent ? { equivalent } : {}) };
}

// ---- values ----

/** A value of the same type, wrong by the least step. */
function nudged(type: ValueType, value: any): any {
  switch (type) {
    case 'number':
      return value + 1;
    case 'boolean':
      return !value;
    case 'object':
      return { ...value, lnpr_extra: 'x' };
    case 'timestamp':
      return new Date(Date.parse(value) + SECOND).toISOString();
    case 'hex':
      return `${value.slice(0, -1)}${value.endsWith('0') ? '1' : '0'}`;
    case 'id':
      return `${value}x`;
    case 'url':
      return 'ws://relay.invalid/nostr';
    case 'invoice':
      return `${value.slice(0, -1)}${value.endsWith('q') ? 'p' : 'q'}`;
    default:
      return `${value} `;
  }
}

/** The same information in another JSON type. */
function retyped(type: ValueType, value: any): any {
  switch (type) {
    case 'number':
      return String(value);
    case 'boolean':
      return String(value);
    case 'object':
      return Object.entries(value);
    case 'timestamp':
      return Date.parse(value);
    case 'hex':
    case 'id':
      return [value];
    case 'url':
    case 'invoice':
      return { value };
    default:
      return /^\d+$/.test(value) ? Number(value) : [value];
  }
}

// ---- field targets ----

type FieldTarget = Extract<Target, { kind: 'field' }>;

function fieldEdit(target: FieldTarget, edit: (pr: Record<string, any>) => void): () => Hooks {
  return () =>
    onObjects((pr) => {
      if (target.field in pr) edit(pr);
    }, target.where, target.only);
}

/** Fields that must be absent where the target points (a hidden field, the relay of a custodial request). */
function mustBeAbsent(target: FieldTarget): boolean {
  return target.field === 'destinationWallet' || (target.field === 'nwcRelay' && target.only === 'custodial');
}

const ALREADY_ABSENT = 'the field is absent there already: dropping it changes nothing';

// ---- invoices ----

function forged(edit: (decoded: DecodedInvoice) => InvoiceEdit, signWith?: (decoded: DecodedInvoice) => Uint8Array): () => Hooks {
  return () => {
    const cache = new Map<string, string>();
    return onObjects((pr) => {
      if (typeof pr.invoice !== 'string') return;
      if (!cache.has(pr.invoice)) cache.set(pr.invoice, resignInvoice(pr.invoice, edit, signWith?.(decodeInvoice(pr.invoice))));
      pr.invoice = cache.get(pr.invoice);
    });
  };
}

const TAG: Partial<Record<string, string>> = { 'payment-hash': 'p', 'payment-secret': 's', description: 'd', expiry: 'x' };
const words = (bytes: Uint8Array) => bytesToWords(bytes);
const otherFieldData = (tag: string, decoded: DecodedInvoice): number[] =>
  tag === 'x' ? intToWords(7200) : tag === 'd' ? words(utf8ToBytes('another description')) : words(hexToBytes(sha256Hex(`other ${tag} ${decoded.timestampSeconds}`)));

/** The amount part of the human-readable part, re-spelled for `msat`. */
function hrpWithAmount(decoded: DecodedInvoice, msat: bigint): string {
  return `${decoded.prefix}${msat * 10n}p`;
}

// ---- the operators ----

const drop: Operator = (t) => {
  switch (t.kind) {
    case 'field':
      if (mustBeAbsent(t)) return [mutant(t, 'drop', 'field', `${t.field} left out`, () => ({}), ALREADY_ABSENT)];
      return [mutant(t, 'drop', 'field', `\`${t.field}\` left out of ${t.where?.join('/') ?? 'every'} answer${t.only ? ` (${t.only} requests)` : ''}`, fieldEdit(t, (pr) => delete pr[t.field]))];
    case 'status':
      return [
        mutant(t, 'drop', 'body', `${t.route} of a ${t.of} id answers ${t.status} with an empty body`, () =>
          onResponse((req, res) => {
            if (req.route === t.route && res.status === t.status) {
              res.body = undefined;
              res.text = '';
            }
          }),
        ),
      ];
    case 'header':
      return [mutant(t, 'drop', 'header', `v1 answers without \`${t.name}\``, () => onResponse((req, res) => void (V1_PATH.test(req.path) && delete res.headers[t.name])))];
    case 'input':
      if (t.rule === 'optional')
        return [mutant(t, 'drop', 'default', `a create without \`${t.field}\` is refused (400): the field made required`, () => onRequest((req) => (req.route === 'create' && req.body && typeof req.body === 'object' && !(t.field in req.body) ? jsonResponse(400, { error: { code: 'invalid_request', message: `${t.field} is required` } }) : undefined)))];
      if (t.field !== 'metadata' && t.field !== 'expiresIn') return [];
      return [
        mutant(t, 'drop', 'input', `create drops the given \`${t.field}\` before storing it (the default is used)`, () =>
          onRequest((req) => {
            if (req.route === 'create' && req.body && typeof req.body === 'object' && !Array.isArray(req.body) && t.field in req.body) delete req.body[t.field];
          }),
        ),
      ];
    case 'auth':
      if (t.rule === 'missing') return [mutant(t, 'drop', 'auth', 'no key needed: a request without Authorization acts as the main key', () => onRequest((req, ctx) => void (req.headers.authorization === undefined && (req.headers.authorization = `Bearer ${ctx.keys.main}`))))];
      if (t.rule === 'read-only-get') return [mutant(t, 'drop', 'read-only', 'the read-only key cannot read (GET answers 401)', () => onRequest((req, ctx) => (ctx.keys.isReadOnly(req.key) && req.method === 'GET' && V1_PATH.test(req.path) ? jsonResponse(401, { error: { code: 'unauthorized', message: 'no permission' } }) : undefined)))];
      return [];
    case 'state':
      if (t.by === 'create') return [mutant(t, 'drop', 'status', 'the 201 of a create carries no status', () => onObjects((pr) => void delete pr.status, ['create']))];
      if (t.by === 'clock')
        return [
          mutant(t, 'drop', 'clock', 'advancing the clock answers 200 (the clock as it was) and moves nothing', () =>
            onRequest(async (req, ctx) => (controlCall(req) === 'clock/advance' && req.method === 'POST' ? jsonResponse(200, (await ctx.upstream('GET', '/sandbox/v1/clock', { key: req.key ?? '' })).body) : undefined)),
          ),
        ];
      if (t.by === 'pay')
        return [
          mutant(t, 'drop', 'pay', '`pay` answers 200 {paymentRequestId, status: "completed", preimage} for a known invoice and pays nothing', () => {
            const idOf = new Map<string, string>();
            return chain(
              onRequest((req) => {
                const id = controlCall(req) === 'pay' && req.method === 'POST' ? idOf.get(req.body?.invoice) : undefined;
                return id === undefined ? undefined : jsonResponse(200, { paymentRequestId: id, status: 'completed', preimage: sha256Hex(`not paid ${id}`) });
              }),
              onObjects((pr) => void (typeof pr.invoice === 'string' && idOf.set(pr.invoice, pr.id))),
            );
          }),
        ];
      return [
        mutant(t, 'drop', 'transition', `\`${t.by}\` answers 200 with the request as it was, and does nothing`, () =>
          onRequest(async (req, ctx) => {
            if (controlCall(req) !== t.by || req.method !== 'POST' || req.id === undefined) return undefined;
            const current = await ctx.upstream('GET', `/api/v1/payment-requests/${encodeURIComponent(req.id)}`, { key: req.key ?? '' });
            return current.status === 200 ? jsonResponse(200, current.body) : undefined;
          }),
        ),
      ];
    case 'invoice': {
      const tag = TAG[t.part];
      if (tag) return [mutant(t, 'drop', 'tag', `invoices without their \`${tag}\` field (re-signed)`, forged((d) => ({ fields: d.fields.filter((f) => f.tag !== tag && (tag !== 's' || f.tag !== '9')) })))];
      if (t.part === 'amount') return [mutant(t, 'drop', 'amount', 'invoices without an amount (re-signed)', forged((d) => ({ hrp: d.prefix })))];
      return [];
    }
    case 'control-answer':
      if (t.call === 'healthz')
        return [mutant(t, 'drop', 'key', '`GET /healthz` needs a key: 401 without one', () => onRequest((req) => (isCall(req, t) && req.key === undefined ? jsonResponse(401, { error: { code: 'unauthorized', message: 'missing API key' } }) : undefined)))];
      if (Object.keys(t.fields).length === 0)
        return [mutant(t, 'drop', 'call', `\`${callName(t)}\` answers ${t.status === 404 ? '200 {}' : t.status} and does nothing`, () => onRequest((req) => (isCall(req, t) && (t.method !== undefined || req.method !== 'GET') ? jsonResponse(t.status === 404 ? 200 : t.status, {}) : undefined)))];
      return Object.keys(t.fields).map((name) => mutant(t, 'drop', name, `\`${callName(t)}\` answers without \`${name}\``, () => onResponse((req, res) => void (isCall(req, t) && res.body && typeof res.body === 'object' && delete res.body[name]))));
    case 'terminal':
      return [mutant(t, 'drop', '409', 'a transition out of a terminal state answers 200 (with the request unchanged)', () => onResponse(async (req, res, ctx) => {
        if (res.status !== 409 || req.id === undefined) return;
        const current = await ctx.upstream('GET', `/api/v1/payment-requests/${encodeURIComponent(req.id)}`, { key: req.key ?? '' });
        Object.assign(res, { status: 200, body: current.body });
      }))];
    case 'fee':
      return [mutant(t, 'drop', 'fee', `no fee ${t.rule === 'below' ? 'under' : 'from'} 1,000 sats (feeAmount 0)`, () => onObjects((pr) => void ((t.rule === 'below' ? pr.amount < 1000 : pr.amount >= 1000) && (pr.feeAmount = 0))))];
    case 'error-body':
      return [mutant(t, 'drop', 'details', `${t.status} bodies carry no details (an empty JSON object)`, () => onResponse((_req, res) => void (res.status === t.status && (res.body = {}))), 'a MAY ("may carry details"): an error body without details conforms')];
    case 'url':
      return [mutant(t, 'drop', 'url', 'nwcRelay left out', () => onObjects((pr) => void delete pr.nwcRelay, undefined, 'nwc'))];
    default:
      return [];
  }
};

function callPath(call: string): string {
  return call === 'clock-advance' ? 'clock/advance' : call;
}

type ControlAnswer = Extract<Target, { kind: 'control-answer' }>;

/** The sandbox surfaces' calls, by the path under /sandbox/v1 (the others: the paths that start with the call's own). */
const SURFACE_CALLS: Partial<Record<ControlCall, RegExp>> = {
  events: /^events$/,
  'webhook-endpoints': /^webhook-endpoints(\/[^/]+)?$/,
  wallets: /^wallets(\/[^/]+)?$/,
  'wallet-topup': /^wallets\/[^/]+\/topup$/,
  deliveries: /^webhook-deliveries$/,
  redeliver: /^events\/[^/]+\/redeliver$/,
  journal: /^requests$/,
  wallet: /^wallet$/,
};

/** Whether a request is the call a control-answer target names (its method too, when the target names one). */
function isCall(req: ProxyRequest, t: ControlAnswer): boolean {
  if (t.method !== undefined && req.method !== t.method) return false;
  if (t.call === 'healthz' || t.call === 'openapi') return req.path.split('?')[0] === (t.call === 'healthz' ? '/healthz' : '/openapi.json');
  const call = controlCall(req);
  if (call === undefined) return false;
  const pattern = SURFACE_CALLS[t.call];
  return pattern ? pattern.test(call) : call.startsWith(callPath(t.call));
}

/** How descriptions name a target's call. */
function callName(t: ControlAnswer): string {
  return t.method ? `${t.method} ${t.call}` : t.call;
}

const duplicate: Operator = (t) => {
  switch (t.kind) {
    case 'field':
      if (mustBeAbsent(t)) return [];
      return [
        mutant(t, 'duplicate', 'last-wrong', `\`${t.field}\` twice in the JSON text, the second one wrong`, () =>
          onRawObjects((pr) => (t.field in pr ? JSON.stringify(pr).replace(/}$/, `,${JSON.stringify(t.field)}:${JSON.stringify(nudged(t.type, pr[t.field]))}}`) : undefined), t.where, t.only),
        ),
        mutant(
          t,
          'duplicate',
          'first-wrong',
          `\`${t.field}\` twice in the JSON text, the first one wrong`,
          () => onRawObjects((pr) => (t.field in pr ? `{${JSON.stringify(t.field)}:${JSON.stringify(nudged(t.type, pr[t.field]))},${JSON.stringify(pr).slice(1)}` : undefined), t.where, t.only),
          'JSON.parse (and every JSON client the contract names) keeps the last of repeated keys, which is right; RFC 8259 leaves repeated names open',
        ),
      ];
    case 'lookup':
      return [
        mutant(t, 'duplicate', 'ids', 'every second create answers with the id of the create before it', () => {
          const seen: string[] = [];
          const alias = new Map<string, string>();
          return {
            request(req) {
              if (req.id !== undefined && alias.has(req.id)) req.path = withId(req.path, alias.get(req.id)!);
            },
            response(req, res) {
              if (req.route !== 'create' || res.status !== 201 || typeof res.body?.id !== 'string') return;
              seen.push(res.body.id);
              if (seen.length % 2 === 0) {
                const earlier = seen[seen.length - 2]!;
                alias.set(earlier, res.body.id);
                res.body.id = earlier;
              }
            },
          };
        }),
      ];
    case 'status':
      if (t.route !== 'create') return [];
      return [
        mutant(t, 'duplicate', 'create', 'each create is stored twice (the client is answered with the second)', () =>
          onRequest(async (req, ctx) => {
            if (req.route === 'create' && req.key !== undefined && req.body !== undefined) await ctx.upstream('POST', '/api/v1/payment-requests', { key: req.key, body: req.body });
          }),
        ),
      ];
    case 'state':
      if (!['complete', 'fail', 'expire'].includes(t.by)) return [];
      return [
        mutant(t, 'duplicate', 'transition', `\`${t.by}\` is applied twice; the client gets the second answer (409)`, () =>
          onRequest(async (req, ctx) => {
            if (controlCall(req) !== t.by || req.method !== 'POST') return undefined;
            await ctx.upstream('POST', req.path, { key: req.key ?? '', body: req.body ?? {} });
            return undefined;
          }),
        ),
      ];
    case 'invoice': {
      const tag = TAG[t.part] ?? (t.part === 'multiplicity' ? 'p' : undefined);
      if (!tag) return [];
      const tags = t.part === 'multiplicity' ? ['p', 's', 'd'] : [tag];
      return tags.map((one) => mutant(t, 'duplicate', one, `invoices carry a second \`${one}\` field, after the first, with another value (re-signed)`, forged((d) => ({ fields: [...d.fields, { tag: one, words: otherFieldData(one, d) }] }))));
    }
    case 'header':
      return [mutant(t, 'duplicate', 'header', `\`${t.name}\` sent twice (joined: "application/json, text/html")`, () => onResponse((req, res) => void (V1_PATH.test(req.path) && (res.headers[t.name] = `${res.headers[t.name] ?? 'application/json'}, text/html`))))];
    default:
      return [];
  }
};

const retype: Operator = (t) => {
  switch (t.kind) {
    case 'field':
      if (t.field === 'nwcRelay' && t.only === 'custodial') return [mutant(t, 'retype', 'null', 'custodial requests show `nwcRelay: null`', fieldEditAlways(t, (pr) => (pr.nwcRelay = null)))];
      if (mustBeAbsent(t)) return [];
      return [
        mutant(t, 'retype', 'type', `\`${t.field}\` in another JSON type (${describeRetype(t.type)})`, fieldEdit(t, (pr) => (pr[t.field] = retyped(t.type, pr[t.field])))),
        mutant(t, 'retype', 'null', `\`${t.field}\` is null`, fieldEdit(t, (pr) => (pr[t.field] = null))),
      ];
    case 'control-answer':
      return Object.entries(t.fields).map(([name, type]) => mutant(t, 'retype', name, `\`${callName(t)}\` answers \`${name}\` in another JSON type`, () => onResponse((req, res) => void (isCall(req, t) && res.body && typeof res.body === 'object' && name in res.body && (res.body[name] = retyped(type, res.body[name]))))));
    case 'input':
      if (t.rule !== 'type' && t.rule !== 'object') return [];
      return [
        mutant(t, 'retype', 'input', `create reads a valid \`${t.field}\` as another type (a number sent as a string upstream: 400 for good input)`, () =>
          onRequest((req) => {
            if (req.route === 'create' && req.body && typeof req.body === 'object' && !Array.isArray(req.body) && typeof req.body[t.field] === 'number') req.body[t.field] = String(req.body[t.field]);
          }),
        ),
      ].filter(() => t.field === 'amount' || t.field === 'expiresIn');
    default:
      return [];
  }
};

function fieldEditAlways(t: FieldTarget, edit: (pr: Record<string, any>) => void): () => Hooks {
  return () => onObjects(edit, t.where, t.only);
}

function describeRetype(type: ValueType): string {
  return { number: 'a string', boolean: 'a string', object: 'an array of pairs', timestamp: 'epoch milliseconds', hex: 'an array', id: 'an array', url: 'an object', invoice: 'an object', string: 'a number or an array' }[type];
}

const boundary: Operator = (t) => {
  switch (t.kind) {
    case 'input':
      if (t.rule === 'max')
        return [
          mutant(t, 'boundary', 'accept-256', 'a 256-character description is accepted (cut to 255 upstream, echoed as sent)', () => acceptOver(255)),
          mutant(t, 'boundary', 'refuse-255', 'a 255-character description is refused (400)', () => onRequest((req) => (req.route === 'create' && typeof req.body?.description === 'string' && [...req.body.description].length === 255 ? refused('description') : undefined))),
        ];
      if (t.rule === 'min')
        return [
          mutant(t, 'boundary', 'accept-min-1', 'an amount one below the minimum (20) is accepted', () => acceptAmount(20)),
          mutant(t, 'boundary', 'refuse-min', 'the minimum amount (21) is refused (400)', () => onRequest((req) => (req.route === 'create' && req.body?.amount === 21 ? refused('amount') : undefined))),
        ];
      if (t.rule === 'invalid') return [mutant(t, 'boundary', 'accept-0', 'an amount of 0 is accepted (stored as the minimum, echoed as 0)', () => acceptAmount(0))];
      return [];
    case 'status':
      return [mutant(t, 'boundary', 'plus-one', `${t.route} of a ${t.of} id answers ${t.status + 1} instead of ${t.status}`, () => onResponse((req, res) => void (req.route === t.route && res.status === t.status && (res.status = t.status + 1))))];
    case 'fee':
      if (t.rule === 'below') return [mutant(t, 'boundary', '1000-below', 'the threshold moved up by one: 1,000 sats still pays the 10-sat floor', () => onObjects((pr) => void (pr.amount === 1000 && (pr.feeAmount = 10))))];
      if (t.rule === 'from') return [mutant(t, 'boundary', '999-from', 'the threshold moved down by one: 999 sats pays 0.5 % (5)', () => onObjects((pr) => void (pr.amount === 999 && (pr.feeAmount = 5)))), mutant(t, 'boundary', 'plus-one-sat', 'from 1,000 sats the fee is one sat more than 0.5 % rounded', () => onObjects((pr) => void (pr.amount >= 1000 && typeof pr.feeAmount === 'number' && (pr.feeAmount = Math.ceil(pr.amount / 200) + 1))))];
      if (t.rule === 'percentage') return [mutant(t, 'boundary', '0.6', 'feePercentage 0.6 from 1,000 sats', () => onObjects((pr) => void (pr.amount >= 1000 && (pr.feePercentage = 0.6))))];
      return [mutant(t, 'boundary', 'nwc-plus-one', 'the NWC account pays one sat more fee', () => onObjects((pr) => void (typeof pr.feeAmount === 'number' && (pr.feeAmount += 1)), undefined, 'nwc'))];
    case 'timestamp':
      if (t.field === 'expiresAt' && t.moves === 'never') return [mutant(t, 'boundary', 'plus-1s', 'expiresAt one second after createdAt + expiresIn', fieldEditAlways({ kind: 'field', field: 'expiresAt', type: 'timestamp' }, (pr) => (pr.expiresAt = new Date(Date.parse(pr.expiresAt) + SECOND).toISOString())))];
      if (t.moves === 'from-clock') return [mutant(t, 'boundary', 'late', 'a request reads expired only a second after expiresAt', () => expiryShift(+SECOND))];
      return [];
    case 'state':
      if (t.status === 'expired' && t.by === 'clock') return [mutant(t, 'boundary', 'early', 'a pending request reads expired a second before its expiresAt', () => expiryShift(-SECOND))];
      return [];
    case 'invoice':
      if (t.part === 'amount') return [mutant(t, 'boundary', 'plus-1-sat', 'the invoice amount is one sat more (re-signed)', forged((d) => (d.amountMsat === null ? {} : { hrp: hrpWithAmount(d, d.amountMsat + 1000n) })))];
      if (t.part === 'expiry') return [mutant(t, 'boundary', 'plus-1', 'the invoice expiry is expiresIn + 1 (re-signed)', forged((d) => ({ fields: d.fields.map((f) => (f.tag === 'x' ? { tag: 'x', words: intToWords(d.expirySeconds + 1) } : f)) })))];
      if (t.part === 'timestamp') return [mutant(t, 'boundary', 'plus-1', 'the invoice timestamp is a second late (re-signed)', forged((d) => ({ timestampSeconds: d.timestampSeconds + 1 })))];
      return [];
    case 'terminal':
      return [mutant(t, 'boundary', '410', 'a transition out of a terminal state answers 410 instead of 409', () => onResponse((_req, res) => void (res.status === 409 && (res.status = 410))))];
    case 'control-answer':
      return [mutant(t, 'boundary', 'status', `\`${callName(t)}\` answers ${t.status + 1} instead of ${t.status}`, () => onResponse((req, res) => void (isCall(req, t) && res.status === t.status && (res.status = t.status + 1))))];
    default:
      return [];
  }
};

function refused(field: string) {
  return jsonResponse(400, { error: { code: 'invalid_request', message: `${field} is invalid`, details: [{ field, message: 'invalid' }] } });
}

/** A create with a description over `max` characters is accepted: cut upstream, echoed as sent. */
function acceptOver(max: number): Hooks {
  const sent = new Map<string, string>();
  return {
    request(req) {
      if (req.route !== 'create' || typeof req.body?.description !== 'string') return;
      const chars = [...req.body.description];
      if (chars.length !== max + 1) return;
      const cut = chars.slice(0, max).join('');
      sent.set(cut, req.body.description);
      req.body.description = cut;
    },
    response(_req, res) {
      if (typeof res.body?.description === 'string' && sent.has(res.body.description)) res.body.description = sent.get(res.body.description);
    },
  };
}

/** A create with this amount is accepted: stored with the minimum (21), echoed as sent. */
function acceptAmount(amount: number): Hooks {
  const ids = new Set<string>();
  let pending = false;
  return {
    request(req) {
      pending = false;
      if (req.route === 'create' && req.body?.amount === amount) {
        req.body.amount = 21;
        pending = true;
      }
    },
    response(req, res) {
      if (req.route === 'create' && pending && typeof res.body?.id === 'string') ids.add(res.body.id);
      if (typeof res.body?.id === 'string' && ids.has(res.body.id)) res.body.amount = amount;
    },
  };
}

/** The status a request reads moves `shiftMs` from its expiresAt (on the account's clock). */
function expiryShift(shiftMs: number): Hooks {
  return onResponse(async (req, res, ctx) => {
    if ((req.route !== 'read' && req.route !== 'status') || res.status !== 200 || req.key === undefined || req.id === undefined) return;
    const record = req.route === 'read' ? res : await ctx.upstream('GET', `/api/v1/payment-requests/${encodeURIComponent(req.id)}`, { key: req.key });
    const expiresAt = Date.parse(record.body?.expiresAt);
    const now = await clockNow(ctx, req.key);
    if (shiftMs > 0 && record.body?.status === 'expired' && now < expiresAt + shiftMs) res.body.status = 'pending';
    if (shiftMs < 0 && record.body?.status === 'pending' && now >= expiresAt + shiftMs) res.body.status = 'expired';
  });
}

const reEncode: Operator = (t) => {
  switch (t.kind) {
    case 'field': {
      if (mustBeAbsent(t)) return [];
      if (t.type === 'number')
        return [
          mutant(t, 're-encode', 'spelling', `\`${t.field}\` spelled as a float with an exponent (1e3 for 1000)`, () => onRawObjects((pr) => (typeof pr[t.field] === 'number' ? withRawValue(pr, t.field, Number(pr[t.field]).toExponential()) : undefined), t.where, t.only), 'the same JSON number in another spelling: every JSON parser reads the same value'),
          ...(t.field === 'amount' || t.field === 'feeAmount' ? [mutant(t, 're-encode', 'msat', `\`${t.field}\` in millisatoshis`, fieldEdit(t, (pr) => (pr[t.field] = pr[t.field] * 1000)))] : []),
        ];
      if (t.type === 'timestamp')
        return [
          mutant(t, 're-encode', 'offset', `\`${t.field}\` as the same instant with a +01:00 offset (not UTC)`, fieldEdit(t, (pr) => (pr[t.field] = plusOneHour(pr[t.field])))),
          mutant(t, 're-encode', 'no-ms', `\`${t.field}\` without milliseconds`, fieldEdit(t, (pr) => (pr[t.field] = String(pr[t.field]).replace(/\.\d+Z$/, 'Z'))), t.field === 'expiresAt' ? undefined : 'CONTRACT.md reads createdAt/updatedAt as ISO 8601 UTC; milliseconds are asked of expiresAt only (the "whole seconds" conforming variant)'),
        ];
      if (t.type === 'hex') return [mutant(t, 're-encode', 'upper', `\`${t.field}\` in upper-case hex`, fieldEdit(t, (pr) => (pr[t.field] = String(pr[t.field]).toUpperCase())), 'the spec fixes no case of hex (the "upper-case hex" conforming variant)')];
      if (t.type === 'invoice') return [mutant(t, 're-encode', 'uri', 'the invoice as a `lightning:` URI', fieldEdit(t, (pr) => (pr.invoice = `lightning:${pr.invoice}`))), mutant(t, 're-encode', 'upper', 'the invoice in upper case', fieldEdit(t, (pr) => (pr.invoice = String(pr.invoice).toUpperCase())), 'BOLT 11 text is bech32, which is case-insensitive when not mixed: every decoder reads the same invoice')];
      if (t.type === 'string' && (t.field === 'description' || t.field === 'status'))
        return [
          mutant(t, 're-encode', 'nfd', `\`${t.field}\` Unicode-normalised (NFD) on the way out`, fieldEdit(t, (pr) => (pr[t.field] = String(pr[t.field]).normalize('NFD'))), t.field === 'status' ? 'the four states are ASCII words: NFD leaves them byte for byte' : undefined),
          ...(t.field === 'status' ? [mutant(t, 're-encode', 'case', 'status in upper case', fieldEdit(t, (pr) => (pr.status = String(pr.status).toUpperCase())))] : []),
        ];
      if (t.type === 'object') return [mutant(t, 're-encode', 'nfc', `\`${t.field}\` string values normalised to NFC`, fieldEdit(t, (pr) => (pr[t.field] = normalizeDeep(pr[t.field], 'NFC')))), mutant(t, 're-encode', 'nfkc', `\`${t.field}\` string values normalised to NFKC`, fieldEdit(t, (pr) => (pr[t.field] = normalizeDeep(pr[t.field], 'NFKC'))))];
      if (t.type === 'id') return [mutant(t, 're-encode', 'upper-prefix', 'ids shown with the prefix in upper case (PR_…)', fieldEdit(t, (pr) => (pr.id = String(pr.id).replace(/^pr_/, 'PR_'))))];
      if (t.type === 'url') return [mutant(t, 're-encode', 'scheme-case', 'nwcRelay with the scheme in upper case (WS://)', fieldEdit(t, (pr) => (pr.nwcRelay = String(pr.nwcRelay).replace(/^ws/i, 'WS'))), 'URL schemes are case-insensitive (RFC 3986 §3.1): every WebSocket client connects the same')];
      return [];
    }
    case 'input':
      if (t.field === 'description' && t.rule === 'max') return [mutant(t, 're-encode', 'utf16', 'the description limit counts UTF-16 code units (255 emoji refused)', () => onRequest((req) => (req.route === 'create' && typeof req.body?.description === 'string' && req.body.description.length > 255 && [...req.body.description].length <= 255 ? refused('description') : undefined)))];
      if (t.field === 'description' && t.rule === 'type') return [mutant(t, 're-encode', 'nfc-in', 'descriptions are normalised (NFC) before being stored', () => onRequest((req) => void (req.route === 'create' && typeof req.body?.description === 'string' && (req.body.description = req.body.description.normalize('NFC')))))];
      return [];
    case 'header':
      return [
        mutant(t, 're-encode', 'text-json', 'JSON answers labelled `text/json`', () => onResponse((req, res) => void (V1_PATH.test(req.path) && (res.headers['content-type'] = 'text/json; charset=utf-8')))),
        mutant(t, 're-encode', 'latin1', 'JSON answers labelled `application/json; charset=iso-8859-1` (sent as UTF-8)', () => onResponse((req, res) => void (V1_PATH.test(req.path) && (res.headers['content-type'] = 'application/json; charset=iso-8859-1')))),
        mutant(t, 're-encode', 'case', 'content-type spelled `Application/JSON; Charset=UTF-8`', () => onResponse((req, res) => void (V1_PATH.test(req.path) && (res.headers['content-type'] = 'Application/JSON; Charset=UTF-8'))), 'media types and their parameter names are case-insensitive (RFC 9110 §8.3.1)'),
      ];
    case 'control-answer':
      return Object.entries(t.fields)
        .filter(([, type]) => type === 'timestamp')
        .map(([name]) =>
          mutant(
            t,
            're-encode',
            name,
            `\`${callName(t)}\` answers \`${name}\` with a +01:00 offset`,
            () => onResponse((req, res) => void (isCall(req, t) && typeof res.body?.[name] === 'string' && (res.body[name] = plusOneHour(res.body[name])))),
            t.call === 'clock' || t.call === 'clock-advance'
              ? 'CONTRACT.md asks the clock\'s `now` in ISO 8601, not in UTC: an offset form is ISO 8601 and names the same instant'
              : t.call === 'accounts'
                ? 'CONTRACT.md gives an account\'s `createdAt` no format (the spec\'s "ISO 8601 UTC" is of the payment request\'s): an offset form names the same instant'
                : t.call === 'webhook-endpoints' || t.call === 'wallets'
                  ? `CONTRACT.md gives ${t.call === 'wallets' ? 'a test wallet\'s' : 'a webhook endpoint\'s'} \`createdAt\` no format (the spec's "ISO 8601 UTC" is of the payment request's): an offset form names the same instant`
                  : undefined,
          ),
        );
    case 'fee':
      if (t.rule === 'percentage') return [mutant(t, 're-encode', 'fraction', 'feePercentage as a fraction (0.005 for 0.5 %)', () => onObjects((pr) => void (typeof pr.feePercentage === 'number' && (pr.feePercentage = pr.feePercentage / 100))))];
      return [];
    default:
      return [];
  }
};

function plusOneHour(iso: string): string {
  const date = new Date(Date.parse(iso) + 3600 * SECOND).toISOString();
  return date.replace('Z', '+01:00');
}

function normalizeDeep(value: unknown, form: string): unknown {
  if (typeof value === 'string') return value.normalize(form);
  if (Array.isArray(value)) return value.map((v) => normalizeDeep(v, form));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalizeDeep(v, form)]));
  return value;
}

const stale: Operator = (t) => {
  switch (t.kind) {
    case 'timestamp':
      if (t.moves === 'on-change') return [mutant(t, 'stale', 'never-moves', 'updatedAt never moves (the first value seen is kept)', () => firstSeen('updatedAt')), mutant(t, 'stale', 'moves-on-read', 'updatedAt moves on every read (set to the clock now)', () => onObjects(async (pr, req, _res, ctx) => void (req.key && (pr.updatedAt = new Date(await clockNow(ctx, req.key)).toISOString())), ['read']))];
      if (t.moves === 'never' && t.field === 'createdAt') return [mutant(t, 'stale', 'follows-updated', 'createdAt follows updatedAt (moves on every change)', () => onObjects((pr) => void (pr.createdAt = pr.updatedAt)))];
      if (t.moves === 'never') return [mutant(t, 'stale', 'from-updated', 'expiresAt is recomputed from updatedAt on every change', () => onObjects((pr) => void (pr.updatedAt !== pr.createdAt && (pr.expiresAt = new Date(Date.parse(pr.expiresAt) + Date.parse(pr.updatedAt) - Date.parse(pr.createdAt)).toISOString()))))];
      return [mutant(t, 'stale', 'real-clock', "expiry judged on real time, not the account's clock", () => onResponse(async (req, res, ctx) => {
        if ((req.route !== 'read' && req.route !== 'status') || res.status !== 200 || req.id === undefined || req.key === undefined) return;
        const record = req.route === 'read' ? res : await ctx.upstream('GET', `/api/v1/payment-requests/${encodeURIComponent(req.id)}`, { key: req.key });
        if (record.body?.status === 'expired' && Date.now() < Date.parse(record.body.expiresAt)) res.body.status = 'pending';
      }))];
    case 'state':
      return [
        mutant(t, 'stale', 'status-endpoint', 'the status endpoint answers the first status it read for an id', () => {
          const first = new Map<string, unknown>();
          return onResponse((req, res) => {
            if (req.route !== 'status' || res.status !== 200 || req.id === undefined) return;
            if (!first.has(req.id)) first.set(req.id, res.body);
            else res.body = first.get(req.id);
          });
        }),
        mutant(t, 'stale', 'get', `GET answers the request as it was before it became ${t.status}`, () => {
          const before = new Map<string, Record<string, any>>();
          return onObjects((pr, req) => {
            if (pr.status !== t.status) before.set(pr.id, { ...pr });
            else if (before.has(pr.id)) Object.assign(pr, before.get(pr.id)!, { preimage: undefined });
          }, ['read']);
        }),
      ].filter((m) => t.status !== 'pending' || !m.key.startsWith('stale:get'));
    case 'control-answer':
      if (t.call !== 'clock' || !('now' in t.fields)) return [];
      return [mutant(t, 'stale', 'clock', 'GET /sandbox/v1/clock answers the first time it read', () => {
        let first: unknown;
        return onResponse((req, res) => {
          if (controlCall(req) !== 'clock' || req.method !== 'GET' || res.status !== 200) return;
          if (first === undefined) first = res.body?.now;
          else res.body.now = first;
        });
      })];
    case 'field':
      if (!['amount', 'description', 'metadata', 'feeAmount'].includes(t.field)) return [];
      return [mutant(t, 'stale', 'previous', `create answers \`${t.field}\` of the create before it`, () => {
        let previous: unknown;
        let had = false;
        return onObjects((pr) => {
          const current = pr[t.field];
          if (had && current !== undefined) pr[t.field] = previous;
          previous = current;
          had = current !== undefined;
        }, ['create']);
      })];
    case 'invoice':
      if (t.part !== 'payment-hash') return [];
      return [mutant(t, 'stale', 'invoice', 'each create answers the invoice of the create before it', () => {
        let previous: string | undefined;
        return onObjects((pr) => {
          const current = pr.invoice;
          if (previous !== undefined) pr.invoice = previous;
          previous = current;
        }, ['create']);
      })];
    default:
      return [];
  }
};

/** A field keeps the first value answered for each id. */
function firstSeen(field: string): Hooks {
  const first = new Map<string, unknown>();
  return onObjects((pr) => {
    if (!first.has(pr.id)) first.set(pr.id, pr[field]);
    else pr[field] = first.get(pr.id);
  });
}

/** The answer of the first other account's key that finds what the caller's key did not. */
async function otherAccountAnswer(req: { method: string; path: string; key?: string; body?: unknown }, ctx: Parameters<NonNullable<Hooks['request']>>[1]) {
  const own = ctx.keys.secretOf(req.key);
  for (const key of ctx.keys.accountSecrets()) {
    if (key === own) continue;
    const answer = await ctx.upstream(req.method, req.path, { key, ...(req.body !== undefined ? { body: req.body } : {}) });
    if (answer.status < 400) return answer;
  }
  return undefined;
}

const leak: Operator = (t) => {
  switch (t.kind) {
    case 'account':
      if (t.surface === 'read' || t.surface === 'control')
        return [
          mutant(t, 'leak', t.surface, `a ${t.surface === 'read' ? 'read' : 'control call'} of another account's id answers as for the owner`, () =>
            onResponse(async (req, res, ctx) => {
              const route = t.surface === 'read' ? ['read', 'status'] : ['control'];
              if (!route.includes(req.route) || res.status !== 404 || req.id === undefined) return;
              const other = await otherAccountAnswer(req, ctx);
              if (other) Object.assign(res, { status: other.status, body: other.body, text: other.text });
            }),
          ),
        ];
      if (t.surface === 'clock') return [mutant(t, 'leak', 'clock', "advancing one account's clock advances every account's", () => onRequest(async (req, ctx) => {
        if (controlCall(req) !== 'clock/advance' || req.method !== 'POST') return;
        const own = ctx.keys.secretOf(req.key);
        for (const key of ctx.keys.runAccounts()) if (key !== own) await ctx.upstream('POST', req.path, { key, body: req.body ?? {} });
      }))];
      return [mutant(t, 'leak', 'reset', "a reset deletes every account's requests", () => onRequest(async (req, ctx) => {
        if (controlCall(req) !== 'reset' || req.method !== 'POST') return;
        const own = ctx.keys.secretOf(req.key);
        for (const key of ctx.keys.runAccounts()) if (key !== own) await ctx.upstream('POST', req.path, { key, body: req.body ?? {} });
      }))];
    case 'field':
      if (t.field === 'destinationWallet') return [mutant(t, 'leak', 'hidden', 'answers show the destinationWallet given at creation', () => {
        let given: unknown;
        const byId = new Map<string, unknown>();
        return {
          request(req) {
            given = req.route === 'create' ? req.body?.destinationWallet : undefined;
          },
          response(req, res) {
            if (typeof res.body?.id !== 'string' || !('amount' in res.body)) return;
            if (req.route === 'create' && given !== undefined) byId.set(res.body.id, given);
            if (byId.has(res.body.id)) res.body.destinationWallet = byId.get(res.body.id);
          },
        };
      })];
      if (t.field === 'nwcRelay' && t.only === 'custodial') return [mutant(t, 'leak', 'relay', 'custodial requests show the NWC account\'s relay', fieldEditAlways(t, (pr) => (pr.nwcRelay = 'ws://127.0.0.1/nostr')))];
      return [];
    case 'auth':
      if (t.rule === 'read-only-control') return [mutant(t, 'leak', 'secret', 'the read-only key is shown the wallet\'s nwcUrl secret', () => onResponse(async (req, res, ctx) => {
        const secret = ctx.keys.secretOf(req.key);
        if (ctx.keys.isReadOnly(req.key) && secret !== undefined && controlCall(req) === 'wallet' && res.status === 200 && res.body && !res.body.nwcUrl) {
          const full = await ctx.upstream('GET', req.path, { key: secret });
          if (full.body?.nwcUrl) res.body.nwcUrl = full.body.nwcUrl;
        }
      }))];
      return [];
    default:
      return [];
  }
};

const sideEffect: Operator = (t) => {
  switch (t.kind) {
    case 'refusal':
      if (t.of === 'transition')
        return [mutant(t, 'side-effect', 'updated-at', 'a refused transition (409) still moves updatedAt', () => {
          const bumped = new Set<string>();
          return onResponse((req, res) => {
            if (req.route === 'control' && res.status === 409 && req.id !== undefined) bumped.add(req.id);
            if (req.route === 'read' && req.id !== undefined && bumped.has(req.id) && typeof res.body?.updatedAt === 'string') res.body.updatedAt = new Date(Date.parse(res.body.updatedAt) + SECOND).toISOString();
          });
        })];
      return [storedAnyway('a create refused with 400 still stores a request (with a valid body)', (res) => res.status === 400, t)];
    case 'auth':
      if (t.rule === 'permission') return [storedAnyway('a create by the read-only key is refused (401) but stored', (res, req, keys) => res.status === 401 && keys.isReadOnly(req.key), t)];
      if (t.rule === 'invalid' || t.rule === 'missing') return [storedAnyway(`a create with ${t.rule === 'missing' ? 'no' : 'an invalid'} key is refused (401) but stored in the main account`, (res) => res.status === 401, t)];
      return [];
    case 'input':
      if (['required', 'type', 'invalid', 'shape', 'max', 'min', 'object'].includes(t.rule)) return [storedAnyway(`a create refused for its \`${t.field}\` still stores a request`, (res) => res.status === 400, t)];
      return [];
    default:
      return [];
  }
};

/** After a refused create, the proxy stores a valid one in the main account (what a half-validated write would leave). */
function storedAnyway(describe: string, refusedWhen: (res: { status: number }, req: { key?: string }, keys: RunKeys) => boolean, t: Target): Mutant {
  return mutant(t, 'side-effect', 'stored', describe, () =>
    onResponse(async (req, res, ctx) => {
      if (req.route !== 'create' || !refusedWhen(res, req, ctx.keys)) return;
      // In the account of the key when it has one (a half-validated write), else the main account.
      await ctx.upstream('POST', '/api/v1/payment-requests', { key: ctx.keys.secretOf(req.key) ?? ctx.keys.main, body: { amount: 1000, description: 'left behind by a refused create', destinationWallet: 'left@example.com' } });
    }),
  );
}

const loosen: Operator = (t) => {
  switch (t.kind) {
    case 'auth': {
      const asMain = (test: (auth: string, req: Parameters<NonNullable<Hooks['request']>>[0], keys: RunKeys) => string | undefined, describe: string, variant: string, equivalent?: string) =>
        mutant(t, 'loosen', variant, describe, () => onRequest((req, ctx) => {
          const key = test(req.headers.authorization ?? '', req, ctx.keys);
          if (key !== undefined) req.headers.authorization = `Bearer ${key}`;
        }), equivalent);
      if (t.rule === 'scheme')
        return [
          asMain((a, _req, keys) => (/^(token|basic)\s+/i.test(a) ? keys.known().find((k) => a.includes(k) || a.includes(btoa(`${k}:`))) : undefined), 'keys read under any scheme (Token, Basic)', 'schemes'),
          asMain((a, _req, keys) => (keys.known().includes(a.trim()) ? a.trim() : undefined), 'a bare key without the Bearer scheme authenticates', 'bare'),
          asMain((a, req) => (a === '' ? (req.headers['x-api-key'] ?? req.headers['api-key']) : undefined), 'keys read from X-API-Key and Api-Key too', 'headers'),
          asMain((a) => (/^bearer[,:]\s*\S+$/i.test(a) ? a.replace(/^bearer[,:]\s*/i, '') : undefined), 'the scheme and key separated by "," or ":" are read', 'separators'),
          asMain((a) => (/^bearer \S+$/.test(a) ? a.slice(7) : undefined), 'the scheme read case-insensitively ("bearer")', 'scheme-case', 'auth schemes are case-insensitive (RFC 9110 §11.1): a lower-case "bearer" is the Bearer scheme'),
        ];
      if (t.rule === 'invalid')
        return [
          asMain((a, _req, keys) => { const k = a.replace(/^Bearer\s+/i, ''); return keys.known().find((v) => v.toLowerCase() === k.toLowerCase() && v !== k); }, 'keys compared case-insensitively', 'case'),
          asMain((a, _req, keys) => { const k = a.replace(/^Bearer\s+/i, ''); return k.length >= 8 && !keys.known().includes(k) ? keys.known().find((v) => v.startsWith(k) || k.startsWith(v)) : undefined; }, 'a key matches any key it is a prefix of, or that is a prefix of it', 'prefix'),
          asMain((a, _req, keys) => { const k = a.replace(/^Bearer\s+/i, ''); return /^sk_/.test(k) && !keys.known().includes(k) ? keys.main : undefined; }, 'any key shaped sk_… acts as the main key', 'shape'),
        ];
      if (t.rule === 'missing') return [asMain((a, _req, keys) => (a === '' || /^bearer\s*$/i.test(a) ? keys.main : undefined), 'an empty or missing key acts as the main key', 'empty')];
      if (t.rule === 'permission') return [mutant(t, 'loosen', 'read-only-create', 'the read-only key may create', () => onRequest((req, ctx) => void (req.route === 'create' && ctx.keys.isReadOnly(req.key) && (req.headers.authorization = `Bearer ${ctx.keys.secretOf(req.key)}`))))];
      if (t.rule === 'read-only-control') return [mutant(t, 'loosen', 'read-only-control', 'the read-only key may make control calls', () => onRequest((req, ctx) => void (req.route === 'control' && ctx.keys.isReadOnly(req.key) && (req.headers.authorization = `Bearer ${ctx.keys.secretOf(req.key)}`))))];
      if (t.rule === 'accounts-key') return [mutant(t, 'loosen', 'admin-v1', 'the accounts key reads and creates as the main key', () => onRequest((req, ctx) => void (V1_PATH.test(req.path) && ctx.keys.isAdmin(req.key) && (req.headers.authorization = `Bearer ${ctx.keys.main}`))))];
      return [];
    }
    case 'lookup': {
      const routes = t.route === 'read' ? ['read', 'status'] : [t.route];
      const loose = (variant: string, describe: string, find: (id: string, known: string[]) => string | undefined) =>
        mutant(t, 'loosen', variant, describe, () => {
          const registry = idRegistry();
          return chain(
            onRequest((req) => {
              if (!routes.includes(req.route) || req.id === undefined || registry.ids.has(req.id)) return;
              const found = find(req.id, [...registry.ids.keys()]);
              if (found) req.path = withId(req.path, found);
            }),
            registry.hooks,
          );
        });
      return [
        loose('prefix', 'an id matches any id it is a prefix of', (id, known) => (id.length > 3 ? known.find((k) => k.startsWith(id)) : undefined)),
        loose('case', 'ids matched case-insensitively', (id, known) => known.find((k) => k.toLowerCase() === id.toLowerCase())),
        loose('near', 'an id matches one that differs in its last character', (id, known) => known.find((k) => k.length === id.length && k.slice(0, -1) === id.slice(0, -1))),
        loose('unprefixed', 'an id without `pr_` finds the request', (id, known) => known.find((k) => k === `pr_${id}`)),
        loose('trailing', 'an id followed by junk finds the request', (id, known) => known.find((k) => id.startsWith(k) && id.length > k.length)),
      ];
    }
    case 'input': {
      const fixing = (variant: string, describe: string, fix: (body: Record<string, any>) => boolean) =>
        mutant(t, 'loosen', variant, describe, () => {
          const fixed = new Map<string, unknown>();
          let given: unknown;
          return {
            request(req) {
              given = undefined;
              if (req.route !== 'create' || !req.body || typeof req.body !== 'object' || Array.isArray(req.body)) return;
              const original = req.body[t.field];
              if (fix(req.body)) given = original;
            },
            response(req, res) {
              if (req.route === 'create' && given !== undefined && typeof res.body?.id === 'string') fixed.set(res.body.id, given);
              if (typeof res.body?.id === 'string' && fixed.has(res.body.id) && t.field in res.body) res.body[t.field] = fixed.get(res.body.id);
            },
          };
        });
      switch (t.rule) {
        case 'required':
          return [fixing('default', `a missing \`${t.field}\` is filled with a default`, (b) => (t.field in b ? false : ((b[t.field] = { amount: 1000, description: '', destinationWallet: 'default@example.com' }[t.field]), false)))];
        case 'type':
          return [fixing('coerce', `\`${t.field}\` of another type is coerced`, (b) => {
            const v = b[t.field];
            if (t.field === 'description' && v !== undefined && typeof v !== 'string') return (b[t.field] = String(v)), true;
            if ((t.field === 'amount' || t.field === 'expiresIn') && typeof v === 'string' && /^\d+$/.test(v)) return (b[t.field] = Number(v)), true;
            return false;
          })];
        case 'invalid':
          return [fixing('abs', 'a negative or fractional amount is made whole and positive', (b) => (typeof b.amount === 'number' && (b.amount < 0 || !Number.isInteger(b.amount)) ? ((b.amount = Math.max(21, Math.round(Math.abs(b.amount)))), true) : false))];
        case 'shape':
          return [
            fixing('no-at', 'a destinationWallet without "@" is accepted', (b) => (typeof b.destinationWallet === 'string' && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(b.destinationWallet) ? ((b.destinationWallet = 'fixed@example.com'), true) : false)),
          ];
        case 'object':
          if (t.field === 'body') return [mutant(t, 'loosen', 'array', 'a JSON array body is read as its first element', () => onRequest((req) => void (req.route === 'create' && Array.isArray(req.body) && req.body.length > 0 && (req.body = req.body[0]))))];
          return [fixing('any', `\`${t.field}\` of any type is accepted (stored as {})`, (b) => (t.field in b && (typeof b[t.field] !== 'object' || b[t.field] === null || Array.isArray(b[t.field])) ? ((b[t.field] = {}), true) : false))];
        case 'json':
          return [mutant(t, 'loosen', 'malformed', 'malformed JSON on create is read as an empty object plus defaults (201)', () => onRequest((req) => void (req.route === 'create' && req.body === undefined && req.text.trim().startsWith('{') && (req.body = { amount: 1000, description: '', destinationWallet: 'default@example.com' }))))];
        case 'max':
          return t.field === 'description' ? [mutant(t, 'loosen', 'max-1000', 'descriptions up to 1,000 characters accepted (cut to 255 upstream, echoed as sent)', () => acceptOverAny(255))] : [];
        case 'min':
          return [mutant(t, 'loosen', 'min-1', 'any amount from 1 accepted (stored as 21, echoed as sent)', () => acceptBelow(21))];
        default:
          return [];
      }
    }
    case 'terminal':
      return [];
    default:
      return [];
  }
};

function acceptOverAny(max: number): Hooks {
  const sent = new Map<string, string>();
  return {
    request(req) {
      if (req.route !== 'create' || typeof req.body?.description !== 'string') return;
      const chars = [...req.body.description];
      if (chars.length <= max || chars.length > 1000) return;
      const cut = chars.slice(0, max).join('');
      sent.set(cut, req.body.description);
      req.body.description = cut;
    },
    response(_req, res) {
      if (typeof res.body?.description === 'string' && sent.has(res.body.description)) res.body.description = sent.get(res.body.description);
    },
  };
}

function acceptBelow(minimum: number): Hooks {
  const amounts = new Map<string, number>();
  let given: number | undefined;
  return {
    request(req) {
      given = undefined;
      if (req.route === 'create' && Number.isInteger(req.body?.amount) && req.body.amount >= 1 && req.body.amount < minimum) {
        given = req.body.amount;
        req.body.amount = minimum;
      }
    },
    response(req, res) {
      if (req.route === 'create' && given !== undefined && typeof res.body?.id === 'string') amounts.set(res.body.id, given);
      if (typeof res.body?.id === 'string' && amounts.has(res.body.id)) res.body.amount = amounts.get(res.body.id);
    },
  };
}

const breakStructure: Operator = (t) => {
  switch (t.kind) {
    case 'invoice':
      switch (t.part) {
        case 'signature':
          return [mutant(t, 'break', 'checksum', 'invoices with one data character changed (checksum and signature broken)', () => onObjects((pr) => void (typeof pr.invoice === 'string' && (pr.invoice = nudged('invoice', pr.invoice)))))];
        case 'network':
          return [
            mutant(t, 'break', 'hrp', 'every invoice on testnet (lntb) while the sandbox is on regtest (re-signed)', forged((d) => ({ hrp: `lntb${d.hrp.slice(d.prefix.length)}` })), 'every invoice on one other network is what the same server run with `--network testnet` answers: a client that is not told the network cannot tell'),
            mutant(t, 'break', 'mixed', 'custodial invoices on testnet (lntb), NWC ones on regtest (re-signed)', () => {
              const cache = new Map<string, string>();
              return onObjects((pr) => {
                if (typeof pr.invoice !== 'string') return;
                if (!cache.has(pr.invoice)) cache.set(pr.invoice, resignInvoice(pr.invoice, (d) => ({ hrp: `lntb${d.hrp.slice(d.prefix.length)}` })));
                pr.invoice = cache.get(pr.invoice);
              }, undefined, 'custodial');
            }),
          ];
        case 'amount':
          return [mutant(t, 'break', 'multiplier', 'the invoice amount spelled with a non-canonical multiplier (pico with a non-zero last digit)', forged((d) => (d.amountMsat === null ? {} : { hrp: `${d.prefix}${d.amountMsat * 10n + 1n}p` })))];
        case 'payment-hash':
          return [mutant(t, 'break', 'p-length', 'the `p` field 51 words long instead of 52 (readers skip it)', forged((d) => ({ fields: d.fields.map((f) => (f.tag === 'p' ? { tag: 'p', words: f.words.slice(0, 51) } : f)) })))];
        case 'payment-secret':
          return [mutant(t, 'break', 's-length', 'the `s` field 51 words long instead of 52 (readers skip it)', forged((d) => ({ fields: d.fields.map((f) => (f.tag === 's' ? { tag: 's', words: f.words.slice(0, 51) } : f)) })))];
        case 'expiry':
          return [
            mutant(
              t,
              'break',
              'x-padded',
              'the `x` field with leading zero words (not minimal)',
              forged((d) => ({ fields: d.fields.map((f) => (f.tag === 'x' ? { tag: 'x', words: [0, 0, ...f.words] } : f)) })),
              'BOLT 11 asks the minimum data_length for `x` as a writer\'s SHOULD and readers take any length: every decoder reads the expiry as expiresIn, which is what the statement asks',
            ),
          ];
        case 'timestamp':
          return [mutant(t, 'break', 'far', 'the invoice timestamp a day late (re-signed)', forged((d) => ({ timestampSeconds: d.timestampSeconds + 86_400 })))];
        case 'description':
          return [mutant(t, 'break', 'd-and-h', 'invoices with both `d` and `h` (re-signed)', forged((d) => ({ fields: [...d.fields, { tag: d.fields.some((f) => f.tag === 'h') ? 'd' : 'h', words: words(hexToBytes(sha256Hex('other'))) }] })))];
        case 'signer':
          return [mutant(t, 'break', 'signer', 'invoices signed by a node nobody runs (re-signed)', forged(() => ({}), (d) => labelledNodeKey(`generated signer ${d.timestampSeconds}`)))];
        case 'multiplicity':
          return [mutant(t, 'break', 'two-s', 'two `s` fields, the first one right (re-signed)', forged((d) => ({ fields: [...d.fields, { tag: 's', words: otherFieldData('s', d) }] })))];
        default:
          return [];
      }
    case 'url':
      return [
        mutant(t, 'break', 'http', 'nwcRelay as an http:// URL', () => onObjects((pr) => void (typeof pr.nwcRelay === 'string' && (pr.nwcRelay = pr.nwcRelay.replace(/^ws/, 'http'))), undefined, 'nwc')),
        mutant(t, 'break', 'no-scheme', 'nwcRelay without a scheme (host:port/nostr)', () => onObjects((pr) => void (typeof pr.nwcRelay === 'string' && (pr.nwcRelay = pr.nwcRelay.replace(/^wss?:\/\//, ''))), undefined, 'nwc')),
        mutant(t, 'break', 'no-host', 'nwcRelay with no host (ws:///nostr)', () => onObjects((pr) => void (typeof pr.nwcRelay === 'string' && (pr.nwcRelay = 'ws:///nostr')), undefined, 'nwc')),
      ];
    case 'field':
      if (t.type === 'timestamp') return [mutant(t, 'break', 'no-zone', `\`${t.field}\` without a zone (local time)`, fieldEdit(t, (pr) => (pr[t.field] = String(pr[t.field]).replace(/Z$/, '')))), mutant(t, 'break', 'space', `\`${t.field}\` with a space for the T`, fieldEdit(t, (pr) => (pr[t.field] = String(pr[t.field]).replace('T', ' '))))];
      if (t.type === 'hex') return [mutant(t, 'break', 'short', `\`${t.field}\` one hex digit short`, fieldEdit(t, (pr) => (pr[t.field] = String(pr[t.field]).slice(0, -1)))), mutant(t, 'break', 'non-hex', `\`${t.field}\` with a non-hex character`, fieldEdit(t, (pr) => (pr[t.field] = `${String(pr[t.field]).slice(0, -1)}g`)))];
      if (t.type === 'id') return [mutant(t, 'break', 'dash', 'ids with `pr-` instead of `pr_`', fieldEdit(t, (pr) => (pr.id = String(pr.id).replace(/^pr_/, 'pr-'))))];
      if (t.type === 'url' && t.only !== 'custodial') return [mutant(t, 'break', 'http', `\`${t.field}\` as an http:// URL`, fieldEdit(t, (pr) => (pr[t.field] = String(pr[t.field]).replace(/^ws/, 'http'))))];
      return [];
    case 'control-answer':
      if (Object.keys(t.fields).length === 0) return [];
      return [mutant(t, 'break', 'not-json', `\`${callName(t)}\` answers a text body, not JSON`, () => onResponse((req, res) => {
        if (!isCall(req, t) || res.status >= 300) return;
        res.body = undefined;
        res.text = 'ok';
        res.headers['content-type'] = 'text/plain';
      }))];
    default:
      return [];
  }
};

// ---- the sandbox surfaces: the events list, webhook endpoints, test wallets ----

type SurfaceTarget = Extract<Target, { kind: 'events' } | { kind: 'surface' }>;
/** One mutant of a surface rule: its variant, what it does, its hooks, and why it is equivalent (if it is). */
type Recipe = [variant: string, describe: string, hooks: () => Hooks, equivalent?: string];

/** Edits the list of each 200 answer to `GET /sandbox/v1/events`; a list returned replaces it. */
function onEvents(edit: (events: any[], req: ProxyRequest, ctx: ProxyContext) => void | unknown[] | Promise<void | unknown[]>): Hooks {
  return onResponse(async (req, res, ctx) => {
    if (req.method !== 'GET' || controlCall(req) !== 'events' || res.status !== 200 || !Array.isArray(res.body?.data)) return;
    const replaced = await edit(res.body.data, req, ctx);
    if (replaced) res.body.data = replaced;
  });
}

/** Edits each event of the events list. */
function eachEvent(edit: (event: Record<string, any>, req: ProxyRequest, ctx: ProxyContext) => void | Promise<void>): Hooks {
  return onEvents(async (events, req, ctx) => {
    for (const event of events) if (event && typeof event === 'object') await edit(event, req, ctx);
  });
}

/** Edits each wallet object the wallets calls answer (made, read, topped up, listed). */
function onWallets(edit: (wallet: Record<string, any>) => void): Hooks {
  return onResponse((req, res) => {
    const call = controlCall(req);
    if (call === undefined || !/^wallets(\/[^/]+(\/topup)?)?$/.test(call) || res.status >= 300 || !res.body || typeof res.body !== 'object') return;
    for (const wallet of Array.isArray(res.body.data) ? res.body.data : [res.body]) {
      if (wallet && typeof wallet === 'object' && typeof wallet.id === 'string' && wallet.id.startsWith('wal_') && typeof wallet.balance === 'number') edit(wallet);
    }
  });
}

/** Whether a request is `method` of the path under /sandbox/v1 that `pattern` matches. */
function isSurface(req: ProxyRequest, method: string, pattern: RegExp): boolean {
  const call = controlCall(req);
  return req.method === method && call !== undefined && pattern.test(call);
}

const ENDPOINTS = /^webhook-endpoints$/;
const ENDPOINT = /^webhook-endpoints\/[^/]+$/;
const WALLET = /^wallets\/[^/]+$/;
const TOPUP = /^wallets\/[^/]+\/topup$/;

/** A list (of `method` on the path `pattern` matches) answered, per key, as the first one was. */
function firstListKept(matches: (req: ProxyRequest) => boolean): Hooks {
  const first = new Map<string, unknown>();
  return onResponse((req, res) => {
    if (!matches(req) || res.status !== 200 || !Array.isArray(res.body?.data)) return;
    const key = req.key ?? '';
    if (!first.has(key)) first.set(key, structuredClone(res.body.data));
    else res.body.data = structuredClone(first.get(key));
  });
}

/** A top-up's answer edited, or the top-up answered without the upstream. */
function onTopup(request: (req: ProxyRequest, ctx: ProxyContext) => void | ProxyResponse | Promise<void | ProxyResponse>): Hooks {
  return onRequest((req, ctx) => (isSurface(req, 'POST', TOPUP) ? request(req, ctx) : undefined));
}

/** The wallet a top-up is for, as the upstream shows it now. */
async function walletBefore(req: ProxyRequest, ctx: ProxyContext): Promise<ProxyResponse> {
  return ctx.upstream('GET', req.path.split('?')[0]!.replace(/\/topup$/, ''), { key: req.key ?? '' });
}

const EVENT_TIMESTAMP_EQUIVALENT = "CONTRACT.md gives an event's timestamp as the account's clock then, and the clock's `now` is ISO 8601 with any offset: an offset form names the same instant";

/** Edits the list of each 200 answer to `GET /sandbox/v1/{call}` (a path under it, its query apart); a list returned replaces it. */
function onList(call: RegExp, edit: (list: any[], req: ProxyRequest) => void | unknown[]): Hooks {
  return onResponse((req, res) => {
    if (!isSurface(req, 'GET', call) || res.status !== 200 || !Array.isArray(res.body?.data)) return;
    const replaced = edit(res.body.data, req);
    if (replaced) res.body.data = replaced;
  });
}

/** Rewrites each webhook delivery on its way to its receiver (or drops it). */
function onDelivery(edit: (delivery: ProxyDelivery) => void | 'drop'): Hooks {
  return { delivery: (delivery) => edit(delivery) };
}

/** Edits the headers of answers to paths under `prefix` (CORS preflights too). */
function onHeaders(prefix: string, edit: (headers: Record<string, string>, req: ProxyRequest, res: ProxyResponse) => void): Hooks {
  return onResponse((req, res) => void (req.path.startsWith(prefix) && edit(res.headers, req, res)));
}

const DELIVERIES = /^webhook-deliveries$/;
/** `/pay/{id}`, the hosted pay page (its id captured). */
const PAY_PAGE = /^\/pay\/([^/]+)$/;
const JOURNAL = /^requests$/;

/** The mutants of the recipes below: what a sandbox records, and CORS. */
const RECORD_RECIPES: Record<'deliveries-newest-first' | 'journal-newest-first' | 'journal-no-secrets' | 'journal-delete' | 'delivery-emit' | 'delivery-signed' | 'delivery-headers' | 'delivery-filter' | 'pay-page-no-key' | 'pay-page-no-metadata' | 'cors-v1' | 'cors-sandbox', Partial<Record<OperatorName, Recipe[]>>> = {
  'deliveries-newest-first': {
    break: [['oldest-first', 'delivery attempts listed oldest first', () => onList(DELIVERIES, (list) => [...list].reverse())]],
    drop: [['newest-delivery', 'the attempts of the newest delivery left out of the list', () => onList(DELIVERIES, (list) => list.filter((attempt) => attempt?.id !== list[0]?.id))]],
    duplicate: [['twice', 'every delivery attempt listed twice', () => onList(DELIVERIES, (list) => list.flatMap((attempt) => [attempt, attempt]))]],
    stale: [['first-list', 'the delivery attempts of an event answered, per key and event, as first listed', () => firstListKept((req) => isSurface(req, 'GET', DELIVERIES))]],
  },
  'journal-newest-first': {
    break: [['oldest-first', 'the request journal oldest first', () => onList(JOURNAL, (list) => [...list].reverse())]],
    drop: [['newest', 'the request journal leaves out the newest call', () => onList(JOURNAL, (list) => list.slice(1))]],
    duplicate: [['twice', 'every call listed twice in the request journal', () => onList(JOURNAL, (list) => list.flatMap((entry) => [entry, entry]))]],
    stale: [['first-list', 'the request journal answered, per key, as first listed', () => firstListKept((req) => isSurface(req, 'GET', JOURNAL))]],
    loosen: [['filters', 'the request journal ignores its ?method= and ?status= filters', () => onRequest((req) => void (isSurface(req, 'GET', JOURNAL) && (req.path = req.path.replace(/([?&])(method|status)=[^&]*&?/g, '$1'))))]],
  },
  'journal-no-secrets': {
    leak: [['authorization', 'journal entries keep the Authorization header (the key)', () => onList(JOURNAL, (list, req) => list.forEach((entry) => entry?.headers && typeof entry.headers === 'object' && (entry.headers.authorization = `Bearer ${req.key ?? ''}`)))]],
    're-encode': [['Cookie', 'journal entries keep a Cookie header, under its capitalised name', () => onList(JOURNAL, (list) => list.forEach((entry) => entry?.headers && typeof entry.headers === 'object' && (entry.headers.Cookie = 'lnpr_session=kept')))]],
  },
  'journal-delete': {
    stale: [['kept', '`DELETE /sandbox/v1/requests` answers 204 and empties nothing', () => onRequest((req) => (isSurface(req, 'DELETE', JOURNAL) ? jsonResponse(204, undefined) : undefined))]],
  },
  'delivery-emit': {
    drop: [['never', 'webhook deliveries never reach the endpoint (the sandbox records them delivered)', () => onDelivery(() => 'drop')]],
  },
  'delivery-signed': {
    break: [['changed', 'webhook signatures with one character changed', () => onDelivery((delivery) => void (delivery.headers['webhook-signature'] = (delivery.headers['webhook-signature'] ?? '').replace(/.(?=.{4}$)/, (c) => (c === 'A' ? 'B' : 'A'))))]],
    're-encode': [['hex', 'webhook signatures in hex, not base64', () => onDelivery((delivery) => void (delivery.headers['webhook-signature'] = (delivery.headers['webhook-signature'] ?? '').replace(/v1,(\S+)/g, (_, b64: string) => `v1,${Buffer.from(b64, 'base64').toString('hex')}`)))]],
    drop: [['header', 'webhook deliveries without webhook-signature', () => onDelivery((delivery) => void delete delivery.headers['webhook-signature'])]],
  },
  'delivery-headers': {
    drop: [['webhook-id', 'webhook deliveries without webhook-id', () => onDelivery((delivery) => void delete delivery.headers['webhook-id'])]],
    're-encode': [['timestamp-ms', 'webhook-timestamp in milliseconds', () => onDelivery((delivery) => void (delivery.headers['webhook-timestamp'] = `${delivery.headers['webhook-timestamp']}000`))]],
    break: [['random-id', 'webhook-id a new random id, not the event id', () => onDelivery((delivery) => void (delivery.headers['webhook-id'] = `msg_${Math.random().toString(36).slice(2)}`))]],
    retype: [['text-plain', 'webhook deliveries sent as text/plain', () => onDelivery((delivery) => void (delivery.headers['content-type'] = 'text/plain'))]],
  },
  'delivery-filter': {
    loosen: [['widened', 'deliveries of every event type, whatever the endpoint\'s events ask (the filter kept in its answer)', () => {
      const filters = new Map<string, unknown>();
      return {
        request(req) {
          if (!isSurface(req, 'POST', ENDPOINTS) || !Array.isArray(req.body?.events)) return;
          filters.set(String(req.body.url), req.body.events);
          delete req.body.events;
        },
        response(req, res) {
          if (isSurface(req, 'POST', ENDPOINTS) && res.body && typeof res.body === 'object') {
            const asked = [...filters.entries()].find(([url]) => url.endsWith(encodeURIComponent(String(res.body.url))) || url === res.body.url)?.[1];
            if (asked) res.body.events = asked;
          }
        },
      };
    }]],
  },
  'pay-page-no-key': {
    drop: [['key', '`GET /pay/{id}` needs a key: 401 without one', () => onRequest((req) => (PAY_PAGE.test(req.path.split('?')[0]!) && req.key === undefined ? jsonResponse(401, { error: { code: 'unauthorized', message: 'missing API key' } }) : undefined))]],
  },
  'pay-page-no-metadata': {
    leak: [
      [
        'metadata',
        "the pay page shows the request's metadata",
        () =>
          onResponse(async (req, res, ctx) => {
            const id = PAY_PAGE.exec(req.path.split('?')[0]!)?.[1];
            if (id === undefined || res.status !== 200) return;
            for (const key of ctx.keys.accountSecrets()) {
              const read = await ctx.upstream('GET', `/api/v1/payment-requests/${id}`, { key });
              if (read.status !== 200) continue;
              res.text = res.text.replace('</body>', `<pre>${JSON.stringify(read.body?.metadata ?? null)}</pre></body>`);
              res.body = undefined;
              return;
            }
          }),
      ],
    ],
  },
  'cors-v1': {
    drop: [
      ['headers', 'no CORS headers on /api/v1 answers (preflights included)', () => onHeaders('/api/v1/', (headers) => Object.keys(headers).forEach((name) => name.startsWith('access-control-') && delete headers[name]))],
      ['authorization', 'CORS preflights of /api/v1 allow content-type but not authorization', () => onHeaders('/api/v1/', (headers, req) => void (req.method === 'OPTIONS' && (headers['access-control-allow-headers'] = 'content-type')))],
    ],
    break: [['preflight-404', 'CORS preflights of /api/v1 answered 404', () => onRequest((req) => (req.method === 'OPTIONS' && req.path.startsWith('/api/v1/') ? jsonResponse(404, { error: { code: 'route_not_found', message: 'no route' } }) : undefined))]],
  },
  'cors-sandbox': {
    leak: [['any-origin', 'the control API answers access-control-allow-origin: * to any origin', () => onHeaders('/sandbox/v1/', (headers, _req, res) => {
      headers['access-control-allow-origin'] = '*';
      if (res.status === 403) Object.assign(res, { status: 204, body: undefined, text: '' });
    })]],
    're-encode': [['echo', 'the control API echoes any Origin in access-control-allow-origin', () => onHeaders('/sandbox/v1/', (headers, req) => void (req.headers.origin && (headers['access-control-allow-origin'] = req.headers.origin)))]],
    break: [['loopback-refused', 'the control API refuses loopback origins too (403 to their preflights)', () => onRequest((req) => (req.method === 'OPTIONS' && req.path.startsWith('/sandbox/v1/') && /^http:\/\/(localhost|127\.|\[::1\])/.test(req.headers.origin ?? '') ? jsonResponse(403, { error: { code: 'forbidden_origin', message: 'origin not allowed' } }) : undefined))]],
  },
};

/** The mutants of each surface rule, by operator. */
const SURFACE_RECIPES: Record<SurfaceTarget['rule'], Partial<Record<OperatorName, Recipe[]>>> = {
  ...RECORD_RECIPES,
  'newest-first': {
    break: [['oldest-first', 'the events list oldest first', () => onEvents((events) => [...events].reverse())]],
    boundary: [['swap', 'the events list newest first but for its two newest, swapped', () => onEvents((events) => (events.length < 2 ? undefined : [events[1], events[0], ...events.slice(2)]))]],
    drop: [['newest', 'the events list leaves out its newest event', () => onEvents((events) => events.slice(1))]],
    duplicate: [['twice', 'the events list shows every event twice', () => onEvents((events) => events.flatMap((event) => [event, event]))]],
    stale: [['first-list', 'the events list answers, per key, the list it answered first', () => firstListKept((req) => req.method === 'GET' && controlCall(req) === 'events')]],
    leak: [
      [
        'accounts',
        "the events list shows the other accounts' events too",
        () =>
          onEvents(async (events, req, ctx) => {
            const own = ctx.keys.secretOf(req.key);
            const others = await Promise.all(ctx.keys.accountSecrets().filter((key) => key !== own).map((key) => ctx.upstream('GET', '/sandbox/v1/events?limit=100', { key })));
            return [...events, ...others.flatMap((answer) => (answer.status === 200 && Array.isArray(answer.body?.data) ? answer.body.data : []))];
          }),
      ],
    ],
  },
  'every-change': {
    drop: [
      ['created', 'no `payment_request.created` events', () => onEvents((events) => events.filter((event) => event?.type !== 'payment_request.created'))],
      ['completed', 'no `payment_request.completed` events', () => onEvents((events) => events.filter((event) => event?.type !== 'payment_request.completed'))],
      ['failed', 'no `payment_request.failed` events', () => onEvents((events) => events.filter((event) => event?.type !== 'payment_request.failed'))],
      ['expired', 'no `payment_request.expired` events', () => onEvents((events) => events.filter((event) => event?.type !== 'payment_request.expired'))],
    ],
    duplicate: [['created-twice', 'a second `payment_request.created` event (another id) for every create', () => onEvents((events) => events.flatMap((event) => (event?.type === 'payment_request.created' ? [event, { ...event, id: `${event.id}2` }] : [event])))]],
    stale: [['completed-as-created', 'a completion listed as `payment_request.created`', () => eachEvent((event) => void (event.type === 'payment_request.completed' && (event.type = 'payment_request.created')))]],
    're-encode': [['type-case', 'event types in upper case (PAYMENT_REQUEST.CREATED)', () => eachEvent((event) => void (typeof event.type === 'string' && (event.type = event.type.toUpperCase())))]],
    break: [['type-prefix', 'event types without `payment_request.` (created, completed)', () => eachEvent((event) => void (typeof event.type === 'string' && (event.type = event.type.replace(/^payment_request\./, ''))))]],
  },
  body: {
    drop: [
      ...['id', 'type', 'timestamp', 'data'].map((name): Recipe => [name, `events without \`${name}\``, () => eachEvent((event) => void delete event[name])]),
      ['preimage', 'the data of a completion event without its preimage', () => eachEvent((event) => void (event.type === 'payment_request.completed' && event.data && delete event.data.preimage))],
    ],
    retype: [
      ['timestamp', 'event timestamps as epoch milliseconds', () => eachEvent((event) => void (typeof event.timestamp === 'string' && (event.timestamp = Date.parse(event.timestamp))))],
      ['data', 'event data as a JSON string', () => eachEvent((event) => void (event.data && (event.data = JSON.stringify(event.data))))],
      ['id', 'event ids as arrays', () => eachEvent((event) => void (typeof event.id === 'string' && (event.id = [event.id])))],
    ],
    're-encode': [
      ['offset', 'event timestamps with a +01:00 offset (the same instant)', () => eachEvent((event) => void (typeof event.timestamp === 'string' && (event.timestamp = plusOneHour(event.timestamp)))), EVENT_TIMESTAMP_EQUIVALENT],
      ['msat', "the data's amount in millisatoshis", () => eachEvent((event) => void (typeof event.data?.amount === 'number' && (event.data.amount *= 1000)))],
    ],
    boundary: [['late', 'completion events stamped a second late', () => eachEvent((event) => void (event.type === 'payment_request.completed' && typeof event.timestamp === 'string' && (event.timestamp = new Date(Date.parse(event.timestamp) + SECOND).toISOString())))]],
    stale: [
      [
        'data-before',
        "a completion event's data is the request as it was created (pending, no preimage)",
        () =>
          onEvents((events) => {
            for (const event of events) {
              const created = events.find((other) => other?.type === 'payment_request.created' && other.data?.id === event?.data?.id);
              if (event?.type === 'payment_request.completed' && created) event.data = structuredClone(created.data);
            }
          }),
      ],
      [
        'real-clock',
        "event timestamps on real time, not the account's clock",
        () =>
          onEvents(async (events, req, ctx) => {
            const offset = (await clockNow(ctx, req.key ?? '')) - Date.now();
            for (const event of events) if (typeof event?.timestamp === 'string') event.timestamp = new Date(Date.parse(event.timestamp) - offset).toISOString();
          }),
      ],
    ],
    break: [['dash', 'event ids with `evt-` instead of `evt_`', () => eachEvent((event) => void (typeof event.id === 'string' && (event.id = event.id.replace(/^evt_/, 'evt-'))))]],
  },
  'endpoint-filter': {
    loosen: [['widened', 'an endpoint is registered for every event type, whatever `events` asks', () => onRequest((req) => void (isSurface(req, 'POST', ENDPOINTS) && req.body && typeof req.body === 'object' && delete req.body.events))]],
    break: [
      ['id-dash', 'endpoint ids with `we-` instead of `we_`', () => onResponse((req, res) => void (isSurface(req, 'POST', ENDPOINTS) && typeof res.body?.id === 'string' && (res.body.id = res.body.id.replace(/^we_/, 'we-'))))],
      ['secret-prefix', 'endpoint secrets without the `whsec_` prefix', () => onResponse((req, res) => void (isSurface(req, 'POST', ENDPOINTS) && typeof res.body?.secret === 'string' && (res.body.secret = res.body.secret.replace(/^whsec_/, ''))))],
      [
        'any-scheme',
        'an endpoint URL of any scheme is registered (ftp:// too)',
        () => {
          const asked = new Map<string, string>();
          return {
            request(req) {
              if (!isSurface(req, 'POST', ENDPOINTS) || typeof req.body?.url !== 'string' || /^https?:/i.test(req.body.url)) return;
              const http = req.body.url.replace(/^[a-z][a-z0-9+.-]*:/i, 'http:');
              asked.set(http, req.body.url);
              req.body.url = http;
            },
            response(req, res) {
              if (isSurface(req, 'POST', ENDPOINTS) && typeof res.body?.url === 'string' && asked.has(res.body.url)) res.body.url = asked.get(res.body.url);
            },
          };
        },
      ],
    ],
  },
  'endpoint-list': {
    drop: [['newest', 'the endpoints list leaves out the endpoint registered last', () => onResponse((req, res) => void (isSurface(req, 'GET', ENDPOINTS) && Array.isArray(res.body?.data) && res.body.data.pop()))]],
    stale: [['first-list', 'the endpoints list answers, per key, the list it answered first', () => firstListKept((req) => isSurface(req, 'GET', ENDPOINTS))]],
  },
  'endpoint-delete': {
    stale: [
      [
        'still-listed',
        'a deleted endpoint is still listed',
        () => {
          const deleted = new Map<string, unknown[]>();
          return {
            async request(req, ctx) {
              if (!isSurface(req, 'DELETE', ENDPOINT)) return;
              const list = await ctx.upstream('GET', '/sandbox/v1/webhook-endpoints', { key: req.key ?? '' });
              const id = decodeURIComponent(req.path.split('?')[0]!.split('/').pop()!);
              const endpoint = Array.isArray(list.body?.data) ? list.body.data.find((entry: any) => entry?.id === id) : undefined;
              if (endpoint) deleted.set(req.key ?? '', [...(deleted.get(req.key ?? '') ?? []), endpoint]);
            },
            response(req, res) {
              if (isSurface(req, 'GET', ENDPOINTS) && Array.isArray(res.body?.data)) res.body.data.push(...(deleted.get(req.key ?? '') ?? []));
            },
          };
        },
      ],
    ],
  },
  'wallet-sats': {
    're-encode': [['msat', 'wallet balances in millisatoshis', () => onWallets((wallet) => (wallet.balance *= 1000))]],
    boundary: [['plus-one', 'wallet balances one sat more than they hold', () => onWallets((wallet) => (wallet.balance += 1))]],
  },
  'wallet-topup': {
    drop: [
      [
        'nothing',
        'a top-up answers 200 with the wallet as it was and adds nothing',
        () =>
          onTopup(async (req, ctx) => {
            const wallet = await walletBefore(req, ctx);
            return wallet.status === 200 ? jsonResponse(200, wallet.body) : undefined;
          }),
      ],
    ],
    boundary: [['plus-one', 'a top-up adds one sat more than asked', () => onTopup((req) => void (typeof req.body?.amount === 'number' && (req.body.amount += 1)))]],
    duplicate: [['twice', 'a top-up is applied twice (the client gets the second answer)', () => onTopup(async (req, ctx) => void (await ctx.upstream('POST', req.path, { key: req.key ?? '', body: req.body })))]],
    're-encode': [['msat', 'a top-up adds the amount × 1,000 (sats taken for millisatoshis the other way round)', () => onTopup((req) => void (typeof req.body?.amount === 'number' && (req.body.amount *= 1000)))]],
    stale: [
      [
        'answer-before',
        'a top-up adds, but answers the wallet as it was before',
        () => {
          const before = new Map<string, unknown>();
          return {
            async request(req, ctx) {
              if (!isSurface(req, 'POST', TOPUP)) return;
              const wallet = await walletBefore(req, ctx);
              if (wallet.status === 200) before.set(req.path, wallet.body?.balance);
            },
            response(req, res) {
              if (isSurface(req, 'POST', TOPUP) && res.status === 200 && before.has(req.path) && res.body && typeof res.body === 'object') res.body.balance = before.get(req.path);
            },
          };
        },
      ],
    ],
  },
  'wallet-delete': {
    stale: [
      [
        'still-readable',
        'a deleted wallet is still answered by `GET /sandbox/v1/wallets/{id}`',
        () => {
          const deleted = new Map<string, unknown>();
          return {
            async request(req, ctx) {
              if (!isSurface(req, 'DELETE', WALLET)) return;
              const wallet = await ctx.upstream('GET', req.path, { key: req.key ?? '' });
              if (wallet.status === 200) deleted.set(req.path, wallet.body);
            },
            response(req, res) {
              if (isSurface(req, 'GET', WALLET) && res.status === 404 && deleted.has(req.path)) Object.assign(res, { status: 200, body: deleted.get(req.path) });
            },
          };
        },
      ],
    ],
  },
};

function surfaceMutants(t: SurfaceTarget, operator: OperatorName): Mutant[] {
  return (SURFACE_RECIPES[t.rule][operator] ?? []).map(([variant, describe, hooks, equivalent]) => mutant(t, operator, variant, describe, hooks, equivalent));
}

/** An operator, with the surface rules' own mutants for their targets. */
function withSurfaces(name: OperatorName, operator: Operator): Operator {
  return (t) => (t.kind === 'events' || t.kind === 'surface' ? surfaceMutants(t, name) : operator(t));
}

/** Every operator, by name. */
export const OPERATORS: Readonly<Record<OperatorName, Operator>> = {
  drop: withSurfaces('drop', drop),
  duplicate: withSurfaces('duplicate', duplicate),
  retype: withSurfaces('retype', retype),
  boundary: withSurfaces('boundary', boundary),
  're-encode': withSurfaces('re-encode', reEncode),
  stale: withSurfaces('stale', stale),
  leak: withSurfaces('leak', leak),
  'side-effect': withSurfaces('side-effect', sideEffect),
  loosen: withSurfaces('loosen', loosen),
  break: withSurfaces('break', breakStructure),
};
