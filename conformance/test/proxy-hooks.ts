/**
 * The proxy's hooks as the mutation operators use them: rewrite the payment request objects of
 * some answers, an answer's status or headers, a request before it is forwarded, or act with the
 * other accounts' keys. Each returns the `request`/`response` pair a `Fault` runs (faulty-proxy.ts);
 * state a hook keeps lives in its closure, so every built fault starts fresh.
 */
import { isPaymentRequest, jsonResponse, type Fault, type ProxyContext, type ProxyRequest, type ProxyResponse } from './faulty-proxy.js';
import type { Where } from './statement-targets.js';

export type Hooks = Pick<Fault, 'request' | 'response' | 'delivery'>;

/** Which answers a field rule is about: `where` (default all) and `only` (a kind of request). */
export function matches(pr: Record<string, any>, req: ProxyRequest, where?: readonly Where[], only?: 'custodial' | 'nwc' | 'completed'): boolean {
  const route = req.route === 'status' ? 'read' : req.route;
  if (where && !where.includes(route as Where)) return false;
  if (only === 'custodial') return pr.isNwc === false;
  if (only === 'nwc') return pr.isNwc === true;
  if (only === 'completed') return pr.status === 'completed';
  return true;
}

/** Edits each payment request object answered (v1 and control) that `matches`. */
export function onObjects(edit: (pr: Record<string, any>, req: ProxyRequest, res: ProxyResponse, ctx: ProxyContext) => void | Promise<void>, where?: readonly Where[], only?: 'custodial' | 'nwc' | 'completed'): Hooks {
  return {
    async response(req, res, ctx) {
      if (isPaymentRequest(res.body) && matches(res.body, req, where, only)) await edit(res.body, req, res, ctx);
    },
  };
}

/** Replaces a payment request answer by raw JSON text (for what JSON.stringify cannot say: a key twice, a number's spelling). */
export function onRawObjects(text: (pr: Record<string, any>) => string | undefined, where?: readonly Where[], only?: 'custodial' | 'nwc' | 'completed'): Hooks {
  return {
    response(req, res) {
      if (!isPaymentRequest(res.body) || !matches(res.body, req, where, only)) return;
      const raw = text(res.body);
      if (raw === undefined) return;
      res.body = undefined;
      res.text = raw;
    },
  };
}

/** JSON text of `object` with `key`'s value spelled `spelled` (raw JSON), other keys as JSON.stringify writes them. */
export function withRawValue(object: Record<string, unknown>, key: string, spelled: string): string {
  const marker = `"__raw_${Math.random().toString(36).slice(2)}__"`;
  return JSON.stringify({ ...object, [key]: marker.slice(1, -1) }).replace(marker, spelled);
}

/** Edits a request before it goes upstream (or answers it, by returning a response). */
export function onRequest(edit: (req: ProxyRequest, ctx: ProxyContext) => void | ProxyResponse | Promise<void | ProxyResponse>): Hooks {
  return { request: edit };
}

/** Edits every answer. */
export function onResponse(edit: (req: ProxyRequest, res: ProxyResponse, ctx: ProxyContext) => void | Promise<void>): Hooks {
  return { response: edit };
}

/** The control call a path names (`complete`, `clock/advance`…), or undefined. */
export function controlCall(req: ProxyRequest): string | undefined {
  const match = /^\/sandbox\/v1\/(.+?)\/?(?:\?.*)?$/.exec(req.path);
  if (!match) return undefined;
  const rest = match[1]!;
  const transition = /^payment-requests\/[^/]+\/(complete|fail|expire)$/.exec(rest);
  if (transition) return transition[1];
  return rest;
}

/** The account's clock now (ms), as the control API says. */
export async function clockNow(ctx: ProxyContext, key: string): Promise<number> {
  const answer = await ctx.upstream('GET', '/sandbox/v1/clock', { key });
  return Date.parse(answer.body?.now);
}

/** Remembers every payment request id answered, and which key saw it (for loose lookups and stale answers). */
export function idRegistry(): { ids: Map<string, string>; hooks: Hooks } {
  const ids = new Map<string, string>();
  return {
    ids,
    hooks: onObjects((pr, req) => {
      if (typeof pr.id === 'string' && req.key !== undefined) ids.set(pr.id, req.key);
    }),
  };
}

/** Rewrites the `{id}` path segment of a v1 or control path. */
export function withId(path: string, id: string): string {
  return path.replace(/^(\/api\/v1\/payment-requests\/|\/sandbox\/v1\/payment-requests\/)[^/?]+/, `$1${encodeURIComponent(id)}`);
}

export { jsonResponse };
